"""Rewrite `#include` lines through the header map and add the HIP includes a file needs: the
runtime, and the headers that declare names CUDA's own headers declare unasked."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from itertools import islice

from hipport import closure, directives
from hipport.model import FamilyCount, Severity
from hipport.registry import HP, FixKind
from hipport.source import Node, SourceFile
from hipport.translate.context import Context

# Searched from the `#` (a fast literal search) rather than from `^`; `_include_lines` checks
# that only blanks precede it on its line.
INCLUDE = re.compile(rb"#[ \t]*include[ \t]*([<\"])([^>\"\n]+)[>\"]")
_LEADING_COMMENTS = re.compile(rb"\A(?:\xef\xbb\xbf)?(?:[ \t]*(?://[^\n]*|/\*.*?\*/)[ \t]*\r?\n|[ \t]*\r?\n)*", re.S)
_PRAGMA_ONCE = re.compile(r"\s*#\s*pragma\s+once\b")
DEVICE_CODE = (b"__global__", b"__device__", b"__shared__", b"__constant__", b"<<<", b"threadIdx",
                b"blockIdx", b"__syncthreads")
RUNTIME_HEADERS = ("hip/hip_runtime.h",)
FIRST = 100  # the priority of the includes the port adds: above every pass's other insertions
RUNTIME_API = "hip/hip_runtime_api.h"  # enough for host-only files
# Headers that fail unless the runtime came first: HIP 5.2's cooperative groups (hipBlockDim_x
# undeclared), HIP 6's GL interop (hipError_t undeclared), HIP 5.2's bfloat16 on HIP's NVIDIA
# platform (without hip_common.h's __HIPCC__ it declares a bare struct, no conversions).
NEEDS_RUNTIME_FIRST = frozenset({"hip/hip_cooperative_groups.h", "hip/hip_gl_interop.h", "hip/hip_bfloat16.h"})
RUNTIME_FAMILIES = {"runtime", "driver", "device", "complex", "vector"}


def run(ctx: Context) -> None:
    data = ctx.src.data
    headers = ctx.rules.headers
    layout = ctx.config.include_layout
    present: set[str] = set()
    needs_runtime_at: int | None = None  # a HIP header that needs the runtime came before it
    runtime_at: int | None = None  # the line of the file's first include of HIP's runtime
    for line, m in _include_lines(data):
        start, end = m.span(2)
        if not _is_include_directive(ctx, m.start(1)):
            continue  # text in a comment or string that only looks like an include
        path = m.group(2).decode("utf-8", "replace")
        h = headers.get(path)
        if runtime_at is None and (path in RUNTIME_HEADERS or h is not None and h.hip in RUNTIME_HEADERS):
            runtime_at = line
        if ctx.config.rename_extensions and m.group(1) == b'"' and path.endswith(".cu") and _renamed(ctx, path):
            ctx.edit(end - 3, end, ".hip", FixKind.INCLUDE)
        if h is None or m.group(1) == b'"' and _beside(ctx, path):
            present.add(path)  # not CUDA's, or a quoted name the project's own file shadows
            continue
        fam = ctx.families.setdefault(h.family, FamilyCount())
        fam.found += 1
        flat = layout == "flat" or layout == "hipify" and h.hipify_flat
        target = (h.flat or h.hip) if flat else h.hip
        if h.status != "unsupported" and target and ctx.floor.lacks(h.since):
            fam.unsupported += 1
            ctx.report(HP.UNMAPPED_HEADER, Severity.ERROR, start, end,
                       f"<{path}> has no HIP counterpart at ROCm {ctx.floor}: <{target}> "
                       f"needs ROCm {h.since} (raise it with --rocm {h.since})", h.family)
            continue
        if h.status == "unsupported" or not target:
            fam.unsupported += 1
            note = f": {h.note}" if h.note else ""
            ctx.report(HP.UNMAPPED_HEADER, Severity.ERROR, start, end,
                       f"<{path}> has no HIP counterpart{note}", h.family)
            continue
        fam.ported += 1
        if h.needs:
            ctx.report(HP.BUILD_LIBRARY, Severity.INFO, start, end, f"<{path}> became <{target}>: {h.needs}",
                       h.family)
        if target in NEEDS_RUNTIME_FIRST and needs_runtime_at is None \
                and not any(p in present for p in RUNTIME_HEADERS):
            needs_runtime_at = line
        present.add(target)
        if target != path:
            ctx.edit(start, end, target, FixKind.INCLUDE)
            if m.group(1) == b'"' and ctx.config.include_quotes == "angle":
                # a library header belongs in angle brackets (`keep`: as written, as HIPIFY does)
                ctx.edit(m.start(1), m.start(1) + 1, "<", FixKind.INCLUDE)
                ctx.edit(end, end + 1, ">", FixKind.INCLUDE)
            if h.moved and h.floors and ctx.floor.lacks(h.floors[0][0]):
                _moved(ctx, end, h.floors[-1][1])
    device = any(word in data for word in DEVICE_CODE)
    nl = ctx.src.newline
    added = []
    # HIP 5.2's <hip/hip_cooperative_groups.h> (and friends) compile only after the runtime, so a
    # runtime include that comes later does not count.
    runtime_first = needs_runtime_at is None and any(p in present for p in RUNTIME_HEADERS)
    if not (runtime_first or (not device and RUNTIME_API in present and needs_runtime_at is None)) \
            and (ctx.families.keys() & RUNTIME_FAMILIES or device or needs_runtime_at is not None):
        added.append("hip/hip_runtime.h")
    implied = _implied(ctx, present)
    if NEEDS_RUNTIME_FIRST.intersection(implied) and RUNTIME_HEADERS[0] not in added:
        added.append(RUNTIME_HEADERS[0])  # the file's own runtime include comes after them
    added += implied
    defines = _wanted_defines(ctx)
    if added or defines:
        at = insertion_point(ctx.src)
        # ahead of any other text inserted at the same point, by either pass (a guard that tests
        # HIP_VERSION, shims that test __HIP_PLATFORM_NVIDIA__: the runtime header defines both)
        ctx.edit(at, at, "".join(f"#define {d} 1{nl}" for d in defines)
                 + "".join(f"#include <{h}>{nl}" for h in added), FixKind.INCLUDE, FIRST)
    stand_in = _type_stand_in(ctx)
    if stand_in is not None and (RUNTIME_HEADERS[0] in added or runtime_at is None
                                 or runtime_at > stand_in[0]):
        line, name, end = stand_in
        if RUNTIME_HEADERS[0] not in added:
            ctx.edit(line, line, f"#include <{RUNTIME_HEADERS[0]}>{nl}", FixKind.INCLUDE)
        ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, line, end,
                   f"#define {name} stands in for the CUDA vector type {name} (code built without "
                   f"CUDA's headers): HIP's headers, which a ported header that uses {name} now "
                   f"includes, would be read after it and break; <{RUNTIME_HEADERS[0]}> is "
                   "included before it")


def _renamed(ctx: Context, spec: str) -> bool:
    """Does `#include "spec"` name a .cu file of the tree (which --rename-extensions renames)?
    One outside it, or found nowhere, keeps its name: a .hip one would not exist."""
    cl = closure.of(ctx.src)
    if not cl.path or not cl.root:
        return False
    target = cl.resolve(cl.path, f'"{spec}"')
    return target is not None and target.endswith(".cu") and target.startswith(cl.root.rstrip(os.sep) + os.sep)


def _moved(ctx: Context, end: int, later: str) -> None:
    """Below the floor of the header HIP moved the declarations to, include it too where the
    HIP compiled with has it, so the output still compiles with a HIP that moved them."""
    nl = ctx.src.newline
    at = _line_end(ctx.src.data, end)
    lead = "" if at > end and ctx.src.data[at - 1:at] == b"\n" else nl
    ctx.edit(at, at, f"{lead}#if __has_include(<{later}>){nl}#include <{later}>{nl}#endif{nl}", FixKind.INCLUDE)


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+[^\s(]", re.M)


def _wanted_defines(ctx: Context) -> list[str]:
    """The macros the names written need defined before any include (Mapping.define: MIOpen
    6.x declares its graph API only under MIOPEN_BETA_API), once each at the top, so a library
    header a project header includes sees them too; not where the file defines one itself."""
    out = []
    for d in sorted(ctx.wanted_defines):
        if d in ctx.defines or re.search(rb"^[ \t]*#[ \t]*(?:define|undef)[ \t]+" + d.encode() + rb"\b",
                                         ctx.src.data, re.M):
            continue
        out.append(d)
    return out


def _type_stand_in(ctx: Context) -> tuple[int, str, int] | None:
    """The first object-like `#define uint4 uint32_t` of a CUDA vector type's name: (its
    line's start, the name, the name's end). Host code that includes a header shared with
    device code names scalar types for CUDA's vector types this way."""
    if b"define" not in ctx.src.data:
        return None
    for m in directives.finditer(_DEFINE, ctx.src.data):
        name = m.group(1).decode("ascii")
        rule = ctx.rules.names.get(name)
        if rule is None or rule.family != "vector" or rule.kind != "type":
            continue
        node = ctx.src.node_at(m.start(1), m.end(1))
        if node is not None and node.parent is not None and node.parent.type == "preproc_def":
            return m.start(), name, m.end(1)
    return None


