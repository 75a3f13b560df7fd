"""Float values stored into bfloat16 below ROCm 6.2, written as conversions.

CUDA's `__nv_bfloat16` converts from float implicitly (`out[i] = r;`, `__nv_bfloat16 t = x;`).
Below a 6.2 floor it becomes `hip_bfloat16` (hip/hip_bfloat16.h), whose constructor from float
is explicit: each such store fails to compile with HIP 5.2 ("no viable overloaded '='"). The
value is written as a conversion to the stored type, spelled as the code spells it
(`out[i] = floatX(r);`): HIP's conversion rounds to nearest even, as CUDA's does, and the
functional cast compiles for every type an alias may name (float, half, bfloat16), at every
HIP from 5.2 on.

The stored type is known from declarations: parameters, locals and globals declared with a
bfloat16 type or an alias of one (`typedef __nv_bfloat16 floatX;`, `using bf = nv_bfloat16;`,
in the file or in a header it includes, llm.c's floatX), as a value, pointer or array. A value
that already has a bfloat16 type (a variable declared so, a conversion to it) is left alone.
"""

from __future__ import annotations

import re

from hipport import closure as closuremod
from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context

FLOOR = "6.2"  # from here bfloat16 is __hip_bfloat16, which converts from float implicitly
BASE = frozenset({"__nv_bfloat16", "nv_bfloat16"})
_ALIAS = re.compile(rb"\btypedef\s+(?:const\s+)?(\w+)\s+(\w+)\s*;|\busing\s+(\w+)\s*=\s*(?:const\s+)?(\w+)\s*;")
_DECL_TYPES = ("parameter_declaration", "declaration", "field_declaration", "optional_parameter_declaration")


def run(ctx: Context) -> None:
    data = ctx.src.data
    if not ctx.floor.lacks(FLOOR):
        return
    types = bf16_types(data, ctx.src.closure.found.values() if ctx.src.closure is not None else ())
    if not any(t.encode() in data for t in types):
        return
    names = _declared(ctx, types)  # variable name -> its type's spelling and levels, per scope
    if not names:
        return
    first: Node | None = None
    stack = [ctx.src.root]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type == "assignment_expression":
            op = n.child_by_field_name("operator")
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if op is None or left is None or right is None or ctx.src.text(op) not in ("=", "+=", "-=", "*=", "/="):
                continue
            spelled = _stored(ctx, left, names)
        elif n.type == "init_declarator":
            left, right = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if left is None or right is None or right.type in ("initializer_list", "argument_list"):
                continue
            spelled = _stored(ctx, left, names) if left.type == "identifier" else None
        else:
            continue
        if spelled is None or _already(ctx, right, spelled, names, types):
            continue
        ctx.edit(right.start_byte, right.start_byte, f"{spelled}(", FixKind.BF16)
        ctx.edit(right.end_byte, right.end_byte, ")", FixKind.BF16)
        if first is None or right.start_byte < first.start_byte:
            first = right
    if first is not None:
        ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, first.start_byte, first.end_byte,
                   f"below ROCm {FLOOR} bfloat16 is hip_bfloat16, which converts from float only "
                   f"explicitly: stores of float values into bfloat16 are written as conversions "
                   f"(`T(value)`), here and in the rest of this file", "bfloat16")


def bf16_types(data: bytes, headers: object) -> frozenset[str]:
    """The bfloat16 type names: CUDA's and every alias of one in the file or its headers."""
    files = (data, *headers)  # type: ignore[misc]
    if not any(d and b"bfloat16" in d for d in files):
        return BASE  # every alias chain starts at a CUDA name, which says bfloat16 (no digests)
    aliases: dict[str, str] = {}
    for d in files:
        if d and (b"typedef" in d or b"using" in d):
            for name, target in _aliases(d):
                aliases.setdefault(name, target)
    out = set(BASE)
    for _ in range(4):  # chains of aliases
        more = {n for n, t in aliases.items() if t in out} - out
        if not more:
            break
        out |= more
    return frozenset(out)


_SEEN: dict[bytes, tuple[tuple[str, str], ...]] = {}  # by content digest: a header's aliases
# are found once for all the files that include it, and no header's bytes are kept


