"""Rename CUDA identifiers, namespaces and qualified names by span; count every reference.

Candidates come from one scan of the bytes for table names; the tree then says what each one
is, so names inside strings and comments are never touched.
"""

from __future__ import annotations

import re
from functools import cache

from hipport.model import FamilyCount, Severity
from hipport.registry import HP, FixKind
from hipport.rules import Mapping, RuleSet
from hipport.rules.targets import amd_only
from hipport.source import Node
from hipport.translate import args as argrewrite
from hipport.translate import overrides, solver, versions
from hipport.translate.context import Context
from hipport.translate.lexer import code_ranges
from hipport.translate.macros import macro_fragment
from hipport.translate.scan import NameScanner

# Names that look like CUDA APIs: reported as unknown when no table has them.
GENERIC = [r"cuda[A-Z]\w*", r"make_cuda[A-Z]\w*", r"cu(?:blas|sparse|solver|rand|fft|dnn)[A-Z]\w*", r"cu[A-Z][a-z]\w*",
           r"CU(?:DA)?_[A-Z]\w*", r"CU(?:BLAS|SPARSE|SOLVER|RAND|FFT|DNN)_\w*", r"nvrtc[A-Z]\w*",
           r"nccl[A-Z]\w*", r"nvtx[A-Z]\w*"]
_GENERIC = re.compile("|".join(GENERIC))
SKIP_TYPES = frozenset({"string_content", "string_literal", "raw_string_literal",
                        "raw_string_content", "char_literal", "comment", "system_lib_string",
                        "escape_sequence", "number_literal"})


@cache
def scanner(rules: RuleSet) -> NameScanner:
    first_segments = {k.split("::")[0] for k in rules.qualified}
    return NameScanner.build([*rules.names, *rules.namespaces, *first_segments], GENERIC)



def run(ctx: Context) -> None:
    src = ctx.src
    data = src.data
    scan = scanner(ctx.rules)
    macro_done: set[int] = set()
    hits = scan.find(data)
    mentioned = {name for _, _, name in hits}
    solver.prepare(ctx, mentioned)
    overrides.prepare(ctx, mentioned)
    for start, end, name in hits:
        node = src.node_at(start, end)  # in file order: from the last one, not from the root
        if node is None:
            continue
        kind = node.type  # read once: each read builds a new str
        if kind in SKIP_TYPES:
            continue
        if kind == "field_identifier":
            _member(ctx, node, name)
            continue
        if kind in ("preproc_arg", "preproc_params"):
            if kind == "preproc_arg" and node.start_byte not in macro_done:
                macro_done.add(node.start_byte)
                _macro_body(ctx, node, scan)
            continue
        if node.start_byte != start or node.end_byte != end:
            continue  # part of a larger token (a literal, an operator name)
        parent = src.parent(node)
        if parent is not None and parent.type == "preproc_params":
            ctx.defines.add(name)  # a macro's parameter (`#define INIT(cuDevice)`): the file's own
            continue
        _identifier(ctx, node, kind, name, start, end)
    if b"namespace" in data:
        _alias_uses(ctx)


def _alias_uses(ctx: Context) -> None:
    """`namespace cg = cooperative_groups;` makes `cg::` a spelling of a library namespace."""
    scoped = _scoped(ctx.rules)
    for alias, target in _aliases(ctx).items():
        if target.split("::")[0] not in scoped:
            continue
        for m in re.finditer(rb"(?<![\w$])" + re.escape(alias.encode()) + rb"\s*::", ctx.src.data):
            node = ctx.src.node_at(m.start(), m.start() + len(alias))
            if node is not None and node.type == "namespace_identifier":
                _qualified(ctx, node)


@cache
def _scoped(rules: RuleSet) -> frozenset[str]:
    """The namespaces that qualified table names and namespace tables start with."""
    return frozenset({k.split("::")[0] for k in rules.qualified} | set(rules.namespaces))


DECLARATOR_WRAPPERS = frozenset({"pointer_declarator", "reference_declarator", "array_declarator",
                                 "init_declarator", "function_declarator", "parenthesized_declarator"})
