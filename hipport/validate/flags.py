"""What a unit's compile takes from a tree, and the grammar each such value must match first.

A tree hands a compile command values by four routes: its compile_commands.json (`validate
-p`, read here), its CMakeLists.txt and Makefiles and the programs entries of a
configuration file (read in project.py). Every value arrives as a `Value` that says what it
is and where it was written (file and line), and `Checker.flags` keeps the ones that match
and drops the others, with one note each naming that file and line:

* a define (`-D`) is NAME or NAME=VALUE: NAME a C identifier; VALUE printable, with no control
  character, no `;` (where a shell ends a command and CMake a list item: no build would hand
  the compiler that as one value), no backquote and no `$` (substitutions);
* an undefine (`-U`) is a C identifier;
* an include folder (`-I`, `-isystem`) is an existing folder inside the tree (with `-p DIR`,
  the compile database's folder counts as the tree too), one the compiler searches by default
  (or a folder below one), or one given with `-I` on hipport's command line (or below it);
* a forced include (`-include`) is an existing file inside the tree;
* a language standard is one of the `-std=` spellings clang knows (`STANDARDS`);
* and whatever its kind, a value that begins with `-` (an option) or `@` (a response file) is
  dropped.

Paths are made absolute before use, so no word of a compile command that came from a tree
begins with `-` or `@` unless hipport put it there. Values typed on hipport's own command line
(-I, -D) are the user's and taken as given (`cli_flags`). Nothing here runs anything: the
commands these flags join are argv lists, never read by a shell (docs/security.md).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hipport.errors import HipportError

DEFINE, UNDEFINE, INCLUDE, SYSTEM_INCLUDE, FORCED, STD = (
    "define", "undefine", "include folder", "system include folder", "forced include", "language standard")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BAD_IN_VALUE = re.compile(r"[\x00-\x1f\x7f;`$]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# The -std= spellings clang 15 to 19 know for C++ and C (and their GNU dialects).
STANDARDS = frozenset(
    [f"{p}{v}" for p in ("c++", "gnu++") for v in ("98", "03", "0x", "11", "1y", "14", "1z", "17", "2a", "20",
                                                    "2b", "23", "2c", "26")]
    + [f"{p}{v}" for p in ("c", "gnu") for v in ("89", "90", "99", "9x", "11", "1x", "17", "18", "2x", "23")]
    + ["iso9899:1990", "iso9899:199409", "iso9899:1999", "iso9899:2011", "iso9899:2017", "iso9899:2018",
       "cuda", "hip"])
# Folders every compiler searches for <...> includes, with or without the toolchain's own list.
SYSTEM_DIRS = ("/usr/include", "/usr/local/include")


@dataclass(frozen=True)
class Flags:
    """What a unit's compile needs: include folders, defines, a language standard, forced includes."""

    includes: tuple[Path, ...] = ()
    system_includes: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()  # "NAME" / "NAME=VALUE"; "-UNAME" kept as "!NAME"
    std: str | None = None
    forced: tuple[Path, ...] = ()

    def merged(self, other: Flags) -> Flags:
        return Flags(tuple(dict.fromkeys(self.includes + other.includes)),
                     tuple(dict.fromkeys(self.system_includes + other.system_includes)),
                     tuple(dict.fromkeys(self.defines + other.defines)),
                     other.std or self.std, tuple(dict.fromkeys(self.forced + other.forced)))


@dataclass(frozen=True)
class Value:
    """One value a tree gives a compile, as its file wrote it, and where."""

    kind: str  # DEFINE, UNDEFINE, INCLUDE, SYSTEM_INCLUDE, FORCED, STD
    text: str
    file: Path  # the build file, compile database or configuration file
    line: int | None
    base: Path | None = None  # the folder a relative path is taken from


@dataclass(frozen=True)
class Dropped:
    """A value of the tree that did not reach the compiler, and why."""

    file: str  # as the user would type it (relative to the current folder when inside it)
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: note: {self.message}" if self.line else f"{self.file}: note: {self.message}"


def cli_flags(includes: Sequence[Path], defines: Sequence[str]) -> Flags:
    """-I and -D from hipport's command line: the user's own, taken as given."""
    return Flags(tuple(p.resolve() for p in includes), (), tuple(defines))


