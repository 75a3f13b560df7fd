"""W011 lane-mask-shift-32bit: a lane mask built with a 32-bit shift by a lane number.

`1u << lane`, `(1u << lane) - 1`, `0xffffffffu >> (32 - n)`: a shift count >= 32 is undefined
behaviour, and the 32-bit shifter uses the count's low 5 bits, so lane 33 gets bit 1. Under
logical32 the lane is 0..31 and the masks describe the caller's half: they stay. Natively the
constant becomes 64-bit (`1ull`, `~0ull >> (64 - n)`) and the variable holding it too.
"""

from __future__ import annotations

import re

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import LANEREL, LANES, Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import consumer, finding, short, widen_var

RULE = W.LANE_MASK_SHIFT_32BIT
# The page `hipport explain W011` and rules/wave64/W011.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds lane masks built with a 32-bit shift by a lane number: `1u << lane`, `(1u << '
          'lane) - 1`, `0xffffffffu >> (32 - n)`.'),
    why=("A shift count of 32 or more is undefined behaviour; the 32-bit shifter uses the count's "
         'low five bits, so lane 33 gets bit 1 and ranks computed from the mask are wrong.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const int* in, int* out) {\n'
            '  const unsigned lane = __lane_id();\n'
            '  const unsigned long long keep = __ballot(in[threadIdx.x] > 0);\n'
            '  out[threadIdx.x] = __popcll(keep & ((1u << lane) - 1));\n'
            '}\n'),
    safety=('Natively the constant becomes `1ull` / `~0ull` (and `32 -` becomes `64 -`) and a 32-bit '
            'variable holding the mask becomes 64-bit: safe in a wave-agnostic kernel, review '
            'otherwise. Under logical32 lanes are 0..31 and the masks stay.'),
    refs=('waves', 'design'),
)


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        if not fn.collective:
            continue
        model, strategy = em.model(fn), em.strategy(fn)
        for b in fn.node_list("binary_expression"):
            op, left, right = facts.binop(b)
            if op not in ("<<", ">>"):
                continue
            if left is None or right is None or em.removed(b):
                continue
            rk = facts.kinds(right, fn)
            if not rk & (LANES | LANEREL):
                continue
            cv = facts.cval(left, fn)
            if cv is None or cv[1] != 32:
                continue
            if op == "<<" and cv[0] not in (1, 0xFFFFFFFF):
                continue
            if op == ">>" and cv[0] != 0xFFFFFFFF:
                continue
            text = short(facts.src.text(b), 40)
            msg = f"lane mask `{text}` is built with a 32-bit shift"
            if strategy == "logical32":
                out.append(finding(facts, RULE, b, msg + "; kept: logical lanes are 0..31", fn, kept=True))
                continue
            msg += ": a shift by 32..63 is undefined on wave64"
            lit = facts.src.text(left)
            edits: list[Edit] = []
            if re.fullmatch(r"(1|1[uU]|0x0*1[uU]?)", lit):
                edits.append(sx.replace(left, "1ull", RULE))
            elif cv[0] == 0xFFFFFFFF and sx.unparen(left).type in ("number_literal", "unary_expression"):
                edits.append(sx.replace(left, "~0ull", RULE))
            else:
                edits += sx.wrap(left, "(unsigned long long)(", ")", RULE)
            if op == ">>":
                r = sx.unparen(right)
                if r.type == "binary_expression":
                    rl = r.child_by_field_id(sx.F_LEFT)
                    rcv = facts.cval(rl, fn) if rl is not None else None
                    if rl is not None and rcv is not None and rcv[0] == 32 and not rcv[2]:
                        edits.append(sx.replace(rl, "64", RULE))
            p, _ = consumer(facts, b)
            while p is not None and p.type in ("binary_expression", "parenthesized_expression"):
                p = p.parent  # (1u << lane) - 1
            if p is not None and p.type == "init_declarator":
                d = p.child_by_field_id(sx.F_DECLARATOR)
                var = facts.var(fn, facts.src.text(d)) if d is not None and d.type == "identifier" else None
                if var is not None and var.bits == 32:
                    edits += widen_var(var, RULE) or []
            out.append(finding(facts, RULE, b, msg, fn, em.fix("build the mask in 64 bits", edits, fn,
                                                             model == "agnostic")))
    return out
