"""`min`/`max` with a built-in coordinate: CUDA has an unsigned overload, HIP does not.

`blockDim.x` is an `unsigned int` in CUDA, so `min(rem, blockDim.x)` calls its unsigned
`min`. In HIP the coordinate is a proxy object and HIP 5.2 declares `min` for int, float,
double and one template, so the call is ambiguous. Where the other argument is a 32-bit
integer (a coordinate, an integer literal, or a variable the function declares with such a
type) the call is written `min<unsigned int>(...)`, which is CUDA's choice; other mixes are
left as written.
"""

from __future__ import annotations

import re

from hipport.source import Node
from hipport.translate.context import Context

_COORD = re.compile(r"^(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]$")
_INT_LITERAL = re.compile(r"^\d+[uU]?$")
_INT_TYPES = frozenset({"unsigned", "unsigned int", "int", "uint", "uint32_t", "int32_t",
                        "signed int", "const unsigned int", "const int", "const unsigned",
                        "const uint", "const uint32_t", "const int32_t"})
_CALL = re.compile(rb"\b(?:min|max)\s*\(")


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"Idx." not in data and b"Dim." not in data:
        return
    for m in _CALL.finditer(data):
        callee = ctx.src.root.descendant_for_byte_range(m.start(), m.start() + 3)
        call = callee.parent if callee is not None else None
        if callee is None or callee.type != "identifier" or call is None \
                or call.type != "call_expression" or call.child_by_field_name("function") != callee:
            continue
        args = call.child_by_field_name("arguments")
        items = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if len(items) != 2:
            continue
        texts = [" ".join(ctx.src.text(a).split()) for a in items]
        coords = [bool(_COORD.match(t)) for t in texts]
        if not any(coords):
            continue
        if all(c or _int32(ctx, call, a, t) for a, t, c in zip(items, texts, coords, strict=True)):
            ctx.edit(callee.end_byte, callee.end_byte, "<unsigned int>", "HP-args")


def _int32(ctx: Context, call: Node, arg: Node, text: str) -> bool:
    if _INT_LITERAL.match(text):
        return True
    if arg.type != "identifier":
        return False
    fn = call.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    if fn is None:
        return False
    pat = re.compile(rb"(?:^|[;{(,]\s*)((?:const\s+)?(?:unsigned\s+int|signed\s+int|unsigned|int|uint|"
                     rb"uint32_t|int32_t))\s+" + re.escape(text.encode()) + rb"\s*[=;,)]", re.M)
    body = ctx.src.data[fn.start_byte:call.start_byte]
    found = pat.findall(body)
    return bool(found) and " ".join(found[-1].decode().split()) in _INT_TYPES
