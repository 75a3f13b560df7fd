"""What a build would know without a build: programs, their sources, include folders, defines.

Without compile_commands.json, hipport reads the project's own build files the simple way:
CMakeLists.txt (`add_executable`, `include_directories`, `target_include_directories`,
`add_compile_definitions`, `CMAKE_CXX_STANDARD`) and Makefiles (`-I`, `-D`, `-std=`). It is a
best effort that covers sample-sized projects; `-p DIR` and `-I/-D` take over when given.
The values read are tree values with their file and line (flags.Value): nothing here decides
whether they reach a compiler; flags.Checker does.

A *program* is a source file with `main` (plus the sources its CMake target lists, or the
other sources of its project folder that have no `main`), or a `[[validate.programs]]` entry of
the configuration file. Its expected output is `NAME.expected` next to the main file, or
`expected_output.txt` in its project folder.
"""

from __future__ import annotations

import functools
import re
import shlex
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipport.errors import HipportError
from hipport.validate.flags import DEFINE, INCLUDE, STD, Flags, Value
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


def _items(arg: str) -> list[str]:
    """A CMake argument as the list CMake makes of it: a `;` separates items (quoted or not)."""
    return [x for x in arg.split(";") if x]


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _line_in_command(text: str, m: re.Match[str], item: str) -> int:
    """The line of `item` in the command `m` matched (else the command's first line)."""
    k = m.group(2).find(item)
    return _line(text, m.start(2) + k if k >= 0 else m.start())


@dataclass
class CMakeInfo:
    executables: dict[str, list[Path]] = field(default_factory=dict)
    values: list[Value] = field(default_factory=list)  # include folders, defines, the standard


def read_cmake(path: Path) -> CMakeInfo:
    info = CMakeInfo()
    d = path.parent
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return info
    text = re.sub(r"#[^\n]*", "", text)  # keeps the lines where they are
    for m in _CMAKE_CMD.finditer(text):
        cmd = m.group(1).lower()
        args = _cmake_args(m.group(2))
        if not args:
            continue
        line_of = functools.partial(_line_in_command, text, m)
        if cmd == "add_executable":
            srcs = [_expand(a, d) for a in args[1:] if a not in _KEYWORDS]
            info.executables[args[0]] = [(d / s).resolve() for s in srcs if s and Path(s).suffix.lower() in TU_EXT]
        elif cmd in ("include_directories", "target_include_directories"):
            rest = args if cmd == "include_directories" else args[1:]
            for a in rest:
                if a in _KEYWORDS:
                    continue
                e = _expand(a, d)  # a variable it cannot expand: not read
                for item in _items(e) if e else []:
                    info.values.append(Value(INCLUDE, item, path, line_of(item), d))
        elif cmd in ("add_compile_definitions", "add_definitions", "target_compile_definitions"):
            rest = args if cmd != "target_compile_definitions" else args[1:]
            for a in rest:
                if a in _KEYWORDS or "$" in a:  # a variable or generator expression: not read
                    continue
                for item in _items(a):
                    name = item[2:] if item.startswith("-D") else item  # CMake drops a leading -D
                    info.values.append(Value(DEFINE, name, path, line_of(item), d))
        elif cmd == "set" and args[0] in ("CMAKE_CXX_STANDARD", "CMAKE_CUDA_STANDARD") and len(args) > 1 \
                and "$" not in args[1]:
            std = [v for v in info.values if v.kind == STD]
            if not std or args[0] == "CMAKE_CXX_STANDARD":  # C++'s standard wins over CUDA's
                info.values = [v for v in info.values if v.kind != STD]
                info.values.append(Value(STD, f"c++{args[1]}", path, line_of(args[1]), d))
    return info


# Makefiles: -I, -D and -std= words anywhere (a value naming a make variable is not read).
_MAKE_INCLUDE = re.compile(r"(?<!\S)-I[ \t]*([^\s$()]+)")
_MAKE_DEFINE = re.compile(r"(?<!\S)-D[ \t]*([^\s$()]+)")
_MAKE_STD = re.compile(r"(?<!\S)-?-std=(c\+\+\w+|gnu\+\+\w+)")


def read_makefile(path: Path) -> list[Value]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    d = path.parent
    out = [Value(INCLUDE, m.group(1), path, _line(text, m.start()), d) for m in _MAKE_INCLUDE.finditer(text)]
    out += [Value(DEFINE, m.group(1), path, _line(text, m.start()), d) for m in _MAKE_DEFINE.finditer(text)]
    std = _MAKE_STD.search(text)
    if std:
        out.append(Value(STD, std.group(1), path, _line(text, std.start()), d))
    return out


def project_values(pdir: Path | None) -> list[Value]:
    """The include folders, defines and standard the project's own build files give, each
    with its file and line, not yet checked (flags.Checker checks them)."""
    if pdir is None:
        return []
    values: list[Value] = []
    cm = pdir / "CMakeLists.txt"
    if cm.is_file():
        values += read_cmake(cm).values
    for n in BUILD_FILES[1:]:
        mk = pdir / n
        if mk.is_file():
            values += read_makefile(mk)
    return values


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


Check = Callable[[Sequence[Value]], Flags]  # a tree's values -> the flags that pass (flags.Checker)


def find_programs(sources: list[tuple[str, Path]], stop: Path, check: Check) -> list[Program]:
    """Programs among `sources` ((display, absolute path) of every C/C++/CUDA source); their
    flags are their project's build-file values that pass `check`."""
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
                             flags=check(project_values(pdir)), project_dir=pdir))
    return progs


def configured_programs(config_file: Path | None, check: Check) -> list[Program]:
    """`[[validate.programs]]` (or `[[tool.hipport.validate.programs]]`, or `[[programs]]` in a
    file given with `validate --programs FILE`) entries:

    name = "app"; sources = ["src/main.cu", "src/util.cu"]; args = ["--n", "64"] (or a string);
    expected = "expected.txt"; include = ["include"]; defines = ["USE_X=1"]; stdin = "...";
    passed_when = "All results match" (a regular expression: the program's own check passed,
    stop it there); shrink = { B = 2, T = 64 } (integer sizes of the main file to run at).
    Paths are relative to the configuration file. `include`, `defines` and `std` are tree
    values: what passes `check` becomes the program's flags.
    """
    if config_file is None or not config_file.is_file():
        return []
    try:
        text = config_file.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
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
        values = [Value(kind, v, config_file, _key_line(text, i, key), base)
                  for key, kind in (("include", INCLUDE), ("defines", DEFINE), ("std", STD))
                  for v in _list(e.get(key, []))]
        flags = check(values)
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


_PROGRAMS_TABLE = re.compile(r"\s*\[\[\s*(?:tool\.hipport\.)?(?:validate\.)?programs\s*\]\]")


def _key_line(text: str, entry: int, key: str) -> int | None:
    """The line of `key = ...` in the `entry`-th (0-based) [[programs]] table of `text`."""
    seen = -1
    for n, line in enumerate(text.splitlines(), 1):
        if _PROGRAMS_TABLE.match(line):
            seen += 1
        elif seen == entry and re.match(rf"\s*{re.escape(key)}\s*=", line):
            return n
        elif seen == entry and line.lstrip().startswith("["):
            break
    return None


def _list(v: Any) -> list[str]:
    return [v] if isinstance(v, str) else [str(x) for x in v]
