"""W007 shared-array-warp-sized: a `__shared__` array sized by 32 (or `BLOCK / 32`) and indexed
per lane or per warp.

Natively a wave has up to 64 lanes and a block half as many warps: per-lane buffers `[32]` indexed
by the lane overflow (silent LDS corruption), while per-warp buffers sized for 32-lane warps are an
upper bound for every wave size and stay. So the fix sizes per-lane arrays for the largest wave
(64) and keeps per-warp arrays. Under logical32 both stay. Arrays sized by a warp-size constant
follow that constant (W008); arrays not indexed by a lane or warp id (a 32x33 transpose tile) are
not warp-sized and are not reported.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import LANES, WARPS, Facts, Func, Var
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short

RULE = W.SHARED_ARRAY_WARP_SIZED
# The page `hipport explain W007` and rules/wave64/W007.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds `__shared__` arrays sized by 32, 33 or `X / 32` and indexed by a lane or warp id (or '
          'of 32 slots handed, with a 32-thread tile, to a helper the file cannot see: kept), and member '
          'arrays of a class with warp collectives bounded by a warp count (`T warps[nt / warp_size]`). '
          'A 32x33 transpose tile or a 32-bin histogram indexed by data is not reported.'),
    why=('Natively a wave has up to 64 lanes and a block half as many warps. A per-lane buffer '
         '`[32]` indexed by the lane is written out of bounds by lanes 32-63 (silent LDS '
         'corruption); a per-warp buffer sized for 32-lane warps is an upper bound for any wave '
         'size and stays correct.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const float* in, float* out) {\n'
            '  __shared__ float per_lane[32];\n'
            '  const int lane = threadIdx.x & 31;\n'
            '  float v = __shfl_xor(in[threadIdx.x], 1);\n'
            '  if (threadIdx.x < 64) per_lane[lane] = v;\n'
            '  __syncthreads();\n'
            '  out[threadIdx.x] = per_lane[lane];\n'
            '}\n'),
    safety=('Review: natively a per-lane bound becomes 64 (the largest wave; `65` for a padded 33); '
            'per-warp arrays are kept and reported as info, as are arrays under logical32. Arrays '
            'bounded by a warp-size constant follow that constant (W008). `warpSize` cannot be an '
            'array bound on ROCm 7.'),
    refs=('warpsize7', 'design'),
)


def dims(var: Var) -> list[Node]:
    sizes: list[Node] = []
    d: Node | None = var.declarator
    if d is not None and d.type == "init_declarator":
        d = d.child_by_field_id(sx.F_DECLARATOR) or d
    while d is not None and d.type == "array_declarator":
        s = d.child_by_field_id(sx.F_SIZE)
        if s is not None:
            sizes.append(s)
        d = d.child_by_field_id(sx.F_DECLARATOR)
    return list(reversed(sizes))


def indices(facts: Facts, fn: Func, name: str, ndim: int) -> list[list[Node]]:
    """Index expressions per dimension over every subscript of array `name`."""
    per: list[list[Node]] = [[] for _ in range(ndim)]
    for s in fn.node_list("subscript_expression"):
        p = s.parent
        if p is not None and p.type == "subscript_expression" and (p.child_by_field_id(sx.F_ARGUMENT) or p).id == s.id:
            continue  # not the outermost subscript
        chain = []
        n: Node | None = s
        while n is not None and n.type == "subscript_expression":
            idx = n.child_by_field_id(sx.F_INDICES)  # tree-sitter-cuda has no `index` field
            if idx is not None and idx.type == "subscript_argument_list":
                idx = idx.named_child(0) if idx.named_child_count else None
            chain.append(idx)
            n = n.child_by_field_id(sx.F_ARGUMENT)
        if n is None or n.type != "identifier" or facts.src.text(n) != name:
            continue
        chain.reverse()
        for i, idx in enumerate(chain[:ndim]):
            if idx is not None:
                per[i].append(idx)
    return per


def _warp_sized(facts: Facts, fn: Func, size: Node) -> str | None:
    """'32', '33', 'named', 'perwarp' or None."""
    cv = facts.cval(size, fn)
    if cv is not None and cv[2]:
        return "named" if cv[0] in (32, 33) else ("perwarp" if _divides_by_32(facts, fn, size) else None)
    if cv is not None and cv[0] in (32, 33):
        return str(cv[0])
    if _divides_by_32(facts, fn, size):
        return "perwarp"
    return None


def _divides_by_32(facts: Facts, fn: Func, size: Node, depth: int = 0) -> bool:
    n = sx.unparen(size)
    if n.type == "identifier" and depth < 4:  # kWarps = kBlock / WARP_SIZE, defined elsewhere in the file
        var = facts.var(fn, facts.src.text(n))
        if var is not None and var.value is not None and b"const" in facts.data[var.decl.start_byte:var.decl.end_byte]:
            return _divides_by_32(facts, fn, var.value, depth + 1)
        return False
    if n.type != "binary_expression":
        return False
    op = n.child_by_field_id(sx.F_OPERATOR)
    cv = facts.cval(n.child_by_field_id(sx.F_RIGHT), fn)
    return op is not None and cv is not None and ((op.type == "/" and cv[0] == 32) or (op.type == ">>" and cv[0] == 5))


def _member_arrays(facts: Facts, em: Emitter) -> list[Finding]:
    """Per-warp bounds of class scope (a shared storage union's `T warps[nt / warp_size]`,
    `using TempStorage = T[BLOCK / WARP_SIZE]`): kept, as per-warp arrays are."""
    out: list[Finding] = []
    for size, item, fn in facts.member_arrays:
        if em.model(fn) == "agnostic":
            continue
        decl = short(facts.src.text(item).split("=")[0].strip().rstrip(";"), 60) if item.type != "alias_declaration" \
            else short(facts.src.text(item).rstrip(";"), 60)
        msg = (f"`{decl}` holds one slot per 32-lane warp; kept: that bounds the warps of any wave size"
               " (guard reads with the real warp count)")
        out.append(finding(facts, RULE, size, msg, fn, kept=True))
    return out


def _handed_with_tile(facts: Facts, fn: Func, name: str) -> bool:
    """The array is passed to a function this file cannot see together with a tile of 32
    threads (`block_reduce(block, warp, vals, smem, op)`, `warp = tiled_partition<32>(block)`):
    its 32 slots are that tile's, one per lane or per warp of it."""
    for c in fn.node_list("call_expression"):
        if facts.call_name(c) in facts.by_name:
            continue
        args = [sx.unparen(a) for a in sx.call_args(c)]
        if not any(a.type == "identifier" and facts.src.text(a) == name for a in args):
            continue
        if any(a.type == "identifier" and facts.tile_size(fn, a) == 32 for a in args):
            return True
    return False


