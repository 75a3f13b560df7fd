"""`min`/`max` with a built-in coordinate: CUDA has an unsigned overload, HIP does not.

`blockDim.x` is an `unsigned int` in CUDA, so `min(rem, blockDim.x)` calls its unsigned
`min`. In HIP the coordinate is a proxy object and HIP 5.2 declares `min` for int, float,
double and one template, so the call is ambiguous. Where one argument is unsigned through a
coordinate (the coordinate itself, or `i + u * blockDim.x` over 32-bit integers: the usual
arithmetic conversions make it `unsigned int`) and the other is a 32-bit integer (an integer
literal, a variable the function declares with such a type, or arithmetic over those), the
call's arguments are cast to `unsigned int`, which is CUDA's choice: `min((unsigned int)(rem),
(unsigned int)(blockDim.x))` calls HIP's template on AMD and CUDA's unsigned overload on HIP's
NVIDIA platform (`min<unsigned int>` would not compile there: CUDA's `min` is no template);
other mixes are left as written.
"""

from __future__ import annotations

import re

from hipport.registry import FixKind
from hipport.source import Node
from hipport.translate.context import Context

_COORD = re.compile(r"^(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]$")
_INT_LITERAL = re.compile(r"^\d+[uU]?$")
_INT_TYPES = frozenset({"unsigned", "unsigned int", "int", "uint", "uint32_t", "int32_t",
                        "signed int", "const unsigned int", "const int", "const unsigned",
                        "const uint", "const uint32_t", "const int32_t"})
_CALL = re.compile(rb"\b(?:min|max)\s*\(")
# Operators whose result takes the usual arithmetic conversions of both operands (not shifts,
# whose type is the left operand's, nor comparisons).
_ARITH = frozenset({"+", "-", "*", "/", "%", "&", "|", "^"})


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"Idx." not in data and b"Dim." not in data:
        return
    declared: dict[tuple[int, str], list[tuple[int, str]]] = {}
    for m in _CALL.finditer(data):
        callee = ctx.src.node_at(m.start(), m.start() + 3)
        call = ctx.src.parent(callee) if callee is not None else None
        if callee is None or callee.type != "identifier" or call is None \
                or call.type != "call_expression" or call.child_by_field_name("function") != callee:
            continue
        args = call.child_by_field_name("arguments")
        items = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if len(items) != 2:
            continue
        fn = next((a for a in ctx.src.ancestors(call) if a.type == "function_definition"), None)
        kinds = [_kind(ctx, call, fn, a, declared) for a in items]
        if "unsigned" in kinds and None not in kinds:
            for a in items:
                ctx.edit(a.start_byte, a.start_byte, "(unsigned int)(", FixKind.ARGS)
                ctx.edit(a.end_byte, a.end_byte, ")", FixKind.ARGS)


def _kind(ctx: Context, call: Node, fn: Node | None, arg: Node,
          declared: dict[tuple[int, str], list[tuple[int, str]]]) -> str | None:
    """"unsigned" for a 32-bit unsigned value that comes from a coordinate, "int" for another
    32-bit integer, None for anything else (a wider or floating type, a call, a shift).

    Arithmetic is "unsigned" when an operand is, and None when one is None: its operands are
    followed with a stack, not by recursion (a sum of n terms nests n levels deep)."""
    unsigned = False
    stack = [arg]
    while stack:
        node = stack.pop()
        if node.type == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) != 1:
                return None
            stack.append(inner[0])
            continue
        if node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op is None or op.type not in _ARITH or left is None or right is None:
                return None
            stack.append(right)
            stack.append(left)
            continue
        text = " ".join(ctx.src.text(node).split())
        if _COORD.match(text):
            unsigned = True
        elif not _int32(ctx, call, fn, node, text, declared):
            return None
    return "unsigned" if unsigned else "int"


def _int32(ctx: Context, call: Node, fn: Node | None, arg: Node, text: str,
           declared: dict[tuple[int, str], list[tuple[int, str]]]) -> bool:
    if _INT_LITERAL.match(text):
        return True
    if arg.type != "identifier" or fn is None:
        return False
    # The declarations of the name in the function, read once for all its calls: (where each
    # ends, its type). The last one before the call counts.
    key = (fn.id, text)
    found = declared.get(key)
    if found is None:
        pat = re.compile(rb"(?:^|[;{(,]\s*)((?:const\s+)?(?:unsigned\s+int|signed\s+int|unsigned|int|uint|"
                         rb"uint32_t|int32_t))\s+" + re.escape(text.encode()) + rb"\s*[=;,)]", re.M)
        body = memoryview(ctx.src.data)[fn.start_byte:fn.end_byte]  # (`^` matches at its start)
        found = declared[key] = [(m.end(), m.group(1).decode()) for m in pat.finditer(body)]
    before = [t for end, t in found if end <= call.start_byte - fn.start_byte]
    return bool(before) and " ".join(before[-1].split()) in _INT_TYPES
