"""W001 sync-mask-32bit: a `*_sync` shuffle, ballot or vote with a 32-bit mask, or one the ROCm
floor does not declare.

HIP's `*_sync` intrinsics exist from 6.2 (behind HIP_ENABLE_WARP_SYNC_BUILTINS until 7.0) and take
64-bit masks only (a static_assert rejects `0xffffffff`). Below a 7.0 floor the fix calls the
non-sync form and drops the mask (a shuffle reads whatever lane it names; a ballot only counts
active lanes, so a partial mask is ANDed in). From 7.0 the call stays and the mask becomes 64-bit:
`~0ull` natively, the caller's half `0xffffffffull << (__lane_id() & 32)` under logical32.
Votes in 32-lane code are W017's.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import HALF_SHIFT, Emitter
from hipport.wave64.facts import MASK, Facts, WarpCall
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short

RULE = W.SYNC_MASK_32BIT
# The page `hipport explain W001` and rules/wave64/W001.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds `__shfl*_sync`, `__ballot_sync`, `__any_sync` and `__all_sync` calls whose mask '
          'is 32-bit (`0xffffffff`, `~0u`, an `unsigned` variable), and, below a ROCm 7.0 floor, '
          'every such call: HIP does not declare them before 6.2 and hides them behind '
          '`HIP_ENABLE_WARP_SYNC_BUILTINS` until 7.0.'),
    why=('A CUDA full mask is a compile error twice over: the builtin is undeclared on ROCm 5.x, '
         "and from 6.2 HIP's `static_assert` rejects any mask that is not a 64-bit integer. The "
         'tempting fix, `0xffffffffull`, compiles but names only lanes 0-31 while 64 lanes call: '
         'a mask-check trap without `NDEBUG`, undefined behaviour with it.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(float* p) {\n'
            '  const int lane = threadIdx.x & 31;\n'
            '  float v = p[threadIdx.x] + lane;\n'
            '  v += __shfl_xor_sync(0xffffffff, v, 1);\n'
            '  p[threadIdx.x] = __shfl_sync(0xffffffff, v, 0);\n'
            '}\n'),
    safety=("Safe when the kernel's model is unambiguous: below a 7.0 floor the call becomes its "
            'non-sync form (AMD waves run in lockstep, so the mask only restricted which lanes may '
            'be read); a ballot with a partial mask keeps the mask as `mask & __ballot(p)`. With a '
            "7.0 floor a full mask becomes `~0ull` (native) or the caller's half `0xffffffffull << "
            '(__lane_id() & 32)` (logical32); any other mask is a review fix.'),
    refs=('sync', 'design'),
)


def mask_bits(facts: Facts, wc: WarpCall) -> int | None:
    m = wc.mask
    if m is None:
        return None
    cv = facts.cval(m, wc.fn)
    if cv is not None:
        return cv[1]
    u = sx.unparen(m)
    if u.type == "identifier":
        var = facts.var(wc.fn, facts.src.text(u))
        if var is not None:
            if var.bits is None and facts.kinds(u, wc.fn) & MASK:
                return 64
            return var.bits
        return None
    if u.type == "call_expression" and facts.call_name(u) in ("__activemask", "__ballot",
                                                                        "__ballot_sync", "__ballot64"):
        return 64
    if u.type == "cast_expression":
        from hipport.wave64.facts import type_bits
        t = u.child_by_field_id(sx.F_TYPE)
        return type_bits(facts.src.text(t)) if t is not None else None
    return None


def _partial_ballot(em: Emitter, wc: WarpCall, strategy: str) -> list[Edit]:
    """`__ballot_sync(M, P)` -> `((M) & __ballot(P))`, M shifted into the caller's half under logical32."""
    callee = sx.call_function(wc.node)
    args = wc.args
    if callee is None or len(args) < 2 or wc.mask is None:
        return []
    al = sx.arg_list(wc.node)
    assert al is not None
    if strategy == "logical32":
        head, sep = "(((unsigned long long)(", f") << {HALF_SHIFT}) & __ballot("
    else:
        head, sep = "((", ") & __ballot("
    return [sx.replace_span(callee.start_byte, al.start_byte + 1, head, RULE),
            sx.replace_span(wc.mask.end_byte, args[1].start_byte, sep, RULE),
            sx.replace_span(wc.node.end_byte - 1, wc.node.end_byte, "))", RULE)]


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for wc in facts.calls:
        if not wc.sync or wc.family not in ("shfl", "ballot", "vote") or wc.mask is None:
            continue
        fn = wc.fn
        if em.removed(wc.node) or facts.tree_defines(wc.name):
            continue  # (the tree's own HIP shim maps it: ggml's vendors/hip.h)
        model, strategy = em.model(fn), em.strategy(fn)
        if wc.family == "vote" and (model != "agnostic" or wc.base == "uni"):
            continue  # W017 (HIP has no __uni, so `__uni_sync` cannot just drop its mask)
        bits = mask_bits(facts, wc)
        missing = not em.native_sync
        if not missing and bits == 64:
            continue
        plain = wc.name[:-len("_sync")]
        mask_text = short(facts.src.text(wc.mask), 30)
        if missing:
            msg = (f"`{wc.name}` is not declared before HIP 7.0 (6.2-6.4 need HIP_ENABLE_WARP_SYNC_BUILTINS);"
                   f" the ROCm {facts.config.floor} floor lacks it")
            if bits == 32:
                msg += f", and its 32-bit mask `{mask_text}` fails HIP's 64-bit mask static_assert"
            mechanical = True
            if wc.family == "ballot" and not em.mask_is_all(wc):
                edits = _partial_ballot(em, wc, strategy)
                title = f"use `__ballot` and AND the mask `{mask_text}` in"
            else:
                edits = em.drop_sync(wc, RULE)
                title = f"use `{plain}` and drop the mask (AMD waves run in lockstep)"
        else:
            msg = (f"`{wc.name}` mask `{mask_text}` is {bits or 'not provably 64'}-bit: HIP masks are"
                   f" 64-bit (static_assert); widening it to `0xffffffffull` would leave lanes 32-63 out")
            edits = em.mask64(wc, strategy, RULE)
            mechanical = em.mask_is_all(wc)
            title = ("give each 32-lane half its own 64-bit mask" if strategy == "logical32"
                     else "use a 64-bit mask")
        out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(title, edits, fn, mechanical)))
    out += _wrappers(facts, em)
    return out


