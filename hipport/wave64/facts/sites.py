"""Lane and warp arithmetic sites of collective functions: `tid & 31`, `tid >> 5`,
`blockDim.x / 32`, `tid < 32` guards and lane strides by 32 (`Func.sites`), from
`values.classify_binary`, the kinds and the constants."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport.source import Node, walk
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func, Origin, Site, SiteKind
from hipport.wave64.facts.kinds import BDIM, LANES, TID, WARPS, WSRT

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_SITE_KIND: dict[str, SiteKind] = {"lane32": "lane", "lanert": "lane", "warp32": "warp", "warprt": "warp",
                                   "nwarp32": "nwarp", "nwarprt": "nwarp"}
_FLOAT_32 = re.compile(r"32\.0*(?:[eE]0)?[fF]?")


def scan(fx: Facts) -> None:
    for fn in fx.funcs:
        if fn.device and fn.nodes:
            scan_sites(fx, fn)
            if fn.collective:
                scan_strides(fx, fn)


def scan_sites(fx: Facts, fn: Func) -> None:
    if not fn.collective:
        return
    for b in fn.nodes.get("binary_expression", []):
        o, left, right = fx.binop(b)
        if not o:
            continue
        if o in ("&", "%", ">>", "/"):
            kind = fx.classify_binary(b, fn)
        else:
            kind = None
        if kind is None and o == "/" and right is not None and right.type == "number_literal" and \
                left is not None and _FLOAT_32.fullmatch(fx.src.text(right)):
            lk = fx.kinds(left, fn)  # a warp count or id by float division: `blockDim.x / 32.f`
            if lk & (TID | BDIM) and not lk & (LANES | WARPS):
                fn.sites.append(Site("nwarp" if lk & BDIM and not lk & TID else "warp", b, right, "literal",
                                     None, fn))
                continue
        if kind is not None and left is not None and right is not None:  # (a kind implies both operands)
            const = right
            if o == "&" and fx.kinds(right, fn) & TID and not fx.kinds(left, fn) & TID:
                const = left
            origin: Origin
            rt = kind.endswith("rt")
            if rt:
                origin = "rt"
            else:
                cv = fx.cval(const, fn)
                origin = "named" if cv is not None and cv[2] else "literal"
            ceil = None
            base = sx.unparen(left) if left is not None else None
            if base is not None and base.type == "binary_expression":
                bop, _bl, br = fx.binop(base)
                if bop == "+":
                    cc = fx.cval(br, fn)
                    if cc is not None and cc[0] == 31:
                        ceil = br
            k = _SITE_KIND[kind]
            fn.sites.append(Site(k, b, const, origin, ceil, fn))
            continue
        if o in ("<", "<=", ">", ">=", "%") and _lane_vs_count(fx, b, fn):
            continue
        if o in ("<", ">=") and (fn.calls or fn.idents):
            if left is not None and right is not None and fx.kinds(left, fn) & TID and \
                    not fx.kinds(left, fn) & (LANES | WARPS):
                cv = fx.cval(right, fn)
                if cv is not None and cv[0] == 32 and not _bounds_a_shift(fx, b, left):
                    fn.sites.append(Site("guard", b, right, "named" if cv[2] else "literal", None, fn))
                elif cv is None and fx.kinds(right, fn) & WSRT and sx.unparen(right).type == "identifier":
                    fn.sites.append(Site("guard", b, right, "rt", None, fn))


def _bounds_a_shift(fx: Facts, guard: Node, tid: Node) -> bool:
    """`tid < 32 && (1 << tid) < n`: the guard keeps a shift by the thread id inside 32 bits
    (the thread id is a bit number there, not a lane)."""
    p = sx.parent_skipping_parens(guard)
    if p is None or p.type != "binary_expression" or fx.binop(p)[0] != "&&":
        return False
    name = fx.src.text(sx.unparen(tid))
    for n in walk(p):
        if n.type == "binary_expression" and fx.binop(n)[0] == "<<":
            r = n.child_by_field_id(sx.F_RIGHT)
            if r is not None and fx.src.text(sx.unparen(r)) == name:
                return True
    return False


def _lane_vs_count(fx: Facts, b: Node, fn: Func) -> bool:
    """`lane < BLOCK / 32`: a lane compared with a warp count computed from a constant."""
    o, left, right = fx.binop(b)
    pairs = ((left, right),) if o == "%" else ((left, right), (right, left))
    for lane, count in pairs:
        if lane is None or count is None or not fx.kinds(lane, fn) & LANES:
            continue
        c = sx.unparen(count)
        if c.type != "binary_expression":
            continue
        cop, cleft, cright = fx.binop(c)
        cv = fx.cval(cright, fn)
        if cright is None or not cop or cv is None or cv[2] or (cop, cv[0]) not in (("/", 32), (">>", 5)):
            continue
        if fx.cval(cleft, fn) is None:
            continue
        if any(s.node.id == c.id for s in fn.sites):
            continue
        fn.sites.append(Site("nwarp", c, cright, "literal", None, fn))
        return True
    return False


def scan_strides(fx: Facts, fn: Func) -> None:
    """`for (c = lane; c < n; c += 32)`: a loop striding over lanes by the warp size."""
    for fs in fn.nodes.get("for_statement", []):
        init = fs.child_by_field_id(sx.F_INITIALIZER)
        update = fs.child_by_field_id(sx.F_UPDATE)
        if init is None or update is None or update.type != "assignment_expression":
            continue
        op = update.child_by_field_id(sx.F_OPERATOR)
        left = update.child_by_field_id(sx.F_LEFT)
        step = update.child_by_field_id(sx.F_RIGHT)
        if op is None or op.type != "+=" or left is None or step is None or left.type != "identifier":
            continue
        value = None
        if init.type == "declaration":
            vs = fx.declared_vars(init)
            if len(vs) == 1 and vs[0].name == fx.src.text(left):
                value = vs[0].value
        elif init.type == "assignment_expression":
            value = init.child_by_field_id(sx.F_RIGHT)
        if value is None or not fx.kinds(value, fn) & (TID | LANES):
            continue
        cv = fx.cval(step, fn)
        if cv is not None and cv[0] == 32:
            fn.sites.append(Site("stride", update, step, "named" if cv[2] else "literal", None, fn))
        elif cv is None and fx.kinds(step, fn) & WSRT and sx.unparen(step).type == "identifier":
            fn.sites.append(Site("stride", update, step, "rt", None, fn))
