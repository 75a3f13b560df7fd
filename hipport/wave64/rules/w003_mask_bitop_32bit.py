"""W003 mask-bitop-32bit: 32-bit bit operations on a wave mask.

`__popc`, `__ffs`, `__clz`, `__brev`, `__fns32` and the `__builtin_*` 32-bit forms take the
truncated mask: counts and positions ignore lanes 32-63, and the constants around them (`31 -
__clz(m)`, loops to 32, `== 0xffffffff`) assume 32 lanes. Natively: the 64-bit forms and 63/64 or
`warpSize`; under logical32 the mask is the caller's 32-lane half, so the 32-bit forms stay.
"""

from __future__ import annotations

import re

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import BITOPS32, MASK, SHIFTMASK, Facts, Func
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import consumer, finding, header_calls, short, tile_relative

RULE = W.MASK_BITOP_32BIT
# The page `hipport explain W003` and rules/wave64/W003.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds `__popc`, `__ffs`, `__clz`, `__brev`, `__fns32` and the `__builtin_*` 32-bit bit '
          'operations applied to a wave mask, the constants around them (`31 - __clz(m)`, `m == '
          '0xffffffff`) and loops over the bits of a mask that stop at 32.'),
    why=('The 32-bit overloads silently take the truncated mask: counts, first and last lanes '
         'ignore lanes 32-63. `31 - __clz(m)` and `== 0xffffffff` assume 32 lanes.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const int* in, int* out) {\n'
            '  unsigned long long m = __ballot(in[threadIdx.x] != 0);\n'
            '  out[threadIdx.x] = __popc(m) + (31 - __clz(m)) + (__ffs(m) - 1);\n'
            '}\n'),
    safety=('Native renames to the 64-bit forms (`__popcll`, `__ffsll`, `__clzll` with `63 -`, '
            '`__brevll`, `__fns64`): safe for popc/ffs/fns, review for a bare `__clz`/`__brev` whose '
            "result changes meaning with 64 bits. Under logical32 the mask is the caller's 32-lane "
            'half, so the 32-bit forms stay (only a ballot passed directly is narrowed to the half). '
            'A comparison with `0xffffffff` becomes a comparison with the full wave `(~0ull >> (64 - '
            'warpSize))`: review.'),
    refs=('ballot', 'design'),
)