DECLARATIONS = frozenset({"declaration", "parameter_declaration", "field_declaration",
                          "function_definition", "optional_parameter_declaration", "type_definition"})


def _defines(node: Node) -> bool:
    """Is `node` the name a declaration introduces (not a use of a name)?"""
    parent = node.parent
    if parent is None:
        return False
    t = parent.type
    if t in ("preproc_def", "preproc_function_def", "namespace_definition", "alias_declaration"):
        return parent.child_by_field_name("name") == node
    if t == "enumerator":
        return parent.child_by_field_name("name") == node
    if t in ("type_parameter_declaration", "optional_type_parameter_declaration",
             "variadic_type_parameter_declaration"):
        return node.type == "type_identifier" and parent.child_by_field_name("default_type") != node
    if t in ("struct_specifier", "class_specifier", "enum_specifier", "union_specifier"):
        # `struct cudaDeviceProp p;` uses the type; only a body or `struct X;` defines it.
        if parent.child_by_field_name("name") != node:
            return False
        return parent.child_by_field_name("body") is not None or (
            parent.parent is not None and parent.parent.type == "declaration"
            and parent.parent.child_by_field_name("declarator") is None)
    # Walk up the declarator chain: `T *name[4] = ...` and friends.
    child = node
    while parent is not None and parent.type in DECLARATOR_WRAPPERS:
        if parent.child_by_field_name("declarator") != child:
            return False
        child, parent = parent, parent.parent
    return parent is not None and parent.type in DECLARATIONS \
        and child in parent.children_by_field_name("declarator")


