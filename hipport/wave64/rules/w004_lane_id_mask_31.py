"""W004 lane-id-mask-31: a lane id computed as `tid & 31` or `tid % 32`.

On wave64 the hardware lane is 0..63. In code that keeps 32-lane logical warps (logical32) the
expression is right and stays; natively it becomes `tid & (warpSize - 1)` / `tid % warpSize`
(equal to `__lane_id()` for 1-D blocks). In a mixed kernel rewritten as logical32, the wave-wide
forms (`tid % warpSize`, `__lane_id()`) become 32-lane ones instead.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.rules._common import (
    finding,
    idents_in,
    in_constant_context,
    named_const,
    named_site_message,
    short,
)

RULE = "W004"


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        model, strategy = em.model(fn), em.strategy(fn)
        for s in fn.sites:
            if s.kind not in ("lane", "stride") or em.removed(s.node):
                continue
            if s.origin == "rt" and model != "mixed":
                continue
            if in_constant_context(facts, s.node):
                continue
            text = short(facts.src.text(s.node), 40)
            op = s.node.child_by_field_id(sx.F_OPERATOR)
            what = "lane id" if s.kind == "lane" else "lane-strided loop step"
            if s.origin == "named":
                name = named_const(facts, s.const)
                if name is not None and model != "agnostic":
                    out.append(finding(facts, RULE, s.node, named_site_message(facts, what, text, name, strategy),
                                       fn, kept=True))
                continue
            if s.origin == "literal":
                msg = f"{what} `{text}` assumes 32-lane warps; a wave64 lane is 0..63"
                if strategy == "logical32":
                    out.append(finding(facts, RULE, s.node, msg + "; kept: logical 32-lane warps", fn,
                                       kept=True))
                    continue
                repl = "(warpSize - 1)" if op is not None and op.type == "&" else "warpSize"
                if s.kind == "stride":
                    repl = "warpSize"
                out.append(finding(facts, RULE, s.node, msg, fn, em.fix(
                    f"use the wave's lane: `{repl}`", [sx.replace(s.const, repl, RULE)], fn, False)))
            else:
                msg = f"{what} `{text}` follows the wave while other sites of this kernel assume 32 lanes"
                if strategy == "native":
                    out.append(finding(facts, RULE, s.node, msg + "; kept: the kernel becomes wave-agnostic",
                                       fn, kept=True))
                    continue
                edits = [sx.replace(i, "32", RULE) for i in idents_in(facts, s.const, "warpSize")]
                out.append(finding(facts, RULE, s.node, msg, fn, em.fix(
                    "use the 32-lane logical lane", edits, fn, False)))
        if model == "mixed":
            for wc in fn.calls:
                if wc.family != "lane_id" or em.removed(wc.node) or facts.in_lane_idiom(wc.node):
                    continue
                msg = "`__lane_id()` is the wave lane (0..63) while other sites of this kernel assume 32 lanes"
                if strategy == "native":
                    out.append(finding(facts, RULE, wc.node, msg + "; kept: the kernel becomes wave-agnostic",
                                       fn, kept=True))
                    continue
                out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
                    "use the 32-lane logical lane `(__lane_id() & 31)`",
                    sx.wrap(wc.node, "(", " & 31)", RULE), fn, False)))
    return out
