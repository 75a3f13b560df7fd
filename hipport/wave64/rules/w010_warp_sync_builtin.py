"""W010 warp-sync-builtin: `__activemask`, `__syncwarp`, `__match_*_sync`, `__reduce_*_sync`.

HIP declares `__activemask` and `__match_*_sync` from 6.2 (behind HIP_ENABLE_WARP_SYNC_BUILTINS
until 7.0) and `__syncwarp` / `__reduce_*_sync` from 7.0 only. Below a 7.0 floor:
`__activemask()` -> `__ballot(1)`; `__syncwarp()` -> what HIP 7.0 does (wave-scope release fence,
wave barrier, acquire fence); `__match_any_sync` -> a small ballot/readlane waterfall helper;
`__reduce_<op>_sync` -> a small butterfly helper over `width` lanes (32 under logical32,
`warpSize` natively). From 7.0 they stay, with a 64-bit mask.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short
from hipport.wave64.rules.w001_sync_mask_32bit import mask_bits

RULE = W.WARP_SYNC_BUILTIN
# The page `hipport explain W010` and rules/wave64/W010.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds `__syncwarp`, `__activemask`, `__match_any_sync`, `__match_all_sync` and '
          '`__reduce_*_sync`, which the ROCm floor lacks (6.2 behind a macro, 7.0 by default), and '
          'their 32-bit masks from 7.0.'),
    why="Below the floor they do not compile. From 7.0 their masks must be 64-bit like W001's.",
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const int* keys, unsigned* out, int* sums) {\n'
            '  const int key = keys[threadIdx.x];\n'
            '  const unsigned peers = __match_any_sync(__activemask(), key);\n'
            '  __syncwarp();\n'
            '  const int total = __reduce_add_sync(0xffffffff, key);\n'
            '  out[threadIdx.x] = peers;\n'
            '  if ((threadIdx.x & 31) == 0) sums[threadIdx.x / 32] = total;\n'
            '}\n'),
    safety=('Safe: `__activemask()` -> `__ballot(1)`; `__syncwarp()` -> a wave-scope release fence, '
            'wave barrier and acquire fence (what HIP 7.0 does); `__match_any_sync` -> a small '
            'inline `hipport_match_any` helper; `__reduce_<op>_sync` -> an inline butterfly helper '
            'over 32 lanes (logical32) or `warpSize` (native); a reduction with a partial mask is a '
            'review. `__match_all_sync` is reported without a fix.'),
    refs=('sync', 'design'),
)
SYNCWARP = ('(__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
            '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront"))')
SINCE = {"activemask": "6.2", "match": "6.2", "syncwarp": "7.0", "reduce": "7.0"}


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    floor = facts.config.floor
    for wc in facts.calls:
        if wc.family not in ("activemask", "syncwarp", "match", "reduce") or em.removed(wc.node):
            continue
        if wc.family == "match" and not wc.sync:
            continue  # the mask-less HIP forms
        if facts.tree_defines(wc.name):
            continue  # the tree's own HIP shim maps it
        fn = wc.fn
        strategy = em.strategy(fn)
        text = short(facts.src.text(wc.node), 40)
        if em.native_sync:
            if wc.mask is None or mask_bits(facts, wc) == 64:
                continue
            msg = f"`{text}`: HIP masks are 64-bit (static_assert)"
            out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
                "use a 64-bit mask", em.mask64(wc, strategy, RULE), fn, em.mask_is_all(wc))))
            continue
        since = SINCE[wc.family]
        msg = (f"`{wc.name}` is not declared before HIP {since}"
               + (" (7.0 without HIP_ENABLE_WARP_SYNC_BUILTINS)" if since == "6.2" else "")
               + f"; the ROCm {floor} floor lacks it")
        callee = sx.call_function(wc.node)
        al = sx.arg_list(wc.node)
        if callee is None or al is None:
            continue
        edits: list[Edit] = []
        mechanical = True
        title = ""
        if wc.family == "activemask":
            edits = [sx.replace(callee, "__ballot", RULE), sx.replace(al, "(1)", RULE)]
            title = "use `__ballot(1)` (AMD waves run in lockstep: the active lanes)"
        elif wc.family == "syncwarp":
            edits = [sx.replace(wc.node, SYNCWARP, RULE)]
            title = "wave-scope fence and barrier, as HIP 7.0's __syncwarp"
        elif wc.family == "match":
            if wc.base == "all":
                out.append(finding(facts, RULE, wc.node, msg + " (rewrite it by hand: compare every lane's"
                                   " value with the first active lane's)", fn))
                continue
            edits = [sx.replace(callee, "hipport_match_any", RULE), *em.match_helper()]
            d = sx.delete_arg(wc.node, 0, RULE)
            if d is not None:
                edits.append(d)
            title = "use the inline `hipport_match_any` helper (64-bit peer mask)"
        elif wc.family == "reduce":
            width = "32" if strategy == "logical32" else "warpSize"
            edits = [sx.replace(callee, f"hipport_reduce_{wc.base}", RULE), *em.reduce_helper(wc.base)]
            d = sx.delete_arg(wc.node, 0, RULE)
            if d is not None:
                edits.append(d)
            a = sx.append_arg(wc.node, width, RULE)
            if a is not None:
                edits.append(a)
            mechanical = em.mask_is_all(wc)
            title = f"use the inline `hipport_reduce_{wc.base}` helper over {width} lanes"
        out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(title, edits, fn, mechanical)))
    return out