def _aliases(data: bytes) -> tuple[tuple[str, str], ...]:
    key = closuremod.digest(data)
    got = _SEEN.get(key)
    if got is None:
        if len(_SEEN) >= 4096:
            _SEEN.clear()
        got = _SEEN[key] = tuple((m[2].decode(), m[1].decode()) if m[1] else (m[3].decode(), m[4].decode())
                                 for m in _ALIAS.finditer(data))
    return got


def _declared(ctx: Context, types: frozenset[str]) -> dict[tuple[int, str], tuple[str, int]]:
    """(scope start, name) -> (the type as written, pointer and array levels), for each variable
    whose every declaration in its scope has a bfloat16 type (a local `x128 wte` that shadows a
    `floatX* wte` parameter makes `wte` ambiguous: left alone); scope start -1: a global."""
    seen: dict[tuple[int, str], set[tuple[str, int] | None]] = {}
    stack = [ctx.src.root]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type not in _DECL_TYPES:
            continue
        t = n.child_by_field_name("type")
        if t is None:
            continue
        spelled = ctx.src.text(t).split("::")[-1].strip()
        scope = _scope(n)
        for d in n.named_children:
            got = _name(ctx, d)
            if got:
                name, depth = got
                seen.setdefault((scope, name), set()).add((spelled, depth) if spelled in types else None)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1 and None not in v}  # type: ignore[misc]


def _name(ctx: Context, d: Node) -> tuple[str, int] | None:
    """The declared name and its pointer / array levels (`*p`: 1, `a[4][4]`: 2)."""
    depth = 0
    while d is not None and d.type in ("init_declarator", "pointer_declarator", "array_declarator",
                                       "reference_declarator"):
        depth += d.type in ("pointer_declarator", "array_declarator")
        inner = d.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in d.named_children if c.type.endswith(("declarator", "identifier"))), None)
        if inner is None:
            return None
        d = inner
    if d is None or d.type not in ("identifier", "field_identifier"):
        return None
    return ctx.src.text(d), depth


def _scope(n: Node) -> int:
    p = n.parent
    while p is not None and p.type != "function_definition":
        p = p.parent
    return p.start_byte if p is not None else -1


Names = dict[tuple[int, str], tuple[str, int]]


def _lookup(names: Names, node: Node, name: str) -> tuple[str, int] | None:
    return names.get((_scope(node), name)) or names.get((-1, name))


def _stored(ctx: Context, left: Node, names: Names) -> str | None:
    """The bfloat16 type spelling of what `left` stores into (`p[i]`, `*p`, `x`: an element,
    not a pointer to one), or None."""
    n = left
    derefs = 0
    while n.type in ("subscript_expression", "pointer_expression", "parenthesized_expression"):
        if n.type == "pointer_expression" and ctx.src.text(n).startswith("&"):
            return None
        derefs += n.type != "parenthesized_expression"
        inner = n.child_by_field_name("argument") or (n.named_child(0) if n.named_child_count else None)
        if inner is None:
            return None
        n = inner
    if n.type != "identifier":
        return None
    got = _lookup(names, left, ctx.src.text(n))
    return got[0] if got is not None and got[1] == derefs else None


def _already(ctx: Context, right: Node, spelled: str, names: Names, types: frozenset[str]) -> bool:
    """Is the value a bfloat16 already: a variable of such a type (element of a pointer or
    array of one), a conversion or call to one, or a CUDA bfloat16 function's result?"""
    r = right
    while r.type == "parenthesized_expression" and r.named_child_count:
        r = r.named_child(0)
    text = ctx.src.text(r)
    if r.type in ("identifier", "subscript_expression", "pointer_expression"):
        return _stored(ctx, r, names) is not None
    if r.type == "call_expression":
        fn = r.child_by_field_name("function")
        callee = ctx.src.text(fn).split("<")[0].split("::")[-1] if fn is not None else ""
        return callee in types or callee.startswith(("__float2bfloat16", "__double2bfloat16", "__int2bfloat16",
                                                       "__ushort_as_bfloat16", "__hmax", "__hmin", "__ldg"))
    if r.type == "cast_expression":
        t = r.child_by_field_name("type")
        return t is not None and ctx.src.text(t).strip() in types
    return text.startswith(tuple(f"static_cast<{t}>" for t in types))
