"""Code that is already written for HIP: found, and left as it is.

Trees such as ggml and faiss carry their own HIP support: a compatibility header of
`#define cudaMalloc hipMalloc` lines, `namespace cub = hipcub;`, and code under
`#if defined(GGML_USE_HIP)` or `#ifdef __HIP_PLATFORM_AMD__`. Porting such code again breaks
it (`#define hipMalloc hipMalloc`, `namespace hipcub = hipcub;`), so the passes leave these
byte ranges alone and the file gets one note (HP017) that says so.

A branch is HIP code when its condition is false wherever no HIP marker is defined, as under
nvcc: `defined(GGML_USE_HIP) && X` is, `defined(HIP) || X` is not (X may hold under CUDA), and
the `#else` of `#ifndef USE_ROCM` is. The markers are data, below.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hipport import directives

# Macros that only a HIP (or ROCm) build defines, by exact name.
MARKERS = frozenset({
    "__HIP__", "__HIPCC__", "__HIPCC_RTC__", "__HIP_DEVICE_COMPILE__", "__HIP_PLATFORM_AMD__",
    "__HIP_PLATFORM_HCC__", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__", "__HCC__",
    "__AMDGCN__", "__AMDGPU__", "__AMDGCN_WAVEFRONT_SIZE", "HIP_VERSION", "HIP_VERSION_MAJOR",
    "HIP_VERSION_MINOR", "ROCM_VERSION", "USE_ROCM", "USE_HIP", "USE_AMD_ROCM", "GGML_USE_HIP",
    "__HIP_ARCH__",
})
# A macro with one of these `_`-separated parts also names a HIP build (GGML_HIP_GRAPHS,
# AMD_MFMA_AVAILABLE, TORCH_USE_ROCM); `_M_AMD64` (its part is AMD64) is not one.
MARKER_PARTS = frozenset({"HIP", "HIPCC", "ROCM", "HCC", "AMD", "AMDGCN"})
# ... unless the macro names an extension of a graphics or compute API (GL_AMD_...).
NOT_MARKER_PREFIXES = ("GL_", "GLX_", "WGL_", "EGL_", "VK_", "CL_", "ALC_", "AL_")
# AMD GPU targets as the compiler defines them: __gfx90a__, __GFX9__.
MARKER_PATTERN = re.compile(r"__(?:gfx|GFX)[0-9a-fA-F]+__")
# Spellings that begin a HIP name: the body of a compatibility definition starts with one.
HIP_PREFIXES = ("hip", "HIP", "__hip", "rocblas", "rocprim", "rocrand", "rocsparse")
# A header of HIP's own, included unconditionally: with three compatibility definitions, the
# file is a compatibility header and is left whole.
HIP_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"](?:hip|hipblas|hipcub|rocblas)/", re.M)
COMPAT_HEADER_MIN = 3


def is_marker(name: str) -> bool:
    if name in MARKERS or MARKER_PATTERN.fullmatch(name):
        return True
    if name.startswith(NOT_MARKER_PREFIXES):
        return False
    return any(part in MARKER_PARTS for part in name.split("_"))


@dataclass(frozen=True, slots=True)
class Region:
    start: int  # the first byte left alone
    end: int  # one past the last
    at: int  # where the note for it goes: the directive or definition
    at_end: int
    what: str  # "branch", "definition" or "header"


@dataclass(frozen=True, slots=True)
class HipAware:
    regions: tuple[Region, ...]
    starts: tuple[int, ...]

    def __bool__(self) -> bool:
        return bool(self.regions)

    def covers(self, start: int, end: int) -> bool:
        """Does [start, end) touch a region? (An insertion counts where it lands.)"""
        i = bisect.bisect_right(self.starts, start) - 1
        if i >= 0 and start < self.regions[i].end:
            return True
        j = i + 1
        return j < len(self.regions) and self.regions[j].start < end

    def layer(self) -> HipAware:
        """Only the compatibility header or definitions (not the HIP branches)."""
        kept = tuple(r for r in self.regions if r.what != "branch")
        return HipAware(kept, tuple(r.start for r in kept))

    def note(self) -> tuple[int, int, str]:
        """(start, end, message) of the one note a file gets."""
        header = next((r for r in self.regions if r.what == "header"), None)
        if header is not None:
            return header.at, header.at_end, (
                "a CUDA-to-HIP compatibility header (it defines CUDA names as HIP ones): left as "
                "written; the ported code uses HIP names itself, so it may include this or not")
        branches = sum(r.what == "branch" for r in self.regions)
        defs = len(self.regions) - branches
        parts = [f"{branches} block(s) under HIP/AMD conditions"] if branches else []
        if defs:
            parts.append(f"{defs} definition(s) of CUDA names as HIP ones")
        first = self.regions[0]
        return first.at, first.at_end, (
            f"code already written for HIP left as written: {' and '.join(parts)} (the first "
            f"here); only the code a CUDA build compiles is ported")


NONE = HipAware((), ())
QUICK = re.compile(rb"HIP|AMD|ROCM|HCC|__gfx|__GFX|hip")


def find(data: bytes, cuda_names: Container[str], namespaces: Mapping[str, Any],
         hip_names: frozenset[str]) -> HipAware:
    """The ranges of `data` already written for HIP. `cuda_names`: the CUDA names the tables
    map (a compatibility definition defines one); `namespaces`: namespace name -> mapping."""
    if not QUICK.search(data):
        return NONE
    text = _blank(data)
    regions = list(_branches(text))
    defs = [r for r in _definitions(text, cuda_names, namespaces, hip_names)
            if not any(b.start <= r.start and r.end <= b.end for b in regions)]
    if len(defs) >= COMPAT_HEADER_MIN and any(
            not _inside(m.start(), regions) for m in directives.finditer(HIP_INCLUDE, text)):
        first = defs[0]
        return HipAware((Region(0, len(data), first.at, first.at_end, "header"),), (0,))
    merged = _merge(regions + defs)
    return HipAware(tuple(merged), tuple(r.start for r in merged))


def _inside(at: int, regions: list[Region]) -> bool:
    return any(r.start <= at < r.end for r in regions)


def _merge(regions: list[Region]) -> list[Region]:
    out: list[Region] = []
    for r in sorted(regions, key=lambda r: (r.start, -r.end)):
        if out and r.start < out[-1].end:
            if r.end > out[-1].end:
                p = out[-1]
                out[-1] = Region(p.start, r.end, p.at, p.at_end, p.what)
            continue
        out.append(r)
    return out


# Comments and literals become spaces (newlines kept), so offsets stay those of the file.
_NOISE = re.compile(rb"""//(?:\\\r?\n|[^\n])*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.S)


