"""Shuffle loops: `for (o = 16; o > 0; o >>= 1)` and the like, with the shuffles whose offset
is the loop variable and what the loop starts from or runs to (32, warpSize, 64, or derived
from an outer warp loop: `Func.loops`), from the warp calls and the constants."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func, Loop, LoopWarp, WarpCall
from hipport.wave64.facts.kinds import WSRT
from hipport.wave64.facts.text import SPACES

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts


def scan(fx: Facts) -> None:
    for fn in fx.funcs:
        if fn.device and fn.nodes:
            scan_loops(fx, fn)


def scan_loops(fx: Facts, fn: Func) -> None:
    loops: list[Loop] = []
    for fs in fn.nodes.get("for_statement", []):
        lp = _loop(fx, fs, fn)
        if lp is not None:
            loops.append(lp)
    by_id = {lp.node.id: lp for lp in loops}
    # a loop whose start derives from an enclosing warp loop's variable (bitonic j = k >> 1)
    for lp in loops:
        if lp.warp or lp.start is None:
            continue
        outer = sx.enclosing(lp.node, ("for_statement",), fn.body)
        while outer is not None:
            o = by_id.get(outer.id)
            if o is not None and o.warp and re.search(rb"\b" + o.var.encode() + rb"\b",
                                                      fx.data[lp.start.start_byte:lp.start.end_byte]):
                lp.warp = "derived"
                lp.outer = o.outer or o
                break
            outer = sx.enclosing(outer, ("for_statement",), fn.body)
    for wc in fn.calls:
        if wc.family not in ("shfl", "tile") or wc.lane is None:
            continue
        lane = sx.unparen(wc.lane)
        if lane.type == "binary_expression":  # `1 << l` of a butterfly over the exponent
            op, bl, br = fx.binop(lane)
            if op != "<<" or bl is None or br is None or fx.src.text(bl).rstrip("uU") != "1" \
                    or br.type != "identifier":
                continue
            lane = br
        elif lane.type != "identifier":
            continue
        name = fx.src.text(lane)
        outer = sx.enclosing(wc.node, ("for_statement",), fn.body)
        while outer is not None:
            lp = by_id.get(outer.id)
            if lp is not None and lp.var == name:
                lp.shuffles.append(wc)
                break
            outer = sx.enclosing(outer, ("for_statement",), fn.body)
    for lp in loops:  # shuffles pinned below 32 lanes (16-lane groups) do not make a warp loop
        lp.shuffles = [wc for wc in lp.shuffles if wc.width is None or _width_at_least_32(fx, wc)]
    fn.loops = [lp for lp in loops if lp.shuffles]


def _width_at_least_32(fx: Facts, wc: WarpCall) -> bool:
    cv = fx.cval(wc.width, wc.fn)
    return cv is None or cv[0] >= 32


def _loop(fx: Facts, fs: Node, fn: Func) -> Loop | None:
    init = fs.child_by_field_id(sx.F_INITIALIZER)
    cond = fs.child_by_field_id(sx.F_CONDITION)
    update = fs.child_by_field_id(sx.F_UPDATE)
    var = None
    start = None
    if init is not None:
        if init.type == "declaration":
            vs = fx.declared_vars(init)
            if len(vs) == 1:
                var, start = vs[0].name, vs[0].value
        elif init.type == "assignment_expression":
            left = init.child_by_field_id(sx.F_LEFT)
            if left is not None and left.type == "identifier":
                var, start = fx.src.text(left), init.child_by_field_id(sx.F_RIGHT)
    if var is None or start is None or update is None:
        return None
    utext = SPACES.sub("", fx.src.text(update))
    down = utext in (f"{var}>>=1", f"{var}/=2", f"{var}={var}/2", f"{var}={var}>>1")
    up = utext in (f"{var}<<=1", f"{var}*=2", f"{var}={var}*2", f"{var}={var}<<1")
    if not (down or up):
        if utext in (f"{var}++", f"++{var}", f"{var}+=1", f"{var}={var}+1") and cond is not None \
                and cond.type == "binary_expression":
            # a butterfly over the exponent: offsets `1 << l` for l = 0..4 cover 32 lanes
            sv = fx.cval(start, fn)
            op = cond.child_by_field_id(sx.F_OPERATOR)
            left, right = cond.child_by_field_id(sx.F_LEFT), cond.child_by_field_id(sx.F_RIGHT)
            bv = fx.cval(right, fn) if right is not None else None
            if sv is not None and sv[0] == 0 and left is not None and fx.src.text(left) == var and \
                    op is not None and bv is not None and not bv[2] and \
                    ((op.type == "<=" and bv[0] == 4) or (op.type == "<" and bv[0] == 5)):
                return Loop(fs, var, start, cond, False, "32", exp=True)
        return None
    bound = None
    if cond is not None and cond.type == "binary_expression":
        left = cond.child_by_field_id(sx.F_LEFT)
        if left is not None and left.type == "identifier" and fx.src.text(left) == var:
            bound = cond.child_by_field_id(sx.F_RIGHT)
    warp: LoopWarp = ""
    probe = start if down else bound
    if probe is not None:
        cv = fx.cval(probe, fn)
        if cv is not None and cv[0] == (16 if down else 32):
            warp = "32"
        elif cv is None and (fx.kinds(probe, fn) & WSRT or _rt_half(fx, probe, fn)):
            warp = "rt"
        elif cv is not None and cv[0] == (32 if down else 64) and cv[2]:
            warp = "64"
    return Loop(fs, var, start, bound, down, warp)


def _rt_half(fx: Facts, node: Node, fn: Func) -> bool:
    """`warpSize / 2` or `warpSize >> 1`: the first delta of a wave-wide reduction."""
    node = sx.unparen(node)
    if node.type != "binary_expression":
        return False
    op, left, right = fx.binop(node)
    cv = fx.cval(right, fn)
    return op in ("/", ">>") and cv is not None and cv[0] == (2 if op == "/" else 1) \
        and bool(fx.kinds(left, fn) & WSRT)
