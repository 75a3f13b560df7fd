"""Cooperative-groups groups of unknown type and tile-relative masks.

- `is_group_param`: a parameter whose type is a template type parameter of its function
  (`template <class CG> f(CG const& g)`) in a file that uses cooperative groups. Calling
  `g.ballot(...)`, `g.any(...)` or `g.shfl(...)` on it makes the function generic over the group:
  every cooperative-groups type it can be instantiated with (a `thread_block_tile` of any size, a
  `coalesced_group`) lacks `ballot` / `any` / `all` before HIP 7.0, so those calls are tile member
  calls wherever the tile comes from; its size is unknown (no rewrite follows from it).
- `tile_size`: the size of a tile variable, when it is a constant.
- `tile_mask_sources`: the tile ballots a mask value comes from, when it comes from nothing else.
  A tile's ballot holds one bit per member of the tile, relative to the tile (CUDA allows ballot on
  tiles of at most 32 threads), so 32-bit counts and positions of it are exact at any wave size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func, WarpCall
from hipport.wave64.facts.kinds import MASK

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_TYPE_PARAMS = ("type_parameter_declaration", "optional_type_parameter_declaration")
_QUALIFIERS = {"const", "volatile", "&", "&&"}


def uses_cooperative_groups(fx: Facts) -> bool:
    if fx._cg is None:
        fx._cg = b"cooperative_groups" in fx.data
    return fx._cg


def template_type_params(fx: Facts, fn: Func) -> set[str]:
    """The names of the template type parameters in scope of `fn` (its own and its class's)."""
    out: set[str] = set()
    for a in fx.src.ancestors(fn.node):
        if a.type != "template_declaration":
            continue
        params = a.child_by_field_id(sx.F_PARAMETERS)
        for p in params.named_children if params is not None else []:
            if p.type in _TYPE_PARAMS:
                out.update(fx.src.text(c) for c in p.named_children if c.type == "type_identifier")
    return out


def is_group_param(fx: Facts, name: str, fn: Func) -> bool:
    """A parameter of a template type in a file that uses cooperative groups (see the module doc)."""
    var = fn.vars.get(name)
    if var is None or not var.is_param or var.type_node is None or not uses_cooperative_groups(fx):
        return False
    words = [w for w in fx.src.text(var.decl).replace("&", " & ").split() if w not in _QUALIFIERS]
    if len(words) != 2 or words[1] != name:  # `CG const& g`: just the type's name and the parameter's
        return False
    return words[0] in template_type_params(fx, fn)


def tile_size(fx: Facts, fn: Func, obj: Node) -> int | None:
    """The size of the tile `obj` names (`tiled_partition<N>`, `thread_block_tile<N>`), or None."""
    var = fx.var(fn, fx.src.text(obj))
    if var is None:
        return None
    for part in (var.value, var.type_node):
        if part is None:
            continue
        stack = [part]
        while stack:
            n = stack.pop()
            if n.type == "template_argument_list":
                if n.named_child_count:
                    cv = fx.cval(n.named_child(0), fn)
                    if cv is not None:
                        return cv[0]
                break
            stack.extend(reversed(n.children))
    return None


def tile_mask_sources(fx: Facts, node: Node, fn: Func) -> list[WarpCall] | None:
    """The tile ballots (`g.ballot(p)`, `g.match_any(v)`) the mask value of `node` comes from, or
    None when some of it comes from anything else (a wave ballot, a parameter, an unknown call)."""
    by_node = {wc.node.id: wc for wc in fn.calls}
    out: list[WarpCall] = []
    seen: set[str] = set()  # variables followed already (`m &= m - 1` refers to itself)
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            wc = by_node.get(n.id)
            if wc is not None and wc.family == "tile" and wc.name in ("ballot", "match_any"):
                out.append(wc)
            elif fx.kinds(n, fn) & MASK:
                return None  # a wave mask source
            continue
        if n.type == "identifier":
            name = fx.src.text(n)
            if name in seen or not (fn.env.get(name, 0) & MASK):
                continue
            seen.add(name)
            var = fn.vars.get(name)
            if var is None or var.is_param or len(seen) > 16:
                return None
            if var.value is not None:
                stack.append(var.value)
            for a in fn.node_list("assignment_expression"):
                left, right = a.child_by_field_id(sx.F_LEFT), a.child_by_field_id(sx.F_RIGHT)
                if left is not None and right is not None and left.type == "identifier" and fx.src.text(left) == name:
                    stack.append(right)
            continue
        stack.extend(n.named_children)
    return out
