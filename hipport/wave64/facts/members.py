"""Warp counts at class scope: the enumerators and member array bounds of a class (template)
whose member functions run warp collectives (`enum { num_warps = nt / warp_size }`, a shared
storage union's `T warps[num_warps]`, `using TempStorage = T[BLOCK_DIM / WARP_SIZE]`), which
no function body holds (`Facts.member_sites`: W005's warp counts, `Facts.member_arrays`: W007's
per-warp bounds). Each is analysed as part of the class's first collective device member
function, which gives the template parameters, the kinds and the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func, Site
from hipport.wave64.facts.kinds import BDIM

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_CLASSES = ("struct_specifier", "class_specifier", "union_specifier")
_ARRAYS = ("array_declarator", "abstract_array_declarator")


def scan(fx: Facts) -> None:
    owners: dict[int, Func | None] = {}
    enums: dict[tuple[int, str], Node] = {}  # (class, enumerator) -> value
    items: list[tuple[Node, Node, Func]] = []
    for item in fx.top_items:
        cls = _class_of(fx, item)
        if cls is None:
            continue
        if cls.id not in owners:
            owners[cls.id] = _owner(fx, cls)
        fn = owners[cls.id]
        if fn is None or (fx.inactive and fx.is_inactive(item.start_byte)):
            continue
        items.append((item, cls, fn))
        if item.type == "enum_specifier":
            body = item.child_by_field_id(sx.F_BODY)
            for e in (body.named_children if body is not None else ()):
                n, v = e.child_by_field_id(sx.F_NAME), e.child_by_field_id(sx.F_VALUE)
                if e.type != "enumerator" or n is None or v is None:
                    continue
                enums[(cls.id, fx.src.text(n))] = v
                site = _count_site(fx, v, fn)
                if site is not None:
                    fx.member_sites.append(site)
    seen: set[int] = set()
    for item, cls, fn in items:
        if item.type not in ("field_declaration", "alias_declaration", "type_definition"):
            continue
        for size in _bounds(item):
            if size.id in seen:
                continue
            seen.add(size.id)
            if _per_warp(fx, size, fn, cls, enums, 0):
                decl = next((p for p in fx.src.ancestors(size)
                             if p.type in ("field_declaration", "alias_declaration", "type_definition")), item)
                fx.member_arrays.append((size, decl, fn))


def _class_of(fx: Facts, item: Node) -> Node | None:
    """The class whose member `item` is (outside any function body), or None."""
    for p in fx.src.ancestors(item):
        if p.type in _CLASSES:
            return p
        if p.type in ("function_definition", "translation_unit"):
            return None
    return None


def _owner(fx: Facts, cls: Node) -> Func | None:
    """The class's first device member function that runs a warp collective."""
    for fn in fx.funcs:
        if fn.device and fn.collective and fn.group is not None and sx.inside(fn.node, cls):
            return fn
    return None


def _count_site(fx: Facts, value: Node, fn: Func) -> Site | None:
    """`nt / warp_size` (a warp-size constant) or `kThreads / 32` (a block size): a warp count."""
    v = sx.unparen(value)
    if v.type != "binary_expression":
        return None
    op, left, right = fx.binop(v)
    if op not in ("/", ">>") or left is None or right is None:
        return None
    cv = fx.cval(right, fn)
    if cv is None or cv[0] != (32 if op == "/" else 5):
        return None
    if cv[2] and op == "/":
        return Site("nwarp", v, right, "named", None, fn)
    if fx.kinds(left, fn) & BDIM:
        return Site("nwarp", v, right, "literal", None, fn)
    return None


def _bounds(item: Node) -> list[Node]:
    """The array bounds a member declaration holds (through anonymous structs and unions),
    not those of member function bodies."""
    out = []
    stack = [item]
    while stack:
        n = stack.pop()
        if n.type in ("function_definition", "compound_statement"):
            continue
        if n.type in _ARRAYS:
            size = n.child_by_field_id(sx.F_SIZE)
            if size is not None:
                out.append(size)
        stack.extend(n.named_children)
    return out


def _per_warp(fx: Facts, size: Node, fn: Func, cls: Node, enums: dict[tuple[int, str], Node],
              depth: int) -> bool:
    """The bound is a count of 32-lane warps: `nt / warp_size`, a member enumerator (or
    constant) that is one, or the larger of one and another value."""
    n = sx.unparen(size)
    if n.type == "identifier" and depth < 4:
        name = fx.src.text(n)
        value = enums.get((cls.id, name))
        if value is None:
            var = fx.var(fn, name)
            value = var.value if var is not None and b"const" in fx.data[var.decl.start_byte:var.decl.end_byte] \
                else None
        return value is not None and _per_warp(fx, value, fn, cls, enums, depth + 1)
    if n.type == "call_expression" and fx.call_name(n) == "max" and depth < 4:  # `std::max(BLOCK / 32, 1)`
        return any(_per_warp(fx, a, fn, cls, enums, depth + 1) for a in sx.call_args(n))
    return n.type == "binary_expression" and _count_site(fx, n, fn) is not None
