"""W020 amdgcn-wavefront-size-macro: `__AMDGCN_WAVEFRONT_SIZE` / `__AMDGCN_WAVEFRONT_SIZE__`.

Deprecated by LLVM in Nov 2024 (a warning with ROCm 6.4+ compilers) and removed in Oct 2025
("use of undeclared identifier" on ROCm 7.2). Clang 15 (ROCm 5.x) only has the spelling without
trailing underscores. A value use becomes `HIPPORT_WAVE_SIZE`, which has the same value in every
pass (64 on gfx8/gfx9, 32 on gfx10+, 64 in the host pass); a `defined(...)` test, which asked
"is this AMD?", becomes `__HIP_PLATFORM_AMD__`.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import WAVE, Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.rules._common import finding

RULE = "W020"


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for name, node, fn, start, end in facts.ident_uses:
        if not name.startswith("__AMDGCN_WAVEFRONT_SIZE"):
            continue
        parent = node.parent
        is_defined = node.type == "identifier" and parent is not None and (
            parent.type == "preproc_defined" or (parent.type in ("preproc_ifdef", "preproc_elifdef")
                                                 and (parent.child_by_field_id(sx.F_NAME) or parent).id == node.id))
        model = fn.group.model if fn is not None and fn.group is not None else "agnostic"
        strategy = fn.group.strategy if fn is not None and fn.group is not None else "native"
        msg = (f"`{name}` is deprecated (warning with ROCm 6.4+ compilers) and removed in ROCm 7.2"
               " (undeclared identifier)")
        if is_defined:
            repl = "__HIP_PLATFORM_AMD__" if start >= em.insert_pos() else "__HIP__"
            edits = [sx.replace_span(start, end, repl, RULE)]
            title = f"test for AMD with `{repl}`"
        elif start < em.insert_pos():
            out.append(finding(facts, RULE, (start, end), msg + "; it is used before the includes: replace it"
                               " by hand with an arch test (`__GFX8__`/`__GFX9__` -> 64, else 32)", fn, model=model))
            continue
        else:
            edits = [sx.replace_span(start, end, WAVE, RULE), *em.prelude()]
            title = f"use the per-architecture constant `{WAVE}` (same value in every pass)"
        out.append(finding(facts, RULE, (start, end), msg, fn, em.fix(title, edits, fn, True, model, strategy),
                           model=model))
    return out
