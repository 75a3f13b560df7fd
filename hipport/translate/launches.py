"""Kernel launches: keep `<<<…>>>` (HIP-Clang accepts it) or emit `hipLaunchKernelGGL`.

The GGL form is produced by editing only the punctuation around the launch's parts, so every
expression inside (grid, block, arguments) keeps its own renames and wave64 fixes.
"""

from __future__ import annotations

import re

from hipport.registry import FixKind
from hipport.source import Node, SourceFile
from hipport.translate.context import Context
from hipport.translate.macros import macro_fragment

_CHEVRON = re.compile(rb"<<<")
# `k << < grid, block >> > (args)`: nvcc reads the spaced chevrons as a launch, clang does not.
_SPACED_OPEN = re.compile(rb"(?<=[\w\]) \t])<<[ \t]+<(?!<)")
_SPACED_CLOSE = re.compile(rb"[^;{}]{1,300}?(>>[ \t]+>)[ \t\r\n]*\(")
_NOT_CODE = frozenset({"comment", "string_literal", "raw_string_literal", "char_literal",
                       "string_content", "system_lib_string"})


def spaced(ctx: Context) -> None:
    """Close up spaced launch chevrons, or under `--launch-syntax ggl` rewrite those launches.

    tree-sitter does not read `<< <` as a launch either, so for GGL the file is parsed again
    with each spaced chevron closed up and padded to its own length: offsets stay those of the
    file, and the launch is rewritten in one port (a second port then has nothing to do).
    """
    data = ctx.src.data
    if b"<< <" not in data and b"<<\t<" not in data:
        return
    found: list[tuple[int, int, int, int]] = []
    for m in _SPACED_OPEN.finditer(data):
        node = ctx.src.node_at(m.start(), m.start() + 1)
        close = _SPACED_CLOSE.match(data, m.end())
        if close is None or node is None or node.type in _NOT_CODE or node.type == "preproc_arg":
            continue
        found.append((m.start(), m.end(), close.start(1), close.end(1)))
    closed = _closed_up(ctx, data, found) if ctx.config.launch_syntax == "ggl" and found else None
    for o0, o1, c0, c1 in found:
        syntax = _launch_at(closed, o0) if closed is not None else None
        if syntax is not None:
            rewrite(ctx, syntax, 0, closed, template_kernels(ctx.src))
        else:
            ctx.edit(o0, o1, "<<<", FixKind.LAUNCH)
            ctx.edit(c0, c1, ">>>", FixKind.LAUNCH)


def _closed_up(ctx: Context, data: bytes, found: list[tuple[int, int, int, int]]) -> SourceFile:
    buf = bytearray(data)
    for o0, o1, c0, c1 in found:
        buf[o0:o1] = b"<<<".ljust(o1 - o0)
        buf[c0:c1] = b">>>".ljust(c1 - c0)
    return SourceFile(ctx.src.path, bytes(buf), closure=ctx.src.closure)


def _launch_at(src: SourceFile, at: int) -> Node | None:
    node = src.node_at(at, at + 3)
    if node is not None and node.type == "<<<" and node.parent is not None \
            and node.parent.type == "kernel_call_syntax":
        return node.parent
    return None


def run(ctx: Context) -> None:
    if ctx.config.launch_syntax != "ggl":
        return
    templates: frozenset[str] | None = None
    for m in _CHEVRON.finditer(ctx.src.data):
        node = ctx.src.node_at(m.start(), m.end())
        if templates is None:
            templates = template_kernels(ctx.src)
        if node is None or node.type != "<<<":
            if node is not None and node.type == "preproc_arg":
                _macro_launch(ctx, node, m.start(), templates)
            continue
        syntax = node.parent
        if syntax is not None and syntax.type == "kernel_call_syntax":
            rewrite(ctx, syntax, 0, None, templates)


_SCOPES = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
                     "namespace_definition", "declaration_list", "linkage_specification"})


def template_kernels(src: SourceFile) -> frozenset[str]:
    """The names of the `__global__` function templates this file declares, so that a launch
    of one with deduced arguments (`k<<<g, b>>>(x)`) is written `HIP_KERNEL_NAME(k)`, HIP's
    spelling for a template kernel (as HIPIFY writes it)."""
    names: set[str] = set()
    stack = [src.root]
    while stack:
        n = stack.pop()
        if n.type == "template_declaration":
            for d in n.named_children:
                if d.type in ("function_definition", "declaration") and b"__global__" in src.data[d.start_byte:d.end_byte]:
                    name = _declared_name(d)
                    if name is not None:
                        names.add(src.text(name))
        elif n.type in _SCOPES:
            stack.extend(n.named_children)
    return frozenset(names)


def _declared_name(d: Node) -> Node | None:
    decl = d.child_by_field_name("declarator")
    while decl is not None and decl.type in ("function_declarator", "pointer_declarator", "reference_declarator"):
        decl = decl.child_by_field_name("declarator")
    return decl if decl is not None and decl.type == "identifier" else None