def _implied(ctx: Context, present: set[str]) -> list[str]:
    """Headers for names the file uses whose CUDA declarations come in unasked (`__nv_bfloat16`
    through cuBLAS, the host `isfinite` through nvcc's runtime) but whose HIP ones do not.

    A type counts where the tree has it as a type, a function where it is called unqualified
    (`std::isfinite` needs nothing); code under a HIP branch and the file's own definitions
    are not CUDA's to port."""
    data = ctx.src.data
    wanted: list[str] = []
    for m in ctx.rules.implied:
        if m.header in present or m.header in wanted or m.cuda in ctx.defines \
                or m.cuda in ctx.overrides or m.cuda.encode() not in data:  # overridden: not HIP's type
            continue
        for use in re.finditer(rb"\b" + re.escape(m.cuda.encode()) + rb"\b", data):
            if not ctx.hip.covers(use.start(), use.end()) and _uses(ctx, use.start(), use.end(), m.kind):
                assert m.header is not None  # rules.implied holds only names with a header
                wanted.append(m.header)
                break
    return wanted


def _uses(ctx: Context, start: int, end: int, kind: str) -> bool:
    node = ctx.src.node_at(start, end)
    if node is None or node.start_byte != start or node.end_byte != end:
        return node is not None and node.type == "preproc_arg"  # a macro body: token by token
    if kind == "type":
        return node.type in ("type_identifier", "primitive_type")
    parent = node.parent
    return node.type == "identifier" and parent is not None and parent.type == "call_expression" \
        and parent.child_by_field_name("function") == node


