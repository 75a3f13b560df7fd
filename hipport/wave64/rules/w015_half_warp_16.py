"""W015 half-warp-16: 16-lane half-warp bit tricks on a wave mask.

Shuffles with an explicit width of 16 are sub-wave on both vendors and fine. Bit-position idioms
are not: on a 64-bit ballot `m >> 16` returns lanes 16-47 and `0xffff0000` names only the first
logical warp's upper half. Under logical32 the mask is the caller's 32-bit half, so these idioms
keep CUDA's meaning; natively there are four 16-lane groups per wave and the arithmetic must be
redone from the lane (`(m >> (__lane_id() & ~15)) & 0xffff` for the caller's group): a review.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.registry import W
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import MASK, Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short

RULE = W.HALF_WARP_16
# The page `hipport explain W015` and rules/wave64/W015.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds 16-lane half-warp bit tricks on wave masks: `m >> 16`, `m & 0xffff`, `m & '
          '0xffff0000`, and `*_sync` masks `0xffff` / `0xffff0000`. Shuffles with an explicit '
          'width of 16 are fine and are not reported.'),
    why=('On a 64-bit ballot `m >> 16` returns lanes 16-47 and `0xffff0000` names only the first '
         "logical warp's upper half; a wave64 has four 16-lane groups."),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const int* in, int* out) {\n'
            '  const int lane = threadIdx.x & 31;\n'
            '  const unsigned b = __ballot(in[threadIdx.x] > 0);\n'
            '  out[threadIdx.x] = lane < 16 ? __popc(b & 0xffff) : __popc(b >> 16);\n'
            '}\n'),
    safety=("Under logical32 the mask is the caller's 32-lane half and the idioms keep CUDA's "
            "meaning (info). Natively there is no mechanical rewrite: recompute the group's bits "
            'from the lane, e.g. `(m >> (__lane_id() & ~15)) & 0xffff` (no fix, a review).'),
    refs=('ballot', 'design'),
)
HALF_MASKS = (0xFFFF, 0xFFFF0000)


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        if not fn.collective:
            continue
        strategy = em.strategy(fn)
        sites = []
        for b in fn.node_list("binary_expression"):
            op, left, right = facts.binop(b)
            if op not in (">>", "&") or left is None or right is None or em.removed(b):
                continue
            if op == ">>" and facts.kinds(left, fn) & MASK:
                cv = facts.cval(right, fn)
                if cv is not None and cv[0] == 16:
                    sites.append(b)
            elif op == "&":
                for m, c in ((left, right), (right, left)):
                    cv = facts.cval(c, fn)
                    if cv is not None and cv[0] in HALF_MASKS and facts.kinds(m, fn) & MASK:
                        sites.append(b)
                        break
        for wc in fn.calls:
            if wc.mask is not None and not em.removed(wc.node):
                cv = facts.cval(wc.mask, fn)
                if cv is not None and cv[0] in HALF_MASKS:
                    sites.append(wc.mask)
        for node in sites:
            msg = f"half-warp idiom `{short(facts.src.text(node), 40)}` assumes the 32-bit lane layout"
            if strategy == "logical32":
                out.append(finding(facts, RULE, node, msg + "; kept: the mask is the caller's 32-lane half", fn,
                                   kept=True))
            else:
                out.append(finding(facts, RULE, node, msg + "; a wave64 has four 16-lane groups: recompute it"
                                   " from the lane, e.g. `(m >> (__lane_id() & ~15)) & 0xffff`", fn))
    return out
