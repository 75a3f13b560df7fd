"""Device functions a target in `offload_arch` cannot compile (rules/targets/device.toml).

HIP declares its texture functions for every target, but gfx90a has no image instruction for
sampling at a level of detail, with gradients, or gathering (`tex2DLod` fails in the backend:
"requested image instruction is not supported on this GPU"), and gfx94x/gfx950 have no image
instructions at all. The port is right and the target is not, so each call is reported (HP020)
and nothing is rewritten.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.registry import HP
from hipport.rules.targets import lacks, processor
from hipport.translate.context import Context
from hipport.translate.names import SKIP_TYPES


def run(ctx: Context) -> None:
    archs = {processor(a) for a in ctx.config.offload_arch}
    wanted = [(lack, sorted(lack.targets & archs)) for lack in lacks()]
    wanted = [(lack, hit) for lack, hit in wanted if hit]
    if not wanted:
        return
    data = ctx.src.data
    names = sorted({f for lack, _ in wanted for f in lack.functions if f.encode() in data})
    if not names:
        return
    # A call: the name, optional template arguments, then `(`.
    call = re.compile(rb"(?<![\w$.>:])(" + b"|".join(n.encode() for n in names) + rb")\s*(?:<[^;(){}]*>\s*)?\(")
    for m in call.finditer(data):
        node = ctx.src.node_at(m.start(1), m.end(1))
        if node is None or node.type in SKIP_TYPES:
            continue
        name = m.group(1).decode()
        for lack, hit in wanted:
            if name in lack.functions:
                said = lack.error.replace("{name}", name)
                ctx.report(HP.UNSUPPORTED_ON_TARGET, Severity.ERROR, m.start(1), m.end(1),
                           f"{name} does not compile for {', '.join(hit)}: the target lacks {lack.what} "
                           f"(the compiler says: {said}); build for another target or sample "
                           f"without it", "texture", name)
                break