def _identifier(ctx: Context, node: Node, kind: str, name: str, start: int, end: int) -> None:
    """Port the identifier token `node` (of type `kind`), `name` at [start, end)."""
    rules = ctx.rules
    if kind == "namespace_identifier":
        if _qualified(ctx, node):
            return
        ns = rules.namespaces.get(name)
        if ns is not None:
            ctx.count(ns, start, end)
            if ns.hip and ns.hip != name:
                ctx.edit(start, end, ns.hip, FixKind.RENAME)
            return
    # The table test comes before `node.parent`, which tree-sitter finds by walking down from
    # the root.
    if kind == "identifier" and name in rules.namespaces and _parent_type(node) in (
            "using_declaration", "namespace_alias_definition"):
        ns = rules.namespaces[name]  # `using namespace cub;`: the name is a plain identifier
        ctx.count(ns, start, end)
        if ns.hip and ns.hip != name:
            ctx.edit(start, end, ns.hip, FixKind.RENAME)
        return
    m = overrides.lookup(ctx, name) if ctx.overrides else rules.names.get(name)
    if m is not None and m.kind == "field":
        return  # a member name (`prop.deviceOverlap`), not this identifier of the file's own
    if m is None:
        # A table name is ported even where it is declared (below): `#define
        # THRUST_IGNORE_CUB_VERSION_CHECK` is how a configuration macro is used, and error
        # recovery can make a call look declared.
        if _defines(node):
            ctx.defines.add(name)
        elif _GENERIC.fullmatch(name):
            ctx.unknown.append(_unknown(ctx, start, end, name))
        return
    if m.hip and m.hip != name and (m.kind == "type" and _declares_type(node)
                                    or m.kind == "enum" and _parent_type(node) == "enumerator"
                                    and _defines(node)
                                    or m.kind == "function" and _declares_variable(node)):
        # `typedef unsigned long long CUdeviceptr;` (a header for loading the driver
        # dynamically): renamed, it would redefine HIP's type (or enumerator, or a macro HIP
        # defines by that name) as another one. The file's own declaration keeps CUDA's name;
        # its uses get HIP's.
        what = {"type": "type", "enum": "enumerator"}.get(m.kind, "function's name for a variable")
        ctx.defines.add(name)
        _not_on_nvidia(ctx, node)
        ctx.report(HP.DECLARES_CUDA_TYPE, Severity.WARNING, start, end,
                   f"this file declares CUDA's {what} {name} itself; renamed to {m.hip} it would "
                   f"redefine HIP's, so the declaration keeps CUDA's name while the uses become "
                   f"HIP's {m.hip}: drop the declaration, or keep it out of the HIP build (hipport keeps a "
                   f"declaration of its own lines out of HIP's NVIDIA build, where CUDA's comes in)", m.family, name)
        return
    if m.family in rules.namespace_families and m.kind != "macro" \
            and not _after_scope(ctx.src.data, start):
        return  # a bare `BlockReduce` may be the project's own: count only `cub::BlockReduce`
    ctx.count(m, start, end)
    if m.level is not None:
        versions.port(ctx, node, m)
        return
    if m.hip == "":  # a macro HIP does without (CUDART_CB), or a call `args` rewrites
        ctx.edit(start, _blanks_end(ctx.src.data, end) if not m.args else end, "", FixKind.RENAME)
    hip = solver.spelling(ctx, node, m)
    spelled = hip
    # `node.parent` only for types: tree-sitter finds a parent by walking down from the root,
    # which for every identifier of a deep expression is quadratic
    spec = node.parent if hip and m.kind == "type" else None
    if hip and spec is not None and _elaborated(node) and not ctx.src.path.endswith(".c") and not _standalone(spec):
        # `enum cudaMemcpyKind k`: in C++ the keyword goes, since HIP's name may be a typedef
        # (of another tag on AMD, `struct _hipGraphicsResource`; of CUDA's own on HIP's NVIDIA
        # platform, `typedef enum cudaMemcpyKind hipMemcpyKind`), and a typedef names the type
        # on both platforms where no tag does
        ctx.edit(spec.start_byte, end, hip, FixKind.RENAME)
        hip = None
    tag = TYPEDEF_TAGS.get(hip or "")
    if tag is not None and _elaborated(node):
        hip = tag  # `struct cudaGraphicsResource;`, and C: HIP's name is a typedef, not a tag
    if hip and hip != name:
        ctx.edit(start, end, hip, FixKind.RENAME)
    if spelled and spelled in amd_only():  # (HP022; its tag in `struct _hipGraphicsResource` too)
        ctx.report(HP.AMD_ONLY_API, Severity.INFO, start, end,
                   f"{spelled} is declared by HIP's AMD platform only (HIP 5.2's NVIDIA headers lack it): "
                   f"this port builds for AMD, not on HIP's NVIDIA platform", m.family, name)
    if m.args and m.status != "unsupported":
        argrewrite.apply(ctx, node, m)
    if ctx.solver == "calls":
        solver.track(ctx, node, m)


NOT_ON_NVIDIA = "#ifndef __HIP_PLATFORM_NVIDIA__  // hipport: CUDA's headers declare it there"


def _not_on_nvidia(ctx: Context, node: Node) -> None:
    """A file's own top-level declaration of a CUDA name (`typedef struct CUuuid_st {...} CUuuid;`,
    `extern tcuInit *cuInit;` in a header that loads the driver itself) is kept out of HIP's
    NVIDIA build, where HIP's
    headers bring CUDA's own declaration and this one would redefine it. Only a declaration on
    lines of its own is wrapped (once, however many names it declares)."""
    decl: Node | None = node
    while decl is not None and decl.parent is not None and decl.parent.type != "translation_unit":
        decl = decl.parent
    if decl is None or decl.parent is None or decl.type not in ("type_definition", "declaration", "struct_specifier",
                                                                "enum_specifier", "union_specifier"):
        return
    data, nl = ctx.src.data, ctx.src.newline
    start = data.rfind(b"\n", 0, decl.start_byte) + 1
    end = decl.end_byte
    if end < len(data) and data[end:end + 1] == b";":
        end += 1
    line_end = data.find(b"\n", end)
    line_end = len(data) if line_end == -1 else line_end + 1
    if data[start:decl.start_byte].strip() or data[end:line_end].strip():
        return  # shares a line with other code
    before = data[data.rfind(b"\n", 0, max(start - 1, 0)) + 1:start]
    if before.strip().startswith(NOT_ON_NVIDIA.encode()) or any(
            e.start == e.end == line_end and e.rule == FixKind.PORTABLE and e.replacement.endswith("#endif" + nl)
            for e in ctx.edits):
        return  # wrapped already (a second run, or another name of the same declaration)
    close = next((e for e in ctx.edits if e.start == e.end == start and e.rule == FixKind.PORTABLE
                  and e.replacement.endswith("#endif" + nl)), None)
    if close is not None:  # the declaration on the line above was wrapped: one block for both
        ctx.edits.remove(close)
    else:
        ctx.edit(start, start, NOT_ON_NVIDIA + nl, FixKind.PORTABLE)
    ctx.edit(line_end, line_end, ("" if data[line_end - 1:line_end] == b"\n" else nl) + "#endif" + nl, FixKind.PORTABLE)


