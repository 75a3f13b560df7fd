"""W012 inline-ptx-warp: inline PTX with lane or warp semantics in device code.

HIP-Clang compiles device code to AMDGCN, so a PTX `asm()` is a compile error ("invalid
instruction"). The common warp forms have builtins: `%laneid` -> `__lane_id()` (`& 31` under
logical32), `%lanemask_lt/le/eq/ge/gt` -> the positional mask from the lane, `activemask` ->
`__ballot(1)` (the caller's half under logical32). Others (`shfl.sync`, `vote`, `match`, `%warpid`
as a warp index) are reported for a rewrite by hand or with a review fix. PTX without lane or
warp semantics (`cvt.rn.f16.f32`, `ld.global.cs`, `bfe`) holds no warp-size assumption and is not
this pass's business (it does not compile for AMD either, but the rewrite is not about waves).
"""

from __future__ import annotations

import re

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.source import Node, asm_template
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import HALF_SHIFT, Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short, widen_var

RULE = W.INLINE_PTX_WARP
# The page `hipport explain W012` and rules/wave64/W012.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds inline PTX with lane or warp semantics in device code: `%laneid`, `%lanemask_*`, '
          '`activemask`, `%warpid`, `shfl.sync`, `vote`, `match`, `redux`. PTX without them '
          '(`cvt.rn.f16.f32`, `ld.global.cs`, `bfe`) holds no warp-size assumption and is not '
          'reported here.'),
    why=('HIP-Clang compiles device code to AMDGCN, so any PTX `asm()` is a compile error '
         '("invalid instruction"); HIPIFY does not translate inline assembly.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__device__ unsigned lane_ptx() {\n'
            '  unsigned r;\n'
            '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));\n'
            '  return r;\n'
            '}\n'
            '\n'
            '__global__ void k(unsigned* out) {\n'
            '  out[threadIdx.x] = lane_ptx() + __shfl_xor(out[threadIdx.x], 1);\n'
            '}\n'),
    safety=('Safe for `%laneid` (`__lane_id()`, `& 31` under logical32), `%lanemask_*` (computed '
            'from the lane) and `activemask` (`__ballot(1)`); `%warpid` becomes a 1-D warp index '
            '(review). Other PTX with warp semantics is reported without a fix.'),
    refs=('design',),
)
# lane / warp semantics: special registers of the lane and the warp (`%%laneid`, or `%laneid`
# as nvcc also accepts), warp-wide instructions
PTX = re.compile(r"%%?(?:laneid|lanemask_\w+|warpid|nwarpid)\b|\bWARP_SZ\b|"
                 r"\b(?:shfl|vote|match|redux|activemask|elect)\.[a-z0-9]|\bbar\.warp\b")
FORMS = {
    "laneid": re.compile(r"^mov\.[us]32\s+%0\s*,\s*%%?laneid\s*;?$"),
    "lanemask": re.compile(r"^mov\.[ub]32\s+%0\s*,\s*%%?lanemask_(lt|le|eq|ge|gt)\s*;?$"),
    "activemask": re.compile(r"^activemask\.b32\s+%0\s*;?$"),
    "warpid": re.compile(r"^mov\.[us]32\s+%0\s*,\s*%%?warpid\s*;?$"),
}


def template(facts: Facts, asm: Node) -> str:
    return asm_template(facts.src, asm)


def outputs(asm: Node) -> list[Node]:
    outs = asm.child_by_field_id(sx.F_OUTPUT_OPERANDS)
    res = []
    for op in (outs.named_children if outs is not None else []):
        v = op.child_by_field_id(sx.F_VALUE)
        if v is not None:
            res.append(v)
    return res


def _mask_expr(kind: str, lane: str, one: str, two: str) -> str:
    return {"lt": f"(({one} << {lane}) - 1)", "le": f"(({two} << {lane}) - 1)", "eq": f"({one} << {lane})",
            "ge": f"(~(({one} << {lane}) - 1))", "gt": f"(~(({two} << {lane}) - 1))"}[kind]


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        strategy = em.strategy(fn)
        for asm in fn.node_list("gnu_asm_expression"):
            tmpl = template(facts, asm)
            if not PTX.search(tmpl):
                continue
            outs = outputs(asm)
            form = next((k for k, rx in FORMS.items() if rx.match(" ".join(tmpl.split()))), None)
            msg = f"inline PTX `{short(tmpl, 40)}` does not compile for AMD GPUs (HIP-Clang emits AMDGCN)"
            if form is None or len(outs) != 1:
                out.append(finding(facts, RULE, asm, msg + "; rewrite it with HIP builtins (__lane_id,"
                                   " __ballot, __shfl*, __popc*, __brev*)", fn))
                continue
            target = facts.src.text(outs[0])
            lane32 = "(__lane_id() & 31)"
            widen = False
            mechanical = True
            if form == "laneid":
                expr = lane32 if strategy == "logical32" else "__lane_id()"
                title = "use `__lane_id()`"
            elif form == "lanemask":
                kind = FORMS["lanemask"].match(" ".join(tmpl.split())).group(1)  # type: ignore[union-attr]
                if strategy == "logical32":
                    expr = _mask_expr(kind, lane32, "1u", "2u")
                else:
                    expr = _mask_expr(kind, "__lane_id()", "1ull", "2ull")
                    widen = True
                title = f"compute %lanemask_{kind} from the lane"
            elif form == "activemask":
                if strategy == "logical32":
                    expr = f"(unsigned)(__ballot(1) >> {HALF_SHIFT})"
                else:
                    expr = "__ballot(1)"
                    widen = True
                title = "use `__ballot(1)`"
            else:
                expr = "(threadIdx.x / 32)" if strategy == "logical32" else "(threadIdx.x / warpSize)"
                mechanical = False
                title = "use the warp index of a 1-D block (%warpid is a hardware slot, not a warp index)"
            edits: list[Edit] = [sx.replace(asm, f"{target} = {expr}", RULE)]
            if widen and outs[0].type == "identifier":
                var = facts.var(fn, target)
                if var is not None and var.bits == 32:
                    edits += widen_var(var, RULE) or []
            out.append(finding(facts, RULE, asm, msg, fn, em.fix(title, edits, fn, mechanical)))
    return out
