"""What a build would know without a build: programs, their sources, include folders, defines.

Without compile_commands.json, hipport reads the project's own build files the simple way:
CMakeLists.txt (`add_executable`, `include_directories`, `target_include_directories`,
`add_compile_definitions`, `CMAKE_CXX_STANDARD`) and Makefiles (`-I`, `-D`, `-std=`). It is a
best effort that covers sample-sized projects; `-p DIR` and `-I/-D` take over when given.

A *program* is a source file with `main` (plus the sources its CMake target lists, or the
other sources of its project folder that have no `main`), or a `[[validate.programs]]` entry of
the configuration file. Its expected output is `NAME.expected` next to the main file, or
`expected_output.txt` in its project folder.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipport.errors import HipportError
from hipport.validate.compile import Flags
from hipport.validate.tree import TU_EXT, has_main

BUILD_FILES = ("CMakeLists.txt", "Makefile", "makefile", "GNUmakefile")


@dataclass
class Program:
    name: str  # how results name it: the main file as the user gave it, or the config's name
    main: Path  # absolute path of the file with main (an original, or a copy without originals)
    sources: list[Path]  # absolute paths, main first
    args: list[str] = field(default_factory=list)
    expected: Path | None = None
    flags: Flags = field(default_factory=Flags)
    project_dir: Path | None = None
    stdin: str | None = None
    # A program that checks itself (compares with a CPU reference, then benchmarks): it passes
    # when a line of its output matches this, and is stopped there.
    passed_when: str | None = None
    # Problem sizes to run at: NAME = value for an integer initialiser (`int B = 8;`) or a
    # `#define` of the main file, rewritten in a copy of it.
    shrink: tuple[tuple[str, str], ...] = ()


def project_dir(path: Path, stop: Path) -> Path | None:
    """The nearest folder at or above `path`'s folder (not above `stop`) with a build file."""
    d = path.parent
    stop = stop.resolve()
    while True:
        if any((d / n).is_file() for n in BUILD_FILES):
            return d
        if d == stop or d.parent == d or not d.is_relative_to(stop):
            return None
        d = d.parent


# --- CMake ------------------------------------------------------------------------------------

_CMAKE_CMD = re.compile(r"\b(add_executable|include_directories|target_include_directories|"
                        r"add_compile_definitions|add_definitions|target_compile_definitions|"
                        r"set)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.I | re.S)
_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER", "WIN32", "MACOSX_BUNDLE",
             "EXCLUDE_FROM_ALL", "IMPORTED", "ALIAS"}


def _cmake_args(body: str) -> list[str]:
    body = re.sub(r"#[^\n]*", "", body)
    try:
        return shlex.split(body)
    except ValueError:
        return body.split()


def _expand(s: str, d: Path) -> str | None:
    s = (s.replace("${CMAKE_CURRENT_SOURCE_DIR}", str(d)).replace("${CMAKE_CURRENT_LIST_DIR}", str(d))
         .replace("${PROJECT_SOURCE_DIR}", str(d)).replace("${CMAKE_SOURCE_DIR}", str(d)))
    return None if ("${" in s or "$<" in s) else s


@dataclass
class CMakeInfo:
    executables: dict[str, list[Path]] = field(default_factory=dict)
    includes: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    std: str | None = None


def read_cmake(path: Path) -> CMakeInfo:
    info = CMakeInfo()
    d = path.parent
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return info
    text = re.sub(r"#[^\n]*", "", text)
    for m in _CMAKE_CMD.finditer(text):
        cmd = m.group(1).lower()
        args = _cmake_args(m.group(2))
        if not args:
            continue
        if cmd == "add_executable":
            srcs = [_expand(a, d) for a in args[1:] if a not in _KEYWORDS]
            info.executables[args[0]] = [(d / s).resolve() for s in srcs if s and Path(s).suffix.lower() in TU_EXT]
        elif cmd in ("include_directories", "target_include_directories"):
            rest = args if cmd == "include_directories" else args[1:]
            for a in rest:
                if a in _KEYWORDS:
                    continue
                e = _expand(a, d)
                if e:
                    info.includes.append((d / e).resolve())
        elif cmd in ("add_compile_definitions", "add_definitions", "target_compile_definitions"):
            rest = args if cmd != "target_compile_definitions" else args[1:]
            for a in rest:
                if a in _KEYWORDS:
                    continue
                a = a[2:] if a.startswith("-D") else a
                if a and "$" not in a and not a.startswith("-"):
                    info.defines.append(a)
        elif cmd == "set" and args[0] in ("CMAKE_CXX_STANDARD", "CMAKE_CUDA_STANDARD") and len(args) > 1:
            if args[1].isdigit() and (info.std is None or args[0] == "CMAKE_CXX_STANDARD"):
                info.std = f"c++{args[1]}"
    return info


def read_makefile(path: Path) -> Flags:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return Flags()
    d = path.parent
    inc = [(d / m.group(1)).resolve() for m in re.finditer(r"(?<!\S)-I\s*([^\s$()]+)", text)]
    defs = [m.group(1) for m in re.finditer(r"(?<!\S)-D\s*([A-Za-z_]\w*(?:=[^\s$()]*)?)", text)]
    std = re.search(r"(?<!\S)-?-std=(c\+\+\w+|gnu\+\+\w+)", text)
    return Flags(tuple(inc), (), tuple(defs), std.group(1) if std else None)


def project_flags(pdir: Path | None) -> Flags:
    if pdir is None:
        return Flags()
    flags = Flags()
    cm = pdir / "CMakeLists.txt"
    if cm.is_file():
        info = read_cmake(cm)
        flags = flags.merged(Flags(tuple(info.includes), (), tuple(info.defines), info.std))
    for n in BUILD_FILES[1:]:
        mk = pdir / n
        if mk.is_file():
            flags = flags.merged(read_makefile(mk))
    return flags