def rewrite(ctx: Context, syntax: Node, base: int, src: SourceFile | None = None,
            templates: frozenset[str] = frozenset()) -> None:
    """Edits turning `k<<<g, b, s, t>>>(a…)` into `hipLaunchKernelGGL(k, dim3(g), …, a…)`.

    `base` shifts offsets when the launch was parsed from a macro body on its own. The launch
    parts are written `, `-separated, without the blanks around them (`<<<1, n >>>`).
    """
    call = syntax.parent
    if call is None or call.type != "call_expression":
        return
    fn = call.child_by_field_name("function")
    arglist = call.child_by_field_name("arguments")
    if fn is None or arglist is None:
        return
    src = src or ctx.src
    parts = [c for c in syntax.named_children if c.type != "comment"]
    if len(parts) < 2:
        return
    seps = [c for c in syntax.children if c.type == ","]
    open_ = syntax.children[0]
    close = syntax.children[-1]
    template = fn.type == "template_function" or (
        fn.type == "qualified_identifier" and "<" in src.text(fn)) or (
        fn.type == "identifier" and src.text(fn) in templates)
    add = ctx.edit
    add(base + fn.start_byte, base + fn.start_byte,
        "hipLaunchKernelGGL(" + ("HIP_KERNEL_NAME(" if template else ""), FixKind.LAUNCH)
    if template:
        add(base + fn.end_byte, base + fn.end_byte, ")", FixKind.LAUNCH)
    # `<<<` (and any space before it) becomes `, dim3(`; a grid or block already written
    # `dim3(...)` is not wrapped again.
    grid, block = (_is_dim3(src, p) for p in parts[:2])
    add(base + fn.end_byte, _skip_blanks(src, open_.end_byte) + base,
        ", " + ("" if grid else "dim3("), FixKind.LAUNCH)
    add(base + _blanks_before(src, seps[0].start_byte), base + _skip_blanks(src, seps[0].end_byte),
        ("" if grid else ")") + ", " + ("" if block else "dim3("), FixKind.LAUNCH)
    shut = "" if block else ")"
    closing = base + _blanks_before(src, close.start_byte)
    if len(parts) == 2:
        add(closing, base + close.end_byte, shut + ", 0, 0", FixKind.LAUNCH)
    elif len(parts) == 3:
        add(base + _blanks_before(src, seps[1].start_byte), base + _skip_blanks(src, seps[1].end_byte),
            shut + ", ", FixKind.LAUNCH)
        add(closing, base + close.end_byte, ", 0", FixKind.LAUNCH)
    else:
        add(base + _blanks_before(src, seps[1].start_byte), base + _skip_blanks(src, seps[1].end_byte),
            shut + ", ", FixKind.LAUNCH)
        if len(seps) > 2:
            add(base + _blanks_before(src, seps[2].start_byte), base + _skip_blanks(src, seps[2].end_byte),
                ", ", FixKind.LAUNCH)
        add(closing, base + close.end_byte, "", FixKind.LAUNCH)
    # `(args…)`: the parenthesis opens nothing now; `()` closes the GGL call.
    lpar = arglist.children[0]
    has_args = any(c.type not in ("(", ")") for c in arglist.children)
    line_end = src.data[lpar.end_byte:lpar.end_byte + 1] in (b"\n", b"\r")
    sep = ("," if line_end else ", ") if has_args else ""
    rpar = arglist.children[-1]
    # `k<<<g, b>>> ( )`: the blanks of an empty argument list go with it.
    end = rpar.start_byte if not has_args and rpar.type == ")" else lpar.end_byte
    add(base + close.end_byte, base + end, sep, FixKind.LAUNCH)


def _is_dim3(src: SourceFile, part: Node) -> bool:
    """Is this launch part a `dim3(...)` construction already?"""
    if part.type != "call_expression":
        return False
    fn = part.child_by_field_name("function")
    return fn is not None and src.text(fn) == "dim3"


def _blanks_before(src: SourceFile, at: int) -> int:
    """Back over the spaces and tabs before `at` (not newlines, not a comment), unless they
    indent a line of their own."""
    data = src.data
    start = at
    while at > 0 and data[at - 1] in b" \t":
        at -= 1
    return start if at > 0 and data[at - 1] in b"\r\n" else at


def _skip_blanks(src: SourceFile, at: int) -> int:
    """Past spaces and tabs (not newlines) so `dim3(` hugs its argument."""
    data = src.data
    while at < len(data) and data[at] in b" \t":
        at += 1
    return at


def _macro_launch(ctx: Context, arg: Node, at: int, templates: frozenset[str]) -> None:
    """A launch inside a `#define` body: parse the body alone and rewrite it the same way."""
    frag, shift = macro_fragment(ctx.src, arg)
    rel = at - arg.start_byte - shift
    node = frag.root.descendant_for_byte_range(rel, rel + 3)
    if node is not None and node.type == "<<<" and node.parent is not None \
            and node.parent.type == "kernel_call_syntax":
        rewrite(ctx, node.parent, arg.start_byte + shift, frag, templates)
