"""Makefiles (and make.config-style includes): nvcc becomes hipcc, its options and the CUDA
libraries and paths on every command line and in every variable become HIP's.

Read the simple way make does: logical lines (backslash continuations joined), each an
assignment, a directive, a rule or a recipe line. What is nvcc is found, not guessed:
a command word `nvcc` or `.../nvcc`, or a variable assigned one. Variables named on an nvcc
command line hold nvcc options, and so do the variables those name. The files a Makefile
includes in its tree (`include ../../common/make.config`, found by hipport.build.includes) are
read for the same roles: an `NVCC = $(CUDA_DIR)/bin/nvcc` there makes `$(NVCC)` here an nvcc
command line. Edits only ever go into the file being ported; an included file is ported as a
file of its own, from what it holds itself. Variables of files not followed are known by the
conventional CUDA_* names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hipport.build import flags
from hipport.build.flags import Change, Note, Word
from hipport.build.tables import Tables
from hipport.registry import HP

_ASSIGN = re.compile(r"[ \t]*((?:override|export|private)[ \t]+)*([^\s:#=+?!$()]+|\$[({][^)}]*[)}])"
                     r"[ \t]*(::?=|:::=|\+=|\?=|!=|=)")
_DIRECTIVE = re.compile(r"[ \t]*(-?include|sinclude|ifn?eq|ifn?def|else|endif|define|endef|"
                        r"export|unexport|vpath|override|undefine)\b")
_CONDITIONAL = re.compile(r"[ \t]*(ifn?eq|ifn?def|else|endif)\b")
_CUDA_ROOT = re.compile(r"/usr/local/cuda|/opt/cuda|/usr/lib/cuda|/usr/local/nvidia")
_CUDA_PATH_NAME = re.compile(r"CUDA\w*(DIR|PATH|HOME|ROOT|INCLUDE\w*|INC|LIB64)")
_FLAGS_NAME = re.compile(r"(NVCC|CUDA)\w*(FLAGS?|OPTS|OPTIONS)")
_REF_ONLY = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]")
_SEPARATORS = {";", "&&", "||", "|"}
_HOST_COMPILER = re.compile(r"(?:\S*/)?(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|icc|icpc)(-[\d.]+)?")
PLATFORM = "-D__HIP_PLATFORM_AMD__"  # what hipcc defines itself, and HIP's headers need


@dataclass
class Line:
    start: int  # offset of the logical line
    end: int  # before its newline
    recipe: bool
    rule: str = ""  # a recipe line's rule (targets: prerequisites)


@dataclass
class Assign:
    name: str
    value: list[Word]  # the value's words (a trailing comment left out)


def logical_lines(text: str) -> list[Line]:
    out: list[Line] = []
    pos, n = 0, len(text)
    in_rule = False
    rule = ""
    while pos < n:
        end = pos
        while True:
            nl = text.find("\n", end)
            if nl < 0:
                nl = n
            body = text[end:nl].rstrip("\r")
            slashes = len(body) - len(body.rstrip("\\"))
            if slashes % 2 == 1 and nl < n:
                end = nl + 1
                continue
            break
        stop = nl - 1 if nl > pos and text[nl - 1:nl] == "\r" else nl
        raw = text[pos:stop]
        recipe = in_rule and raw.startswith("\t")
        stripped = raw.strip()
        if not recipe and stripped and not stripped.startswith("#") and not _CONDITIONAL.match(raw):
            in_rule = _ASSIGN.match(raw) is None and _DIRECTIVE.match(raw) is None and ":" in raw
            rule = raw if in_rule else ""
        out.append(Line(pos, stop, recipe, rule if recipe else ""))
        pos = nl + 1
    return out


def _compiler_word(w: str) -> bool:
    return w == "nvcc" or w.endswith("/nvcc")


def _command_start(ws: list[Word]) -> list[tuple[int, int]]:
    """(first, end) word indexes of each command of a recipe line."""
    out, start = [], 0
    for i, w in enumerate(ws):
        if w.text in _SEPARATORS:
            out.append((start, i))
            start = i + 1
        elif w.text.endswith(";") and len(w.text) > 1:
            out.append((start, i + 1))
            start = i + 1
    out.append((start, len(ws)))
    return [(a, b) for a, b in out if a < b]


def port(text: str, t: Tables, archs: tuple[str, ...],
         in_tree: Callable[[str], str | None] | None = None,
         beside: Callable[[str], bool] | None = None,
         outer: Sequence[str] = ()) -> tuple[list[Change], list[Note]]:
    """Edits and notes for one Makefile. `in_tree` maps an include path outside the tree (the
    author's checkout, `~/rodinia_3.0/common/make.config`) to the tree's own copy of that file,
    as a path relative to the Makefile, or None; `beside` says whether a file of that name
    lies in the Makefile's folder. `outer` holds the texts of the files it includes: what
    their variables are (nvcc, nvcc options, CUDA paths) is learnt from them, but every edit
    is in `text` (an included file is ported as its own file)."""
    lines = logical_lines(text)
    hipcc = "hipcc " + " ".join(f"--offload-arch={a}" for a in archs)
    assigns: list[tuple[Line, Assign]] = []
    recipes: list[tuple[Line, list[Word]]] = []
    notes: list[Note] = []
    changes: list[Change] = []
    for ln in lines:
        raw = text[ln.start:ln.end]
        if ln.recipe:
            body = raw.lstrip("\t")
            ws = flags.words(body, ln.end - len(body))
            if ws and ws[0].text.startswith(("@", "-", "+")):  # make's prefixes on the command
                k = len(ws[0].text) - len(ws[0].text.lstrip("@-+"))
                ws[0] = Word(ws[0].text[k:], ws[0].start + k, ws[0].end)
            recipes.append((ln, ws))
            continue
        m = _ASSIGN.match(raw)
        if m and not raw.lstrip().startswith("#"):
            vstart = ln.start + m.end()
            assigns.append((ln, Assign(m.group(2), flags.words(text[vstart:ln.end], vstart, "#"))))
            continue
        inc = re.match(r"[ \t]*(-?include|sinclude)[ \t]+(\S+)", raw)
        if inc and (inc.group(2).startswith(("/", "~")) and not inc.group(1).startswith(("-", "s"))):
            own = in_tree(inc.group(2)) if in_tree is not None else None
            if own is not None:
                changes.append(Change(ln.start + inc.start(2), ln.start + inc.end(2), own))
                notes.append(Note(HP.BUILD_NOT_PORTED, "warning", ln.start, ln.end,
                                  f"includes {inc.group(2)}, a path on the author's machine: the "
                                  f"tree's own {own} is included instead"))
            else:
                notes.append(Note(HP.BUILD_NOT_PORTED, "warning", ln.start, ln.end,
                                  f"includes {inc.group(2)}, a path outside the tree: left as it is; "
                                  "make it relative to this Makefile"))
    mine: dict[str, list[Assign]] = {}
    for _, a in assigns:
        mine.setdefault(a.name, []).append(a)
    by_name = {n: list(alist) for n, alist in mine.items()}  # with the included files' definitions
    for o in outer:
        for a in _statements(o)[0]:
            by_name.setdefault(a.name, []).append(a)
    nvcc_vars, path_vars = _roles(by_name)

    def cuda_path(p: str) -> bool:
        return is_cuda_path(p, path_vars)

    flag_vars: set[str] = {n for n in by_name if _FLAGS_NAME.fullmatch(n)}
    for o in outer:  # an included rule's nvcc command names nvcc options too
        for ws in _statements(o)[1]:
            if ws and (_compiler_word(ws[0].text) or ref(ws[0].text) in nvcc_vars):
                flag_vars.update(r for w in ws[1:] for r in _REF_ONLY.findall(w.text)
                                 if r not in nvcc_vars)
    said_hipcc = False
    said_host = False
    cuda_build = bool(nvcc_vars) or any(
        ws and _compiler_word(w.text) for _, ws in recipes for w in ws) or \
        re.search(r"(?<!\S)-lcuda(rt)?\b", text) is not None
    if outer and not cuda_build:  # an OpenCL Makefile keeps -I$(OPENCL_INC), even where
        path_vars = _roles(mine)[1]  # make.config points that into a CUDA install

    def host_compiler(w: Word) -> None:
        """Host code that calls HIP is compiled by gcc/g++ here: HIP's headers need the
        platform macro that hipcc defines itself (CMake's hip::host gives it the same way)."""
        nonlocal said_host
        changes.append(Change(w.end, w.end, " " + PLATFORM))
        if not said_host:
            said_host = True
            notes.append(Note(HP.NVCC_OPTION, "info", w.start, w.end,
                              f"{w.text} gets {PLATFORM}: host code that calls HIP and is compiled "
                              "without hipcc needs it for HIP's headers (on a full ROCm install "
                              "also -I/opt/rocm/include)"))
    for ln, ws in recipes:
        linked: set[str] = set()
        for lo, hi in _command_start(ws):
            cmd = ws[lo]
            k = lo
            while k < hi and re.fullmatch(r"[A-Za-z_]\w*=\S*", ws[k].text):
                k += 1  # VAR=value before the command
            if k >= hi:
                continue
            cmd = ws[k]
            is_nvcc = _compiler_word(cmd.text) or ref(cmd.text) in nvcc_vars
            compiles_c = any(w.text.endswith(".c") for w in ws[k:hi]) or \
                re.match(r"\s*(\.c\.\w+\s*:|%\.\w+\s*:\s*%\.c\b)", ln.rule) is not None
            if is_nvcc and compiles_c and text[cmd.end:ln.end].find(PLATFORM) < 0:
                changes.append(Change(cmd.end, cmd.end, " " + PLATFORM))  # hipcc compiles C as C
            if cuda_build and _HOST_COMPILER.fullmatch(cmd.text) and PLATFORM not in \
                    text[ln.start:ln.end] and "--cuda-gpu-arch" not in text[ln.start:ln.end]:
                host_compiler(cmd)
            if _compiler_word(cmd.text):
                changes.append(Change(cmd.start, cmd.end, hipcc))
                if not said_hipcc:
                    notes.append(_hipcc_note(cmd, hipcc))
                    said_hipcc = True
            if "--cuda-gpu-arch" in text[ln.start:ln.end] and "clang" in cmd.text:
                notes.append(Note(HP.BUILD_NOT_PORTED, "warning", cmd.start, ws[hi - 1].end,
                                  "clang++ compiling CUDA (--cuda-gpu-arch): not ported; "
                                  "use hipcc --offload-arch for AMD GPUs"))
            res = flags.translate(ws[k + 1:hi], t, nvcc=is_nvcc, cuda_path=cuda_path, linked=linked)
            changes.extend(res.changes)
            notes.extend(res.notes)
            if is_nvcc:
                flag_vars.update(res.refs)
    # Variables named by nvcc-option variables hold nvcc options too.
    changed = True
    while changed:
        changed = False
        for name in list(flag_vars):
            for a in by_name.get(name, []):
                for w in a.value:
                    for r in _REF_ONLY.findall(w.text):
                        if r in by_name and r not in flag_vars and r not in nvcc_vars:
                            flag_vars.add(r)
                            changed = True
    omp = re.search(r"(?<!\S)-fopenmp\b", text)
    if cuda_build and omp:
        notes.append(Note(HP.BUILD_LIBRARY, "info", omp.start(), omp.end(),
                          "OpenMP: .cu files that use it are now compiled by hipcc's clang, which "
                          "needs clang's OpenMP headers and runtime (Debian: libomp-15-dev)"))
    for ln, a in assigns:
        ws = a.value
        if a.name in nvcc_vars and ws and _compiler_word(ws[0].text):
            changes.append(Change(ws[0].start, ws[0].end, hipcc))
            if not said_hipcc:
                notes.append(_hipcc_note(ws[0], hipcc))
                said_hipcc = True
            ws = ws[1:]
        elif a.name in nvcc_vars and ws:
            ws = ws[1:]
        elif cuda_build and ws and _HOST_COMPILER.fullmatch(ws[0].text) \
                and PLATFORM not in text[ln.start:ln.end]:
            host_compiler(ws[0])
        res = flags.translate(ws, t, nvcc=a.name in flag_vars or a.name in nvcc_vars,
                              cuda_path=cuda_path)
        changes.extend(res.changes)
        notes.extend(res.notes)
    if cuda_build and beside is not None and PLATFORM not in text:
        _builtin_rule_objects(text, lines, beside, changes, notes)
    return changes, notes


def ref(w: str) -> str | None:
    """The variable a word is exactly a reference to (`$(NVCC)`), or None."""
    m = _REF_ONLY.fullmatch(w)
    return m.group(1) if m else None


def _roles(by_name: dict[str, list[Assign]]) -> tuple[set[str], set[str]]:
    """The variables that hold nvcc, and those that hold CUDA install paths (to a fixed point)."""
    nvcc_vars: set[str] = set()
    path_vars: set[str] = {n for n in by_name if _CUDA_PATH_NAME.fullmatch(n)}
    changed = True
    while changed:
        changed = False
        for name, alist in by_name.items():
            for a in alist:
                first = a.value[0].text if a.value else ""
                if name not in nvcc_vars and (_compiler_word(first) or ref(first) in nvcc_vars):
                    nvcc_vars.add(name)
                    changed = True
                if name not in path_vars and first and is_cuda_path(first, path_vars) \
                        and not first.startswith("-"):
                    path_vars.add(name)
                    changed = True
    return nvcc_vars, path_vars


def _statements(text: str) -> tuple[list[Assign], list[list[Word]]]:
    """The assignments and the recipe lines' words (make's @-+ prefixes off) of make text."""
    assigns: list[Assign] = []
    recipes: list[list[Word]] = []
    for ln in logical_lines(text):
        raw = text[ln.start:ln.end]
        if ln.recipe:
            body = raw.lstrip("\t")
            ws = flags.words(body, ln.end - len(body))
            if ws and ws[0].text.startswith(("@", "-", "+")):
                k = len(ws[0].text) - len(ws[0].text.lstrip("@-+"))
                ws[0] = Word(ws[0].text[k:], ws[0].start + k, ws[0].end)
            recipes.append(ws)
            continue
        m = _ASSIGN.match(raw)
        if m and not raw.lstrip().startswith("#"):
            vstart = ln.start + m.end()
            assigns.append(Assign(m.group(2), flags.words(text[vstart:ln.end], vstart, "#")))
    return assigns, recipes


_OBJECT = re.compile(r"(?<![\w./$-])([\w][\w./-]*)\.o\b")
_HOST_SOURCES = (".cpp", ".cc", ".cxx", ".c")


def _builtin_rule_objects(text: str, lines: list[Line], beside: Callable[[str], bool],
                          changes: list[Change], notes: list[Note]) -> None:
    """Objects the Makefile names but builds by make's built-in rules (`$(CXX) ... -c x.cpp`):
    host code that includes HIP's headers, now compiled without hipcc, needs the platform macro
    hipcc defines itself. One `CPPFLAGS +=` line at the end gives it to those rules."""
    explicit: set[str] = set()
    for ln in lines:
        raw = text[ln.start:ln.end]
        if ln.recipe or _ASSIGN.match(raw) or _DIRECTIVE.match(raw) or ":" not in raw:
            continue
        head = raw.split(":", 1)[0]
        if "%" in head or re.fullmatch(r"\s*\.\w+\.o\s*", head):
            return  # a pattern or suffix rule of the Makefile's own builds its objects
        explicit.update(head.split())
    for m in _OBJECT.finditer(text):
        name = m.group(1)
        if f"{name}.o" in explicit or "$" in name:
            continue
        source = next((name + ext for ext in _HOST_SOURCES if beside(name + ext)), None)
        if source is None:
            continue
        nl = "\r\n" if "\r\n" in text else "\n"
        end = len(text)
        lead = "" if text.endswith(("\n", "\r")) or not text else nl
        changes.append(Change(end, end, f"{lead}# hipport: make's built-in rules compile host sources such as "
                                        f"{source}; HIP's headers need what hipcc defines itself{nl}"
                                        f"CPPFLAGS += {PLATFORM}{nl}"))
        notes.append(Note(HP.NVCC_OPTION, "info", m.start(), m.end(),
                          f"{name}.o is built by make's built-in rule from {source} (no rule here): "
                          f"CPPFLAGS gets {PLATFORM} for HIP's headers"))
        return


def is_cuda_path(p: str, path_vars: set[str]) -> bool:
    if _CUDA_ROOT.match(p):
        return True
    m = re.match(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]", p)
    return bool(m and (m.group(1) in path_vars or _CUDA_PATH_NAME.fullmatch(m.group(1))))


def _hipcc_note(w: Word, hipcc: str) -> Note:
    return Note(HP.BUILD_FILE_HIP, "info", w.start, w.end,
                f"nvcc became {hipcc}: hipcc compiles .cu files as HIP; where nvcc is also "
                "installed, set HIP_PLATFORM=amd (hipcc picks NVIDIA when it finds nvcc)")