def _declares_type(node: Node) -> bool:
    """Is `node` the name a typedef introduces, or a struct/union/class/enum tag given a body?"""
    parent = node.parent
    if parent is None:
        return False
    if parent.type in ("struct_specifier", "class_specifier", "enum_specifier", "union_specifier"):
        return parent.child_by_field_name("name") == node and parent.child_by_field_name("body") is not None
    child = node
    while parent is not None and parent.type in DECLARATOR_WRAPPERS:
        if parent.child_by_field_name("declarator") != child:
            return False
        child, parent = parent, parent.parent
    return parent is not None and parent.type == "type_definition" \
        and child in parent.children_by_field_name("declarator")


def _declares_variable(node: Node) -> bool:
    """Is `node` the name of a variable a declaration introduces (`extern tcuInit *cuInit;`,
    a pointer to a function loaded at run time), not of a function?"""
    parent, child = node.parent, node
    while parent is not None and parent.type in DECLARATOR_WRAPPERS:
        if parent.type == "function_declarator" or parent.child_by_field_name("declarator") != child:
            return False
        child, parent = parent, parent.parent
    return parent is not None and parent.type in ("declaration", "field_declaration") \
        and child in parent.children_by_field_name("declarator") and child is not node


# HIP types that HIP 5.2's headers declare as typedefs of a differently named tag, where CUDA's
# name is the tag itself: `struct cudaGraphicsResource` must become `struct _hipGraphicsResource`
# (`struct hipGraphicsResource` names a typedef, an error).
TYPEDEF_TAGS = {
    "hipGraphicsResource": "_hipGraphicsResource",
    "hipIpcMemHandle_t": "hipIpcMemHandle_st",
    "hipIpcEventHandle_t": "hipIpcEventHandle_st",
    "hipUUID": "hipUUID_t",
    "hipExternalMemoryBufferDesc": "hipExternalMemoryBufferDesc_st",
}
_ELABORATED = frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"})


def _elaborated(node: Node) -> bool:
    """Is `node` the name in `struct NAME` (an elaborated type or a forward declaration)?"""
    parent = node.parent
    return parent is not None and parent.type in _ELABORATED \
        and parent.child_by_field_name("name") == node and parent.child_by_field_name("body") is None


def _standalone(spec: Node | None) -> bool:
    """Is the elaborated specifier a declaration of its own (`struct X;`), which needs the tag?"""
    if spec is None:
        return True
    nxt = spec.next_sibling
    if nxt is not None and nxt.type == ";":
        return True
    parent = spec.parent
    return parent is None or parent.type in ("declaration", "field_declaration") \
        and parent.child_by_field_name("declarator") is None


def _blanks_end(data: bytes, at: int) -> int:
    while at < len(data) and data[at] in b" \t":
        at += 1
    return at


def _parent_type(node: Node) -> str | None:
    parent = node.parent
    return None if parent is None else parent.type