def _blank(data: bytes) -> bytes:
    return _NOISE.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group()), data)


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b((?:\\\r?\n|[^\n])*)", re.M)


@dataclass
class _Group:
    # Each a pair: (the value in a CUDA build, the value with the markers unknown), each 1, 0
    # or None (unknown). A branch is HIP code when the first is 0 and the second is not: the
    # markers make it false (`#if 0` is false everywhere, not HIP code).
    none_before: tuple[int | None, int | None]  # no earlier branch of the group taken
    body: int  # where the current branch's body starts
    value: tuple[int | None, int | None]  # the current branch's condition
    at: int
    at_end: int


def _branches(text: bytes) -> Iterator[Region]:
    stack: list[_Group] = []
    for m in directives.finditer(_DIRECTIVE, text):
        kind, rest = m.group(1), m.group(2).decode("latin-1").replace("\\\r\n", " ").replace("\\\n", " ")
        body = m.end() + 1
        if kind in (b"if", b"ifdef", b"ifndef"):
            if kind == b"if":
                value = (_condition(rest, 0), _condition(rest, None))
            else:
                words = rest.split()
                v = 0 if words and is_marker(words[0]) else None
                value = (v, None) if kind == b"ifdef" else (_not(v), None)
            stack.append(_Group((1, 1), body, value, m.start(), m.end()))
            continue
        if not stack:
            continue  # an #else or #endif without its #if: not ours to judge
        g = stack[-1]
        cuda, free = (_and(g.none_before[i], g.value[i]) for i in (0, 1))
        if cuda == 0 and free != 0:
            yield Region(g.body, m.start(), g.at, g.at_end, "branch")
        if kind == b"endif":
            stack.pop()
            continue
        g.none_before = (_and(g.none_before[0], _not(g.value[0])), _and(g.none_before[1], _not(g.value[1])))
        g.value = (_condition(rest, 0), _condition(rest, None)) if kind == b"elif" else (1, 1)
        g.body, g.at, g.at_end = body, m.start(), m.end()


def _not(v: int | None) -> int | None:
    return None if v is None else int(not v)


def _and(a: int | None, b: int | None) -> int | None:
    if a == 0 or b == 0:
        return 0
    return None if a is None or b is None else 1


def _or(a: int | None, b: int | None) -> int | None:
    if a not in (0, None) or b not in (0, None):
        return 1
    return None if a is None or b is None else 0


_TOKENS = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[!~()<>+\-*/%&|^?:,]))")


