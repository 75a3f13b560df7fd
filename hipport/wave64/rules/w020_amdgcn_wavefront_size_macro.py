"""W020 amdgcn-wavefront-size-macro: `__AMDGCN_WAVEFRONT_SIZE` / `__AMDGCN_WAVEFRONT_SIZE__`.

Deprecated by LLVM in Nov 2024 (a warning with ROCm 6.4+ compilers) and removed in Oct 2025
("use of undeclared identifier" on ROCm 7.2). Clang 15 (ROCm 5.x) only has the spelling without
trailing underscores. A value use becomes `HIPPORT_WAVE_SIZE`, which has the same value in every
pass (64 on gfx8/gfx9, 32 on gfx10+, 64 in the host pass); a `defined(...)` test, which asked
"is this AMD?", becomes `__HIP_PLATFORM_AMD__`.

A use inside a branch that bounds the ROCm/HIP version below 7 (`ROCM_VERSION_MAJOR < 7`), where
the macro exists, is correct and left alone. A `defined(...)` test alone is not such a guard: on
ROCm 7.2 it turns false and the other branch (typically a hard-coded 32) is taken on wave64 GPUs
too. It is correct when a later `#elif` of its chain handles AMD without the macro (names an AMD
or per-architecture macro: `#elif defined(__GFX9__)`, `#elif defined(__HIP_PLATFORM_AMD__)`); then
neither the test nor the uses it guards are reported.
"""

from __future__ import annotations

import re

from hipport.model import Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import platform
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import WAVE, Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding

RULE = W.AMDGCN_WAVEFRONT_SIZE_MACRO
# The page `hipport explain W020` and rules/wave64/W020.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds `__AMDGCN_WAVEFRONT_SIZE` and `__AMDGCN_WAVEFRONT_SIZE__` in code, `#if` lines '
          'and macro bodies (not in comments or strings).'),
    why=('LLVM deprecated the macros in Nov 2024 (a warning with ROCm 6.4+ compilers) and removed '
         'them in Oct 2025: "use of undeclared identifier" on ROCm 7.2. In the host pass they are '
         '64 whatever the target.'),
    before=('#include <hip/hip_runtime.h>\n'
            '#ifdef __AMDGCN_WAVEFRONT_SIZE\n'
            '#define LANES __AMDGCN_WAVEFRONT_SIZE\n'
            '#else\n'
            '#define LANES 32\n'
            '#endif\n'
            '\n'
            '__global__ void k(float* p) {\n'
            '  __shared__ float s[LANES];\n'
            '  s[threadIdx.x % LANES] = __shfl_xor(p[threadIdx.x], 1);\n'
            '  __syncthreads();\n'
            '  p[threadIdx.x] = s[0];\n'
            '}\n'),
    safety=('Safe: a value use becomes `HIPPORT_WAVE_SIZE`, which has the same value in every pass '
            '(64 on gfx8/gfx9, 32 on gfx10+, 64 in the host pass); `defined(...)` / `#ifdef` becomes '
            "`__HIP_PLATFORM_AMD__`. A use before the file's includes is reported without a fix."),
    refs=('arch', 'design'),
)
_TEST = re.compile(r"defined\s*\(?\s*__AMDGCN_WAVEFRONT_SIZE")
_OLD_ROCM = re.compile(r"\b(?:ROCM|HIP)_VERSION_MAJOR\s*(?:<\s*[0-7]|<=\s*[0-6])\b")


def _conds_taken(node: Node) -> list[tuple[Node, str]]:
    """The enclosing #if / #elif / #ifdef branches whose body holds `node`: (branch, condition)."""
    out: list[tuple[Node, str]] = []
    child, p = node, node.parent
    while p is not None:
        if p.type in ("preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"):
            alt = p.child_by_field_id(sx.F_ALTERNATIVE)
            cond = p.child_by_field_id(sx.F_CONDITION) or p.child_by_field_id(sx.F_NAME)
            if cond is not None and (alt is None or alt != child) and child.start_byte >= cond.end_byte:
                text = cond.text.decode(errors="replace") if cond.text else ""
                if p.type in ("preproc_ifdef", "preproc_elifdef"):
                    head = (p.text or b"")[:8]
                    text = ("!" if b"ifndef" in head else "") + f"defined({text})"
                out.append((p, text))
        child, p = p, p.parent
    return out


def _guarded(node: Node) -> bool:
    """Inside a branch where the ROCm version bounds the macro to exist, or one of a correct
    feature test (see `_correct_test`)."""
    return any(_OLD_ROCM.search(t) or (_TEST.search(t) and not t.lstrip().startswith("!")
                                       and _correct_test(p)) for p, t in _conds_taken(node))


def _correct_test(branch: Node) -> bool:
    """A later #elif of this chain names an AMD or per-architecture macro: AMD without the
    macro (ROCm 7.2) still gets its own branch."""
    table = platform.platforms()
    alt = branch.child_by_field_id(sx.F_ALTERNATIVE)
    while alt is not None and alt.type in ("preproc_elif", "preproc_elifdef"):
        cond = alt.child_by_field_id(sx.F_CONDITION) or alt.child_by_field_id(sx.F_NAME)
        text = (cond.text or b"").decode(errors="replace") if cond is not None else ""
        if any(table.kind(w) in ("amd", "amd_arch") for w in re.findall(r"[A-Za-z_]\w*", text)
               if not w.startswith("__AMDGCN_WAVEFRONT_SIZE")):
            return True
        alt = alt.child_by_field_id(sx.F_ALTERNATIVE)
    return False


def _enclosing_branch(node: Node) -> Node | None:
    p = node.parent
    while p is not None and p.type not in ("preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"):
        p = p.parent
    return p


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for name, node, fn, start, end in facts.ident_uses:
        if not name.startswith("__AMDGCN_WAVEFRONT_SIZE"):
            continue
        parent = node.parent
        is_defined = node.type == "identifier" and parent is not None and (
            parent.type == "preproc_defined" or (parent.type in ("preproc_ifdef", "preproc_elifdef")
                                                 and (parent.child_by_field_id(sx.F_NAME) or parent).id == node.id))
        if _guarded(node):
            continue
        if is_defined:
            b = _enclosing_branch(node)
            if b is not None and _correct_test(b):
                continue
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