def _slots32(facts: Facts, fn: Func, size: Node) -> bool:
    """`[32]` or `[32 * M]` (M a constant): 32 slots, or 32 of M each."""
    n = sx.unparen(size)
    cv = facts.cval(n, fn)
    if cv is not None and cv[0] == 32:
        return True
    if n.type == "binary_expression" and facts.binop(n)[0] == "*":
        _op, left, right = facts.binop(n)
        return any(x is not None and x.type == "number_literal" and facts.src.text(x) == "32" for x in (left, right))
    return False


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = _member_arrays(facts, em)
    for fn in facts.device_funcs():
        if not fn.collective or facts.is_thread_group(fn):
            continue
        model, strategy = em.model(fn), em.strategy(fn)
        for var in fn.vars.values():
            if not (var.is_shared and var.is_array):
                continue
            ds = dims(var)
            per = indices(facts, fn, var.name, len(ds))
            for i, size in enumerate(ds):
                how = _warp_sized(facts, fn, size)
                if not per[i] and len(ds) == 1 and model != "agnostic" and how in (None, "32") and \
                        _slots32(facts, fn, size) and _handed_with_tile(facts, fn, var.name):
                    decl = facts.src.text(var.decl).split("=")[0].strip().rstrip(";")
                    out.append(finding(facts, RULE, size, f"`{decl}` holds 32 slots for the 32-thread tile it is"
                                       " passed with (one per lane or per warp of it); kept: review the callee"
                                       " at wave64", fn, kept=True))
                    continue
                if how is None:
                    continue
                ks = [facts.kinds(x, fn) for x in per[i]]
                if any(k & WARPS for k in ks) or how == "perwarp":
                    role = "warp"
                elif any(k & LANES for k in ks):
                    role = "lane"
                else:
                    continue
                decl = facts.src.text(var.decl).split("=")[0].strip().rstrip(";")
                if role == "warp":
                    if model == "agnostic":
                        continue
                    msg = (f"`{decl}` holds one slot per 32-lane warp; kept: that bounds the warps of any"
                           " wave size (guard reads with the real warp count)")
                    out.append(finding(facts, RULE, size, msg, fn, kept=True))
                    continue
                msg = f"`{decl}` holds one slot per lane of a 32-lane warp"
                if how == "named":
                    out.append(finding(facts, RULE, size, msg + "; kept: its bound is a warp-size constant"
                                       " (W008)", fn, kept=True))
                elif strategy == "logical32":
                    out.append(finding(facts, RULE, size, msg + "; kept: logical 32-lane warps", fn, kept=True))
                else:
                    new = "64" if how == "32" else "65"
                    out.append(finding(facts, RULE, size, msg + "; lanes 32-63 of a wave64 would write past it",
                                       fn, em.fix(f"size it for the largest wave ({new})",
                                                  [sx.replace(size, new, RULE)], fn, model == "agnostic")))
    return out
