"""W006 shuffle-loop-from-16: a shuffle reduction or scan sized for 32 lanes with the default width.

`for (o = 16; o > 0; o >>= 1) v += __shfl_down(v, o)` (or an unrolled 16, 8, 4, 2, 1 sequence, or
a scan `for (d = 1; d < 32; d <<= 1)`) reduces each 32-lane half of a wave64 on its own while the
default width is 64: right only if every other site also uses 32-lane bookkeeping (wave64.md
§7.4 H1/H2). Logical32 passes `width = 32` explicitly (bit-identical to CUDA); native starts the
loop at `warpSize / 2` (or bounds it by `warpSize`) so the whole wave takes part.
"""

from __future__ import annotations

from hipport.edits import apply_edits
from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts, Func, Loop, WarpCall
from hipport.wave64.facts.summaries import explicit_template_args
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import agree, finding, header_calls, idents_in, short

RULE = W.SHUFFLE_LOOP_FROM_16
# The page `hipport explain W006` and rules/wave64/W006.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds shuffle reductions and scans sized for 32 lanes with the default width: loops '
          'starting at 16, scans bounded by 32, unrolled 16/8/4/2/1 steps, bitonic stages bounded '
          'by 32, and shuffles pinned to width 32 in code that is made wave-agnostic.'),
    why=('With the default width of 64 a loop from 16 reduces each 32-lane half of the wave '
         'separately. That is right only if the bookkeeping also keeps 32-lane warps; once a '
         "kernel reads the result as the wave's (`lane == 0` of `tid % warpSize`) lane 0 holds "
         'half the sum (528 instead of 2080 for lanes holding 1..64). Scans cross the 32-lane '
         'boundary.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__device__ float warp_sum(float v) {\n'
            '  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n'
            '  return v;\n'
            '}\n'
            '\n'
            '__global__ void k(const float* in, float* out) {\n'
            '  float v = warp_sum(in[threadIdx.x]);\n'
            '  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;\n'
            '}\n'),
    safety=('Logical32 passes `width = 32`: safe, each 32-lane half of the wave computes exactly '
            'what the CUDA warp computed (bit-identical floating-point results). Natively the loop '
            'starts at `warpSize / 2` (or is bounded by `warpSize`) and an unrolled sequence gets a '
            'delta-32 step: a review fix (the reduction tree changes, float results may differ in '
            'the last bits).'),
    refs=('width', 'design'),
)
UNROLLED = (16, 8, 4, 2, 1)


def _header_edit(facts: Facts, fn: Func, lp: Loop) -> list[Edit]:
    if lp.exp and lp.bound is not None:  # `l <= 4` -> `(1 << l) < warpSize`
        return [sx.replace(lp.bound, f"(1 << {lp.var}) < warpSize", RULE)]
    node = lp.start if lp.down else lp.bound
    if node is None:
        return []
    cv = facts.cval(node, fn)
    if cv is None or cv[2]:
        return []  # a named warp-size constant: W008 rewrites its definition
    return [sx.replace(node, "warpSize / 2" if lp.down else "warpSize", RULE)]


def _width32_edits(wc: WarpCall) -> list[Edit]:
    if wc.family != "shfl" or wc.width is not None:
        return []
    if wc.wrapper is not None:  # a wrapper macro: the width goes into its body, once for every use
        return [sx.insert(wc.wrapper.args[-1][1], ", 32", RULE)]
    e = sx.append_arg(wc.node, "32", RULE)
    return [e] if e is not None else []


def _drop_width32(facts: Facts, wc: WarpCall) -> list[Edit]:
    if wc.family != "shfl" or wc.width is None or wc.wrapper is not None:
        return []
    cv = facts.cval(wc.width, wc.fn)
    if cv is None or cv[0] != 32 or cv[2]:
        return []
    e = sx.delete_arg(wc.node, len(wc.args) - 1, RULE)
    return [e] if e is not None else []


def _statement(node: Node) -> Node | None:
    p = node.parent
    while p is not None and p.type not in ("expression_statement", "declaration", "compound_statement"):
        p = p.parent
    return p if p is not None and p.type == "expression_statement" else None


