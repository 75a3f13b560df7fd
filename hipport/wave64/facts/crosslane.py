"""Groups of 32 threads that are not warps (`Facts.thread_groups`): a group of functions (a
kernel and what it calls, facts/groups.py) none of which runs a cross-lane operation (a
shuffle, ballot, vote, match, reduction, lane id or lane mask, a tile, inline assembly, or a
call the file cannot see into whose name says warp, lane, shfl or ballot) and that sizes its
groups by this file's own constants or literals (a warp-size constant of another file is the
project's warp, which its shuffles elsewhere use) only synchronises threads (`__syncwarp` at
most) and exchanges data through shared memory. There `tid < 32`,
`tid % 32` and `blockDim.x / 32` number threads and 32-slot groups of shared memory
(CTranslate2's block_reduce, where the first 32 threads each fold 32 slots), which are right at
any wave size: W004, W005, W007 and W008 leave them alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func
from hipport.wave64.facts.names import WARP_FN

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts


def scan(fx: Facts) -> None:
    for g in fx.groups:
        if not any(_cross_lane(fx, f) or _project_warp(fx, f) for f in g.funcs):
            fx.thread_groups.add(id(g))


def _project_warp(fx: Facts, fn: Func) -> bool:
    """`fn` uses a warp-size constant of another file (`WARP_SIZE` of the project's header): the
    project's warp, which its shuffles elsewhere use, not a group this file sized for itself."""
    if any(name not in fx.consts and name not in fx.macros for name, _node in fn.idents):
        return True
    for s in fn.sites:  # (a name shaped like one, which no header read defines: `WARP_SIZE`)
        c = sx.unparen(s.const)
        if c.type == "identifier" and fx.external_const(fx.src.text(c), fn):
            return True
    return False


def _cross_lane(fx: Facts, fn: Func) -> bool:
    if any(wc.family != "syncwarp" for wc in fn.calls) or fn.nodes.get("gnu_asm_expression"):
        return True
    if WARP_FN.search(fn.name):
        return True
    for n in fn.nodes.get("template_function", []) + fn.nodes.get("template_type", []):
        raw = fx.data[n.start_byte:n.end_byte]
        if b"tiled_partition" in raw or b"thread_block_tile" in raw or b"Warp" in raw:
            return True
    pl = fn.param_list
    if pl is not None and b"thread_block_tile" in fx.data[pl.start_byte:pl.end_byte]:
        return True
    known = {wc.name for wc in fn.calls}  # (`__syncwarp` says warp and is only a barrier)
    called = {fx.call_name(c) for c in fn.nodes.get("call_expression", [])}
    summaries = fx.header_funcs() if called - fx.by_name.keys() - known else {}
    for name in called:  # a header function whose code is cross-lane (its summary) counts too
        s = summaries.get(name)
        if s is not None and (s.collective or s.ret or s.reduce):
            return True
    return any(name not in fx.by_name and name not in known and name not in summaries and WARP_FN.search(name)
               for name in called)


def is_thread_group(fx: Facts, fn: Func | None) -> bool:
    """`fn` belongs to a group with no cross-lane operation: its 32s are not warps."""
    return fn is not None and fn.group is not None and id(fn.group) in fx.thread_groups
