"""W004 lane-id-mask-31: a lane id computed as `tid & 31` or `tid % 32`.

On wave64 the hardware lane is 0..63. In code that keeps 32-lane logical warps (logical32) the
expression is right and stays; natively it becomes `tid & (warpSize - 1)` / `tid % warpSize`
(equal to `__lane_id()` for 1-D blocks). In a mixed kernel rewritten as logical32, the wave-wide
forms (`tid % warpSize`, `__lane_id()`) become 32-lane ones instead.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import LANEHW, LANEN, LANES, Facts, Func, Summary
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import (
    finding,
    header_calls,
    idents_in,
    in_constant_context,
    named_const,
    named_site_message,
    short,
)

RULE = W.LANE_ID_MASK_31
# The page `hipport explain W004` and rules/wave64/W004.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds lane ids computed as `tid & 31`, `tid % 32` or `tid & 0x1f` (tid derived from '
          '`threadIdx`), and loops that stride over lanes by 32, in functions that use warp '
          'operations. In a mixed kernel it also reports the wave-wide forms (`tid % warpSize`, '
          '`__lane_id()`).'),
    why=('A wave64 lane is 0..63. The 32-lane id is right only if every other warp-size site of '
         'the kernel also keeps 32-lane logical warps; mixed with wave-wide shuffles, ballot bit '
         'positions or `warpSize`-based warp ids it aliases lanes and silently produces wrong '
         'results.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const float* in, float* out) {\n'
            '  const int lane = threadIdx.x & 31;\n'
            '  float v = in[threadIdx.x];\n'
            '  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n'
            '  if (lane == 0) out[threadIdx.x >> 5] = v;\n'
            '}\n'),
    safety=('Never safe: under logical32 the id stays (reported as info); natively it becomes `tid & '
            '(warpSize - 1)` or `tid % warpSize` as part of the whole-kernel rewrite, a review fix '
            '(equal to `__lane_id()` for 1-D blocks; for 2-D blocks lanes follow the linearized '
            'thread id).'),
    refs=('waves', 'design'),
)


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        model, strategy = em.model(fn), em.strategy(fn)
        thread_group = facts.is_thread_group(fn)  # no cross-lane operation: its 32s number threads
        for s in fn.sites:
            if s.kind not in ("lane", "stride") or em.removed(s.node) or thread_group:
                continue
            if s.origin == "rt" and model != "mixed":
                continue
            if in_constant_context(facts, s.node):
                continue
            text = short(facts.src.text(s.node), 40)
            op = s.node.child_by_field_id(sx.F_OPERATOR)
            what = "lane id" if s.kind == "lane" else "lane-strided loop step"
            if s.origin == "named":
                name = named_const(facts, s.const)
                if name is not None and model != "agnostic":
                    out.append(finding(facts, RULE, s.node, named_site_message(facts, what, text, name, strategy),
                                       fn, kept=True))
                continue
            if s.origin == "literal":
                msg = f"{what} `{text}` assumes 32-lane warps; a wave64 lane is 0..63"
                if strategy == "logical32":
                    out.append(finding(facts, RULE, s.node, msg + "; kept: logical 32-lane warps", fn,
                                       kept=True))
                    continue
                repl = "(warpSize - 1)" if op is not None and op.type == "&" else "warpSize"
                if s.kind == "stride":
                    repl = "warpSize"
                out.append(finding(facts, RULE, s.node, msg, fn, em.fix(
                    f"use the wave's lane: `{repl}`", [sx.replace(s.const, repl, RULE)], fn, False)))
            else:
                msg = f"{what} `{text}` follows the wave while other sites of this kernel assume 32 lanes"
                if strategy == "native":
                    out.append(finding(facts, RULE, s.node, msg + "; kept: the kernel becomes wave-agnostic",
                                       fn, kept=True))
                    continue
                edits = [sx.replace(i, "32", RULE) for i in idents_in(facts, s.const, "warpSize")]
                out.append(finding(facts, RULE, s.node, msg, fn, em.fix(
                    "use the 32-lane logical lane", edits, fn, False)))
        if model != "agnostic":
            out += _lane_wrappers(facts, em, fn, model, strategy)
        if model == "mixed":
            for wc in fn.calls:
                if wc.family != "lane_id" or em.removed(wc.node) or facts.in_lane_idiom(wc.node):
                    continue
                msg = "`__lane_id()` is the wave lane (0..63) while other sites of this kernel assume 32 lanes"
                if strategy == "native":
                    out.append(finding(facts, RULE, wc.node, msg + "; kept: the kernel becomes wave-agnostic",
                                       fn, kept=True))
                    continue
                out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
                    "use the 32-lane logical lane `(__lane_id() & 31)`",
                    sx.wrap(wc.node, "(", " & 31)", RULE), fn, False)))
    return out


def _lane_wrappers(facts: Facts, em: Emitter, fn: Func, model: str, strategy: str) -> list[Finding]:
    """Calls of a header function that returns a lane id (`get_lane_id()` over PTX `%laneid`,
    `__lane_id()`, `threadIdx.x & 31`), in a kernel with 32-lane sites: the lanes the header's
    own port returns (0..63, or 0..31 kept as logical warps) must be the kernel's."""
    out: list[Finding] = []
    for c, s in header_calls(facts, fn):
        if s.stride_arg >= 0:
            out += _strided_macro(facts, em, fn, strategy, c, s)
            continue
        if not s.ret & LANES or not s.lane_port or em.removed(c) or _masked31(facts, c, fn):
            continue
        src = "PTX `%laneid`" if s.ret & LANEN else "`__lane_id()`" if s.ret & LANEHW else "a 32-lane id"
        name = short(facts.src.text(c), 30)
        if s.lane_port == 64:
            msg = (f"`{name}` returns the wave lane (0..63: {src} in {s.where}, ported wave-wide) while"
                   " this kernel assumes 32-lane warps")
            if strategy == "logical32":
                out.append(finding(facts, RULE, c, msg, fn, em.fix(
                    "use the 32-lane logical lane `(... & 31)`", sx.wrap(c, "(", " & 31)", RULE), fn, False)))
            else:
                out.append(finding(facts, RULE, c, msg + "; kept: the kernel becomes wave-agnostic", fn,
                                   kept=True))
            continue
        msg = f"`{name}` returns a 32-lane id ({src} in {s.where}, kept as logical 32-lane warps)"
        if strategy == "logical32":
            out.append(finding(facts, RULE, c, msg + "; kept: logical 32-lane warps", fn, kept=True))
        else:
            out.append(finding(facts, RULE, c, msg + " while this kernel becomes wave-agnostic: port the header"
                               " and this kernel with one strategy", fn))
    return out