def _extra_step(facts: Facts, em: Emitter, wc: WarpCall) -> list[Edit]:
    """Native, unrolled: before the delta-16 step add `if (warpSize > 32) <the same step at 32>`."""
    stmt = _statement(wc.node)
    if stmt is None or wc.lane is None or _guarded_step_before(facts, stmt):
        return []
    local: list[Edit] = []
    if wc.sync and wc.mask is not None and em.mask_is_all(wc) and wc.wrapper is None:
        local += em.drop_sync(wc, RULE) if not em.native_sync else em.mask64(wc, "native", RULE)
    local.append(sx.replace(wc.lane, "32", RULE))
    local += _drop_width32(facts, wc)
    base = stmt.start_byte
    shifted = sorted((Edit(e.start - base, e.end - base, e.replacement, e.rule, e.priority) for e in local),
                     key=lambda e: (e.start, e.end))
    text = apply_edits(facts.data[stmt.start_byte:stmt.end_byte], shifted).decode("utf-8", "surrogateescape")
    line_start = facts.data.rfind(b"\n", 0, stmt.start_byte) + 1
    indent = facts.data[line_start:stmt.start_byte]
    if indent.strip():
        indent = b""
    nl = facts.src.newline
    parent = stmt.parent
    if parent is not None and parent.type != "compound_statement":
        # the step is the body of an unbraced if / loop: the added step goes inside it too
        return [sx.insert(stmt.start_byte, f"{{ if (warpSize > 32) {text} ", RULE),
                sx.insert(stmt.end_byte, " }", RULE)]
    return [sx.insert(stmt.start_byte, f"if (warpSize > 32) {text}{nl}{indent.decode()}", RULE)]


def _guarded_step_before(facts: Facts, stmt: Node) -> bool:
    """Is `stmt` preceded by the `if (warpSize > 32) ...` step that _extra_step writes?"""
    prev = stmt.prev_named_sibling
    while prev is not None and prev.type == "comment":
        prev = prev.prev_named_sibling
    if prev is None or prev.type != "if_statement":
        return False
    cond = prev.child_by_field_id(sx.F_CONDITION)
    return cond is not None and "".join(facts.src.text(cond).split()) == "(warpSize>32)"


def _width_is_32(facts: Facts, wc: WarpCall) -> bool:
    cv = facts.cval(wc.width, wc.fn) if wc.width is not None else None
    return cv is not None and cv[0] == 32 and not cv[2]