def _wrappers(facts: Facts, em: Emitter) -> list[Finding]:
    """`#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)`: fix the macro body once."""
    out: list[Finding] = []
    for w in facts.wrappers.values():
        if not w.callee.endswith("_sync") or len(w.args) < 2:
            continue
        users = [wc.fn for wc in facts.calls if wc.wrapper is w and wc.fn.group is not None]
        fn = users[0] if users else None
        model = fn.group.model if fn is not None and fn.group is not None else "warp32"
        strategy = fn.group.strategy if fn is not None and fn.group is not None else (
            "native" if facts.config.wave_strategy == "native" else "logical32")
        mask = w.args[0]
        lit = facts.eval_text(mask[2])
        full = lit is not None and lit[0] in (0xFFFFFFFF, (1 << 64) - 1)
        if em.native_sync:
            if lit is not None and lit[1] == 64:
                continue
            msg = f"`{w.callee}` in macro `{w.name}` has the 32-bit mask `{mask[2]}`; HIP masks are 64-bit"
            if not full:
                out.append(finding(facts, RULE, w.node, msg + " (rewrite the mask by hand)", fn, model=model))
                continue
            repl = "(0xffffffffull << (__lane_id() & 32))" if strategy == "logical32" else "~0ull"
            edits = [sx.replace_span(mask[0], mask[1], repl, RULE)]
            title = "use a 64-bit mask"
        else:
            msg = (f"`{w.callee}` in macro `{w.name}` is not declared before HIP 7.0; the ROCm"
                   f" {facts.config.floor} floor lacks it")
            if w.callee == "__ballot_sync" and not full:
                out.append(finding(facts, RULE, w.node, msg + " (partial mask: rewrite it by hand)", fn,
                                   model=model))
                continue
            edits = [sx.replace_span(*w.callee_span, w.callee[:-len("_sync")], RULE),
                     sx.replace_span(mask[0], w.args[1][0], "", RULE)]
            title = f"use `{w.callee[:-len('_sync')]}` and drop the mask"
        out.append(finding(facts, RULE, w.node, msg, fn, em.fix(title, edits, fn, True, model, strategy),
                           model=model))
    return out
