"""Function bodies: the nodes of each analysed function by type (one query over its body),
its parameters and local variables, and the warp-size constants declared inside it."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import tree_sitter

from hipport.source import Node, language
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import consts, decls
from hipport.wave64.facts.data import Func, Var

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_START = operator.attrgetter("start_byte")
_COLLECT = frozenset({
    "call_expression", "binary_expression", "declaration", "assignment_expression", "for_statement",
    "while_statement", "do_statement", "gnu_asm_expression", "subscript_expression",
    "return_statement", "template_function", "template_type", "enumerator",
})
_COLLECT_QUERY: tree_sitter.Query | None = None


def _collect_query() -> tree_sitter.Query:
    global _COLLECT_QUERY
    if _COLLECT_QUERY is None:
        # one pattern with alternatives: a fifth faster to run than one pattern per type
        _COLLECT_QUERY = tree_sitter.Query(language(), "[" + " ".join(f"({t}) @{t}" for t in sorted(_COLLECT)) + "]")
    return _COLLECT_QUERY


def scan(fx: Facts) -> None:
    for fn in fx.funcs:
        scan_func(fx, fn)


def scan_func(fx: Facts, fn: Func) -> None:
    body = fn.body
    if body is None:
        return
    if not fn.quick:
        return
    nodes: dict[str, list[Node]] = tree_sitter.QueryCursor(_collect_query()).captures(body)
    for lst in nodes.values():
        lst.sort(key=_START)
    decls.parse_params(fx, fn)
    decl = fn.node.child_by_field_id(sx.F_DECLARATOR)
    if decl is not None and b"<" in fx.data[decl.start_byte:decl.end_byte]:
        stack = [decl]
        while stack:
            n = stack.pop()
            if n.type in ("template_type", "template_function"):
                nodes.setdefault(n.type, []).append(n)
            stack.extend(n.children)
    if fx.inactive:
        for k, lst in nodes.items():
            nodes[k] = [n for n in lst if not fx.is_inactive(n.start_byte)]
    fn.nodes = nodes
    for d in nodes.get("declaration", []):
        for v in fx.declared_vars(d):
            fn.vars[v.name] = v
    _misparsed_declarations(fx, fn)
    for e in nodes.get("enumerator", []):
        parent = e.parent.parent if e.parent is not None else None
        if parent is not None and parent.type == "enum_specifier":
            consts.consts_in_decl(fx, parent, fn)
    find = fx.data.find
    for d in nodes.get("declaration", []):
        start, end = d.start_byte, d.end_byte
        if (find(b"32", start, end) >= 0 or find(b"64", start, end) >= 0) and find(b"const", start, end) >= 0:
            consts.consts_in_decl(fx, d, fn)


def _misparsed_declarations(fx: Facts, fn: Func) -> None:
    """tree-sitter-cuda sometimes reads `ns::tile_t<32> t = f();` as `(ns::tile_t < 32) > (t = f())`.
    Register such a `t` as a variable and the `tile_t < 32` part as a template use."""
    binop = fx.binop
    data = fx.data
    for b in fn.nodes.get("binary_expression", []):
        raw = data[b.start_byte:b.end_byte]
        if b"<" not in raw or b"=" not in raw:  # cheaper than the three field lookups of binop
            continue
        op, left, right = binop(b)
        if op != ">" or left is None or right is None:
            continue
        if left.type != "binary_expression" or right.type != "assignment_expression":
            continue
        lop = left.child_by_field_id(sx.F_OPERATOR)
        tname = left.child_by_field_id(sx.F_LEFT)
        target = right.child_by_field_id(sx.F_LEFT)
        if lop is None or lop.type != "<" or tname is None or target is None or target.type != "identifier":
            continue
        if tname.type not in ("identifier", "qualified_identifier") or b.parent is None or \
                b.parent.type != "expression_statement":
            continue
        fn.nodes.setdefault("pseudo_template", []).append(left)
        name = fx.src.text(target)
        fn.vars.setdefault(name, Var(name=name, decl=b.parent, type_node=left, declarator=right, bits=None,
                                     value=right.child_by_field_id(sx.F_RIGHT)))
