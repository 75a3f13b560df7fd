"""Code hipport writes once per translation unit (a guarded block), before the first use."""

from __future__ import annotations

from hipport.source import Node
from hipport.translate.context import Context

_SCOPES = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
                     "preproc_elifdef"})


def write_before(ctx: Context, use: Node, block: str, rule: str) -> None:
    """Insert `block` at the start of the line of the item that holds `use` at namespace scope:
    before it, whatever namespaces hold it, inside the preprocessor branch (an include guard)
    that holds it, so it comes after that branch's includes."""
    top = use
    while top.parent is not None and top.parent.type not in _SCOPES:
        top = top.parent
    prev = top.prev_sibling
    while prev is not None and prev.type == "comment" and \
            ctx.src.data.count(b"\n", prev.end_byte, top.start_byte) <= 1:
        top, prev = prev, prev.prev_sibling  # the comment that belongs to it stays with it
    at = ctx.src.data.rfind(b"\n", 0, top.start_byte) + 1
    ctx.edit(at, at, block.replace("\n", ctx.src.newline), rule)


def declared_in_scope(ctx: Context, use: Node, declarations: list[int]) -> bool:
    """Is one of the declarations (offsets) in the function holding `use`, or outside every
    function (a global)?"""
    fn = use.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    if fn is not None and any(fn.start_byte <= d < use.start_byte for d in declarations):
        return True
    for d in declarations:
        n = ctx.src.node_at(d, d + 1)
        while n is not None and n.type != "function_definition":
            n = n.parent
        if n is None:
            return True
    return False
