"""W005 warp-id-shift-5: a warp id or warp count computed with `>> 5`, `/ 32`, `(n + 31) / 32`,
and first-warp guards `tid < 32` around warp collectives; also the warp counts of class scope
(`enum { num_warps = nt / warp_size }`, facts/members.py).

Natively these become `/ warpSize` (a run-time value is fine outside constant expressions; array
bounds and template arguments are W007 / W008). Under logical32 they stay: a wave64 holds two
32-lane logical warps.
"""

from __future__ import annotations

import re

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts, Func, Site
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import (
    finding,
    idents_in,
    in_bound_or_template_argument,
    in_constant_context,
    named_const,
    named_site_message,
    short,
)

RULE = W.WARP_ID_SHIFT_5
# The page `hipport explain W005` and rules/wave64/W005.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds warp ids and warp counts computed as `tid >> 5`, `tid / 32`, `blockDim.x / 32`, '
          '`(n + 31) / 32`, lanes compared with `BLOCK / 32`, and `tid < 32` guards around warp '
          'collectives. Not where no function of the kernel runs a cross-lane operation (only '
          '`__syncwarp` and shared memory) and the 32 is this file\'s own: a group of 32 threads, right '
          'at any wave size (W004, W007 and W008 skip it too).'),
    why=('With 64-lane waves a block holds half as many warps: per-warp indices, final-stage '
         'guards and partial counts all change. Mixed with wave-wide reductions they read slots '
         'nobody wrote or skip data.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const float* in, float* out) {\n'
            '  const int warp = threadIdx.x >> 5;\n'
            '  const int nwarps = (blockDim.x + 31) / 32;\n'
            '  float v = in[threadIdx.x];\n'
            '  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);\n'
            '  if ((threadIdx.x & 31) == 0) out[blockIdx.x * nwarps + warp] = v;\n'
            '}\n'),
    safety=('Review: natively `>> 5` and `/ 32` become `/ warpSize` (a run-time value, right on ROCm '
            '7 outside constant expressions; array bounds are W007/W008). A warp count in another '
            'constant expression (`constexpr int nwarps = kThreads / 32`, an enumerator of a class '
            'template) is reported without a fix: `warpSize` cannot go there, and the constant sizes '
            'code the rewrite cannot see. Under logical32 they stay.'),
    refs=('waves', 'warpsize7', 'design'),
)
_FLOAT = re.compile(r"\d+\.\d*(?:[eE][-+]?\d+)?[fFlL]?|\d+[eE][-+]?\d+[fFlL]?")


def _guards_collective(facts: Facts, fn: Func, s: Site) -> bool:
    ifs = sx.enclosing(s.node, ("if_statement",), fn.body)
    if ifs is None:
        return False
    cond = ifs.child_by_field_id(sx.F_CONDITION)
    body = ifs.child_by_field_id(sx.F_CONSEQUENCE)
    if cond is None or body is None or not sx.inside(s.node, cond):
        return False
    if any(sx.inside(wc.node, body) for wc in fn.calls):
        return True
    for c in fn.node_list("call_expression"):
        if sx.inside(c, body):
            for g in facts.by_name.get(facts.call_name(c), []):
                if g.collective:
                    return True
    return False


def native_edits(facts: Facts, s: Site) -> list[Edit]:
    op = s.node.child_by_field_id(sx.F_OPERATOR)
    left = s.node.child_by_field_id(sx.F_LEFT)
    edits: list[Edit] = []
    if op is not None and op.type == ">>":
        edits.append(sx.replace_span(op.start_byte, s.const.end_byte, "/ warpSize", RULE))
        if left is not None and sx.needs_parens_for_mul(left):
            edits += sx.wrap(left, "(", ")", RULE)
    elif _FLOAT.fullmatch(facts.src.text(s.const)):  # `blockDim.x / 32.f`: keep the float division
        edits.append(sx.replace(s.const, "(float)warpSize", RULE))
    else:
        edits.append(sx.replace(s.const, "warpSize", RULE))
    if s.ceil is not None:
        edits.append(sx.replace(s.ceil, "warpSize - 1", RULE))
    return edits


