"""Compound assignments on vector types that HIP already defines.

HIP's vector types (`float3` and the rest are `HIP_vector_type` on AMD) declare `+=`, `-=`,
`*=`, `/=`, `%=`, `&=`, `|=`, `^=`, `<<=`, `>>=` between two vectors as members, with
CUDA's componentwise meaning. A file's own `void operator+=(float3 &a, float3 b)` (as in
cuda-samples' helper_math.h) then makes every `a += b` ambiguous. Such definitions are kept
for the platforms that need them, under `#if !defined(__HIP_PLATFORM_AMD__)`, runs of them
under one guard; the other helpers (`operator+`, vector-scalar forms) are left: a
non-template function wins over HIP's templates, so they stay unambiguous.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.includes import _line_end

_VECTOR = r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]"
_OPERATOR = re.compile(rb"\boperator\s*(?:\+|-|\*|/|%|&|\||\^|<<|>>)=")
_PARAMS = re.compile(rf"^\(\s*({_VECTOR})\s*&\s*\w*\s*,\s*(?:const\s+)?({_VECTOR})\s*&?\s*\w*\s*\)$")
GUARD = "__HIP_PLATFORM_AMD__"


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"operator" not in data:
        return
    found: list[Node] = []
    for m in _OPERATOR.finditer(data):
        fn = _definition(ctx, m.start())
        if fn is not None and (not found or found[-1] != fn):
            found.append(fn)
    if not found:
        return
    nl = ctx.src.newline
    for run_ in _runs(ctx, found):
        start = data.rfind(b"\n", 0, run_[0].start_byte) + 1
        end = _line_end(data, run_[-1].end_byte)
        tail = "" if end > run_[-1].end_byte and data[end - 1:end] == b"\n" else nl
        ctx.edit(start, start, f"#if !defined({GUARD}){nl}", "HP-rename")
        ctx.edit(end, end, f"{tail}#endif{nl}", "HP-rename")
    first = found[0]
    ctx.report("HP011", Severity.INFO, first.start_byte, first.start_byte + 1,
               f"HIP's vector types define vector-vector compound assignments (+=, -=, ...) as "
               f"members with the same componentwise meaning: this file's own "
               f"{len(found)} definition(s) would make each use ambiguous, so they are kept for "
               f"non-AMD platforms only (#if !defined({GUARD}))", "vector")


def _definition(ctx: Context, at: int) -> Node | None:
    """The free function definition whose declarator names the operator at `at`, when it
    takes (vector &, vector) and is not already under an AMD guard."""
    node = ctx.src.node_at(at, at + 8)
    while node is not None and node.type != "function_declarator":
        if node.type in ("compound_statement", "translation_unit"):
            return None
        node = node.parent
    if node is None:
        return None
    params = node.child_by_field_name("parameters")
    fn = node.parent
    if params is None or fn is None or fn.type != "function_definition":
        return None
    m = _PARAMS.match(" ".join(ctx.src.text(params).split()))
    if m is None or m[1] != m[2]:
        return None
    # Free functions only (a member of the file's own class is its business), and not inside
    # a branch that already leaves AMD out.
    p = fn.parent
    while p is not None:
        if p.type in ("field_declaration_list", "class_specifier", "struct_specifier"):
            return None
        if p.type in ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif") \
                and GUARD.encode() in ctx.src.data[p.start_byte:p.start_byte + 200].split(b"\n")[0]:
            return None
        p = p.parent
    start = ctx.src.data.rfind(b"\n", 0, fn.start_byte) + 1
    if ctx.src.data[start:fn.start_byte].strip():
        return None  # shares its line with other code
    return fn


def _runs(ctx: Context, fns: list[Node]) -> list[list[Node]]:
    """Consecutive siblings with only blanks and comments between them, as one run."""
    out: list[list[Node]] = []
    for fn in fns:
        if out:
            prev = out[-1][-1]
            between = prev.next_sibling
            while between is not None and between.type == "comment":
                between = between.next_sibling
            if between == fn and prev.parent == fn.parent:
                out[-1].append(fn)
                continue
        out.append([fn])
    return out
