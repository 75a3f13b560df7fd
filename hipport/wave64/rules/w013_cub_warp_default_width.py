"""W013 cub-warp-default-width: a CUB / hipCUB warp primitive with the default logical width.

CUB's default is 32 threads; hipCUB's is the device wave (64 on CDNA). After the port, the two
32-lane halves of a wave call one 64-lane collective with different TempStorage slots. Logical32
pins the width to 32 (rocPRIM supports logical warps smaller than the wave); natively it is pinned
to the per-architecture constant so it agrees with the kernel's other warp arithmetic.
"""

from __future__ import annotations

import re

from hipport.model import Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import WAVE, Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding

RULE = W.CUB_WARP_DEFAULT_WIDTH
# The page `hipport explain W013` and rules/wave64/W013.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds CUB / hipCUB warp primitives (`WarpReduce`, `WarpScan`, `WarpExchange`, '
          '`WarpLoad`, `WarpStore`, `WarpMergeSort`) that leave the logical warp width at its '
          'default.'),
    why=("CUB's default is 32 threads; hipCUB's is the device wave, 64 on CDNA. After the port "
         'the two 32-lane halves of a wave call one 64-lane collective with different TempStorage '
         'slots.'),
    before=('#include <hip/hip_runtime.h>\n'
            '#include <hipcub/hipcub.hpp>\n'
            '\n'
            '__global__ void k(const float* in, float* out) {\n'
            '  typedef hipcub::WarpReduce<float> WarpReduce;\n'
            '  __shared__ typename WarpReduce::TempStorage tmp[256 / 32];\n'
            '  float s = WarpReduce(tmp[threadIdx.x / 32]).Sum(in[threadIdx.x]);\n'
            '  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = s;\n'
            '}\n'),
    safety=('Logical32 pins the width to 32: safe (rocPRIM supports logical warps smaller than the '
            'wave). Natively it is pinned to `HIPPORT_WAVE_SIZE`: review.'),
    refs=('arch', 'design'),
)
PRIMS = {"WarpReduce": 1, "WarpScan": 1, "WarpExchange": 2, "WarpLoad": 3, "WarpStore": 3,
         "WarpMergeSort": 2}
PATTERN = re.compile(rb"\b(?:hip)?cub\s*::\s*(Warp(?:Reduce|Scan|Exchange|Load|Store|MergeSort))\s*<")


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    if b"Warp" not in facts.data or b"cub" not in facts.data:  # every match holds both
        return out
    strategies = {g.strategy for g in facts.groups if g.model != "agnostic"}
    fallback = next(iter(strategies)) if len(strategies) == 1 else (
        "native" if facts.config.wave_strategy == "native" else "logical32")
    for m in PATTERN.finditer(facts.data):
        if facts.inactive and facts.is_inactive(m.start()):
            continue
        ident = facts.src.node_at(m.start(1), m.end(1))
        tt = ident.parent if ident is not None else None
        if tt is None or tt.type not in ("template_type", "template_function"):
            continue
        args = tt.child_by_field_id(sx.F_ARGUMENTS)
        if args is None:
            continue
        given = [a for a in args.named_children if a.type != "comment"]
        pos = PRIMS[m.group(1).decode()]
        if len(given) != pos:
            continue
        fn = facts.func_at(m.start())
        if fn is not None and fn.group is not None:
            strategy, model = fn.group.strategy, fn.group.model
        else:
            strategy, model = fallback, "warp32"  # CUB's default width is a 32-lane warp
        msg = (f"`{m.group(1).decode()}` with the default logical width: 32 lanes on CUDA, the whole"
               " 64-lane wave with hipCUB on CDNA")
        if strategy == "logical32":
            edits = [sx.insert(given[-1].end_byte, ", 32", RULE)]
            title = "pin the logical warp to 32 lanes"
            mechanical = True
        else:
            edits = [sx.insert(given[-1].end_byte, f", {WAVE}", RULE), *em.prelude()]
            title = f"pin the logical warp to the wave, `{WAVE}`"
            mechanical = False
        out.append(finding(facts, RULE, tt, msg, fn, em.fix(title, edits, fn, mechanical, model, strategy),
                           model=model))
    return out