class Checker:
    """Checks the values of one tree against the grammar (see the module doc); remembers each
    value it dropped once, however many units it reached."""

    def __init__(self, tree: Path | Iterable[Path], search_dirs: Iterable[str | Path] = (),
                 given_dirs: Iterable[Path] = ()) -> None:
        """`tree`: the tree's root folder (or folders: with `-p DIR`, the compile database's
        folder too, which the user named); `search_dirs`: the compiler's default include
        folders; `given_dirs`: the -I folders of hipport's command line."""
        self.roots = tuple(p.resolve() for p in ([tree] if isinstance(tree, Path) else tree))
        self.search = tuple(dict.fromkeys(Path(os.path.realpath(d)) for d in (*SYSTEM_DIRS, *search_dirs)))
        self.given = tuple(p.resolve() for p in given_dirs)
        self._dropped: dict[tuple[str, int | None, str], Dropped] = {}

    @property
    def dropped(self) -> list[Dropped]:
        return list(self._dropped.values())

    def flags(self, values: Iterable[Value]) -> Flags:
        inc: list[Path] = []
        sysinc: list[Path] = []
        defs: list[str] = []
        forced: list[Path] = []
        std: str | None = None
        for v in values:
            why = self._why_not(v)
            if why:
                self._drop(v, why)
            elif v.kind == DEFINE:
                defs.append(v.text)
            elif v.kind == UNDEFINE:
                defs.append("!" + v.text)
            elif v.kind == STD:
                std = v.text
            else:
                p = _absolute(v)
                {INCLUDE: inc, SYSTEM_INCLUDE: sysinc}.get(v.kind, forced).append(p)
        return Flags(tuple(dict.fromkeys(inc)), tuple(dict.fromkeys(sysinc)), tuple(dict.fromkeys(defs)), std,
                     tuple(dict.fromkeys(forced)))

    def _why_not(self, v: Value) -> str:
        t = v.text
        if not t:
            return "it is empty"
        if t.startswith("-"):
            return "it is an option, not a value"
        if t.startswith("@"):
            return "a response file (@file) is never read"
        if v.kind == DEFINE:
            name, eq, value = t.partition("=")
            if not _IDENTIFIER.fullmatch(name):
                return "the name is not a C identifier"
            bad = _BAD_IN_VALUE.search(value) if eq else None
            if bad:
                return f"its value holds {_shown_char(bad.group(0))}"
            return ""
        if v.kind == UNDEFINE:
            return "" if _IDENTIFIER.fullmatch(t) else "the name is not a C identifier"
        if v.kind == STD:
            return "" if t in STANDARDS else "not a language standard clang knows"
        if _CONTROL.search(t):
            return "the path holds a control character"
        p = _absolute(v)
        if v.kind == FORCED:
            if not p.is_file():
                return "no such file"
            return "" if _inside(p, self.roots) else "the file is outside the tree"
        if not p.is_dir():
            return "no such folder"
        if _inside(p, (*self.roots, *self.given)) or _inside(p, self.search):
            return ""
        return "the folder is outside the tree and not one the compiler searches"

    def _drop(self, v: Value, why: str) -> None:
        key = (str(v.file), v.line, f"{v.kind}\0{v.text}")
        if key not in self._dropped:
            shown = v.text if len(v.text) <= 200 else v.text[:199] + "…"
            self._dropped[key] = Dropped(_display(v.file), v.line,
                                         f"{v.kind} {shown!r} not passed to the compiler: {why}")


def _absolute(v: Value) -> Path:
    p = Path(v.text)
    if not p.is_absolute():
        p = (v.base or v.file.parent) / p
    return p.resolve()


def _inside(p: Path, folders: Iterable[Path]) -> bool:
    return any(p == f or f in p.parents for f in folders)


def _shown_char(c: str) -> str:
    return {";": "a ';'", "`": "a backquote", "$": "a '$'"}.get(c, f"the control character {c!r}")


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


# --- compile_commands.json ---------------------------------------------------------------------

# option -> kind, for the spellings nvcc and clang use with the value in the next word
_SEPARATE = {"-I": INCLUDE, "-isystem": SYSTEM_INCLUDE, "-D": DEFINE, "-U": UNDEFINE, "-include": FORCED,
             "--include-path": INCLUDE, "--define-macro": DEFINE, "--undefine-macro": UNDEFINE,
             "--pre-include": FORCED, "--system-include": SYSTEM_INCLUDE, "-std": STD, "--std": STD}