def _member_counts(facts: Facts, em: Emitter) -> list[Finding]:
    """Warp counts of class scope (`enum { num_warps = nt / warp_size }`): constant expressions,
    reported as the class's collective member function's sites are, without a fix."""
    out: list[Finding] = []
    for s in facts.member_sites:
        fn = s.fn
        if fn is None:
            continue
        model, strategy = em.model(fn), em.strategy(fn)
        text = short(facts.src.text(s.node), 40)
        if s.origin == "named":
            name = named_const(facts, s.const)
            if name is not None and model != "agnostic":
                out.append(finding(facts, RULE, s.node, named_site_message(facts, "warp count", text, name,
                                                                          strategy), fn, kept=True))
            continue
        msg = f"warp count `{text}` assumes 32-lane warps"
        if strategy == "logical32":
            out.append(finding(facts, RULE, s.node, msg + "; kept: logical 32-lane warps", fn, kept=True))
        else:
            out.append(finding(facts, RULE, s.node, msg + "; in a constant expression, where the run-time"
                               " `warpSize` cannot go: review (no automatic fix)", fn))
    return out


def _host_counts(facts: Facts) -> list[Finding]:
    """Warp counts host code computes to size a launch (`(n + WARP_SIZE - 1) / WARP_SIZE`,
    facts/hostsizes.py): 32 lanes under logical32; natively the host has no wave size (the
    constant is 64 in the host pass), so it is for review."""
    out: list[Finding] = []
    native = facts.config.wave_strategy == "native"
    for node, fn in facts.host_counts:
        name = named_const(facts, node) or "the warp size"
        msg = f"host warp count `{short(facts.src.text(node), 40)}` assumes 32-lane warps through `{name}`"
        if native:
            out.append(finding(facts, RULE, node, msg + "; the host has no wave size (a constant is 64 in the host"
                               " pass, 32 on RDNA): size the launch by the queried wave size", fn, model="warp32"))
        else:
            out.append(finding(facts, RULE, node, msg + "; kept: logical 32-lane warps", fn, kept=True,
                               model="warp32"))
    return out


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = _member_counts(facts, em) + _host_counts(facts)
    for fn in facts.device_funcs():
        model, strategy = em.model(fn), em.strategy(fn)
        thread_group = facts.is_thread_group(fn)  # no cross-lane operation: its 32s number threads
        for s in fn.sites:
            if s.kind not in ("warp", "nwarp", "guard") or em.removed(s.node) or thread_group:
                continue
            if s.origin == "rt" and model != "mixed":
                continue
            constant = in_constant_context(facts, s.node)
            if constant and in_bound_or_template_argument(facts, s.node):
                continue  # an array bound (W007) or a template argument (W008, W009)
            if s.kind == "guard" and not _guards_collective(facts, fn, s):
                continue
            text = short(facts.src.text(s.node), 40)
            what = {"warp": "warp id", "nwarp": "warp count", "guard": "first-warp guard"}[s.kind]
            if s.origin == "named":
                name = named_const(facts, s.const if s.kind != "guard" else s.const)
                if name is not None and model != "agnostic":
                    out.append(finding(facts, RULE, s.node, named_site_message(facts, what, text, name, strategy),
                                       fn, kept=True))
                continue
            if s.origin == "literal":
                msg = f"{what} `{text}` assumes 32-lane warps"
                if strategy == "logical32":
                    out.append(finding(facts, RULE, s.node, msg + "; kept: logical 32-lane warps", fn,
                                       kept=True))
                    continue
                if constant:  # `constexpr int nwarps = kThreads / 32`: `warpSize` is no constant on ROCm 7
                    out.append(finding(facts, RULE, s.node, msg + "; in a constant expression, where the"
                                       " run-time `warpSize` cannot go: review (no automatic fix)", fn))
                    continue
                out.append(finding(facts, RULE, s.node, msg, fn, em.fix(
                    "count warps of `warpSize` lanes", native_edits(facts, s), fn, False)))
            else:
                msg = f"{what} `{text}` follows the wave while other sites of this kernel assume 32 lanes"
                if constant:
                    continue  # `warpSize` in a constant expression is W008's
                if strategy == "native":
                    out.append(finding(facts, RULE, s.node, msg + "; kept: the kernel becomes wave-agnostic",
                                       fn, kept=True))
                    continue
                edits = [sx.replace(i, "32", RULE) for i in idents_in(facts, s.node, "warpSize")]
                out.append(finding(facts, RULE, s.node, msg, fn, em.fix(
                    "count 32-lane logical warps", edits, fn, False)))
    return out
