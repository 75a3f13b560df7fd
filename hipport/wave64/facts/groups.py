"""Groups and models: the device functions that must agree (a kernel, what it calls, what shares
a file-level warp-size constant or a wrapper macro with it) are one `Group`, whose model
(warp32, agnostic, mixed) comes from their evidence and whose strategy (logical32, native) from
the model and `Config.wave_strategy` (wave64.md §3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.wave64.facts.data import Func, Group, WarpConst

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts


def group(fx: Facts) -> None:
    device = [f for f in fx.funcs if f.device and f.nodes]
    parent: dict[int, int] = {id(f): id(f) for f in device}
    objs = {id(f): f for f in device}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: Func, b: Func) -> None:
        if id(a) in parent and id(b) in parent:
            ra, rb = find(id(a)), find(id(b))
            if ra != rb:
                parent[ra] = rb

    for f in device:
        for name in f.callees:
            for g in fx.by_name.get(name, []):
                union(f, g)
    for defs in fx.consts.values():
        users = [u for d in defs for u in d.users if id(u) in parent and d.func is None]
        for u in users[1:]:
            union(users[0], u)
    for w in fx.wrappers.values():  # one macro body serves every caller: one strategy
        users = [wc.fn for wc in fx.calls if wc.wrapper is w and id(wc.fn) in parent]
        for u in users[1:]:
            union(users[0], u)
    groups: dict[int, list[Func]] = {}
    for f in device:
        groups.setdefault(find(id(f)), []).append(f)
    del objs
    for funcs in groups.values():
        strong = any(f.strong32 for f in funcs)
        weak = any(f.weak32 for f in funcs)
        agn = any(f.agnostic for f in funcs)
        if strong and agn:
            model = "mixed"
        elif strong or (weak and not agn):
            model = "warp32"
        else:
            model = "agnostic"
        grp = Group(funcs, model, strategy(fx, model))
        for f in funcs:
            f.group = grp
        fx.groups.append(grp)


def strategy(fx: Facts, model: str) -> str:
    if model == "agnostic":
        return "native"
    s = fx.config.wave_strategy
    if s in ("logical32", "native"):
        return s
    return "logical32" if model == "warp32" else "native"


def device_funcs(fx: Facts) -> list[Func]:
    if fx._device is None:
        fx._device = [f for f in fx.funcs if f.device and f.nodes and f.group is not None]
    return fx._device


def model_of_const(fx: Facts, c: WarpConst) -> tuple[str, str]:
    """(model, strategy) for a file-level constant: that of its users, else from its value."""
    for u in c.users:
        if u.group is not None:
            return u.group.model, u.group.strategy
    if c.func is not None and c.func.group is not None:
        return c.func.group.model, c.func.group.strategy
    model = "warp32" if c.value == 32 else "agnostic"
    return model, strategy(fx, model)
