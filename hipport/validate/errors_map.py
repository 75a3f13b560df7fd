"""Compiler diagnostics: parse them, map them to the original CUDA line, classify them, and
name the hipport rule that explains them.

Categories (stable strings, used in JSON):

* ``missing-header-or-library`` - a header, library or symbol the build cannot find;
* ``warp-size`` - code that assumes a 32-lane warp (sync-mask intrinsics, warpSize in a
  constant expression, 32-bit ballot masks, PTX lane registers, 32-wide tiles);
* ``unsupported-api`` - a CUDA API left in the port (no HIP twin, unknown to the tables, or
  newer than the ROCm floor);
* ``other``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from hipport.floor import RocmFloor
from hipport.floor import floor as floor_of
from hipport.registry import HP, W

MISSING = "missing-header-or-library"
WARP = "warp-size"
UNSUPPORTED = "unsupported-api"
TARGET = "unsupported-on-target"
OTHER = "other"
CATEGORIES = (MISSING, WARP, UNSUPPORTED, TARGET, OTHER)
# The target lacks what the code needs: the backend reports it at the function (where the call
# was inlined), or HIP marks the function unavailable for the target (`__hip_img_chk__`).
TARGET_MSG = re.compile(r"not supported on this GPU|API not supported on the device|error in backend")

# clang / gcc: "path:line:col: error: message"; nvcc (EDG): "path(line): error: message"
_CLANG = re.compile(r"^(?P<path>[^\s:][^:\n]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
                    r"(?P<sev>fatal error|error|warning|note|remark):\s*(?P<msg>.*)$")
_EDG = re.compile(r"^(?P<path>[^\s(][^(\n]*?)\((?P<line>\d+)\):\s*(?P<sev>catastrophic error|error|warning|note|remark)"
                  r"(?:\s*#\S+(?:-D)?)?:\s*(?P<msg>.*)$")
# GNU as on inline assembly (line numbers follow #line, so they name the source line)
_GAS = re.compile(r"^(?P<path>[^\s:][^:\n]*?):(?P<line>\d+):\s*(?P<sev>Error|Warning):\s*(?P<msg>.*)$")
_TOOL = re.compile(r"^(?P<tool>(?:[\w./+-]*/)?(?:clang(?:\+\+)?(?:-\d+)?|ld(?:\.lld|\.gold|\.bfd)?|lld|"
                   r"collect2|nvcc|nvlink|hipcc|g\+\+|gcc|c\+\+|/usr/bin/ld)(?:\.exe)?):\s*"
                   r"(?:(?P<sev>fatal error|error|warning)\s*:\s*)?(?P<msg>.*)$")
_BARE = re.compile(r"^(?P<sev>fatal error|error):\s*(?P<msg>error in backend:.*)$")
_REQUIRED = re.compile(r"^(?P<path>[^\s:][^:\n]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s+(?:recursively )?required (?:from|by)\b")
_IN_WHAT = re.compile(r"^[^\s:][^:\n]*?: In (?:instantiation of|function|member function|static member function|"
                      r"constructor|destructor|lambda function|substitution of)\b")
_INCLUDED = re.compile(r"^(?:In file included from|\s+from)\s+(?P<path>[^\s:][^:\n]*?):(?P<line>\d+)(?::(?P<col>\d+))?[:,]?\s*$")
_CHAIN_NOTE = re.compile(r"requested here|in instantiation of|required from|in call to|expanded from")
_UNDEF_REF = re.compile(r"undefined (?:reference to|symbol:?)\s*[`'\"]?([^'`\"\n]+)")
_QUOTED = re.compile(r"'([^']+)'")

# A CUDA-looking identifier (what the translator's HP002 check calls "looks like a CUDA API").
CUDA_NAME = re.compile(r"^(?:cuda[A-Z_]\w*|cu(?:blas|sparse|solver|rand|fft|dnn|Ctx|Mem|Module|Device|"
                       r"Stream|Event|Graph|Launch|Func|Init|Driver|Tex|Surf|Array|Link|Pointer|"
                       r"Occupancy|Profiler|Get|IpcGet|Ipc)\w*|CU(?:DA)?_\w+|CU(?:BLAS|SPARSE|SOLVER|RAND|FFT|DNN)_\w+|"
                       r"nvrtc\w+|nccl\w+|nvtx\w+|cub|thrust|cooperative_groups|__nv\w+|nv\w+)$")
# Warp intrinsics and names whose use assumes CUDA's 32-lane warp.
_WARP_NAMES = re.compile(
    r"\b(?:__shfl(?:_up|_down|_xor)?_sync|__ballot_sync|__any_sync|__all_sync|__uni_sync|__activemask|"
    r"__syncwarp|__match_(?:any|all)_sync|__reduce_(?:add|min|max|and|or|xor)_sync|__lanemask_\w+|"
    r"__fns|warpSize|WARP_SIZE|__AMDGCN_WAVEFRONT_SIZE\w*|tiled_partition|thread_block_tile|"
    r"coalesced_threads|labeled_partition|%laneid|%lanemask_\w+|%warpid)\b")
_WARP_MSG = re.compile(
    r"narrowing conversion of .*unsigned long(?: long)?.* to 'unsigned int'|"
    r"non-constant-expression cannot be narrowed from type 'unsigned long(?: long)?' to 'unsigned int'|"
    r"static assertion failed.*\b(?:32|64|warp|wave|WARP|WAVE)\b|"
    r"invalid output constraint|invalid input constraint|unknown register name|"
    r"assembler: .*%(?:laneid|lanemask|warpid)|"
    r"invalid instruction|invalid operand for instruction|"
    r"exceeds (?:the )?(?:warp|wavefront) size|"
    r"array index \d+ is past the end of the array.*(?:\[32\]|32 elements)")
_MISSING_MSG = re.compile(
    r"file not found|No such file or directory|cannot find -l|unable to find library|"
    r"cannot open (?:source|shared object|output) file|undefined reference to|undefined symbol|"
    r"library not found|cannot find ROCm device library|no such file", re.I)
_UNDECLARED = re.compile(
    r"use of undeclared identifier '([^']+)'|unknown type name '([^']+)'|"
    r"no member named '([^']+)' in (?:namespace|the global namespace)|"
    r"no type named '([^']+)' in namespace|no template named '([^']+)'|"
    r"use of undeclared label|identifier \"([^\"]+)\" is undefined|"
    r"'([^']+)' was not declared in this scope|'([^']+)' (?:does not name a type|has not been declared)|"
    r"no matching function for call to '([^'(]+)")


@dataclass(slots=True)
class Diagnostic:
    """One compiler error, where it was reported and where it came from in the CUDA source."""

    severity: str  # "error", "fatal error", "warning"
    message: str
    ported_file: str | None = None  # path as the compiler printed it (resolved)
    ported_line: int | None = None
    ported_column: int | None = None
    file: str | None = None  # the original file (as the user named it), when the error is in the project
    line: int | None = None
    column: int | None = None
    rewritten: bool = False  # the ported text at that spot was written by hipport
    source: str = ""  # the original source line (or the ported one outside the project)
    ported_source: str = ""
    category: str = OTHER
    rule: str | None = None
    notes: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)
    tool: str = ""
    # Where the error was reached from (template instantiations, macro expansions): used when
    # the error itself lies in a system or emulator header. (path, line, column) each.
    chain: list[tuple[str, int, int | None]] = field(default_factory=list)  # which build reported it: "hipcc gfx90a", "g++ (emulator, wave 64)"

    def key(self) -> tuple:
        return (self.file or self.ported_file, self.line or self.ported_line, self.column, self.message)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column,
                "ported_file": self.ported_file, "ported_line": self.ported_line,
                "ported_column": self.ported_column, "severity": self.severity,
                "message": self.message, "category": self.category, "rule": self.rule,
                "rewritten": self.rewritten, "source": self.source, "notes": list(self.notes),
                "archs": list(self.archs)}


def parse(output: str, keep_warnings: bool = False) -> list[Diagnostic]:
    """Errors (and optionally warnings) from clang, gcc, nvcc or linker output, with their notes
    and instantiation chains (gcc prints those before the error, clang after it)."""
    diags: list[Diagnostic] = []
    last: Diagnostic | None = None
    pending: list[tuple[str, int, int | None]] = []  # instantiation / "required from" places
    includes: list[tuple[str, int, int | None]] = []  # "In file included from" places
    seen_includes: dict[str, list[tuple[str, int, int | None]]] = {}  # clang prints a stack once
    for raw in output.splitlines():
        line = raw.rstrip()
        if _IN_WHAT.match(line):
            pending = []
            continue
        inc = _INCLUDED.match(line)
        if inc:  # the include chain of the error that follows (innermost includer first)
            includes.append((inc.group("path"), int(inc.group("line")), None))
            continue
        r = _REQUIRED.match(line)
        if r:
            pending.append((r.group("path"), int(r.group("line")), int(r.group("col")) if r.group("col") else None))
            continue
        m = _CLANG.match(line) or _EDG.match(line)
        if m:
            sev = m.group("sev")
            col = m.groupdict().get("col")
            if sev in ("note", "remark"):
                if last is not None:
                    if len(last.notes) < 8:
                        last.notes.append(f"{m.group('path')}:{m.group('line')}: {m.group('msg')}")
                    if _CHAIN_NOTE.search(m.group("msg")):
                        last.chain.append((m.group("path"), int(m.group("line")), int(col) if col else None))
                continue
            if sev == "catastrophic error":
                sev = "fatal error"
            if sev == "warning" and not keep_warnings:
                last = None
                pending = []
                includes = []
                continue
            path = m.group("path")
            if includes:
                seen_includes[path] = includes
            last = Diagnostic(sev, m.group("msg").strip(), path, int(m.group("line")),
                              int(col) if col else None,
                              chain=pending + (includes or seen_includes.get(path, [])))
            pending = []
            includes = []
            diags.append(last)
            continue
        g = _GAS.match(line)
        if g:
            if g.group("sev") == "Error":
                last = Diagnostic("error", "assembler: " + g.group("msg").strip(), g.group("path"),
                                  int(g.group("line")), None)
                diags.append(last)
            continue
        t = _TOOL.match(line)
        if t and (t.group("sev") or re.search(r"error|cannot find|undefined", t.group("msg"), re.I)):
            sev = t.group("sev") or "error"
            msg = t.group("msg").strip()
            if sev == "warning" and not keep_warnings:
                continue
            if re.search(r"^\d+ errors? generated|linker command failed|ld returned \d+ exit status", msg):
                continue
            last = Diagnostic(sev, msg)
            diags.append(last)
            continue
        b = _BARE.match(line)
        if b:  # the backend names no place (`fatal error: error in backend: ...`)
            last = Diagnostic(b.group("sev"), b.group("msg").strip())
            diags.append(last)
            continue
        u = _UNDEF_REF.search(line)
        if u and "undefined reference" in line:
            last = Diagnostic("error", line.strip())
            diags.append(last)
    return diags


def identifier(message: str) -> str | None:
    """The name an 'undeclared'-style error is about."""
    m = _UNDECLARED.search(message)
    if m:
        return next((g for g in m.groups() if g), None)
    return None


@dataclass(frozen=True, slots=True)
class Explainer:
    """What the port itself said about a place: findings on that line of the original."""

    findings: tuple[Any, ...] = ()  # hipport.model.Finding on the error's original line
    lookup: Callable[[str], Any] | None = None  # name -> rules.Mapping | None
    floor: RocmFloor = field(default_factory=lambda: floor_of("5.2"))


def classify(d: Diagnostic) -> str:
    msg = d.message
    text = " ".join([msg, d.source, d.ported_source])
    name = identifier(msg) or ""
    if _MISSING_MSG.search(msg):
        return MISSING
    if TARGET_MSG.search(msg):
        return TARGET
    if _WARP_NAMES.search(name) or _WARP_NAMES.search(msg) or _WARP_MSG.search(msg):
        return WARP
    if name and _WARP_NAMES.fullmatch(name):
        return WARP
    if re.search(r"static assertion failed", msg) and re.search(r"warpSize|WARP_SIZE|\b32\b", text):
        return WARP
    if name and (CUDA_NAME.match(name) or name.startswith(("cuda", "cu", "CU"))):
        return UNSUPPORTED
    # A name of the project's own (`checkCudaErrors`, a helper macro) on a line of CUDA calls is
    # not a CUDA API: its header was not compiled as ported, which HP002 would misname.
    if re.search(r"asm|inline assembly", msg, re.I) and re.search(r"%laneid|%lanemask|\bptx\b|mov\.u32", text):
        return WARP
    return OTHER


# Rules that explain a category when the port left no finding on the line.
_WARP_FALLBACK = (
    (re.compile(r"__ballot_sync|__activemask|narrow"), W.BALLOT_STORED_32BIT),
    (re.compile(r"%laneid|%lanemask|asm|constraint|register name"), W.INLINE_PTX_WARP),
    (re.compile(r"__syncwarp"), W.WARP_SYNC_BUILTIN),
    (re.compile(r"__any_sync|__all_sync|__uni_sync"), W.VOTE_WAVE_WIDE),
    (re.compile(r"tiled_partition|thread_block_tile|coalesced_threads"), W.COOP_GROUPS_TILE_32),
    (re.compile(r"__shfl_(?:down|xor)_sync"), W.SHUFFLE_LOOP_FROM_16),
    (re.compile(r"__shfl(?:_up)?_sync"), W.SHUFFLE_DEFAULT_WIDTH),
)


def explain(d: Diagnostic, ex: Explainer, known_rules: Iterable[str] | None = None) -> str | None:
    """The rule id that explains `d`: a finding the port made on that line first (the most
    specific one for the category), then a table lookup of the name, then a default."""
    name = identifier(d.message)
    fs = list(ex.findings)
    if d.category == WARP:
        w = [f for f in fs if f.rule.startswith("W")]
        if w:
            return _mentioning(w, name).rule
    if d.category == UNSUPPORTED:
        api = [f for f in fs if f.rule in (HP.UNSUPPORTED_API, HP.UNKNOWN_CUDA_NAME, HP.NEEDS_NEWER_ROCM, HP.DEPRECATED_API, HP.EXPERIMENTAL_API, HP.DEVICE_SYSTEM_MACRO)]
        if api:
            return _mentioning(api, name).rule
    if d.category == MISSING:
        hdr = [f for f in fs if f.rule == HP.UNMAPPED_HEADER]
        if hdr:
            return hdr[0].rule
    if d.category == TARGET:
        tgt = [f for f in fs if f.rule == HP.UNSUPPORTED_ON_TARGET]
        if tgt:
            return tgt[0].rule
    known = set(known_rules) if known_rules is not None else None
    if d.category == UNSUPPORTED and name:
        m = ex.lookup(name) if ex.lookup else None
        if m is not None:
            if m.status == "unsupported":
                return HP.UNSUPPORTED_API
            if ex.floor.lacks(m.since):
                return HP.NEEDS_NEWER_ROCM
        return HP.UNSUPPORTED_API if m is not None else HP.UNKNOWN_CUDA_NAME
    if d.category == WARP:
        hay = " ".join([d.message, d.source])
        for rx, rid in _WARP_FALLBACK:
            if rx.search(hay) and (known is None or not known or rid in known):
                return rid
        return None
    if d.category == MISSING:
        return None
    # other: a finding on the line still says what hipport saw there (a parse region, a clash)
    return fs[0].rule if fs else None


def _mentioning(findings: list[Any], name: str | None) -> Any:
    if name:
        for f in findings:
            if f.subject == name or f.subject is None and name in f.message:
                return f
    return findings[0]


def merge_archs(per_arch: dict[str, list[Diagnostic]]) -> list[Diagnostic]:
    """One diagnostic per distinct error, listing the archs that reported it."""
    out: dict[tuple, Diagnostic] = {}
    for arch, diags in per_arch.items():
        for d in diags:
            k = d.key()
            if k in out:
                if arch not in out[k].archs:
                    out[k].archs.append(arch)
            else:
                out[k] = replace(d, archs=[arch], notes=list(d.notes))
    return list(out.values())
