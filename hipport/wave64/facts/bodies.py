"""Function bodies: the nodes of each analysed function by type (one query over its body),
its parameters and local variables, and the warp-size constants declared inside it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.source import Node, walk
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import consts, decls
from hipport.wave64.facts.data import Func, Var

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_COLLECT = frozenset({
    "call_expression", "binary_expression", "declaration", "assignment_expression", "for_statement",
    "while_statement", "do_statement", "gnu_asm_expression", "subscript_expression",
    "return_statement", "template_function", "template_type", "enumerator",
})


_TYPES = tuple(sorted(_COLLECT))


def _collect(body: Node) -> dict[str, list[Node]]:
    """The nodes of `body` of the types in _COLLECT, by type, each list in document order.

    A tree-sitter query (C, a fifth faster than walking every node in Python); its captures
    come as matches end (inner nodes first), and sorting by (start, -end) gives document order:
    a node of a type never holds one of the same type and span. A deeper body is walked."""
    if body.end_byte - body.start_byte < sx.QUERY_BYTES:
        found = sx.captured(body, _TYPES)
        if not found:
            return {}
        by: dict[str, list[Node]] = {}
        for n in found:
            t = n.type
            lst = by.get(t)
            if lst is None:
                by[t] = [n]
            else:
                lst.append(n)
        for lst in by.values():
            if len(lst) > 1:
                lst.sort(key=_order)
        return by
    nodes: dict[str, list[Node]] = {}
    for n in walk(body):
        t = n.type
        if t in _COLLECT:
            lst = nodes.get(t)
            if lst is None:
                nodes[t] = [n]
            else:
                lst.append(n)
    return nodes


def _order(n: Node) -> tuple[int, int]:
    return n.start_byte, -n.end_byte


def scan(fx: Facts) -> None:
    for fn in fx.funcs:
        scan_func(fx, fn)


def scan_func(fx: Facts, fn: Func) -> None:
    body = fn.body
    if body is None:
        return
    if not fn.quick:
        return
    nodes = _collect(body)
    for c in fn.node.children:  # a constructor's `: tid(tid), wid(tid % 32)` runs before its body
        if c.type == "field_initializer_list":
            for k, lst in _collect(c).items():
                nodes[k] = lst + nodes.get(k, [])
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
        if find(b"const", start, end) >= 0:  # (a literal 32 or 64, or an alias of a warp-size constant)
            consts.consts_in_decl(fx, d, fn)


def _misparsed_declarations(fx: Facts, fn: Func) -> None:
    """tree-sitter-cuda sometimes reads `ns::tile_t<32> t = f();` as `(ns::tile_t < 32) > (t = f())`.
    Register such a `t` as a variable and the `tile_t < 32` part as a template use."""
    binop = fx.binop
    for b in fn.nodes.get("binary_expression", []):
        # The right side first: one field lookup, where reading the text (for `<` and `=`)
        # costs the length of the expression, and the left side of a sum of n terms holds n - 1.
        right = b.child_by_field_id(sx.F_RIGHT)
        if right is None or right.type != "assignment_expression":
            continue
        op, left, right = binop(b)
        if op != ">" or left is None or right is None:
            continue
        if left.type != "binary_expression":
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