def _direct_sources(facts: Facts, fn: Func, arglist_id: int) -> list:
    out = []
    for wc in fn.calls:
        if wc.family in ("ballot", "activemask", "match") and not (wc.family == "match" and wc.base == "all"):
            p, _ = consumer(facts, wc.node)
            if p is not None and p.id == arglist_id:
                out.append(wc)
    return out


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        strategy = em.strategy(fn)
        out += _bitop_wrappers(facts, em, fn, strategy)
        for c in fn.node_list("call_expression"):
            name = facts.call_name(c)
            if name not in BITOPS32 or em.removed(c):
                continue
            args = sx.call_args(c)
            if not args or not facts.kinds(args[0], fn) & (MASK | SHIFTMASK):
                continue
            if tile_relative(facts, em, fn, args[0]):
                continue  # a tile's ballot: one bit per tile member, exact in 32 bits
            al = sx.arg_list(c)
            msg = f"`{name}` of a wave mask counts only lanes 0-31 (AMD masks are 64-bit)"
            if strategy == "logical32":
                edits: list[Edit] = []
                for wc in _direct_sources(facts, fn, al.id if al is not None else -1):
                    if not em.removed(wc.node):
                        edits += em.half(wc.node, RULE)
                if edits:
                    out.append(finding(facts, RULE, c, msg, fn, em.fix(
                        "count the caller's 32-lane half of the ballot", edits, fn, True)))
                else:
                    out.append(finding(facts, RULE, c, msg + "; kept: under logical32 the mask is the"
                                       " caller's 32-lane half", fn, kept=True))
                continue
            wide = BITOPS32[name]
            callee = sx.call_function(c)
            assert callee is not None
            edits = [sx.replace(callee, wide, RULE)]
            mechanical = name not in ("__clz", "__builtin_clz", "__brev")
            parent = sx.parent_skipping_parens(c)
            if name in ("__clz", "__builtin_clz") and parent is not None and parent.type == "binary_expression":
                opnode = parent.child_by_field_id(sx.F_OPERATOR)
                left = parent.child_by_field_id(sx.F_LEFT)
                cv = facts.cval(left, fn) if left is not None else None
                if left is not None and opnode is not None and opnode.type == "-" and cv is not None and cv[0] in (31, 32):
                    edits.append(sx.replace(left, "63" if cv[0] == 31 else "64", RULE))
                    mechanical = True
                    msg = f"`{cv[0]} - {name}(m)` finds the highest lane among lanes 0-31 only"
            out.append(finding(facts, RULE, c, msg, fn, em.fix(f"use `{wide}`", edits, fn, mechanical)))
        for b in fn.node_list("binary_expression"):
            op, left, right = facts.binop(b)
            if op not in ("==", "!="):
                continue
            for m, lit in ((left, right), (right, left)):
                if m is None or lit is None or not facts.kinds(m, fn) & MASK or tile_relative(facts, em, fn, m):
                    continue
                cv = facts.cval(lit, fn)
                if cv is None or cv[0] != 0xFFFFFFFF or cv[1] != 32 or em.removed(b):
                    continue
                msg = f"`{short(facts.src.text(b), 40)}` tests 32 lanes of a 64-bit wave mask"
                if strategy == "logical32":
                    out.append(finding(facts, RULE, b, msg + "; kept: under logical32 the mask is the"
                                       " caller's 32-lane half", fn, kept=True))
                else:
                    out.append(finding(facts, RULE, b, msg, fn, em.fix(
                        "compare with a full wave, `(~0ull >> (64 - warpSize))`",
                        [sx.replace(lit, "(~0ull >> (64 - warpSize))", RULE)], fn, False)))
                break
        for fs in fn.node_list("for_statement"):
            cond = fs.child_by_field_id(sx.F_CONDITION)
            body = fs.child_by_field_id(sx.F_BODY)
            init = fs.child_by_field_id(sx.F_INITIALIZER)
            if cond is None or body is None or init is None or cond.type != "binary_expression":
                continue
            var_node = cond.child_by_field_id(sx.F_LEFT)
            bound = cond.child_by_field_id(sx.F_RIGHT)
            if var_node is None or var_node.type != "identifier" or bound is None:
                continue
            cv = facts.cval(bound, fn)
            if cv is None or cv[0] != 32 or cv[2]:
                continue
            var = facts.src.text(var_node)
            uses: list[Node | None] = []
            for b in fn.node_list("binary_expression"):
                if not sx.inside(b, body):
                    continue
                bop, bl, br = facts.binop(b)
                if not bop or br is None or br.type != "identifier" or facts.src.text(br) != var:
                    continue
                if bop == ">>" and facts.kinds(bl, fn) & MASK:
                    uses.append(None)
                elif bop == "<<" and bl is not None and facts.cval(bl, fn) is not None:
                    p, _ = consumer(facts, b)
                    uses.append(bl)
            if not uses or not any(
                    facts.kinds(b, fn) & MASK for b in fn.node_list("binary_expression") if sx.inside(b, body)):
                continue
            msg = f"loop over the bits of a wave mask stops at 32 (`{short(facts.src.text(cond), 30)}`)"
            if strategy == "logical32":
                out.append(finding(facts, RULE, bound, msg + "; kept: under logical32 the mask is the"
                                   " caller's 32-lane half", fn, kept=True))
                continue
            edits = [sx.replace(bound, "warpSize", RULE)]
            for lit in uses:
                if lit is not None and re.fullmatch(r"1[uU]?", facts.src.text(lit)):
                    edits.append(sx.replace(lit, "1ull", RULE))
            out.append(finding(facts, RULE, bound, msg, fn, em.fix("loop to `warpSize` over 64-bit bits",
                                                                 edits, fn, False)))
    return out


def _bitop_wrappers(facts: Facts, em: Emitter, fn: Func, strategy: str) -> list[Finding]:
    """Calls of a header function that applies a 32-bit bit operation to its 32-bit first
    parameter (`popc(x) { return __popc(x); }`) on a wave mask: the mask loses lanes 32-63 at the
    call. Its body serves every caller, so a 64-bit rewrite is the header's and the callers'
    together: reported without a fix (kept under logical32, where the mask is the 32-lane half)."""
    out: list[Finding] = []
    for c, s in header_calls(facts, fn):
        if not s.bitop or em.removed(c):
            continue
        args = sx.call_args(c)
        if not args or not facts.kinds(args[0], fn) & (MASK | SHIFTMASK) or tile_relative(facts, em, fn, args[0]):
            continue
        msg = (f"`{short(facts.src.text(c), 40)}` applies `{s.bitop}` ({s.where}) to a wave mask through a 32-bit"
               " parameter: only lanes 0-31 count")
        if strategy == "logical32":
            out.append(finding(facts, RULE, c, msg + "; kept: under logical32 the mask is the caller's 32-lane half",
                               fn, kept=True))
        else:
            out.append(finding(facts, RULE, c, msg + f"; give the wrapper a 64-bit parameter and `{BITOPS32[s.bitop]}`"
                               " with its callers by hand", fn))
    return out
