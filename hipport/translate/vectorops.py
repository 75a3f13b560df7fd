"""A file's own vector-type operators that HIP's vector types define too.

HIP's `float3` and the rest (`HIP_vector_type` on AMD) define some operators as non-template
functions, with CUDA code's componentwise meaning; a file's own definition of one of those
(cuda-samples' helper_math.h) then makes every use ambiguous. Which ones, for two vectors of
the same type (compiled with HIP 5.2 and 6.4; the others are templates, which lose to the
file's own):

  `+=`, `-=`, `*=`, `/=`   members in every HIP: kept under `#if !defined(__HIP_PLATFORM_AMD__)`
  `*`, `/`                 hidden friends from HIP 5.6 (ROCm/hipamd, "Fix for operator mixup"):
                           kept where HIP is older, `... || HIP_VERSION < 50600000`

whatever the ROCm floor, so an output for an old floor still compiles with a newer HIP.
Definitions in a row share one guard. Only a body that provably computes HIP's componentwise
result is guarded (`a.x OP= b.x; ...` or `return make_T(a.x OP b.x, ...)`): any other body
(a complex product on float2, say) would silently change meaning, so it is kept and reported
(HP019).
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.includes import _line_end

_BASE = r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)"
_VECTOR = rf"{_BASE}[1-4]"
# operator+= -= *= /= (compound) and operator* / (binary, not followed by `=`)
OPERATOR = re.compile(rb"\boperator\s*(?:([-+*/])=|([*/])(?![=*/]))")
_PARAM = rf"(?:const\s+)?({_VECTOR})\s*(?:const\s*)?(&?)\s*(\w*)"
_PARAMS = re.compile(rf"^\(\s*{_PARAM}\s*,\s*{_PARAM}\s*\)$")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)

PLATFORM = "__HIP_PLATFORM_AMD__"
COMPOUND_GUARD = f"!defined({PLATFORM})"
FRIEND_VERSION = 50600000  # HIP_VERSION of 5.6.0, the first whose vectors have friend * and /
BINARY_GUARD = f"!defined({PLATFORM}) || (defined(HIP_VERSION) && HIP_VERSION < {FRIEND_VERSION})"


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"operator" not in data:
        return
    guarded: list[tuple[Node, str]] = []  # (definition, its guard), in file order
    seen: set[int] = set()
    for m in OPERATOR.finditer(data):
        compound = m[1] is not None
        found = _definition(ctx, m.start(), compound)
        if found is None or found[0].start_byte in seen:
            continue
        fn, vec, a, b = found
        seen.add(fn.start_byte)
        op = (m[1] + b"=" if compound else m[2]).decode()
        if _componentwise(ctx, fn, op, vec, a, b):
            guarded.append((fn, COMPOUND_GUARD if compound else BINARY_GUARD))
            continue
        since = "as a member in every HIP" if compound else "from HIP 5.6"
        ctx.report(HP.VECTOR_OPERATOR_CLASH, Severity.WARNING, fn.start_byte, fn.start_byte + 1,
                   f"HIP defines `{vec} {op} {vec}` itself ({since}, componentwise): this "
                   f"file's own `operator{op}` makes each use ambiguous there, and its body is "
                   f"not the componentwise `{op}`, so it is kept: give the operation a name of "
                   f"its own (a function) and call that", "vector")
    if not guarded:
        return
    nl = ctx.src.newline
    for run_, guard in _runs(guarded):
        start = data.rfind(b"\n", 0, run_[0].start_byte) + 1
        end = _line_end(data, run_[-1].end_byte)
        tail = "" if end > run_[-1].end_byte and data[end - 1:end] == b"\n" else nl
        ctx.edit(start, start, f"#if {guard}{nl}", FixKind.RENAME)
        ctx.edit(end, end, f"{tail}#endif{nl}", FixKind.RENAME)
    first = guarded[0][0]
    ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, first.start_byte, first.start_byte + 1,
               f"HIP's vector types define `+=`, `-=`, `*=`, `/=` between two vectors (every "
               f"HIP) and `*`, `/` (HIP 5.6+) with the same componentwise meaning: this file's "
               f"own {len(guarded)} definition(s) would make each use ambiguous, so each is kept "
               f"only where HIP lacks it (#if {COMPOUND_GUARD}, or #if {BINARY_GUARD})", "vector")


def _definition(ctx: Context, at: int, compound: bool) -> tuple[Node, str, str, str] | None:
    """The free function definition whose declarator names the operator at `at`, when it takes
    two vectors of one type (the first by reference for a compound assignment) and is not
    already under an AMD guard: (definition, vector type, first and second parameter name)."""
    node = ctx.src.node_at(at, at + 8)
    while node is not None and node.type != "function_declarator":
        if node.type in ("compound_statement", "translation_unit"):
            return None
        node = node.parent
    if node is None:
        return None
    params = node.child_by_field_name("parameters")
    fn = node.parent
    while fn is not None and fn.type == "reference_declarator":  # `float3 &operator+=(...)`
        fn = fn.parent
    if params is None or fn is None or fn.type != "function_definition":
        return None
    m = _PARAMS.match(" ".join(ctx.src.text(params).split()))
    if m is None or m[1] != m[4] or not m[3] or not m[6]:
        return None
    if compound and not m[2]:
        return None  # `operator+=(float3 a, ...)` changes a copy: not what HIP's member is
    # Free functions only (a member of the file's own class is its business), and not inside
    # a branch that already leaves AMD out.
    p = fn.parent
    while p is not None:
        if p.type in ("field_declaration_list", "class_specifier", "struct_specifier", "template_declaration"):
            return None
        if p.type in ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif") \
                and PLATFORM.encode() in ctx.src.data[p.start_byte:p.start_byte + 200].split(b"\n")[0]:
            return None
        p = p.parent
    start = ctx.src.data.rfind(b"\n", 0, fn.start_byte) + 1
    if ctx.src.data[start:fn.start_byte].strip():
        return None  # shares its line with other code
    return fn, m[1], m[3], m[6]


def _componentwise(ctx: Context, fn: Node, op: str, vec: str, a: str, b: str) -> bool:
    """Does the body compute HIP's result: each component `a.c OP b.c`, nothing else?
    Compound: `a.x OP= b.x; ...` (any order, each component once, then maybe `return a;`).
    Binary: `return make_T(a.x OP b.x, ...);` or `return T(...)`, `return T{...}`, `return {...}`."""
    body = fn.child_by_field_name("body")
    if body is None:
        return False
    text = re.sub(r"\s+", "", _COMMENTS.sub(" ", ctx.src.text(body)))
    comps = "xyzw"[:int(vec[-1])]
    if op.endswith("="):
        stmts = text[1:-1].split(";")
        if stmts and stmts[-1] == "":
            stmts.pop()
        if stmts and stmts[-1] == f"return{a}":
            stmts.pop()
        return sorted(stmts) == sorted(f"{a}.{c}{op}{b}.{c}" for c in comps)
    want = ",".join(f"{a}.{c}{op}{b}.{c}" for c in comps)
    want_paren = ",".join(f"({a}.{c}{op}{b}.{c})" for c in comps)
    for open_, close in ((f"make_{vec}(", ")"), (f"{vec}(", ")"), (f"{vec}{{", "}"), ("{", "}")):
        for args in (want, want_paren):
            if text == f"{{return{open_}{args}{close};}}":
                return True
    return False


def _runs(defs: list[tuple[Node, str]]) -> list[tuple[list[Node], str]]:
    """Consecutive siblings under the same guard, with only blanks and comments between them,
    as one run."""
    out: list[tuple[list[Node], str]] = []
    for fn, guard in defs:
        if out and out[-1][1] == guard:
            prev = out[-1][0][-1]
            between = prev.next_sibling
            while between is not None and between.type == "comment":
                between = between.next_sibling
            if between == fn and prev.parent == fn.parent:
                out[-1][0].append(fn)
                continue
        out.append(([fn], guard))
    return out