def _beside(ctx: Context, path: str) -> bool:
    """Does `#include "path"` find a file next to the including one (Rodinia's own "cuda.h")?
    Quoted includes search there first, for nvcc as for hipcc. Asked of the file's include
    closure, which the cache key holds (hipport.closure), not of the disk."""
    return closure.of(ctx.src).beside(path)


def _include_lines(data: bytes) -> Iterator[tuple[int, re.Match[bytes]]]:
    """`#include` matches that start their line (after blanks), each with its line's start."""
    for m in INCLUDE.finditer(data):
        line = data.rfind(b"\n", 0, m.start()) + 1
        if not data[line:m.start()].strip(b" \t"):
            yield line, m


def _is_include_directive(ctx: Context, at: int) -> bool:
    node = ctx.src.node_at(at, at + 1)
    while node is not None:
        if node.type == "preproc_include":
            return True
        if node.type in ("comment", "raw_string_literal"):
            return False
        node = node.parent
    return False


def insertion_point(src: SourceFile | bytes) -> int:
    """After `#pragma once` or the include guard; else after the leading comment block.

    Read from the tree, so a `#pragma once` inside a string, comment or `#if 0` is not taken
    for the file's own.
    """
    if isinstance(src, bytes):
        src = SourceFile("<text>", src)
    top = _children(src.root)
    first = node = next(top, None)
    while node is not None and node.type == "preproc_call":
        if _PRAGMA_ONCE.match(src.text(node)):
            return _line_end(src.data, node.end_byte)
        node = next(top, None)
    if first is not None and first.type == "preproc_ifdef" \
            and re.match(r"\s*#\s*ifndef", src.text(first)):
        guard = first.child_by_field_name("name")
        body = list(islice(_children(first, named=True), 2))
        if guard is not None and len(body) > 1 and body[1].type == "preproc_def" \
                and src.text(body[1].child_by_field_name("name") or body[1]) == src.text(guard):
            return _line_end(src.data, body[1].end_byte)
    m = _LEADING_COMMENTS.match(src.data)
    return m.end() if m else 0


def _children(node: Node, named: bool = False) -> Iterator[Node]:
    """The children of `node` other than comments, one at a time: callers read only the first
    few, and building all of them (a whole file's top level) costs more than the pass."""
    cursor = node.walk()
    if not cursor.goto_first_child():
        return
    while True:
        child = cursor.node
        if child is not None and (child.is_named or not named) and child.type != "comment":
            yield child
        if not cursor.goto_next_sibling():
            return


def _line_end(data: bytes, at: int) -> int:
    """`at` if it starts a line, else the start of the next line."""
    if at > 0 and data[at - 1:at] == b"\n":
        return at
    nl = data.find(b"\n", at)
    return len(data) if nl == -1 else nl + 1
