"""Warp-size evidence of a function: the sites, loops, constants, lane ids, shuffles, tiles and
32-bit masks that say its code assumes 32 lanes (`strong32`, `weak32`) or is wave-agnostic
(`agnostic`), from the sites, loops and warp calls; `groups` turns it into a model."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func, WarpCall
from hipport.wave64.facts.kinds import LANE32, LANEHW, LANEN, LANES, MASK, SHIFTMASK
from hipport.wave64.facts.names import BITOPS32, type_bits
from hipport.wave64.facts.summaries import explicit_template_args

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_UPPER = re.compile(rb"\b(?:[A-Z][A-Z0-9_]*|k[A-Z]\w*)\b")


def scan(fx: Facts) -> None:
    for fn in fx.funcs:
        if fn.device and fn.nodes:
            scan_evidence(fx, fn)


def scan_evidence(fx: Facts, fn: Func) -> None:
    """Sort the function's warp-size sites into 32-lane, wave-agnostic and weak 32 evidence."""
    for s in fn.sites:
        if s.origin == "rt":
            fn.agnostic.append(s.node)
        elif s.kind != "guard":
            fn.strong32.append(s.node)
    for lp in fn.loops:
        warp = lp.outer.warp if lp.warp == "derived" and lp.outer is not None else lp.warp
        if warp == "32":
            fn.strong32.append(lp.node)
        elif warp in ("rt", "64"):
            fn.agnostic.append(lp.node)
    if fn.body is not None:  # warp-size macros from another file (#define WARP_SIZE 32 in a header)
        for word in set(_UPPER.findall(fx.data, fn.body.start_byte, fn.body.end_byte)):  # each name once
            if fx.external_const(word.decode(), fn):
                fn.strong32.append(fn.body)
                break
    for name, node in fn.idents:
        if name == "warpSize" or name.startswith("__AMDGCN") or name in fx.aliases or name in fx.wave_macros:
            fn.agnostic.append(node)
        elif fx.const_value(name) == 32:
            fn.strong32.append(node)
        elif fx.const_value(name) == 64:
            fn.agnostic.append(node)
    for wc in fn.calls:
        if wc.family == "lane_id":
            (fn.strong32 if fx.in_lane_idiom(wc.node) else fn.agnostic).append(wc.node)
        elif wc.family == "shfl" and wc.width is None and wc.lane is not None:
            cv = fx.cval(wc.lane, fn)
            if cv is not None and cv[0] in (16, 31) and not cv[2] and not _in_warp_loop(fx, wc):
                fn.strong32.append(wc.node)
        elif wc.family in ("ballot", "activemask", "match") and fx.sink32(wc.node, fn):
            fn.weak32.append(wc.node)
    for n in fn.nodes.get("template_function", []) + fn.nodes.get("template_type", []) + \
            fn.nodes.get("pseudo_template", []):
        raw = fx.data[n.start_byte:n.end_byte]
        if b"tiled_partition" in raw or b"thread_block_tile" in raw:
            if n.type == "pseudo_template" or n.type == "binary_expression":
                arg = n.child_by_field_id(sx.F_RIGHT)
            else:
                args = n.child_by_field_id(sx.F_ARGUMENTS)
                arg = args.named_child(0) if args is not None and args.named_child_count else None
            cv = fx.cval(arg, fn)
            if cv is not None and cv[0] == 32:
                fn.weak32.append(n)
            elif cv is not None and cv[0] == 64:
                fn.agnostic.append(n)
    _header_calls(fx, fn)
    for d in fn.nodes.get("declaration", []):
        for v in fx.declared_vars(d):
            if v.bits == 32 and (fn.env.get(v.name, 0) & MASK) and not (fn.env.get(v.name, 0) & SHIFTMASK):
                fn.weak32.append(v.declarator)


def _in_warp_loop(fx: Facts, wc: WarpCall) -> bool:
    return any(wc in lp.shuffles for lp in wc.fn.loops)


def sink32(fx: Facts, node: Node, fn: Func) -> bool:
    """True when the value of `node` is converted to a 32-bit type right where it is used."""
    up = fx.src.ancestors(node)  # (a step a level; `.parent` walks down from the root)
    p = next(up, None)
    while p is not None and p.type in ("parenthesized_expression",):
        p = next(up, None)
    if p is None:
        return False
    if p.type == "init_declarator":
        var = fn.vars.get(fx.src.text(p.child_by_field_id(sx.F_DECLARATOR) or p))
        return var is not None and var.bits == 32
    if p.type == "cast_expression":
        tn = p.child_by_field_id(sx.F_TYPE)
        return tn is not None and type_bits(fx.src.text(tn)) == 32
    if p.type == "assignment_expression":
        left = p.child_by_field_id(sx.F_LEFT)
        if left is not None and left.type == "identifier":
            var = fn.vars.get(fx.src.text(left)) or fx.gvars.get(fx.src.text(left))
            return var is not None and var.bits == 32
    if p.type == "argument_list":
        call = next(up, None)
        if call is not None and call.type == "call_expression":
            name = fx.call_name(call)
            if name in BITOPS32:
                return True
    return False


def _header_calls(fx: Facts, fn: Func) -> None:
    """Calls of header functions count as their code would inline, by what it assumes on CUDA:
    a 32-lane id (`threadIdx.x & 31`), a reduction over 32 lanes at the default width, or a macro
    striding by 32 lanes are 32-lane evidence; `__lane_id()` and a reduction over the wave are
    wave-agnostic. (A PTX `%laneid`
    lane follows the strategy: no evidence.)"""
    if not fx.header_funcs():
        return
    for c in fn.nodes.get("call_expression", []):
        name = fx.call_name(c)
        s = fx.header_func(name) if name and sx.field_object(c) is None else None
        if s is None:
            continue
        if s.reduce and not explicit_template_args(c):
            (fn.strong32 if s.reduce == 32 else fn.agnostic).append(c)
        elif s.stride_arg >= 0:
            args = sx.call_args(c)
            if len(args) > s.stride_arg and fx.kinds(args[s.stride_arg], fn) & LANES:
                fn.strong32.append(c)
        elif s.ret & LANEHW and not s.ret & LANE32:
            fn.agnostic.append(c)
        elif s.ret & LANE32 and not s.ret & (LANEHW | LANEN):
            fn.strong32.append(c)
