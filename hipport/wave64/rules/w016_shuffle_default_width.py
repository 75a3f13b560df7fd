"""W016 shuffle-default-width: a broadcast, rotate, neighbour or last-lane shuffle with the
default width in 32-lane code.

After the port the default width is the wave: `__shfl(v, 0)` gives lanes 32-63 lane 0 of the
*wave* (lane 32 receives 1 instead of 33 in wave64.md §7.4 H4), a rotation wraps at 64 and
`__shfl(v, 31)` is no longer the last lane. Logical32 passes `width = 32` (and, below ROCm 5.7,
masks a computed source lane, W021); natively the last lane is `warpSize - 1`.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import LANEREL, TID, Facts
from hipport.wave64.rules._common import finding, short
from hipport.wave64.rules.w006_shuffle_loop_from_16 import unrolled_steps

RULE = "W016"


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        model, strategy = em.model(fn), em.strategy(fn)
        if model == "agnostic":
            continue
        skip = {id(wc) for lp in fn.loops for wc in lp.shuffles} | {id(wc) for wc in unrolled_steps(facts, em, fn)}
        for wc in fn.calls:
            if wc.family != "shfl" or wc.width is not None or wc.lane is None or id(wc) in skip:
                continue
            if wc.base == "shfl_xor" or em.removed(wc.node):
                continue
            cv = facts.cval(wc.lane, fn)
            text = short(facts.src.text(wc.node), 40)
            kind = {"shfl": "broadcast/rotate", "shfl_up": "neighbour", "shfl_down": "neighbour"}[wc.base]
            if wc.base == "shfl" and cv is not None and cv[0] == 31:
                kind = "last-lane"
            msg = f"{kind} shuffle `{text}` uses the default width: 64 lanes on wave64, 32 on CUDA"
            if strategy == "logical32":
                edits: list[Edit] = []
                reach = facts.kinds(wc.lane, fn) & (LANEREL | TID) or (cv is not None and cv[0] >= 32)
                if wc.base == "shfl" and reach and not em.shfl_wraps:
                    edits.append(sx.insert(wc.lane.start_byte, "(", RULE))
                    edits.append(sx.insert(wc.lane.end_byte, ") & 31, 32", RULE))
                    title = "pass `width = 32` and keep the source lane in 0..31 (HIP < 5.7 does not wrap it)"
                else:
                    a = sx.append_arg(wc.node, "32", RULE)
                    edits = [a] if a is not None else []
                    title = "pass `width = 32`"
                out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(title, edits, fn, True)))
                continue
            if wc.base == "shfl" and cv is not None and cv[0] == 31 and not cv[2]:
                out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
                    "read the wave's last lane, `warpSize - 1`", [sx.replace(wc.lane, "warpSize - 1", RULE)],
                    fn, False)))
            else:
                out.append(finding(facts, RULE, wc.node, msg + "; kept: natively the shuffle spans the wave",
                                   fn, kept=True))
    return out
