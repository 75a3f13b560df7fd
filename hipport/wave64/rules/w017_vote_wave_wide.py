"""W017 vote-wave-wide: `__any`, `__all`, `__any_sync`, `__all_sync`, `__uni_sync` in 32-lane code.

`__any` / `__all` vote over the whole wave: under logical32 the two 32-lane warps of a wave64
contaminate each other (wave64.md §7.4 H6). The logical32 rewrite votes on the caller's half of a
ballot: any = `(unsigned)(__ballot(p) >> (__lane_id() & 32)) != 0`, all = the same ballot of `!p`
is 0 (a ballot counts active lanes only, so this is exact in divergent code too). Natively a
wave-wide vote is right and only the `*_sync` form changes. HIP has no `__uni_sync` at all.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import HALF_SHIFT, Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short

RULE = W.VOTE_WAVE_WIDE
# The page `hipport explain W017` and rules/wave64/W017.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds `__any`, `__all`, `__any_sync`, `__all_sync` and `__uni_sync` votes in 32-lane '
          'code.'),
    why=('A vote covers the whole 64-lane wave, so the two 32-lane warps of a wave contaminate '
         'each other: warp 0 sees "not all" because a lane of warp 1 is false. HIP has no '
         '`__uni_sync` at all.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const int* in, int* out) {\n'
            '  const int v = in[threadIdx.x];\n'
            '  const int all_pos = __all_sync(0xffffffff, v > 0);\n'
            '  const int any_big = __any_sync(0xffffffff, v > 1000);\n'
            '  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = all_pos * 2 + any_big;\n'
            '}\n'),
    safety=("Safe under logical32: the vote is computed from the caller's half of a ballot, "
            '`(unsigned)(__ballot(p) >> (__lane_id() & 32)) != 0` for any and the same ballot of '
            '`!p` equal to 0 for all (a ballot counts active lanes only, so this is exact in '
            'divergent code); a partial mask (`__any_sync(m, p)`, `m` free of calls and '
            'assignments) is ANDed with that half, also exact. Natively a wave-wide vote is right '
            'and only the `*_sync` form changes; dropping a partial mask there is for review.'),
    refs=('ballot', 'design'),
)
SIMPLE = ("identifier", "field_expression", "number_literal", "true", "false")


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for wc in facts.calls:
        if wc.family != "vote" or wc.value is None or em.removed(wc.node):
            continue
        fn = wc.fn
        model, strategy = em.model(fn), em.strategy(fn)
        if model == "agnostic" and wc.base != "uni":
            continue  # W001 (HIP has no __uni, so `__uni_sync` is rewritten here in any kernel)
        callee = sx.call_function(wc.node)
        if callee is None:
            continue
        text = short(facts.src.text(wc.node), 40)
        base = wc.base
        end = wc.node.end_byte
        p_text = facts.src.text(wc.value)
        simple = sx.unparen(wc.value).type in SIMPLE
        msg = f"vote `{text}` covers the whole 64-lane wave, not one 32-lane warp"
        if model == "agnostic":
            msg = f"vote `{text}`"
        if base == "uni":
            msg += "; HIP has no __uni_sync"
        edits: list[Edit] = []
        exact = em.mask_is_all(wc)
        if strategy == "logical32":
            half = f"(unsigned)(__ballot({{}}) >> {HALF_SHIFT})"
            # A partial mask (`__any_sync(m, p)`) votes among its lanes: the half-ballot ANDed
            # with it, evaluated once, is CUDA's vote exactly (the mask is the caller's half).
            mask = wc.mask if wc.sync and wc.mask is not None and not exact and _pure(facts, wc.mask) else None
            within = f" & ({facts.src.text(mask)}))" if mask is not None else ""
            open_ = "(" if mask is not None else ""
            if base == "any":
                edits = [sx.replace_span(callee.start_byte, wc.value.start_byte, f"({open_}(unsigned)(__ballot(", RULE),
                         sx.replace_span(end - 1, end, f") >> {HALF_SHIFT}){within} != 0)", RULE)]
            elif base == "all":
                edits = [sx.replace_span(callee.start_byte, wc.value.start_byte, f"({open_}(unsigned)(__ballot(!(", RULE),
                         sx.replace_span(end - 1, end, f")) >> {HALF_SHIFT}){within} == 0)", RULE)]
            elif simple:
                b, a = half.format(p_text), half.format("1")
                edits = [sx.replace(wc.node, f"({b} == 0 || {b} == {a})", RULE)]
            title = "vote on the caller's 32-lane half of a ballot"
            exact = exact or (mask is not None and base in ("any", "all"))
        else:
            if base == "uni":
                if simple:
                    edits = [sx.replace(wc.node, f"(__all({p_text}) || !__any({p_text}))", RULE)]
                title = "uniform = all or none"
            elif wc.sync:
                if not em.native_sync:
                    edits = em.drop_sync(wc, RULE)
                    title = f"use `__{base}` (the wave-wide vote)"
                else:
                    edits = em.mask64(wc, strategy, RULE)
                    title = "use a 64-bit mask"
            else:
                out.append(finding(facts, RULE, wc.node, msg + "; kept: natively the vote spans the wave", fn,
                                   kept=True))
                continue
        if not edits:
            msg += " (rewrite it by hand)"
        # a partial mask restricts the vote to some lanes: dropping it is a judgement call
        out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(title, edits, fn, exact)))
    return out


def _pure(facts: Facts, node: sx.Node) -> bool:
    """A mask written once and read again safely: a name, a member, a literal or an operation
    on those (no call, assignment or increment)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("call_expression", "assignment_expression", "update_expression", "comma_expression"):
            return False
        stack.extend(n.named_children)
    return True