# --- programs ---------------------------------------------------------------------------------

def expected_for(main: Path, pdir: Path | None) -> Path | None:
    for cand in (main.with_suffix(".expected"), main.parent / (main.name + ".expected")):
        if cand.is_file():
            return cand
    if pdir is not None:
        for name in ("expected_output.txt", f"{pdir.name}.expected", "expected.txt"):
            if (pdir / name).is_file():
                return pdir / name
    return None


def find_programs(sources: list[tuple[str, Path]], stop: Path) -> list[Program]:
    """Programs among `sources` ((display, absolute path) of every C/C++/CUDA source)."""
    data: dict[Path, bytes] = {}
    for _, p in sources:
        try:
            data[p] = p.read_bytes()
        except OSError:
            data[p] = b""
    progs: list[Program] = []
    for display, p in sources:
        if p.suffix.lower() not in TU_EXT or not has_main(data[p]):
            continue
        pdir = project_dir(p, stop)
        srcs: list[Path] | None = None
        if pdir is not None and (pdir / "CMakeLists.txt").is_file():
            for exe in read_cmake(pdir / "CMakeLists.txt").executables.values():
                if p.resolve() in exe:
                    srcs = [p] + [s for s in exe if s != p.resolve() and s.is_file()]
                    break
        if srcs is None:
            scope = pdir or p.parent
            srcs = [p] + [q for _, q in sources if q != p and q.suffix.lower() in TU_EXT
                          and q.is_relative_to(scope) and not has_main(data.get(q, b""))
                          and (pdir is not None or q.parent == p.parent)]
        progs.append(Program(display, p, srcs, expected=expected_for(p, pdir),
                             flags=project_flags(pdir), project_dir=pdir))
    return progs


def configured_programs(config_file: Path | None) -> list[Program]:
    """`[[validate.programs]]` (or `[[tool.hipport.validate.programs]]`, or `[[programs]]` in a
    file given with `validate --programs FILE`) entries:

    name = "app"; sources = ["src/main.cu", "src/util.cu"]; args = ["--n", "64"] (or a string);
    expected = "expected.txt"; include = ["include"]; defines = ["USE_X=1"]; stdin = "...";
    passed_when = "All results match" (a regular expression: the program's own check passed,
    stop it there); shrink = { B = 2, T = 64 } (integer sizes of the main file to run at).
    Paths are relative to the configuration file.
    """
    if config_file is None or not config_file.is_file():
        return []
    try:
        data = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    if config_file.name == "pyproject.toml":
        data = data.get("tool", {}).get("hipport", {})
    table = data.get("validate", data)  # [[validate.programs]], or [[programs]] in a file of its own
    if not isinstance(table, dict):
        return []
    out: list[Program] = []
    base = config_file.parent
    for i, e in enumerate(table.get("programs", [])):
        where = f"[[validate.programs]] entry {i + 1}"
        if not isinstance(e, dict) or not e.get("sources"):
            raise HipportError(f"{where}: needs a 'sources' list", config_file)
        srcs = [(base / s).resolve() for s in _list(e["sources"])]
        for s in srcs:
            if not s.is_file():
                raise HipportError(f"{where}: no such source file {s}", config_file)
        args = e.get("args", [])
        args = shlex.split(args) if isinstance(args, str) else [str(a) for a in args]
        exp = e.get("expected")
        flags = Flags(tuple((base / p).resolve() for p in _list(e.get("include", []))), (),
                      tuple(_list(e.get("defines", []))), e.get("std"))
        passed = e.get("passed_when")
        if passed is not None:
            try:
                re.compile(passed)
            except (re.error, TypeError) as err:
                raise HipportError(f"{where}: 'passed_when' is not a regular expression: {err}", config_file) from None
        shrink = e.get("shrink", {})
        if not isinstance(shrink, dict) or not all(
                isinstance(k, str) and k.isidentifier() and isinstance(v, int) and not isinstance(v, bool)
                for k, v in shrink.items()):
            raise HipportError(f"{where}: 'shrink' must be a table of NAME = integer", config_file)
        out.append(Program(str(e.get("name") or srcs[0].name), srcs[0], srcs, args,
                           (base / exp).resolve() if exp else None, flags, base, e.get("stdin"),
                           passed, tuple((k, str(v)) for k, v in shrink.items())))
    return out


def shrunk(text: str, sizes: tuple[tuple[str, str], ...]) -> tuple[str, list[str]]:
    """`text` with each NAME's integer initialiser (`int B = 8;`, `const long n = 1 << 20;`) or
    `#define NAME ...` set to its value; and the names it found nowhere."""
    missing = []
    for name, value in sizes:
        n = re.escape(name)
        text, k1 = re.subn(rf"(?m)^([ \t]*#[ \t]*define[ \t]+{n}[ \t]+)[^\n]*?([ \t]*(?://[^\n]*)?)$",
                           rf"\g<1>{value}\g<2>", text)
        text, k2 = re.subn(rf"(?m)^([ \t]*(?:(?:const|constexpr|static)\s+)*{_INTEGER}\s+{n}\s*=\s*)[^;,\n]+",
                           rf"\g<1>{value}", text)
        if not k1 + k2:
            missing.append(name)
    return text, missing


_INTEGER = (r"(?:(?:unsigned|signed)\s+)?(?:int|long\s+long|long|short|size_t|ssize_t|"
            r"u?int(?:8|16|32|64)_t)(?:\s+int)?")


def _list(v: Any) -> list[str]:
    return [v] if isinstance(v, str) else [str(x) for x in v]
