"""Overloads that the renaming makes identical: `f(cudaError_t)` and `f(CUresult)` both become
`f(hipError_t)`, a redefinition under HIP.

Each definition of such a set is kept under one guard (`#ifndef HIPPORT_ONCE_f_<key>`), so
whichever the preprocessor reaches first is the function and the others drop out, whatever
`#if` branches surround them; every dropped body is reported with the one it yields to.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from hashlib import blake2b

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.includes import _line_end

_WORD = re.compile(r"[A-Za-z_]\w*")
# Containers that definitions are found in (a branch of #if, a namespace, extern "C").
_CONTAINERS = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else",
                         "preproc_elif", "preproc_elifdef", "namespace_definition",
                         "linkage_specification", "declaration_list"})


def run(ctx: Context) -> None:
    groups: dict[tuple[str, str], list[tuple[Node, str]]] = defaultdict(list)
    for fn, scope in _definitions(ctx.src.root, ""):
        sig = _signature(ctx, fn)
        if sig is None:
            continue
        name, params = sig
        ported = _ported(ctx, params)
        groups[(scope + name, ported)].append((fn, params))
    for (name, ported), defs in groups.items():
        if len(defs) < 2 or len({p for _, p in defs}) < 2:
            continue  # one definition, or the same one in several #if branches as written
        _guard(ctx, name, ported, defs)


def _definitions(root: Node, scope: str) -> Iterator[tuple[Node, str]]:
    """Every function definition in `root`'s containers, in file order, with its namespace
    scope. A stack, not recursion: thousands of nested #if stay within Python's limit."""
    stack = [(iter(root.named_children), scope)]
    while stack:
        children, scope = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            continue
        t = child.type
        if t == "function_definition":
            yield child, scope
        elif t == "template_declaration":
            inner = next((c for c in child.named_children if c.type == "function_definition"), None)
            if inner is not None:
                yield inner, scope
        elif t in _CONTAINERS:
            sub = scope
            if t == "namespace_definition":
                nm = child.child_by_field_name("name")
                sub = scope + (nm.text.decode() if nm is not None and nm.text else "") + "::"
            stack.append((iter(child.named_children), sub))


def _signature(ctx: Context, fn: Node) -> tuple[str, str] | None:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type in ("pointer_declarator", "reference_declarator"):
        decl = decl.child_by_field_name("declarator")
    if decl is None or decl.type != "function_declarator":
        return None
    name = decl.child_by_field_name("declarator")
    params = decl.child_by_field_name("parameters")
    if name is None or params is None:
        return None
    parts = []
    for p in params.named_children:
        if p.type == "comment":
            continue
        text = ctx.src.text(p)
        pname = _param_name(p)
        if pname is not None:  # the parameter's name is not part of the signature
            s, e = pname.start_byte - p.start_byte, pname.end_byte - p.start_byte
            text = text[:s] + text[e:]
        parts.append(" ".join(text.split()))
    return ctx.src.text(name), ",".join(parts)


def _param_name(p: Node) -> Node | None:
    d = p.child_by_field_name("declarator")
    while d is not None and d.type != "identifier":
        d = d.child_by_field_name("declarator")
    return d


def _ported(ctx: Context, params: str) -> str:
    names = ctx.rules.names
    return _WORD.sub(lambda m: (names[m[0]].hip or m[0]) if m[0] in names else m[0], params)


def _guard(ctx: Context, name: str, ported: str, defs: list[tuple[Node, str]]) -> None:
    key = blake2b(ported.encode(), digest_size=4).hexdigest()
    macro = "HIPPORT_ONCE_" + re.sub(r"\W", "_", name) + "_" + key
    nl = ctx.src.newline
    data = ctx.src.data
    first = defs[0][0]
    for i, (fn, params) in enumerate(defs):
        node = fn.parent if fn.parent is not None and fn.parent.type == "template_declaration" else fn
        start = data.rfind(b"\n", 0, node.start_byte) + 1
        if data[start:node.start_byte].strip():
            return  # the definition shares its line with other code: leave the set as it is
        end = _line_end(data, node.end_byte)
        tail = "" if end > node.end_byte or end == 0 or data[end - 1:end] == b"\n" else nl
        ctx.edit(start, start, f"#ifndef {macro}{nl}#define {macro}{nl}", FixKind.RENAME)
        ctx.edit(end, end, f"{tail}#endif{nl}", FixKind.RENAME)
        if i:
            ctx.report(HP.WRITTEN_FOR_HIP, Severity.WARNING, fn.start_byte, fn.start_byte + 1,
                       f"{name}({params}) and the overload at line "
                       f"{ctx.src.span(first.start_byte, first.start_byte).line} are both "
                       f"{name}({ported}) under HIP: each is kept under {macro}, so the first "
                       f"one compiled is the function and this body may be dropped; check that "
                       f"either body serves both")