# and with the value joined: -IDIR, -DNAME, --include-path=DIR, -std=c++17
_JOINED = (("-isystem", SYSTEM_INCLUDE), ("-I", INCLUDE), ("-D", DEFINE), ("-U", UNDEFINE))
_EQUALS = {"--include-path": INCLUDE, "--define-macro": DEFINE, "--undefine-macro": UNDEFINE,
           "--pre-include": FORCED, "--system-include": SYSTEM_INCLUDE, "-std": STD, "--std": STD}


def command_values(args: Sequence[str], directory: Path, file: Path, line: int | None = None) -> list[Value]:
    """The include folders, defines, standard and forced includes of one compile command
    (nvcc or clang spelling); every other argument (the compiler, its options, outputs,
    response files) is not read."""
    out: list[Value] = []
    i = 0
    while i < len(args):
        x = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if x in _SEPARATE:
            if nxt is not None:
                out.append(Value(_SEPARATE[x], nxt, file, line, directory))
            i += 2
            continue
        opt, eq, value = x.partition("=")
        if eq and opt in _EQUALS:
            out.append(Value(_EQUALS[opt], value, file, line, directory))
        else:
            for flag, kind in _JOINED:
                if x.startswith(flag) and len(x) > len(flag) and not (flag == "-I" and x.startswith("-isystem")):
                    out.append(Value(kind, x[len(flag):], file, line, directory))
                    break
        i += 1
    return out


def load_compdb(where: Path) -> dict[Path, list[Value]]:
    """Resolved source path -> the values of its entry, from compile_commands.json (a folder
    or the file); each value carries the line it is written on."""
    f = where / "compile_commands.json" if where.is_dir() else where
    try:
        text = f.read_text(encoding="utf-8")
    except OSError as e:
        raise HipportError(f"cannot read compile_commands.json: {e.strerror or e}", f) from None
    except UnicodeDecodeError as e:
        raise HipportError(f"invalid compile_commands.json: {e}", f) from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise HipportError(f"invalid compile_commands.json: {e}", f) from None
    if not isinstance(data, list):
        raise HipportError("compile_commands.json must hold a list of entries", f)
    starts = _entry_starts(text, len(data))
    newlines = [m.start() for m in re.finditer("\n", text)]
    out: dict[Path, list[Value]] = {}
    for n, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        d = Path(entry["directory"]) if isinstance(entry.get("directory"), str) else f.parent
        args = entry.get("arguments")
        if not isinstance(args, list):
            try:
                args = shlex.split(str(entry.get("command", "")))
            except ValueError:  # an unbalanced quote: nothing of it is read
                args = []
        src = Path(entry["file"])
        src = (src if src.is_absolute() else d / src).resolve()
        start, end = starts[n], starts[n + 1] if n + 1 < len(starts) else len(text)
        values = command_values([str(x) for x in args[1:]], d, f)
        out[src] = [Value(v.kind, v.text, v.file, _line_in(text, newlines, start, end, v.text), v.base)
                    for v in values]
    return out


def _entry_starts(text: str, n: int) -> list[int]:
    """The offset of each entry of the top-level list (for line numbers)."""
    dec = json.JSONDecoder()
    starts: list[int] = []
    i = text.find("[") + 1
    ws = re.compile(r"[\s,]*")
    while len(starts) < n:
        i = ws.match(text, i).end()  # type: ignore[union-attr]
        starts.append(i)
        try:
            _, i = dec.raw_decode(text, i)
        except ValueError:
            break
    return starts + [len(text)] * (n - len(starts))


def _line_in(text: str, newlines: list[int], start: int, end: int, value: str) -> int:
    """The line within text[start:end] that holds `value` (as JSON writes it, else as it is),
    else the line the span starts on (`newlines`: the offsets of text's line ends)."""
    at = -1
    for form in (json.dumps(value), json.dumps(value, ensure_ascii=False), value):
        at = text.find(form, start, end)
        if at >= 0:
            break
    return bisect.bisect_left(newlines, at if at >= 0 else start) + 1
