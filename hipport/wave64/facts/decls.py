"""Declared variables: the `Var` of every name a declaration, field or parameter declares (its
type's width, value, array size, `__shared__`, pointer), memoized per declaration node."""

from __future__ import annotations

from sys import intern
from typing import TYPE_CHECKING

from hipport.source import Node, children, named_children
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import precise
from hipport.wave64.facts.data import Func, Var
from hipport.wave64.facts.names import type_bits

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_WRAPPING_DECLARATORS = frozenset({"pointer_declarator", "array_declarator", "reference_declarator",
                                   "parenthesized_declarator"})


def var_from_declarator(fx: Facts, d: Node, decl: Node, type_node: Node | None, index: int,
                         count: int) -> Var | None:
    value = None
    target = d
    is_array = is_pointer = False
    size = None
    tt = target.type
    if tt == "init_declarator":
        value = target.child_by_field_id(sx.F_VALUE)
        target = target.child_by_field_id(sx.F_DECLARATOR) or target
        tt = target.type
    while tt in _WRAPPING_DECLARATORS:
        if tt == "pointer_declarator":
            is_pointer = True
        elif tt == "array_declarator":
            is_array = True
            if size is None:
                size = target.child_by_field_id(sx.F_SIZE)
        nxt = target.child_by_field_id(sx.F_DECLARATOR)
        if nxt is None:
            nxt = next((c for c in target.named_children), None)
            if nxt is None:
                break
        target = nxt
        tt = target.type
    if tt not in ("identifier", "field_identifier"):
        return None
    data = fx.data
    tstart = target.start_byte
    shared = data.find(b"__shared__", decl.start_byte, tstart) >= 0 and any(
        data[c.start_byte:c.end_byte] == b"__shared__" for c in children(decl) if c.type == "type_qualifier")
    bits = None if (is_pointer or type_node is None) else type_bits(
        data[type_node.start_byte:type_node.end_byte].decode("utf-8", "surrogateescape"))
    if bits is None and type_node is not None and not is_pointer and fx.config.precise:  # a typedef's width
        bits = precise.type_bits(fx, data[type_node.start_byte:type_node.end_byte].decode("utf-8", "replace"))
    # (the name interned: one string per distinct name, not one per declaration of the file)
    return Var(intern(data[tstart:target.end_byte].decode("utf-8", "surrogateescape")), decl, type_node, d,
               bits, value, False, is_array, shared, is_pointer, size, index, count)


def declared_vars(fx: Facts, decl: Node) -> list[Var]:
    cached = fx._decl_cache.get(decl.id)
    if cached is not None:
        return cached
    out = _declared_vars(fx, decl)
    fx._decl_cache[decl.id] = out
    return out


def _declared_vars(fx: Facts, decl: Node) -> list[Var]:
    type_node = decl.child_by_field_id(sx.F_TYPE)
    ds = decl.children_by_field_id(sx.F_DECLARATOR)
    out = []
    for i, d in enumerate(ds):
        v = var_from_declarator(fx, d, decl, type_node, i, len(ds))
        if v is not None:
            out.append(v)
    return out


def parse_params(fx: Facts, fn: Func) -> None:
    pl = fn.param_list
    if pl is None:
        return
    params = [p for p in named_children(pl) if p.type in ("parameter_declaration", "optional_parameter_declaration")]
    for i, p in enumerate(params):
        d = p.child_by_field_id(sx.F_DECLARATOR)
        if d is None:
            continue
        v = var_from_declarator(fx, d, p, p.child_by_field_id(sx.F_TYPE), i, len(params))
        if v is not None:
            v.is_param = True
            fn.params.append(v)
            fn.vars[v.name] = v
