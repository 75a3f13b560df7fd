"""Preprocessor branches: the byte ranges AMD never compiles (`inactive`) and those only AMD
compiles (`amd_only`), from every #if / #ifdef chain of the file (classified by
`platform.classify_chain`), and the #if conditions themselves (`preproc_conds`)."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import platform
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts


def preproc_branch(fx: Facts, node: Node) -> None:
    """Classify every branch of the chain that starts at `node` (an #if / #ifdef / #ifndef; its
    #elif / #else are reached through it): see `platform.classify_chain`."""
    t = node.type
    if t not in ("preproc_if", "preproc_ifdef"):
        for c in (node.child_by_field_id(sx.F_CONDITION), node.child_by_field_id(sx.F_NAME)):
            if c is not None and t != "preproc_else":
                fx.preproc_conds.append(c)
        return
    branches: list[tuple[str | None, int, Node]] = []  # (condition as #if text, body start, node)
    n: Node | None = node
    while n is not None:
        if n.type in ("preproc_ifdef", "preproc_elifdef"):
            name = n.child_by_field_id(sx.F_NAME)
            if name is None:
                return
            if n is node:
                fx.preproc_conds.append(name)
            neg = fx.data[n.start_byte:name.start_byte].rstrip().endswith((b"ifndef", b"elifndef"))
            text = ("!" if neg else "") + f"defined({fx.src.text(name)})"
            branches.append((text, name.end_byte, n))
        elif n.type in ("preproc_if", "preproc_elif"):
            cond = n.child_by_field_id(sx.F_CONDITION)
            if cond is None:
                return
            if n is node:
                fx.preproc_conds.append(cond)
            branches.append((fx.src.text(cond), cond.end_byte, n))
        elif n.type == "preproc_else":
            branches.append((None, n.start_byte + 5, n))
        else:
            break
        n = n.child_by_field_id(sx.F_ALTERNATIVE)
    classes = platform.classify_chain([b[0] for b in branches], fx.project_platform())
    for i, ((_c, start, bnode), cls) in enumerate(zip(branches, classes, strict=True)):
        if cls is None:
            continue
        end = branches[i + 1][2].start_byte if i + 1 < len(branches) else bnode.end_byte
        if cls == "inactive":
            _add_range(fx.inactive, fx._inactive_starts, (start, end))
        else:
            _add_range(fx.amd_only, fx._amd_starts, (start, end))


def scan_bodies(fx: Facts) -> None:
    """The #if chains inside function bodies (those of the top level come with `functions.scan_top`)."""
    for fn in fx.funcs:
        body_branches(fx, fn)


_CHAINS = ("preproc_if", "preproc_ifdef")


def body_branches(fx: Facts, fn: Func) -> None:
    """#if chains inside a function body (the top-level scan does not enter bodies)."""
    body = fn.body
    if body is None or fx.data.find(b"#if", body.start_byte, body.end_byte) < 0:
        return
    if body.end_byte - body.start_byte < sx.QUERY_BYTES:  # (the order of the chains does not matter)
        for c in sx.captured(body, _CHAINS):
            preproc_branch(fx, c)
        return
    stack = [body]
    while stack:
        n = stack.pop()
        for c in n.children:
            if c.type in ("preproc_if", "preproc_ifdef"):
                preproc_branch(fx, c)
            if c.child_count:
                stack.append(c)


def _add_range(ranges: list[tuple[int, int]], starts: list[int], r: tuple[int, int]) -> None:
    """Keep `ranges` disjoint: preprocessor branches nest, so a range inside one already kept
    adds nothing and one around kept ranges replaces them."""
    i = bisect.bisect_right(starts, r[0])
    if i and ranges[i - 1][0] <= r[0] and r[1] <= ranges[i - 1][1]:
        return
    j = i
    while j < len(ranges) and ranges[j][0] < r[1]:
        j += 1
    del ranges[i:j]
    del starts[i:j]
    starts.insert(i, r[0])
    ranges.insert(i, r)


def is_inactive(fx: Facts, pos: int) -> bool:
    """True inside a preprocessor branch that AMD never compiles."""
    i = bisect.bisect_right(fx._inactive_starts, pos)
    return bool(i) and fx.inactive[i - 1][0] <= pos < fx.inactive[i - 1][1]


def is_amd_only(fx: Facts, pos: int) -> bool:
    """True inside a branch written for AMD (see `platform`), AMD compiles."""
    i = bisect.bisect_right(fx._amd_starts, pos)
    return bool(i) and fx.amd_only[i - 1][0] <= pos < fx.amd_only[i - 1][1] and not (
        fx.inactive and fx.is_inactive(pos))