def _member(ctx: Context, node: Node, name: str) -> None:
    """`grid.num_blocks()`: a member of a namespaced library type that HIP lacks is reported.

    Such members are not renamed or counted (`.size()` is everyone's), only flagged when
    unsupported or newer than the ROCm floor. Table entries of kind `field` (distinctive
    `cudaDeviceProp` members) are counted and renamed.
    """
    m = ctx.rules.names.get(name)
    if m is not None and m.kind == "field" and m.value is not None and ctx.floor.lacks(m.since):
        if _field_value(ctx, node, m):
            return
    if m is not None and m.kind == "field":  # a struct member HIP lacks or names differently
        ctx.count(m, node.start_byte, node.end_byte)
        if m.hip and m.hip != name and m.status != "unsupported":
            ctx.edit(node.start_byte, node.end_byte, m.hip, FixKind.RENAME)
        return
    if m is None or m.family not in ctx.rules.namespace_families or m.kind == "macro":
        return
    if m.status == "unsupported" or ctx.floor.lacks(m.since):
        ctx.count(m, node.start_byte, node.end_byte)


def _field_value(ctx: Context, node: Node, m: Mapping) -> bool:
    """`prop.deviceOverlap` read below the floor that adds the member: written as the value every
    AMD GPU reports. A write, an address taken or a call in the object is left to HP003."""
    expr = node.parent
    if expr is None or expr.type != "field_expression" or expr.child_by_field_name("field") != node:
        return False
    obj = expr.child_by_field_name("argument")
    if obj is None or re.search(rb"[()]", ctx.src.data[obj.start_byte:obj.end_byte]):
        return False  # evaluating the object may matter (a call): keep it and say so
    up = expr.parent
    while up is not None and up.type == "parenthesized_expression":
        up = up.parent
    if up is not None and up.type in ("update_expression", "pointer_expression"):
        return False  # `prop.x++`, `&prop.x`
    left = up.child_by_field_name("left") if up is not None and up.type == "assignment_expression" else None
    if left is not None and left.start_byte <= expr.start_byte and expr.end_byte <= left.end_byte:
        return False  # `prop.x = 1`
    if ctx.hip and ctx.hip.covers(expr.start_byte, expr.end_byte):
        return True
    c = ctx.families.setdefault(m.family, FamilyCount())
    c.found += 1
    c.ported += 1
    ctx.edit(expr.start_byte, expr.end_byte, m.value or "", FixKind.RENAME)
    ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, expr.start_byte, expr.end_byte,
               f"hipDeviceProp_t has {m.cuda} from ROCm {m.since}; at the {ctx.floor} floor its "
               f"read is written as {m.value}, what every AMD GPU reports ({m.note})", m.family, m.cuda)
    return True


def _after_scope(data: bytes, start: int) -> bool:
    i = start
    while i > 0 and data[i - 1] in b" \t":
        i -= 1
    return data[i - 2:i] == b"::"


def _qualified(ctx: Context, node: Node) -> bool:
    """Match `thrust::cuda::par`-style keys against the qualified name starting at `node`."""
    parent = node.parent
    if parent is None or parent.type != "qualified_identifier":
        return False
    text = ctx.src.data[node.start_byte:parent.end_byte].decode("utf-8", "replace")
    compact = text.replace(" ", "")
    alias = ctx.src.text(node)
    target = _aliases(ctx).get(alias)
    if target is not None:  # `namespace cg = cooperative_groups;` then `cg::reduce`
        return _qualified_alias(ctx, node, compact, alias, target)
    best = _longest_key(ctx.rules, compact)
    if best is None or " " in text[:len(best.cuda) + 4]:
        return False
    end = node.start_byte + len(best.cuda)
    ctx.count(best, node.start_byte, end)
    if best.hip and best.hip != best.cuda:
        ctx.edit(node.start_byte, end, best.hip, FixKind.RENAME)
    if best.args and best.status != "unsupported":  # `thrust::reduce(..., v.front())`
        argrewrite.apply(ctx, node, best)
    return True


@cache
def _key_lengths(rules: RuleSet) -> tuple[int, ...]:
    return tuple(sorted({len(k) for k in rules.qualified}, reverse=True))


