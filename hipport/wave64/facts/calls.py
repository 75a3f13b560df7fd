"""Warp calls: every shuffle, ballot, vote, match, reduce, lane id, lanemask and tile member call
of a device function (also through wrapper macros), with its mask, value, lane and width
arguments (`Func.calls`, `Facts.calls`); and which functions are collective (`Func.collective`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import threads, values
from hipport.wave64.facts.data import Func, WarpCall, Wrapper
from hipport.wave64.facts.kinds import LANES, MASK, WARPS
from hipport.wave64.facts.names import (
    BALLOTS,
    COALESCED_VOTES,
    LANEMASKS,
    MATCHES,
    REDUCES,
    SHFL,
    SHFL_SYNC,
    TILE_MEMBERS,
    TILE_SHFL,
    VOTES,
    WARP_CALLS,
    WARP_FN,
)

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts


def scan(fx: Facts) -> None:
    for fn in fx.funcs:
        if fn.device and fn.body is not None and fn.nodes:
            scan_calls(fx, fn)


def scan_calls(fx: Facts, fn: Func) -> None:
    for c in fn.nodes.get("call_expression", []):
        name = fx.call_name(c)
        if not name:
            continue
        obj = sx.field_object(c)
        wc: WarpCall | None = None
        if obj is not None:
            if name in TILE_MEMBERS or name in TILE_SHFL:
                if obj.type == "identifier" and values.is_tile_var(fx, fx.src.text(obj), fn):
                    wc = WarpCall(c, fn, name, "tile", base=TILE_SHFL.get(name, name),
                                  args=sx.call_args(c), tile=obj)
                    if name in TILE_SHFL:
                        a = wc.args
                        wc.value = a[0] if a else None
                        wc.lane = a[1] if len(a) > 1 else None
                elif name in COALESCED_VOTES and obj.type == "identifier" \
                        and values.is_coalesced_var(fx, fx.src.text(obj), fn):
                    wc = WarpCall(c, fn, name, "coalesced", args=sx.call_args(c), tile=obj)
            if wc is not None:
                fn.calls.append(wc)
                fx.calls.append(wc)
            continue
        if name in fx.wrappers and name not in WARP_CALLS:
            wc = _wrapped_call(fx, c, fn, fx.wrappers[name])
            if wc is not None:
                fn.calls.append(wc)
                fx.calls.append(wc)
            continue
        if name not in WARP_CALLS:
            continue
        args = sx.call_args(c)
        if name in SHFL or name in SHFL_SYNC:
            sync = name in SHFL_SYNC
            off = 1 if sync else 0
            wc = WarpCall(c, fn, name, "shfl", base=(SHFL_SYNC if sync else SHFL)[name], sync=sync,
                          args=args, mask=args[0] if sync and args else None)
            if len(args) > off:
                wc.value = args[off]
            if len(args) > off + 1:
                wc.lane = args[off + 1]
            if len(args) > off + 2:
                wc.width = args[off + 2]
        elif name in BALLOTS:
            sync = name.endswith("_sync")
            wc = WarpCall(c, fn, name, "ballot", base="ballot", sync=sync, args=args,
                          mask=args[0] if sync and args else None)
            wc.value = args[-1] if args else None
        elif name in VOTES:
            sync = name.endswith("_sync")
            wc = WarpCall(c, fn, name, "vote", base=name.strip("_").replace("_sync", ""), sync=sync,
                          args=args, mask=args[0] if sync and args else None)
            wc.value = args[-1] if args else None
        elif name == "__activemask":
            wc = WarpCall(c, fn, name, "activemask", args=args)
        elif name == "__syncwarp":
            wc = WarpCall(c, fn, name, "syncwarp", sync=True, args=args, mask=args[0] if args else None)
        elif name in MATCHES:
            sync = name.endswith("_sync")
            wc = WarpCall(c, fn, name, "match", base="any" if "any" in name else "all", sync=sync,
                          args=args, mask=args[0] if sync and args else None)
            wc.value = args[1 if sync else 0] if len(args) > (1 if sync else 0) else None
        elif name in REDUCES:
            wc = WarpCall(c, fn, name, "reduce", base=name[len("__reduce_"):-len("_sync")], sync=True,
                          args=args, mask=args[0] if args else None)
            wc.value = args[1] if len(args) > 1 else None
        elif name == "__lane_id":
            wc = WarpCall(c, fn, name, "lane_id", args=args)
        elif name in LANEMASKS:
            wc = WarpCall(c, fn, name, "lanemask", args=args)
        if wc is not None:
            fn.calls.append(wc)
            fx.calls.append(wc)


def _wrapped_call(fx: Facts, c: Node, fn: Func, w: Wrapper) -> WarpCall | None:
    """A call of a wrapper macro, with the macro's parameters mapped to the call's arguments."""
    args = sx.call_args(c)
    if len(args) != len(w.params):
        return None
    by_param = dict(zip(w.params, args, strict=False))
    mapped = [by_param.get(a[2]) for a in w.args]
    if w.callee.startswith("__ballot"):
        return WarpCall(c, fn, w.name, "ballot", base="ballot", args=args, value=mapped[-1], wrapper=w)
    off = 1 if w.callee.endswith("_sync") else 0
    wc = WarpCall(c, fn, w.name, "shfl", base=(SHFL_SYNC if off else SHFL)[w.callee], args=args, wrapper=w)
    if len(mapped) > off:
        wc.value = mapped[off]
    if len(mapped) > off + 1:
        wc.lane = mapped[off + 1]
        if wc.lane is None:
            return None  # a constant inside the macro: nothing to follow
    if len(w.args) > off + 2:
        wc.width = mapped[off + 2]
        if wc.width is None:
            return None  # the macro fixes the width itself
    return wc


def mark_collective(fx: Facts) -> None:
    for fn in fx.funcs:
        if not fn.device or not fn.nodes:
            continue
        pl = fn.param_list
        fn.collective = bool(fn.calls) or bool(fn.idents) or bool(fn.nodes.get("gnu_asm_expression")) or any(
            b"tiled_partition" in fx.data[n.start_byte:n.end_byte] or
            b"Warp" in fx.data[n.start_byte:n.end_byte]
            for n in fn.nodes.get("template_function", []) + fn.nodes.get("template_type", [])) or (
            pl is not None and b"thread_block_tile" in fx.data[pl.start_byte:pl.end_byte])  # takes a tile
        if not fn.collective:
            # (a function that returns a lane or warp id or a mask is a warp primitive by its code)
            fn.collective = bool(fn.ret & (LANES | WARPS | MASK)) or any(
                name not in fx.by_name and _collective_callee(fx, name) for name in _called_names(fx, fn))
    # a function whose callee is collective, or that passes lane values to one, counts too
    for _ in range(4):
        changed = False
        for fn in fx.funcs:
            if fn.collective or not fn.device:
                continue
            if any(c.collective for name in fn.callees for c in fx.by_name.get(name, [])):
                fn.collective = True
                changed = True
        if not changed:
            break
    for fn in threads.constructors_of_collective_classes(fx):
        fn.collective = True


def _called_names(fx: Facts, fn: Func) -> set[str]:
    return {fx.call_name(c) for c in fn.nodes.get("call_expression", [])}


def _collective_callee(fx: Facts, name: str) -> bool:
    """A function defined elsewhere: collective when a header's summary says so (from its code);
    one no header defines, by its name."""
    s = fx.header_func(name)
    if s is not None:
        return s.collective
    return bool(WARP_FN.search(name))
