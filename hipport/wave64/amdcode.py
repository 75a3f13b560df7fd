"""Code a tree wrote for AMD (an `#if` branch only AMD compiles), analysed as HIP.

The rules judge CUDA code against a model of its kernel (32-lane warps, or the wave); code under
`#ifdef __HIP_PLATFORM_AMD__` was written for AMD and is left to its authors (facts.amd_only),
except where it is wrong on every AMD target whatever its model: a wave ballot (64 bits on
CDNA) kept in 32 bits (W002), or compared with or masked by a 32-lane all-ones constant (W003).
Those are reported, never rewritten: which width the authors meant is theirs to say.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import Facts
from hipport.wave64.rules._common import finding, short

_FULL32 = 0xFFFFFFFF


def check(facts: Facts) -> list[Finding]:
    if not facts.amd_only:
        return []
    out: list[Finding] = []
    for wc in facts.calls:
        if wc.family not in ("ballot", "activemask") or not facts.is_amd_only(wc.node.start_byte):
            continue
        fn = wc.fn
        text = short(facts.src.text(wc.node), 40)
        if facts.sink32(wc.node, fn):
            out.append(finding(facts, W.BALLOT_STORED_32BIT, wc.node,
                               f"`{text}` is a 64-lane mask on CDNA; this code, written for AMD, keeps it "
                               f"in 32 bits and loses lanes 32-63 (reported, not rewritten)", fn))
            continue
        other = _compared_with(facts, wc.node)
        if other is not None:
            cv = facts.cval(other, fn)
            if cv is not None and cv[0] == _FULL32:
                out.append(finding(facts, W.MASK_BITOP_32BIT, wc.node.parent or wc.node,
                                   f"`{short(facts.src.text(wc.node.parent or wc.node), 40)}` in code written for "
                                   f"AMD tests 32 lanes of a 64-lane wave mask (reported, not rewritten)", fn))
    return out


def _compared_with(facts: Facts, node: Node) -> Node | None:
    """The other operand when `node` is compared (==, !=) or masked (&) with something."""
    p = node.parent
    while p is not None and p.type == "parenthesized_expression":
        node, p = p, p.parent
    if p is None or p.type != "binary_expression":
        return None
    op, left, right = facts.binop(p)
    if op not in ("==", "!=", "&") or left is None:
        return None
    return right if sx.inside(node, left) else left
