"""W019 wave-size-64-hardcoded: a wave size of 64 hard-coded for every AMD GPU.

`#define WARP_SIZE 64` under `__HIP_PLATFORM_AMD__`, `constexpr int kWarp = 64`,
`tiled_partition<64>`, a shuffle width of 64: right on CDNA (gfx9), wrong on RDNA (gfx10+ run
wave32 under HIP): values are wrong and `tiled_partition<64>` does not compile there with
HIP <= 6.2. The fix is the per-architecture constant (or `warpSize` for a run-time width).
"""

from __future__ import annotations

import re

from hipport.model import Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import WAVE, Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short, template_uses

RULE = W.WAVE_SIZE_64_HARDCODED
# The page `hipport explain W019` and rules/wave64/W019.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds a wave size hard-coded to 64 for every AMD GPU: warp-size constants of 64 '
          '(typically under `#if defined(__HIP_PLATFORM_AMD__)`), `tiled_partition<64>`, a shuffle '
          'width of 64. Constants selected with the `__GFX8__`/`__GFX9__` arch macros are already '
          'right and are not reported.'),
    why=('RDNA GPUs (gfx10+) run 32-lane waves under HIP: the constant is wrong there, and '
         '`tiled_partition<64>` does not compile with HIP <= 6.2 for wave32 targets.'),
    before=('#include <hip/hip_runtime.h>\n'
            '#if defined(__HIP_PLATFORM_AMD__)\n'
            '#define WARP_SIZE 64\n'
            '#else\n'
            '#define WARP_SIZE 32\n'
            '#endif\n'
            '\n'
            '__global__ void k(float* p) {\n'
            '  float v = p[threadIdx.x];\n'
            '  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor(v, o, 64);\n'
            '  p[threadIdx.x] = v;\n'
            '}\n'),
    safety=('Safe: the value becomes `HIPPORT_WAVE_SIZE` (the arch-selected constant) and a width of '
            '64 becomes `warpSize`; in a mixed kernel rewritten as logical32 they become 32.'),
    refs=('arch', 'waves', 'design'),
)
_WAVE_TEST = re.compile(r"__AMDGCN_WAVEFRONT_SIZE|HIPPORT_WAVE_SIZE|__GFX\d|__gfx\d")


def _chosen_per_wave(node: Node) -> bool:
    """Defined in a branch of a chain that tests the wave size or the architecture (`#if
    __AMDGCN_WAVEFRONT_SIZE == 32 ... #else kWarp = 64`): already a per-architecture value."""
    p = node.parent
    while p is not None:
        if p.type in ("preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"):
            cond = p.child_by_field_id(sx.F_CONDITION) or p.child_by_field_id(sx.F_NAME)
            if cond is not None and _WAVE_TEST.search((cond.text or b"").decode(errors="replace")):
                return True
        p = p.parent
    return False


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for name, defs in facts.consts.items():
        for c in defs:
            if c.value != 64 or c.via is not None or _chosen_per_wave(c.node):  # (an alias follows its constant)
                continue
            model, strategy = facts.model_of_const(c)
            repl = "32" if strategy == "logical32" and model != "agnostic" else WAVE
            edits = [sx.replace_span(c.value_span[0], c.value_span[1], repl, RULE)]
            if repl == WAVE:
                edits += em.prelude()
            msg = f"`{name}` = 64 hard-codes the CDNA wave size; RDNA GPUs (gfx10+) run 32-lane waves under HIP"
            out.append(finding(facts, RULE, c.node, msg, c.func, em.fix(
                f"use the per-architecture wave size `{repl}`", edits, None, True, model, strategy), model=model))
    for fn in facts.device_funcs():
        model, strategy = em.model(fn), em.strategy(fn)
        logical = strategy == "logical32" and model != "agnostic"
        for n, name, arg in template_uses(facts, fn):
            if name not in ("tiled_partition", "thread_block_tile"):
                continue
            cv = facts.cval(arg, fn)
            if cv is None or cv[0] != 64 or cv[2]:
                continue
            repl = "32" if logical else WAVE
            msg = f"`{name}<{facts.src.text(arg)}>` is a compile error on wave32 GPUs (RDNA) with HIP <= 6.2"
            out.append(finding(facts, RULE, n, msg, fn, em.fix(
                f"tile the wave: `{repl}`", [sx.replace(arg, repl, RULE)] + (em.prelude() if repl == WAVE else []),
                fn, True)))
        for wc in fn.calls:
            if wc.family != "shfl" or wc.width is None or em.removed(wc.node):
                continue
            cv = facts.cval(wc.width, fn)
            if cv is None or cv[0] != 64 or cv[2]:
                continue
            repl = "32" if logical else "warpSize"
            msg = f"shuffle width 64 in `{short(facts.src.text(wc.node), 40)}` exceeds a wave32 GPU's wave"
            out.append(finding(facts, RULE, wc.width, msg, fn, em.fix(
                f"use `{repl}`", [sx.replace(wc.width, repl, RULE)], fn, True)))
    return out
