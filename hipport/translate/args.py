"""Argument rewrites where HIP's signature differs from CUDA's, named by the tables' `args`.

Each transform inserts text around one argument (never retyping it), so renames inside the
argument still apply and a second run sees HIP names and does nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from hipport.model import Severity
from hipport.rules import Mapping
from hipport.source import Node
from hipport.translate.context import Context


def call_arguments(name_node: Node) -> tuple[Node, list[Node]] | None:
    """The argument_list and its arguments when `name_node` is the callee of a call."""
    call = name_node.parent
    while call is not None and call.type in ("template_function", "qualified_identifier"):
        call = call.parent
    if call is None or call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or not (fn.start_byte <= name_node.start_byte < fn.end_byte):
        return None
    arglist = call.child_by_field_name("arguments")
    if arglist is None:
        return None
    return arglist, [c for c in arglist.named_children if c.type != "comment"]


def _wrap(ctx: Context, arg: Node, before: str, after: str, rule: str) -> None:
    ctx.edit(arg.start_byte, arg.start_byte, before, rule)
    ctx.edit(arg.end_byte, arg.end_byte, after, rule)


def hip_symbol(ctx: Context, args: list[Node], arglist: Node, n: int) -> None:
    if n < len(args) and not ctx.src.text(args[n]).startswith("HIP_SYMBOL"):
        _wrap(ctx, args[n], "HIP_SYMBOL(", ")", "HP-args")


def fn_cast(ctx: Context, args: list[Node], arglist: Node, n: int) -> None:
    if n < len(args) and args[n].type not in ("cast_expression",) \
            and "_cast<" not in ctx.src.text(args[n]):
        _wrap(ctx, args[n], "reinterpret_cast<const void*>(", ")", "HP-args")


def host_malloc_flags(ctx: Context, args: list[Node], arglist: Node, n: int) -> None:
    if len(args) == n:  # no flags argument: HIP's C API needs one
        close = arglist.end_byte - 1
        ctx.edit(close, close, ", hipHostMallocDefault", "HP-args")


TRANSFORMS: dict[str, Callable[[Context, list[Node], Node, int], None]] = {
    "hip_symbol": hip_symbol,
    "fn_cast": fn_cast,
    "host_malloc_flags": host_malloc_flags,
}


def apply(ctx: Context, name_node: Node, m: Mapping) -> None:
    found = call_arguments(name_node)
    if found is None or not m.args:
        return
    arglist, args = found
    for spec in m.args.split(","):
        kind, _, param = spec.strip().partition(":")
        fn = TRANSFORMS.get(kind)
        if fn is None:
            ctx.report("HP006", Severity.ERROR, name_node.start_byte, name_node.end_byte,
                       f"unknown argument transform {kind!r} in the rules for {m.cuda}")
            continue
        fn(ctx, args, arglist, int(param or 0))
