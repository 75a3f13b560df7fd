"""Tile shuffles of a vector or struct value: HIP's move integers and floats only.

CUDA's `tile.shfl_xor(v, m)` (and `shfl`, `shfl_up`, `shfl_down`) moves any trivially copyable
`T`; HIP 5.2's static_asserts an integer or floating type. Where the value's type, read from
its declaration in the function (through struct fields declared in the file), is a vector type
(`uint4`) or a struct of the file's own, the call becomes `hipport_tile_shfl_xor(tile, v, m)`,
written once per translation unit: the tile's own shuffle applied to each 32-bit word, which is
what CUDA does for such types.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.helpers import write_before

_CALL = re.compile(rb"\.\s*(shfl(?:_xor|_up|_down)?)\s*\(")
_VECTOR = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]")
_FUNCTIONS = ("function_definition", "lambda_expression")
BLOCK_HEAD = """\
#ifndef HIPPORT_TILE_SHFL
#define HIPPORT_TILE_SHFL
// hipport: HIP's tile shuffles move integers and floats only; these move any trivially
// copyable value as 32-bit words, each with the tile's own shuffle (as CUDA does).
"""
ONE = """\
template <class G, class T, class L> __device__ T hipport_tile_{op}(const G& g, T v, L lane) {{
  static_assert(sizeof(T) % sizeof(int) == 0, "a value of whole 32-bit words");
  int w[sizeof(T) / sizeof(int)];
  __builtin_memcpy(w, &v, sizeof(T));
  for (unsigned k = 0; k < sizeof(T) / sizeof(int); ++k) w[k] = g.{op}(w[k], lane);
  __builtin_memcpy(&v, w, sizeof(T));
  return v;
}}
"""
BLOCK = BLOCK_HEAD + "".join(ONE.format(op=op) for op in ("shfl", "shfl_xor", "shfl_up", "shfl_down")) + "#endif\n"


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b".shfl" not in data or (b"tiled_partition" not in data and b"thread_block_tile" not in data):
        return
    first: Node | None = None
    for m in _CALL.finditer(data):
        field = ctx.src.node_at(m.start(1), m.end(1))
        if field is None or field.type != "field_identifier":
            continue
        member = field.parent
        call = member.parent if member is not None else None
        if member is None or call is None or call.type != "call_expression" \
                or call.child_by_field_name("function") != member:
            continue
        args = call.child_by_field_name("arguments")
        tile = member.child_by_field_name("argument")
        values = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if tile is None or len(values) != 2:
            continue
        kind = _type_of(ctx, values[0])
        if kind is None or not (_VECTOR.fullmatch(kind) or _own_struct(ctx, kind)):
            continue
        op = m.group(1).decode()
        paren = args.start_byte  # type: ignore[union-attr]
        ctx.edit(member.start_byte, paren + 1, f"hipport_tile_{op}({ctx.src.text(tile)}, ", FixKind.TILESHFL)
        ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, call.start_byte, call.end_byte,
                   f"HIP's tile {op} moves integers and floats only: hipport_tile_{op} (written "
                   f"once in this file) moves this {kind} word by word with the tile's {op}",
                   "cooperative_groups")
        if first is None:
            first = call
    if first is not None:
        write_before(ctx, first, BLOCK, FixKind.TILESHFL)


def _type_of(ctx: Context, expr: Node) -> str | None:
    """The declared type of an identifier, `a.b` or `a[i]`, as written; None if unknown.

    Parentheses, subscripts and members are followed in a loop down to the identifier (they
    nest as deep as the code has them), then the members are looked up on the way back."""
    members: list[Node | None] = []  # the member of each field expression, outermost first
    node: Node | None = expr
    while node is not None and node.type != "identifier":
        t = node.type
        if t == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        elif t == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif t == "field_expression":
            members.append(node.child_by_field_name("field"))
            node = node.child_by_field_name("argument")
        else:
            return None
    if node is None:
        return None
    name = ctx.src.text(node)
    fn = next((a for a in ctx.src.ancestors(node) if a.type in _FUNCTIONS), None)
    if fn is None:
        return None
    kind = _declared(ctx, fn, name, node.start_byte)
    for member in reversed(members):
        if not kind or member is None:
            return None
        kind = _field_type(ctx, kind, ctx.src.text(member))
    return kind


def _declared(ctx: Context, scope: Node, name: str, before: int) -> str | None:
    found: str | None = None
    stack = [scope]
    while stack:
        n = stack.pop()
        if n.start_byte >= before:
            continue
        if n.type in ("declaration", "parameter_declaration", "field_declaration"):
            t = n.child_by_field_name("type")
            for d in n.children_by_field_name("declarator"):
                if _declarator_name(ctx, d) == name and t is not None:
                    found = ctx.src.text(t)
        stack.extend(n.named_children)
    return found


def _declarator_name(ctx: Context, d: Node) -> str | None:
    while d.type in ("init_declarator", "pointer_declarator", "reference_declarator", "array_declarator"):
        inner = d.child_by_field_name("declarator")
        if inner is None:
            if d.type == "reference_declarator" and d.named_child_count:
                inner = d.named_children[-1]
            else:
                return None
        d = inner
    return ctx.src.text(d) if d.type in ("identifier", "field_identifier") else None


def _structs(ctx: Context, name: str) -> list[Node]:
    """The bodies of the file's own struct or class `name` (or `typedef struct {...} name`)."""
    out = []
    data = ctx.src.data
    for m in re.finditer(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])", data):
        node = ctx.src.node_at(m.start(), m.end())
        parent = node.parent if node is not None else None
        if parent is None:
            continue
        if parent.type in ("struct_specifier", "class_specifier") and parent.child_by_field_name("body"):
            out.append(parent.child_by_field_name("body"))
        elif parent.type == "type_definition":
            t = parent.child_by_field_name("type")
            if t is not None and t.type in ("struct_specifier", "class_specifier") and t.child_by_field_name("body"):
                out.append(t.child_by_field_name("body"))
    return [b for b in out if b is not None]


def _own_struct(ctx: Context, name: str) -> bool:
    return name.isidentifier() and bool(_structs(ctx, name))


def _field_type(ctx: Context, owner: str, field: str) -> str | None:
    for body in _structs(ctx, owner):
        t = _declared(ctx, body, field, body.end_byte)
        if t is not None:
            return t
    return None