def _longest_key(rules: RuleSet, compact: str) -> Mapping | None:
    """The longest qualified key that `compact` starts with, ending at a word boundary.

    Looked up by length (a few dozen) rather than by trying every key.
    """
    size = len(compact)
    for n in _key_lengths(rules):
        if n > size or n < size and (compact[n].isalnum() or compact[n] == "_"):
            continue  # a key needs all n characters, then the end or a non-word character
        m = rules.qualified.get(compact[:n])
        if m is not None:
            return m
    return None


# `namespace` then `\b` before it, checked by the look-behind: a literal start is searched fast.
_ALIAS = re.compile(rb"namespace(?<!\wnamespace)\s+(\w+)\s*=\s*((?:::)?\w+(?:\s*::\s*\w+)*)\s*;")


def _aliases(ctx: Context) -> dict[str, str]:
    if ctx.aliases is None:
        ctx.aliases = {m.group(1).decode(): re.sub(rb"\s", b"", m.group(2)).decode().lstrip(":")
                       for m in _ALIAS.finditer(ctx.src.data)}
    return ctx.aliases


def _qualified_alias(ctx: Context, node: Node, compact: str, alias: str, target: str) -> bool:
    full = target + compact[len(alias):]
    for key, m in ctx.rules.qualified.items():
        if full == key or full.startswith(key) and not (full[len(key)].isalnum() or full[len(key)] == "_"):
            end = node.start_byte + len(alias) + len(key) - len(target)
            ctx.count(m, node.start_byte, end)
            if m.hip and m.hip != key and m.hip.startswith(target + "::"):
                ctx.edit(node.start_byte, end, alias + m.hip[len(target):], FixKind.RENAME)
            return True
    return False


def _unknown(ctx: Context, start: int, end: int, name: str):  # -> Finding
    from hipport.model import Finding

    return Finding(HP.UNKNOWN_CUDA_NAME, Severity.WARNING, ctx.src.span(start, end),
                   f"{name} looks like a CUDA API but no mapping table knows it; port it by hand "
                   f"or add it to rules/api/", family="unknown", subject=name)


def _macro_body(ctx: Context, arg: Node, scan: NameScanner) -> None:
    """Port a `#define` body token by token (the tree does not parse macro bodies)."""
    base = arg.start_byte
    body = ctx.src.data[base:arg.end_byte]
    hits = scan.find(body)
    tokens = dict(code_ranges(body, until=hits[-1][0] + 1)) if hits else {}
    parent = arg.parent
    if parent is not None and parent.type in ("preproc_def", "preproc_function_def"):
        defined = parent.child_by_field_name("name")
        if defined is not None:
            ctx.defines.add(ctx.src.text(defined))
    for s, e, name in hits:
        if tokens.get(s) != e:
            continue
        mp = overrides.lookup(ctx, name) or ctx.rules.namespaces.get(name)
        if mp is None:
            if _GENERIC.fullmatch(name):
                ctx.unknown.append(_unknown(ctx, base + s, base + e, name))
            continue
        if mp.family in ctx.rules.namespace_families and mp.kind != "namespace" \
                and not _after_scope(body, s):
            continue
        ctx.count(mp, base + s, base + e)
        if mp.level is not None:  # a value in a macro body, as in versions.port
            ctx.edit(base + s, base + e, mp.hip or name, FixKind.RENAME)
            ctx.report(HP.UNSUPPORTED_API, Severity.WARNING, base + s, base + e,
                       f"{name} -> {mp.hip}, which numbers HIP releases, not CUDA ones: check "
                       f"what this value is compared with or shown as", mp.family)
            continue
        if mp.hip == "":
            ctx.edit(base + s, base + (_blanks_end(body, e) if not mp.args else e), "", FixKind.RENAME)
        hip = solver.spelling(ctx, None, mp)
        if hip and hip != name:
            ctx.edit(base + s, base + e, hip, FixKind.RENAME)
        if mp.args and mp.status != "unsupported":
            frag, shift = macro_fragment(ctx.src, arg)
            node = frag.root.descendant_for_byte_range(s - shift, e - shift)
            if node is not None and node.type == "identifier":
                argrewrite.apply(ctx, node, mp, frag, base + shift)
