"""CMake list files: the CUDA language becomes HIP compiled by hipcc as the C++ compiler.

Debian 12's CMake (3.25) cannot enable the HIP language: it needs a ROCm root with
lib/cmake/hip-lang, which Debian's layout does not have. So the port keeps to what works
there and on a full ROCm install alike: before the first `project()` that names CUDA, hipcc
becomes the C++ compiler (unless one was chosen) with the AMD targets in CMAKE_CXX_FLAGS;
CUDA drops out of the languages; `.cu` sources are compiled as C++ with `-xhip`;
`find_package(CUDAToolkit)` becomes `find_package(hip)`; CUDA:: targets, CUDA variables,
properties, features and nvcc options become their HIP counterparts (rules/build/*.toml).

Commands are read with CMake's own lexical rules (quoted, bracket and unquoted arguments,
line and bracket comments); a file that does not read as CMake is left alone with a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hipport.build import flags
from hipport.build.flags import Change, Note, Word
from hipport.build.tables import Tables
from hipport.registry import HP

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_CUDA_WORD = re.compile(r"\bCUDA(?:Toolkit)?\b|CUDA::|\bnvcc\b|CMAKE_CUDA_|\bCUDA_[A-Z]")
_TARGET = re.compile(r"CUDA::([A-Za-z0-9_]+)")
_LEGACY_LIB = re.compile(r"\$\{CUDA_([A-Za-z0-9]+?)(?:_static)?_LIBRAR(?:Y|IES)\}")
_FLAG_VARS = re.compile(r"CMAKE_CUDA_FLAGS(_[A-Z]+)?$")
_FLAG_COMMANDS = {"target_compile_options", "add_compile_options", "target_link_options",
                  "add_link_options"}
_TARGET_COMMANDS = {"add_executable", "add_library"}
_NON_BUILDING = {"IMPORTED", "ALIAS", "INTERFACE"}
_LANG_GENEX = re.compile(r"\$<(COMPILE_LANGUAGE|LINK_LANGUAGE):([^>]*)>")


class CMakeSyntaxError(ValueError):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass
class Arg:
    text: str
    start: int
    end: int
    kind: str  # "quoted", "unquoted", "bracket", "paren"

    @property
    def value(self) -> str:
        return self.text[1:-1] if self.kind == "quoted" else self.text


@dataclass
class Command:
    name: str  # lower case
    start: int  # the command name
    close: int  # after ")"
    line_start: int
    indent: str
    args: list[Arg]


def parse(text: str) -> list[Command]:
    out: list[Command] = []
    i, n = 0, len(text)
    line_start = 0
    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            line_start = i
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "#":
            i = _comment_end(text, i)
            continue
        m = _IDENT.match(text, i)
        if not m:
            raise CMakeSyntaxError(i, f"unexpected {c!r} outside a command")
        j = m.end()
        while j < n and text[j] in " \t":
            j += 1
        if j >= n or text[j] != "(":
            raise CMakeSyntaxError(i, f"{m.group(0)} is not followed by '('")
        args, close = _arguments(text, j + 1)
        out.append(Command(m.group(0).lower(), i, close, line_start,
                           text[line_start:i] if not text[line_start:i].strip() else "", args))
        i = close
    return out


def _comment_end(text: str, i: int) -> int:
    b = _BRACKET_OPEN.match(text, i + 1)
    if b:
        end = text.find("]" + b.group(1) + "]", b.end())
        if end < 0:
            raise CMakeSyntaxError(i, "unterminated bracket comment")
        return end + len(b.group(1)) + 2
    nl = text.find("\n", i)
    return len(text) if nl < 0 else nl


def _arguments(text: str, i: int) -> tuple[list[Arg], int]:
    args: list[Arg] = []
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            i = _comment_end(text, i)
        elif c == "(":
            depth += 1
            args.append(Arg("(", i, i + 1, "paren"))
            i += 1
        elif c == ")":
            if depth == 0:
                return args, i + 1
            depth -= 1
            args.append(Arg(")", i, i + 1, "paren"))
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise CMakeSyntaxError(i, "unterminated quoted argument")
            args.append(Arg(text[i:j + 1], i, j + 1, "quoted"))
            i = j + 1
        elif c == "[" and _BRACKET_OPEN.match(text, i):
            b = _BRACKET_OPEN.match(text, i)
            assert b is not None
            end = text.find("]" + b.group(1) + "]", b.end())
            if end < 0:
                raise CMakeSyntaxError(i, "unterminated bracket argument")
            end += len(b.group(1)) + 2
            args.append(Arg(text[i:end], i, end, "bracket"))
            i = end
        else:
            j, gdepth = i, 0
            while j < n:
                c = text[j]
                if c == "\\" and j + 1 < n:
                    j += 2
                    continue
                if c == "$" and text.startswith("$<", j):
                    gdepth += 1
                elif c == ">" and gdepth:
                    gdepth -= 1
                elif c in " \t\r\n()#" or (c == '"' and gdepth == 0):
                    break
                j += 1
            args.append(Arg(text[i:j], i, j, "unquoted"))
            i = j
    raise CMakeSyntaxError(i, "a command's '(' is never closed")


class _Porter:
    def __init__(self, text: str, t: Tables, archs: tuple[str, ...]) -> None:
        self.text, self.t, self.archs = text, t, archs
        self.nl = "\r\n" if "\r\n" in text else "\n"
        self.changes: list[Change] = []
        self.notes: list[Note] = []
        self.packages_done: set[str] = set()
        self.touched: list[tuple[int, int]] = []  # spans already rewritten (renames skip them)

    # -- helpers --------------------------------------------------------------------------
    def change(self, start: int, end: int, new: str) -> None:
        self.changes.append(Change(start, end, new))
        self.touched.append((start, end))

    def note(self, rule: str, severity: str, start: int, end: int, msg: str) -> None:
        self.notes.append(Note(rule, severity, start, end, msg))

    def drop_args(self, cmd: Command, drop: list[int]) -> None:
        """Remove these arguments with the space before each run of them."""
        ws = [Word(a.text, a.start, a.end) for a in cmd.args]
        out: list[str | None] = [None if i in drop else a.text for i, a in enumerate(ws)]
        for ch in flags._edits(ws, out, {}):
            self.change(ch.start, ch.end, ch.text)

    def insert_before(self, cmd: Command, lines: list[str]) -> None:
        at = cmd.line_start if cmd.indent or cmd.line_start == cmd.start else cmd.start
        body = "".join(cmd.indent + ln + self.nl for ln in lines)
        if at == cmd.start and at != cmd.line_start:  # shares its line with other code
            body = body.lstrip()
        self.changes.append(Change(at, at, body))

    def insert_after(self, cmd: Command, lines: list[str]) -> None:
        body = "".join(self.nl + cmd.indent + ln for ln in lines)
        self.changes.append(Change(cmd.close, cmd.close, body))

    # -- the pass ---------------------------------------------------------------------------
    def run(self, cmds: list[Command]) -> None:
        needs_hip = any(self._names_cuda_language(c) for c in cmds)
        prelude_done = False
        for c in cmds:
            if needs_hip and not prelude_done and c.name == "project":
                self.insert_before(c, self._prelude())
                prelude_done = True
            getattr(self, "cmd_" + c.name, self.cmd_other)(c)
            self._libraries(c)
            self._genex(c)
            self._renames(c)
            self._leftovers(c)

    def _names_cuda_language(self, c: Command) -> bool:
        vals = [a.value for a in c.args]
        return (c.name == "project" and "CUDA" in vals[1:]) or \
            (c.name == "enable_language" and "CUDA" in vals)

    def _prelude(self) -> list[str]:
        arch = " ".join(f"--offload-arch={a}" for a in self.archs)
        return ["# hipport: hipcc compiles the CUDA sources as HIP, as the C++ compiler "
                "(hipport explain HP015)",
                "if(NOT DEFINED CMAKE_CXX_COMPILER)",
                "  set(CMAKE_CXX_COMPILER hipcc)",
                "endif()",
                f'string(APPEND CMAKE_CXX_FLAGS_INIT " {arch}")']

    def _hp011(self, a: Arg) -> None:
        self.note(HP.BUILD_FILE_HIP, "info", a.start, a.end,
                  "CUDA became HIP compiled by hipcc as the C++ compiler: Debian's CMake cannot "
                  "enable the HIP language (it needs a ROCm root with lib/cmake/hip-lang). On a "
                  "full ROCm install you may prefer project(... HIP) with CMAKE_HIP_ARCHITECTURES "
                  "and LANGUAGE HIP on the .cu sources; where nvcc is also installed, set "
                  "HIP_PLATFORM=amd")

    # -- commands ---------------------------------------------------------------------------
    def cmd_project(self, c: Command) -> None:
        vals = [a.value for a in c.args]
        if "CUDA" not in vals[1:]:
            return
        i = vals.index("CUDA", 1)
        self._hp011(c.args[i])
        if "CXX" in vals:
            self.drop_args(c, [i])
        else:
            self.change(c.args[i].start, c.args[i].end, "CXX")

    def cmd_enable_language(self, c: Command) -> None:
        vals = [a.value for a in c.args]
        if "CUDA" not in vals:
            return
        i = vals.index("CUDA")
        self._hp011(c.args[i])
        self.change(c.args[i].start, c.args[i].end, "CXX")

    def cmd_check_language(self, c: Command) -> None:
        if any(a.value == "CUDA" for a in c.args):
            self.touched.append((c.start, c.close))
            self.note(HP.BUILD_NOT_PORTED, "warning", c.start, c.close,
                      "check_language(CUDA) looks for nvcc: left as it is; the port compiles "
                      "CUDA sources with the C++ compiler (hipcc), so this check is not needed")

    def cmd_find_package(self, c: Command) -> None:
        if not c.args or c.args[0].value not in ("CUDAToolkit", "CUDA"):
            return
        first = c.args[0]
        self.change(first.start, first.end, "hip")
        keep = {"REQUIRED", "QUIET"}
        self.drop_args(c, [i for i, a in enumerate(c.args[1:], 1) if a.value not in keep])
        self.packages_done.add("hip")
        if first.value == "CUDA":
            self.note(HP.NVCC_OPTION, "info", c.start, c.close,
                      "find_package(CUDA) became find_package(hip); FindCUDA's CUDA_NVCC_FLAGS "
                      "and cuda_* macros are not read by hipcc")

    def cmd_add_executable(self, c: Command) -> None:
        self._sources_as_hip(c)

    def cmd_add_library(self, c: Command) -> None:
        self._sources_as_hip(c)

    def cmd_cuda_add_executable(self, c: Command) -> None:
        self._rename_command(c)
        self._sources_as_hip(c)

    def cmd_cuda_add_library(self, c: Command) -> None:
        self._rename_command(c)
        self._sources_as_hip(c)

    def cmd_cuda_include_directories(self, c: Command) -> None:
        self._rename_command(c)

    def _rename_command(self, c: Command) -> None:
        new = self.t.commands.get(c.name)
        if new:
            name_end = c.start + len(c.name)
            self.change(c.start, name_end, new)

    def _sources_as_hip(self, c: Command) -> None:
        vals = [a.value for a in c.args]
        if not vals or any(v in _NON_BUILDING for v in vals[1:]):
            return
        after = self.text[c.close:c.close + 200].lstrip()
        if after.startswith(("set_source_files_properties(", "get_target_property(_hipport_sources")) \
                and "-xhip" in self.text[c.close:c.close + 400]:
            return  # ported already
        srcs = [v for v in vals[1:] if v.endswith(".cu")]
        dynamic = any("${" in v or "$<" in v for v in vals[1:])
        if srcs and not dynamic:
            self.insert_after(c, [f"set_source_files_properties({' '.join(srcs)} PROPERTIES "
                                  "LANGUAGE CXX COMPILE_OPTIONS -xhip)"])
        elif dynamic:
            t = vals[0]
            self.insert_after(c, [f"get_target_property(_hipport_sources {t} SOURCES)",
                                  'list(FILTER _hipport_sources INCLUDE REGEX "\\\\.cu$")',
                                  "set_source_files_properties(${_hipport_sources} PROPERTIES "
                                  "LANGUAGE CXX COMPILE_OPTIONS -xhip)"])

    def _rdc_lines(self, targets: list[str]) -> list[str]:
        out = []
        for t in targets:
            out.append(f"target_compile_options({t} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fgpu-rdc>)")
            out.append(f"target_link_options({t} PUBLIC -fgpu-rdc)")
        return out

    def cmd_set_target_properties(self, c: Command) -> None:
        vals = [a.value for a in c.args]
        if "PROPERTIES" not in vals:
            return
        p = vals.index("PROPERTIES")
        targets = vals[:p]
        drop: list[int] = []
        rdc = False
        pairs = list(range(p + 1, len(vals) - 1, 2))
        for k in pairs:
            name, value = vals[k], vals[k + 1]
            if name in self.t.separable:
                drop += [k, k + 1]
                rdc = rdc or value.upper() in ("ON", "TRUE", "1", "YES")
            elif name in self.t.properties:
                new = self.t.properties[name]
                if new:
                    self.change(c.args[k].start, c.args[k].end, new)
                    if name == "CUDA_ARCHITECTURES":
                        self.change(c.args[k + 1].start, c.args[k + 1].end, ";".join(self.archs))
                else:
                    drop += [k, k + 1]
                    self.note(HP.NVCC_OPTION, "info", c.args[k].start, c.args[k + 1].end,
                              f"{name} dropped: hipcc has no counterpart")
        if not drop:
            return
        lines = self._rdc_lines(targets) if rdc else []
        if len(drop) == len(pairs) * 2:  # nothing left: the command goes, its replacement stays
            new = (self.nl + c.indent).join(lines) if lines else \
                f"# hipport: {' '.join(vals[p + 1:])} needs nothing with hipcc"
            self.change(c.start, c.close, new)
            return
        self.drop_args(c, drop)
        if lines:
            self.insert_after(c, lines)

    def cmd_set_property(self, c: Command) -> None:
        vals = [a.value for a in c.args]
        if "PROPERTY" not in vals or vals[0] != "TARGET":
            return
        p = vals.index("PROPERTY")
        if p + 1 >= len(vals):
            return
        name = vals[p + 1]
        targets = [v for v in vals[1:p] if v not in ("APPEND", "APPEND_STRING")]
        if name in self.t.separable:
            on = any(v.upper() in ("ON", "TRUE", "1", "YES") for v in vals[p + 2:])
            lines = self._rdc_lines(targets) if on else []
            new = (self.nl + c.indent).join(lines) if lines else \
                f"# hipport: {name} OFF needs nothing with hipcc"
            self.change(c.start, c.close, new)
        elif name in self.t.properties and self.t.properties[name]:
            a = c.args[p + 1]
            self.change(a.start, a.end, self.t.properties[name])

    def cmd_set(self, c: Command) -> None:
        if not c.args:
            return
        var = c.args[0].value
        if var == self.t.separable_variable:
            on = any(a.value.upper() in ("ON", "TRUE", "1", "YES") for a in c.args[1:2])
            new = 'set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -fgpu-rdc")' if on else \
                f"# hipport: {var} OFF needs nothing with hipcc"
            self.change(c.start, c.close, new)
            return
        if var in self.t.architectures:
            values = [a for a in c.args[1:] if a.value not in ("CACHE", "PARENT_SCOPE")]
            if values and values[0].kind != "paren":
                self.change(values[0].start, values[0].end, ";".join(self.archs))
                self.drop_args(c, [c.args.index(a) for a in values[1:]
                                   if a.value not in ("CACHE", "PARENT_SCOPE", "STRING", "FORCE")
                                   and a.kind != "quoted"])
                self.note(HP.NVCC_OPTION, "info", c.args[0].start, c.args[0].end,
                          f"{var} became CMAKE_HIP_ARCHITECTURES {';'.join(self.archs)}: hipcc "
                          "compiles for the AMD targets in CMAKE_CXX_FLAGS (--offload-arch, set "
                          "before project()); the HIP language of a full ROCm install reads this")
            return
        if _FLAG_VARS.match(var):
            self._flag_args(c.args[1:])

    def cmd_string(self, c: Command) -> None:
        vals = [a.value for a in c.args]
        if len(vals) >= 3 and vals[0] in ("APPEND", "PREPEND") and _FLAG_VARS.match(vals[1]):
            self._flag_args(c.args[2:])

    def cmd_list(self, c: Command) -> None:
        vals = [a.value for a in c.args]
        if len(vals) >= 2 and vals[1] == "CUDA_NVCC_FLAGS":
            self.touched.append((c.start, c.close))
            self.note(HP.BUILD_NOT_PORTED, "warning", c.start, c.close,
                      "CUDA_NVCC_FLAGS is FindCUDA's option list, which hipcc does not read: "
                      "left as it is; give these options with target_compile_options")

    def cmd_target_compile_features(self, c: Command) -> None:
        for a in c.args:
            new = self.t.features.get(a.value)
            if new:
                self.change(a.start, a.end, new)

    def cmd_other(self, c: Command) -> None:
        if c.name in _FLAG_COMMANDS:
            self._flag_args(c.args[1:] if c.name.startswith("target_") else c.args)

    # -- pieces of arguments ------------------------------------------------------------------
    def _flag_args(self, args: list[Arg]) -> None:
        """nvcc options in these arguments (a quoted string holds several)."""
        for a in args:
            if a.kind == "bracket" or a.kind == "paren" or a.value in ("PRIVATE", "PUBLIC",
                                                                    "INTERFACE", "BEFORE"):
                continue
            if a.kind == "unquoted" and a.text.startswith("$<"):
                continue  # generator expressions: see _genex
            base = a.start + (1 if a.kind == "quoted" else 0)
            ws = flags.words(a.value, base)
            res = flags.translate(ws, self.t, nvcc=True, cuda_path=_cuda_path)
            if a.kind == "unquoted" and len(ws) == 1 and res.changes \
                    and res.changes[0].text == "" and len(res.changes) == 1:
                self.change(a.start, a.end, "")  # an option argument dropped whole
            else:
                for ch in res.changes:
                    self.change(ch.start, ch.end, ch.text)
            self.notes.extend(res.notes)

    def _genex(self, c: Command) -> None:
        """$<COMPILE_LANGUAGE:CUDA> becomes CXX; nvcc options inside $<$<...:CUDA>:opts>
        are translated, and an expression left empty goes."""
        for a in c.args:
            if a.kind == "bracket" or "$<" not in a.text or self._inside_touched(a.start, a.end):
                continue
            m = re.fullmatch(r"\$<\$<COMPILE_LANGUAGE:CUDA>:(.*)>", a.value, re.S)
            if m and c.name in _FLAG_COMMANDS:
                inner = m.group(1)
                base = a.start + (1 if a.kind == "quoted" else 0) + len("$<$<COMPILE_LANGUAGE:CUDA>:")
                ws = [Word(p.group(0), base + p.start(), base + p.end())
                      for p in re.finditer(r"[^;\s]+", inner)]
                res = flags.translate(ws, self.t, nvcc=True, cuda_path=_cuda_path)
                self.notes.extend(res.notes)
                kept = _apply(inner, base, res.changes)
                if not [x for x in re.split(r"[;\s]+", kept) if x]:
                    i = c.args.index(a)
                    self.drop_args(c, [i])
                    continue
                for ch in res.changes:
                    self.change(ch.start, ch.end, ch.text)
            for g in _LANG_GENEX.finditer(a.text):
                langs = g.group(2).split(",")
                if "CUDA" in langs:
                    s = a.start + g.start(2)
                    new = ",".join(dict.fromkeys("CXX" if x == "CUDA" else x for x in langs))
                    self.change(s, s + len(g.group(2)), new)
            for g in re.finditer(r"\$<COMPILE_LANG_AND_ID:CUDA,[^>]*>", a.text):
                self.note(HP.BUILD_NOT_PORTED, "warning", a.start + g.start(), a.start + g.end(),
                          "a CUDA compiler-id expression: left as it is; hipcc is a Clang C++ "
                          "compiler (COMPILE_LANG_AND_ID:CXX,Clang)")

    def _libraries(self, c: Command) -> None:
        """CUDA:: targets and FindCUDA library variables become HIP targets; a package they
        need is found right before its first use in the file."""
        for a in c.args:
            if a.kind == "bracket" or self._inside_touched(a.start, a.end):
                continue
            for m in list(_TARGET.finditer(a.text)) + list(_LEGACY_LIB.finditer(a.text)):
                name = m.group(1)
                lib = self.t.library(name) or self.t.library(name.lower())
                s, e = a.start + m.start(), a.start + m.end()
                if lib is None:
                    self.note(HP.BUILD_NOT_PORTED, "warning", s, e, f"{m.group(0)}: no HIP counterpart "
                              "known; left as it is")
                    continue
                if not lib.supported:
                    self.touched.append((s, e))
                    # a CMake target with no ROCm counterpart stays: configuring the port fails
                    self.note(HP.BUILD_LIBRARY, "error", s, e, f"{m.group(0)}: {lib.note}; left as it is")
                    continue
                self.change(s, e, lib.target)
                if not lib.debian:
                    self.note(HP.BUILD_LIBRARY, "info", s, e, f"{m.group(0)} became {lib.target}: "
                              f"{lib.package} is not packaged by Debian 12; install it from ROCm")
                if lib.package and lib.package not in self.packages_done and lib.package != "hip":
                    self.packages_done.add(lib.package)
                    how = "QUIET" if c.name in ("if", "elseif") else "REQUIRED"
                    self.insert_before(c, [f"find_package({lib.package} {how})"])

    def _renames(self, c: Command) -> None:
        for a in c.args:
            if a.kind == "paren":
                continue
            for m in self.t.variable_words.finditer(a.text):
                s, e = a.start + m.start(), a.start + m.end()
                if not self._inside_touched(s, e):
                    self.change(s, e, self.t.variables[m.group(0)])

    def _leftovers(self, c: Command) -> None:
        """A CUDA name this pass did not rewrite is reported once per command."""
        for a in c.args:
            if a.kind == "paren":
                continue
            for m in _CUDA_WORD.finditer(a.text):
                s = a.start + m.start()
                if self._inside_touched(s, s + len(m.group(0))):
                    continue
                word = re.match(r"[\w:$<{]+", a.text[m.start():])
                shown = word.group(0) if word else m.group(0)
                self.note(HP.BUILD_NOT_PORTED, "warning", s, s + len(shown),
                          f"{shown} in {c.name}(): not understood by the build port; left as it is")
                return

    def _inside_touched(self, s: int, e: int) -> bool:
        return any(a <= s and e <= b and (a, b) != (s, s) for a, b in self.touched)


def _apply(text: str, base: int, changes: list[Change]) -> str:
    out, pos = [], 0
    for ch in sorted(changes, key=lambda c: c.start):
        out.append(text[pos:ch.start - base])
        out.append(ch.text)
        pos = ch.end - base
    out.append(text[pos:])
    return "".join(out)


def _cuda_path(p: str) -> bool:
    return bool(re.match(r"/usr/local/cuda|\$\{CUDA(Toolkit)?_[A-Za-z_]*(DIR|DIRS|PATH|ROOT|HOME)\}|"
                         r"\$ENV\{CUDA_(PATH|HOME)\}", p))


def port(text: str, t: Tables, archs: tuple[str, ...]) -> tuple[list[Change], list[Note]]:
    try:
        cmds = parse(text)
    except CMakeSyntaxError as e:
        return [], [Note(HP.BUILD_NOT_PORTED, "warning", e.offset, e.offset,
                         f"cannot read this file as CMake ({e}): left as it is")]
    p = _Porter(text, t, archs)
    p.run(cmds)
    return p.changes, p.notes
