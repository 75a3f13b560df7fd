"""CUDA version macros (`CUDART_VERSION`, `CUDA_VERSION`, `__CUDACC_VER_MAJOR__`) in conditions.

HIP numbers its releases differently, so only two meanings carry over: "is a runtime here"
(`#ifdef CUDART_VERSION`, `defined(...)`: the HIP macro the table names) and "is it at least
CUDA N" for N no newer than the level the table gives (what HIP at the floor covers):
`CUDART_VERSION >= 4000` becomes `defined(HIP_VERSION)`, `CUDART_VERSION < 4000` its negation.
A test against a newer version changes which branch is compiled, so it is left as written
(the macro is undefined under hipcc and reads as 0) with a warning. A value (printed,
compared at run time) becomes HIP's own version, with a warning that the numbering differs.
"""

from __future__ import annotations

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.rules import Mapping
from hipport.source import Node
from hipport.translate.context import Context

CONDITIONS = frozenset({"preproc_if", "preproc_elif", "preproc_elifdef"})
_HOLDS = {">=": lambda v, n: v >= n, ">": lambda v, n: v > n, "<=": lambda v, n: v <= n,
          "<": lambda v, n: v < n, "==": lambda v, n: v == n, "!=": lambda v, n: v != n}
_FLIP = {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "==", "!=": "!="}


def port(ctx: Context, node: Node, m: Mapping) -> None:
    """Port one use of the version macro `m` at the identifier `node`."""
    assert m.hip is not None and m.level is not None
    parent = node.parent
    ptype = parent.type if parent is not None else ""
    if ptype in ("preproc_defined", "preproc_ifdef", "preproc_elifdef"):
        ctx.edit(node.start_byte, node.end_byte, m.hip, FixKind.RENAME)
        return
    if parent is not None and ptype == "binary_expression" and _in_condition(parent):
        decided = _decide(ctx, parent, node, m.level)
        if decided is not None:
            text = f"defined({m.hip})" if decided else f"!defined({m.hip})"
            ctx.edit(parent.start_byte, parent.end_byte, text, FixKind.RENAME)
            return
        ctx.report(HP.UNSUPPORTED_API, Severity.WARNING, node.start_byte, node.end_byte,
                   f"{m.cuda} is a CUDA version number that HIP does not define: hipcc reads "
                   f"it as 0 here, which may compile the other branch; choose the branch HIP "
                   f"supports by hand", m.family)
        return
    # A value (printed, compared at run time): HIP's own version is the nearest meaning.
    ctx.edit(node.start_byte, node.end_byte, m.hip, FixKind.RENAME)
    ctx.report(HP.UNSUPPORTED_API, Severity.WARNING, node.start_byte, node.end_byte,
               f"{m.cuda} -> {m.hip}, which numbers HIP releases, not CUDA ones: check what "
               f"this value is compared with or shown as", m.family)


def _in_condition(node: Node) -> bool:
    n: Node | None = node
    while n is not None:
        if n.type in CONDITIONS:
            return True
        if n.type not in ("binary_expression", "unary_expression", "parenthesized_expression"):
            return False
        n = n.parent
    return False


def _decide(ctx: Context, expr: Node, name: Node, level: int) -> bool | None:
    """The comparison's value for every version from `level` on, or None when it varies."""
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    op = expr.child_by_field_name("operator")
    if left is None or right is None or op is None:
        return None
    sym = ctx.src.text(op)
    other = right if left == name else left
    if sym not in _HOLDS or other.type != "number_literal":
        return None
    try:
        n = int(ctx.src.text(other).rstrip("uUlL"), 0)
    except ValueError:
        return None
    if left != name:
        sym = _FLIP[sym]
    # Monotone tests only: the value at `level` must hold for every later version too.
    if sym in (">=", ">"):
        return True if _HOLDS[sym](level, n) else None
    if sym in ("<", "<="):
        return False if not _HOLDS[sym](level, n) else None
    return None
