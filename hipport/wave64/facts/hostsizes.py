"""Launch sizes that host code computes from a 32-lane warp (`Facts.host_counts`,
`Facts.host_blocks`): in a host function that launches kernels (`<<<`, a launch call or macro),
a warp count by a warp-size constant (`(n + WARP_SIZE - 1) / WARP_SIZE`, `ceil_div(n,
WARP_SIZE)`) and a block rounded to whole 32-thread warps (`warps * WARP_SIZE`,
`ceil_div(n, WARP_SIZE) * WARP_SIZE`). Host functions are not analysed otherwise (their
bodies hold no warp operation), so this walks their bodies once, only where a warp-size
constant is named."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport.source import Node, walk
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func
from hipport.wave64.facts.names import is_warp_name

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_LAUNCHES = re.compile(rb"<<<|hipLaunchKernel|cudaLaunchKernel|[Ll]aunch[A-Z_(]|LAUNCH|add_kernel_node")
_CEIL_DIV = re.compile(r"(?i)^(?:ceil_?div|div_?(?:round_?)?up|cdiv|ceil_?divide)$")


def scan(fx: Facts) -> None:
    for fn in fx.funcs:
        if fn.space != "host" or fn.body is None:
            continue
        if _LAUNCHES.search(fx.data, fn.body.start_byte, fn.body.end_byte) is None:
            continue
        if any(_warp_const(fx, fn, n) for n in _names_in(fx, fn)):
            _scan_host(fx, fn)
        if _BLOCK_32.search(fx.data, fn.body.start_byte, fn.body.end_byte):
            _literal_blocks(fx, fn)


# `num_threads = std::max(128, 32 * num_ranks)`: a thread count made of 32-thread warps
_BLOCK_32 = re.compile(rb"\b(?:n_?threads|num_?threads|threads|block_?size|block_?dim)\s*=[^;]*\b32\s*\*", re.I)
_BLOCK_NAME = re.compile(r"(?i)^(?:n_?threads|num_?threads|threads|block_?size|block_?dim)$")


def _literal_blocks(fx: Facts, fn: Func) -> None:
    """A variable named as the block's thread count set to `32 * n` (inside max / min too):
    one 32-thread warp per unit of n, a literal the warp-size constants above do not name."""
    assert fn.body is not None
    for n in walk(fn.body):
        if n.type == "init_declarator":
            target, value = n.child_by_field_id(sx.F_DECLARATOR), n.child_by_field_id(sx.F_VALUE)
        elif n.type == "assignment_expression":
            target, value = n.child_by_field_id(sx.F_LEFT), n.child_by_field_id(sx.F_RIGHT)
        else:
            continue
        if target is None or value is None or target.type != "identifier" or \
                not _BLOCK_NAME.match(fx.src.text(target)):
            continue
        for b in walk(value):
            if b.type == "binary_expression" and fx.binop(b)[0] == "*":
                _op, left, right = fx.binop(b)
                lit = next((x for x in (left, right) if x is not None and x.type == "number_literal"
                            and fx.src.text(x) == "32"), None)
                if lit is not None:
                    fx.host_blocks.append((b, lit, fn))
                    break


_IDENT = re.compile(rb"\b[A-Za-z_]\w*\b")


def _names_in(fx: Facts, fn: Func) -> set[str]:
    """The warp-size-shaped names of a host body (each distinct word tested once)."""
    assert fn.body is not None
    words = set(_IDENT.findall(fx.data[fn.body.start_byte:fn.body.end_byte]))
    return {name for w in words if is_warp_name(name := w.decode())}


def _warp_const(fx: Facts, fn: Func, name: str) -> bool:
    """A named warp size of 32 (this file's, a header's, or shaped like one)."""
    return is_warp_name(name) and (fx.const_value(name) == 32 or (
        fx.const_value(name) is None and name not in fx.macros and fx.external_const(name, fn)))


def _is_ws(fx: Facts, fn: Func, node: Node | None) -> bool:
    n = sx.unparen(node) if node is not None else None
    return n is not None and n.type == "identifier" and _warp_const(fx, fn, fx.src.text(n))


def _count(fx: Facts, fn: Func, node: Node) -> bool:
    """`x / WARP_SIZE` or `ceil_div(x, WARP_SIZE)`: a count of 32-lane warps."""
    n = sx.unparen(node)
    if n.type == "binary_expression":
        op, _left, right = fx.binop(n)
        return op == "/" and _is_ws(fx, fn, right)
    if n.type == "call_expression" and _CEIL_DIV.match(fx.call_name(n)):
        args = sx.call_args(n)
        return len(args) == 2 and _is_ws(fx, fn, args[1])
    return False


def _scan_host(fx: Facts, fn: Func) -> None:
    assert fn.body is not None
    nodes = list(walk(fn.body))
    counts = [n for n in nodes if n.type in ("binary_expression", "call_expression") and _count(fx, fn, n)]
    if not counts:
        return
    # variables holding a warp count: `int warps = (n + WARP_SIZE - 1) / WARP_SIZE;`
    holders: set[str] = set()
    for c in counts:
        for p in fx.src.ancestors(c):
            if p.type == "init_declarator":
                d = p.child_by_field_id(sx.F_DECLARATOR)
                if d is not None and d.type == "identifier":
                    holders.add(fx.src.text(d))
                break
            if p.type == "assignment_expression":
                left = p.child_by_field_id(sx.F_LEFT)
                if left is not None and left.type == "identifier":
                    holders.add(fx.src.text(left))
                break
            if p.type in ("expression_statement", "declaration", "compound_statement", "return_statement"):
                break
    in_block: set[int] = set()
    for b in nodes:
        if b.type != "binary_expression" or fx.binop(b)[0] != "*":
            continue
        _op, left, right = fx.binop(b)
        for ws, other in ((right, left), (left, right)):
            if ws is None or other is None or not _is_ws(fx, fn, ws):
                continue
            o = sx.unparen(other)
            if _count(fx, fn, o):
                in_block.add(o.id)
            elif not (o.type == "identifier" and fx.src.text(o) in holders):
                continue
            fx.host_blocks.append((b, ws, fn))
            break
    for c in counts:
        if c.id not in in_block:
            fx.host_counts.append((c, fn))
