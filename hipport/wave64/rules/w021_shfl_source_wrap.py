"""W021 shfl-source-wrap: a `__shfl` source lane that can reach the width, on HIP before 5.7.

CUDA and HIP >= 5.7 use the source lane modulo `width`. HIP <= 5.6 computes
`src + (self & ~(width - 1))` without the modulo, so `__shfl(v, lane + 1, 32)` at lane 31 reads
lane 32 of the *next* segment (ROCm/clr commit 23e99dbb0, first in rocm-5.7.0). Masking the source,
`(lane + 1) & (width - 1)`, is right on every HIP and on CUDA. Only reported when the ROCm floor
is below 5.7. Default-width shuffles are W016's.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import LANEREL, TID, Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short

RULE = W.SHFL_SOURCE_WRAP
# The page `hipport explain W021` and rules/wave64/W021.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Below a ROCm 5.7 floor, finds `__shfl(v, src, w)` (and tile `shfl`) with an explicit '
          'width smaller than the wave whose source lane can reach the width (`lane + 1`, `lane - '
          '1`, `threadIdx.x + k`).'),
    why=('CUDA and HIP >= 5.7 take the source lane modulo the width. HIP <= 5.6 computes `src + '
         '(self & ~(width - 1))` without it, so `__shfl(v, lane + 1, 32)` at lane 31 reads lane '
         '32 of the next segment (ROCm/clr commit 23e99dbb0, first in rocm-5.7.0).'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const int* in, int* out) {\n'
            '  const int lane = threadIdx.x & 31;\n'
            '  out[threadIdx.x] = __shfl(in[threadIdx.x], lane + 1, 32);\n'
            '}\n'),
    safety='Safe: the source becomes `(src) & (w - 1)`, right on every HIP version and on CUDA.',
    refs=('width', 'design'),
)


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
            width = facts.tile_size(fn, wc.tile)
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
               f" not wrap it to the width (the ROCm {facts.config.floor} floor)")
        if unpinned:  # the native rewrite drops the width (W016): the shuffle spans the wave
            out.append(finding(facts, RULE, wc.node, msg + "; kept: natively the width-32 pin is dropped", fn,
                               kept=True))
            continue
        edits = [sx.insert(wc.lane.start_byte, "(", RULE), sx.insert(wc.lane.end_byte, f") & {width - 1}", RULE)]
        out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
            f"mask the source lane: `& {width - 1}`", edits, fn, True)))
    return out