def _condition(expr: str, marker: int | None) -> int | None:
    """The value of an `#if` condition, each HIP marker (and `defined` of one) read as
    `marker` (0: as in a CUDA build); None if unknown."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKENS.match(expr, pos)
        if m is None or m.end() == pos:
            return None  # something this reader does not know
        pos = m.end()
        if m.group(1) is not None:
            tokens.append(("num", m.group(1)))
        elif m.group(2) is not None:
            tokens.append(("id", m.group(2)))
        else:
            tokens.append(("op", m.group(3)))
    try:
        value, at = _Parser(tokens, marker).expr(0)
    except (IndexError, ValueError, ZeroDivisionError):
        return None
    return value if at == len(tokens) else None


_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7,
           ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


class _Parser:
    """Precedence climbing over an `#if` expression; values are ints or None (unknown)."""

    def __init__(self, tokens: list[tuple[str, str]], marker: int | None) -> None:
        self.t, self.marker = tokens, marker

    def expr(self, i: int, min_prec: int = 1) -> tuple[int | None, int]:
        left, i = self.unary(i)
        while i < len(self.t) and self.t[i][0] == "op":
            op = self.t[i][1]
            if op == "?" and min_prec <= 1:
                a, i = self.expr(i + 1)
                if self.t[i][1] != ":":
                    raise ValueError
                b, i = self.expr(i + 1)
                left = None if left is None else (a if left else b)
                continue
            prec = _BINARY.get(op)
            if prec is None or prec < min_prec:
                break
            right, i = self.expr(i + 1, prec + 1)
            left = _binary(op, left, right)
        return left, i

    def unary(self, i: int) -> tuple[int | None, int]:
        kind, tok = self.t[i]
        if kind == "op" and tok in "!~-+":
            v, i = self.unary(i + 1)
            if tok == "!":
                return _not(v), i
            return (None if v is None else {"~": ~v, "-": -v, "+": v}[tok]), i
        if kind == "op" and tok == "(":
            v, i = self.expr(i + 1)
            if self.t[i][1] != ")":
                raise ValueError
            return v, i + 1
        if kind == "num":
            return int(tok, 0) if not tok.startswith("0") or tok == "0" or tok[1] in "xX" \
                else int(tok, 8), i + 1
        if kind == "id" and tok == "defined":
            paren = self.t[i + 1][1] == "("
            name = self.t[i + 2 if paren else i + 1][1]
            i += 4 if paren else 2
            if paren and self.t[i - 1][1] != ")":
                raise ValueError
            return (self.marker if is_marker(name) else None), i
        if kind == "id":
            i += 1
            if i < len(self.t) and self.t[i][1] == "(":  # a function-like macro: unknown
                depth = 0
                while True:
                    depth += {"(": 1, ")": -1}.get(self.t[i][1], 0)
                    i += 1
                    if depth == 0:
                        break
                return None, i
            if tok == "true":
                return 1, i
            if tok == "false":
                return 0, i
            return (self.marker if is_marker(tok) else None), i  # undefined in #if reads as 0
        raise ValueError


def _binary(op: str, a: int | None, b: int | None) -> int | None:
    if op == "&&":
        return _and(a, b)
    if op == "||":
        return _or(a, b)
    if a is None or b is None:
        return None
    if op in ("/", "%") and b == 0:
        return None
    return int({
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b, "==": lambda: a == b,
        "!=": lambda: a != b, "<": lambda: a < b, ">": lambda: a > b, "<=": lambda: a <= b,
        ">=": lambda: a >= b, "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b,
        "-": lambda: a - b, "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a % b,
    }[op]())


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^)\n]*\))?[ \t]*((?:\\\r?\n|[^\n])*)", re.M)
_NS_ALIAS = re.compile(rb"\bnamespace[ \t]+(\w+)[ \t]*=[ \t]*(?:::)?[ \t]*(\w+)[ \t]*;")
_TYPEDEF = re.compile(rb"\btypedef[ \t]+(?:struct[ \t]+)?(\w+)[ \t]+(\w+)[ \t]*;|\busing[ \t]+(\w+)[ \t]*=[ \t]*(\w+)[ \t]*;")
_WORD = re.compile(rb"[A-Za-z_]\w*")


def _hipish(name: str, hip_names: frozenset[str]) -> bool:
    return name in hip_names or name.startswith(HIP_PREFIXES)


def _definitions(text: bytes, cuda_names: Container[str], namespaces: Mapping[str, Any],
                 hip_names: frozenset[str]) -> Iterator[Region]:
    """`#define cudaX hipX`, `namespace cub = hipcub;`, `typedef hipX cudaX;`: a CUDA name the
    tables map, defined as a HIP one."""
    for m in directives.finditer(_DEFINE, text):
        name = m.group(1).decode()
        if name not in cuda_names:
            continue
        first = _WORD.search(m.group(3))
        if first is not None and _hipish(first.group().decode(), hip_names):
            yield _line(text, m.start(), m.end(), "definition")
    for m in _NS_ALIAS.finditer(text):
        ns = namespaces.get(m.group(1).decode())
        if ns is not None and ns.hip and ns.hip == m.group(2).decode():
            yield _line(text, m.start(), m.end(), "definition")
    for m in _TYPEDEF.finditer(text):
        hip, cuda = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if cuda.decode() in cuda_names and _hipish(hip.decode(), hip_names):
            yield _line(text, m.start(), m.end(), "definition")


def _line(text: bytes, start: int, end: int, what: str) -> Region:
    line = text.rfind(b"\n", 0, start) + 1
    return Region(line, end, start, end, what)