def unrolled_steps(facts: Facts, em: Emitter, fn: Func, in_loops: set[int] | None = None) -> list[WarpCall]:
    """Straight-line shuffles with deltas 16, 8, 4, 2, 1 (at least one 16) and the default width."""
    if in_loops is None:
        in_loops = {id(wc) for lp in fn.loops for wc in lp.shuffles}
    cands = [wc for wc in fn.calls if wc.family == "shfl" and id(wc) not in in_loops
             and (wc.width is None or _width_is_32(facts, wc)) and wc.lane is not None and wc.base != "shfl"
             and not em.removed(wc.node)]
    seq = []
    for wc in cands:
        cv = facts.cval(wc.lane, fn)
        if cv is not None and not cv[2] and cv[0] in UNROLLED:
            seq.append((wc, cv[0]))
    if not any(d == 16 for _, d in seq):
        return []
    return [wc for wc, _ in seq]


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        model, strategy = em.model(fn), em.strategy(fn)
        if model == "agnostic":
            continue
        out += _reduce_wrappers(facts, em, fn, strategy)
        in_loops: set[int] = set()
        for lp in fn.loops:
            for wc in lp.shuffles:
                in_loops.add(id(wc))
            warp = lp.outer.warp if lp.warp == "derived" and lp.outer is not None else lp.warp
            if not (warp == "32" or (warp == "rt" and model == "mixed")):
                continue
            if any(em.removed(wc.node) for wc in lp.shuffles):
                continue
            anchor = (lp.start if lp.down else lp.bound) or lp.node
            header = short(facts.src.text(lp.node).split(")")[0] + ")", 50)
            kind = "reduction" if lp.down else "butterfly" if lp.exp else "scan"
            if warp == "rt":
                msg = f"shuffle {kind} `{header}` spans the wave while other sites of this kernel assume 32 lanes"
                if strategy == "native":
                    out.append(finding(facts, RULE, anchor, msg + "; kept: the kernel becomes wave-agnostic",
                                       fn, kept=True))
                    continue
                probe = lp.start if lp.down else lp.bound
                edits = [sx.replace(i, "32", RULE) for i in idents_in(facts, probe, "warpSize")] if probe else []
                for wc in lp.shuffles:
                    edits += _width32_edits(wc)
                out.append(finding(facts, RULE, anchor, msg, fn, em.fix(
                    "keep 32-lane logical warps: 32-based loop and `width = 32`", edits, fn, False)))
                continue
            msg = f"shuffle {kind} `{header}` covers 32 lanes; on wave64 the default width is 64"
            if strategy == "logical32":
                edits = []
                for wc in lp.shuffles:
                    edits += _width32_edits(wc)
                if edits:
                    out.append(finding(facts, RULE, anchor, msg, fn, em.fix(
                        "pass `width = 32` (each 32-lane half of the wave reduces on its own, as on CUDA)",
                        edits, fn, True)))
                else:
                    out.append(finding(facts, RULE, anchor, msg + "; kept: every shuffle already has width 32",
                                       fn, kept=True))
                continue
            target = lp.outer if lp.warp == "derived" and lp.outer is not None else lp
            edits = _header_edit(facts, fn, target)
            for wc in lp.shuffles:
                edits += _drop_width32(facts, wc)
            if edits:
                out.append(finding(facts, RULE, anchor, msg, fn, em.fix(
                    "size the loop by `warpSize` so the whole wave takes part", edits, fn, False)))
            else:
                out.append(finding(facts, RULE, anchor, msg + "; kept: its bound is a warp-size constant"
                                   " that becomes the wave size (W008)", fn, kept=True))
        seq = unrolled_steps(facts, em, fn, in_loops)
        lits = {id(wc): facts.cval(wc.lane, fn) for wc in seq}
        for wc in seq:
            delta = lits[id(wc)][0]  # type: ignore[index]
            msg = f"unrolled shuffle step `{short(facts.src.text(wc.node), 40)}` of a 32-lane reduction"
            if strategy == "logical32":
                edits = _width32_edits(wc)
                if edits:
                    out.append(finding(facts, RULE, wc.node, msg, fn, em.fix("pass `width = 32`", edits, fn, True)))
                else:
                    out.append(finding(facts, RULE, wc.node, msg + "; kept: it has width 32", fn, kept=True))
            elif delta == 16:
                out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
                    "add the wave64 step at delta 32 before it",
                    _extra_step(facts, em, wc) + _drop_width32(facts, wc), fn, False)))
            elif wc.width is not None:
                out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(
                    "use the default width (the wave)", _drop_width32(facts, wc), fn, False)))
            else:
                out.append(finding(facts, RULE, wc.node, msg + "; kept: the step at 32 is added before delta 16",
                                   fn, kept=True))
    return out


def _reduce_wrappers(facts: Facts, em: Emitter, fn: Func, strategy: str) -> list[Finding]:
    """Calls of a header function that reduces over 32 lanes at the default width (its xor /
    down steps start at 16), from a kernel with warp-size sites: each 32-lane half of the wave
    gets its own result; or over the whole wave from a kernel that also assumes 32 lanes. Consistent when the header is ported with this kernel's strategy;
    otherwise the two must be made to agree by hand. Explicit template arguments may choose
    another width: not judged."""
    out: list[Finding] = []
    for c, s in header_calls(facts, fn):
        if not s.reduce or em.removed(c) or explicit_template_args(c):
            continue
        if s.reduce == 64 and em.model(fn) != "mixed":
            continue  # a wave-wide reduction in wave-agnostic code
        name = short(facts.src.text(c), 40)
        msg = (f"`{name}` reduces over 32 lanes ({s.where}: shuffle steps from 16 at the default width)"
               if s.reduce == 32 else
               f"`{name}` reduces over the whole wave ({s.where}) while other sites of this kernel assume 32 lanes")
        if agree(strategy, s):
            how = ("each 32-lane half of the wave is a logical warp" if strategy == "logical32"
                   else "the reduction is made wave-wide")
            out.append(finding(facts, RULE, c, f"{msg}; kept: the header is ported as this kernel is ({how})",
                               fn, kept=True))
        else:
            mine = "32-lane logical warps" if strategy == "logical32" else "the whole wave"
            out.append(finding(facts, RULE, c, f"{msg}; the header's port ({s.strategy}) and this kernel's ({mine})"
                               " disagree on the lanes the result covers: port them with one strategy", fn))
    return out
