"""W016 shuffle-default-width: a broadcast, rotate, neighbour or last-lane shuffle with the
default width in 32-lane code.

After the port the default width is the wave: `__shfl(v, 0)` gives lanes 32-63 lane 0 of the
*wave* (lane 32 receives 1 instead of 33 in wave64.md §7.4 H4), a rotation wraps at 64 and
`__shfl(v, 31)` is no longer the last lane. Logical32 passes `width = 32` (and, below ROCm 5.7,
masks a computed source lane, W021); natively the last lane is `warpSize - 1`. A shuffle of a
value every lane of the block holds (`blockIdx.x`, `gridDim.x`, a kernel argument:
`facts.is_uniform`) reads the same at any width and is not reported.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import LANEREL, TID, Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short
from hipport.wave64.rules.w006_shuffle_loop_from_16 import unrolled_steps

RULE = W.SHUFFLE_DEFAULT_WIDTH
# The page `hipport explain W016` and rules/wave64/W016.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds broadcast (`__shfl(v, 0)`), rotate (`__shfl(v, lane + 1)`), neighbour '
          '(`__shfl_up(v, 1)`) and last-lane (`__shfl(v, 31)`) shuffles with the default width in '
          '32-lane code, and shuffles pinned to width 32 when the kernel is made wave-agnostic.'),
    why=('After the port the default width is the wave: lanes 32-63 receive lane 0 of the wave '
         'instead of lane 32, a rotation wraps at 64, `__shfl(v, 31)` is no longer the last lane.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const float* in, float* out) {\n'
            '  const int lane = threadIdx.x & 31;\n'
            '  float v = in[threadIdx.x];\n'
            '  out[threadIdx.x] = __shfl(v, 0) + __shfl(v, lane + 1) + __shfl(v, 31);\n'
            '}\n'),
    safety=("Logical32 passes `width = 32`: safe, CUDA's semantics exactly; below a 5.7 floor a "
            'computed source lane is also masked to the width (W021). Natively the last lane becomes '
            '`warpSize - 1` and width-32 pins are dropped: review.'),
    refs=('width', 'design'),
)


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        model, strategy = em.model(fn), em.strategy(fn)
        if model == "agnostic":
            continue
        skip = {id(wc) for lp in fn.loops for wc in lp.shuffles} | {id(wc) for wc in unrolled_steps(facts, em, fn)}
        for wc in fn.calls:
            if wc.family != "shfl" or wc.lane is None or id(wc) in skip or em.removed(wc.node):
                continue
            if facts.is_uniform(wc.value, fn):  # every lane holds it (blockIdx.x): any width reads the same
                continue
            if wc.width is not None:
                if wc.wrapper is not None:
                    continue
                wv = facts.cval(wc.width, fn)
                if wv is None or wv[0] != 32 or wv[2]:
                    continue
                msg = (f"shuffle `{short(facts.src.text(wc.node), 40)}` pins the width to a 32-lane warp")
                if strategy == "logical32":
                    out.append(finding(facts, RULE, wc.node, msg + "; kept: logical 32-lane warps", fn, kept=True))
                else:
                    edits: list[Edit] = [d for d in [sx.delete_arg(wc.node, len(wc.args) - 1, RULE)] if d is not None]
                    sv = facts.cval(wc.lane, fn)
                    if wc.base == "shfl" and sv is not None and sv[0] == 31 and not sv[2]:
                        edits.append(sx.replace(wc.lane, "warpSize - 1", RULE))
                    src = sx.unparen(wc.lane)
                    if wc.base == "shfl" and src.type == "binary_expression":
                        sop = src.child_by_field_id(sx.F_OPERATOR)
                        sr = src.child_by_field_id(sx.F_RIGHT)
                        sc = facts.cval(sr, fn) if sr is not None else None
                        if sr is not None and sop is not None and sc is not None and not sc[2]:
                            if sop.type == "&" and sc[0] == 31:
                                edits.append(sx.replace(sr, "(warpSize - 1)", RULE))
                            elif sop.type == "%" and sc[0] == 32:
                                edits.append(sx.replace(sr, "warpSize", RULE))
                    out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
                        "use the default width (the wave)", edits, fn, False)))
                continue
            if wc.base == "shfl_xor":
                continue
            cv = facts.cval(wc.lane, fn)
            text = short(facts.src.text(wc.node), 40)
            kind = {"shfl": "broadcast/rotate", "shfl_up": "neighbour", "shfl_down": "neighbour"}[wc.base]
            if wc.base == "shfl" and cv is not None and cv[0] == 31:
                kind = "last-lane"
            msg = f"{kind} shuffle `{text}` uses the default width: 64 lanes on wave64, 32 on CUDA"
            if strategy == "logical32":
                edits = []
                reach = facts.kinds(wc.lane, fn) & (LANEREL | TID) or (cv is not None and cv[0] >= 32)
                if wc.wrapper is not None:
                    edits = [sx.insert(wc.wrapper.args[-1][1], ", 32", RULE)]
                    title = f"pass `width = 32` in the `{wc.name}` macro"
                elif wc.base == "shfl" and reach and not em.shfl_wraps:
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