def _strided_macro(facts: Facts, em: Emitter, fn: Func, strategy: str, c: Node, s: Summary) -> list[Finding]:
    """A header macro looping from a lane argument by 32 lanes a step (`UNROLLED_WARP_COPY(5,
    lane_id, ...)`): right for a 32-lane lane id (logical32); with a wave lane (0..63) lanes
    32-63 repeat the next step's elements. The macro body serves every caller: no fix here."""
    args = sx.call_args(c)
    if len(args) <= s.stride_arg or em.removed(c):
        return []
    k = facts.kinds(args[s.stride_arg], fn) & LANES
    if not k:
        return []
    name = short(facts.src.text(sx.call_function(c) or c), 30)
    msg = f"`{name}` ({s.where}) strides from the lane by {s.stride} lanes a step"
    if strategy == "logical32" and not k & LANEHW:
        return [finding(facts, RULE, c, msg + "; kept: logical 32-lane warps", fn, kept=True)]
    return [finding(facts, RULE, c, msg + " while the lane it gets is 0..63: lanes 32-63 repeat the next step's"
                    " elements; stride the macro by `warpSize` (for every caller) by hand", fn)]


def _masked31(facts: Facts, call: Node, fn: Func) -> bool:
    """`get_lane_id() & 31`: already the 32-lane lane (hipport's own logical-32 form)."""
    p = sx.parent_skipping_parens(call)
    if p is None or p.type != "binary_expression":
        return False
    op, left, right = facts.binop(p)
    other = right if left is not None and sx.unparen(left).id == call.id else left
    cv = facts.cval(other, fn) if op == "&" and other is not None else None
    return cv is not None and cv[0] == 31
