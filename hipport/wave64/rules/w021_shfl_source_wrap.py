"""W021 shfl-source-wrap: a `__shfl` source lane that can reach the width, on HIP before 5.7.

CUDA and HIP >= 5.7 use the source lane modulo `width`. HIP <= 5.6 computes
`src + (self & ~(width - 1))` without the modulo, so `__shfl(v, lane + 1, 32)` at lane 31 reads
lane 32 of the *next* segment (ROCm/clr commit 23e99dbb0, first in rocm-5.7.0). Masking the source,
`(lane + 1) & (width - 1)`, is right on every HIP and on CUDA. Only reported when the ROCm floor
is below 5.7. Default-width shuffles are W016's.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import LANEREL, TID, Facts
from hipport.wave64.rules._common import finding, short
from hipport.wave64.rules.w009_coop_groups_tile_32 import tile_size

RULE = "W021"


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    if em.shfl_wraps:
        return out
    for wc in facts.calls:
        if wc.lane is None or em.removed(wc.node):
            continue
        fn = wc.fn
        if wc.family == "shfl" and wc.base == "shfl" and wc.width is not None:
            cv = facts.cval(wc.width, fn)
            width = cv[0] if cv is not None else None
        elif wc.family == "tile" and wc.name == "shfl" and wc.tile is not None:
            width = tile_size(facts, fn, wc.tile)
        else:
            continue
        if width is None or width >= 64 or width & (width - 1):
            continue
        unpinned = width == 32 and wc.family == "shfl" and em.strategy(fn) == "native" and em.model(fn) != "agnostic"
        src = facts.cval(wc.lane, fn)
        reach = (facts.kinds(wc.lane, fn) & (LANEREL | TID)) or (src is not None and src[0] >= width)
        if not reach:
            continue
        msg = (f"`{short(facts.src.text(wc.node), 40)}`: the source lane can reach {width}; HIP before 5.7 does"
               f" not wrap it to the width (the ROCm {facts.config.rocm} floor)")
        if unpinned:  # the native rewrite drops the width (W016): the shuffle spans the wave
            out.append(finding(facts, RULE, wc.node, msg + "; kept: natively the width-32 pin is dropped", fn,
                               kept=True))
            continue
        edits = [sx.insert(wc.lane.start_byte, "(", RULE), sx.insert(wc.lane.end_byte, f") & {width - 1}", RULE)]
        out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
            f"mask the source lane: `& {width - 1}`", edits, fn, True)))
    return out
