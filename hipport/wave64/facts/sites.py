"""Lane and warp arithmetic sites of collective functions: `tid & 31`, `tid >> 5`,
`blockDim.x / 32`, `tid < 32` guards and lane strides by 32 (`Func.sites`), from
`values.classify_binary`, the kinds and the constants."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport.source import Node, walk
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func, Origin, Site, SiteKind
from hipport.wave64.facts.kinds import BDIM, LANES, MASK, TID, WARPS, WSRT
from hipport.wave64.facts.names import is_warp_name

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
        if kind is None and o == "/" and left is not None and right is not None and \
                _count_by_name(fx, fn, left, right):
            fn.sites.append(Site("nwarp", b, right, "named", None, fn))
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


def _count_by_name(fx: Facts, fn: Func, left: Node, right: Node) -> bool:
    """`NCCL_MAX_NTHREADS / WARP_SIZE`, `nworkers / WARP_SIZE`: a count divided by a warp-size
    constant named as one is a warp count, whatever the count's kind (a lane, warp or mask
    value divided is something else)."""
    r = sx.unparen(right)
    if r.type != "identifier" or not is_warp_name(fx.src.text(r)):
        return False
    cv = fx.cval(r, fn)
    if cv is None or cv[0] != 32 or not cv[2]:
        return False
    if fx.kinds(left, fn) & (TID | LANES | WARPS | MASK) or _FLOAT_32.fullmatch(fx.src.text(left)):
        return False
    p = sx.parent_skipping_parens(r.parent) if r.parent is not None else None
    if p is not None and p.type == "binary_expression" and fx.binop(p)[0] in ("<", "<=", ">", ">="):
        _o, a, c = fx.binop(p)  # `lane < BLOCK / WARP`: kept silent, as _lane_vs_count keeps named counts
        if any(x is not None and fx.kinds(x, fn) & LANES for x in (a, c)):
            return False
    return True


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
    """A loop striding over lanes by the warp size: `for (c = lane; c < n; c += 32)`, the
    same scaled (`c = lane * K; ...; c += 32 * K`), or a loop stepping by 32 whose body offsets
    its variable by the lane (`for (t = end - 1; t >= start; t -= 32) { i = t - lane; }`)."""
    for fs in fn.nodes.get("for_statement", []):
        init = fs.child_by_field_id(sx.F_INITIALIZER)
        update = fs.child_by_field_id(sx.F_UPDATE)
        if update is not None and update.type == "comma_expression":  # `i += 32 * K, ++iter`
            update = update.child_by_field_id(sx.F_LEFT)
        if init is None or update is None or update.type != "assignment_expression":
            continue
        op = update.child_by_field_id(sx.F_OPERATOR)
        left = update.child_by_field_id(sx.F_LEFT)
        step = update.child_by_field_id(sx.F_RIGHT)
        if op is None or op.type not in ("+=", "-=") or left is None or step is None or left.type != "identifier":
            continue
        name = fx.src.text(left)
        value = None
        if init.type == "declaration":
            value = next((v.value for v in fx.declared_vars(init) if v.name == name), None)
        elif init.type == "assignment_expression":
            value = init.child_by_field_id(sx.F_RIGHT)
        if value is None:
            continue
        lane = bool(fx.kinds(value, fn) & (TID | LANES)) and op.type == "+="
        const: Node | None = step
        if not lane:
            const = _scaled_stride(fx, fn, value, step) if op.type == "+=" else None
            lane = const is not None
        if not lane:
            body = fs.child_by_field_id(sx.F_BODY)
            lane = body is not None and _offset_by_lane(fx, fn, body, name)
            const = step
        if not lane or const is None:
            continue
        cv = fx.cval(const, fn)
        if cv is not None and cv[0] == 32:
            fn.sites.append(Site("stride", update, const, "named" if cv[2] else "literal", None, fn))
        elif cv is None and fx.kinds(const, fn) & WSRT and sx.unparen(const).type == "identifier":
            fn.sites.append(Site("stride", update, const, "rt", None, fn))


def _factors(fx: Facts, node: Node) -> tuple[Node, Node] | None:
    n = sx.unparen(node)
    if n.type != "binary_expression":
        return None
    op, a, b = fx.binop(n)
    return (a, b) if op == "*" and a is not None and b is not None else None


def _scaled_stride(fx: Facts, fn: Func, value: Node, step: Node) -> Node | None:
    """The warp-size factor of `step` when the loop starts at `lane * K` and steps by
    `32 * K` (the same K): K elements per lane, 32 lanes per step."""
    start, by = _factors(fx, value), _factors(fx, step)
    if start is None or by is None:
        return None
    for lane, k in (start, start[::-1]):
        if not fx.kinds(lane, fn) & (TID | LANES):
            continue
        scale = fx.src.text(sx.unparen(k))
        for ws, other in (by, by[::-1]):
            if fx.src.text(sx.unparen(other)) == scale and fx.cval(ws, fn) is not None:
                return ws
    return None


def _offset_by_lane(fx: Facts, fn: Func, body: Node, name: str) -> bool:
    """The loop body computes `name + lane` or `name - lane`: one element per lane of a step."""
    for b in fn.nodes.get("binary_expression", []):
        if not sx.inside(b, body):
            continue
        o, left, right = fx.binop(b)
        if o not in ("+", "-") or left is None or right is None:
            continue
        for v, lane in ((left, right), (right, left)) if o == "+" else ((left, right),):
            if v.type == "identifier" and fx.src.text(v) == name and fx.kinds(lane, fn) & LANES:
                return True
    return False
