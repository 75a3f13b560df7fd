"""Rewrite `#include` lines through the header map and add the HIP runtime include a file needs."""

from __future__ import annotations

import re

from hipport.model import FamilyCount, Severity
from hipport.translate.context import Context

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"\n]+)[>\"]", re.M)
_GUARD = re.compile(rb"\A(?:\s|//[^\n]*\n|/\*.*?\*/)*#[ \t]*ifndef[ \t]+(\w+)[^\n]*\n[ \t]*#[ \t]*define[ \t]+\1\b[^\n]*\n", re.S)
_PRAGMA_ONCE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+once[^\n]*\n", re.M)
_LEADING_COMMENTS = re.compile(rb"\A(?:\xef\xbb\xbf)?(?:[ \t]*(?://[^\n]*|/\*.*?\*/)[ \t]*\r?\n|[ \t]*\r?\n)*", re.S)
_DEVICE_CODE = re.compile(rb"__global__|__device__|__shared__|__constant__|<<<|threadIdx|blockIdx|__syncthreads")
RUNTIME_HEADERS = ("hip/hip_runtime.h",)
RUNTIME_FAMILIES = {"runtime", "driver", "device", "complex", "vector"}


def run(ctx: Context) -> None:
    data = ctx.src.data
    headers = ctx.rules.headers
    flat = ctx.config.include_layout == "flat"
    present: set[str] = set()
    for m in _INCLUDE.finditer(data):
        start, end = m.span(2)
        node = ctx.src.root.descendant_for_byte_range(m.start(1), m.start(1) + 1)
        if node is None or node.type in ("comment", "string_content") or _in_comment(node):
            continue
        path = m.group(2).decode("utf-8", "replace")
        h = headers.get(path)
        if ctx.config.rename_extensions and m.group(1) == b'"' and path.endswith(".cu"):
            ctx.edit(end - 3, end, ".hip", "HP-include")
        if h is None:
            present.add(path)
            continue
        fam = ctx.families.setdefault(h.family, FamilyCount())
        fam.found += 1
        ctx.used_families.add(h.family)
        target = (h.flat or h.hip) if flat else h.hip
        if h.status == "unsupported" or not target:
            fam.unsupported += 1
            note = f": {h.note}" if h.note else ""
            ctx.report("HP008", Severity.WARNING, start, end,
                       f"<{path}> has no HIP counterpart{note}", h.family)
            continue
        fam.ported += 1
        present.add(target)
        if target != path:
            ctx.edit(start, end, target, "HP-include")
            if m.group(1) == b'"':  # a library header belongs in angle brackets
                ctx.edit(m.start(1), m.start(1) + 1, "<", "HP-include")
                ctx.edit(end, end + 1, ">", "HP-include")
    if any(p in present for p in RUNTIME_HEADERS):
        return
    if ctx.used_families & RUNTIME_FAMILIES or _DEVICE_CODE.search(data):
        at = insertion_point(data)
        nl = ctx.src.newline
        ctx.edit(at, at, f"#include <hip/hip_runtime.h>{nl}", "HP-include")


def _in_comment(node) -> bool:  # noqa: ANN001 - a tree-sitter node
    while node is not None:
        if node.type in ("comment", "string_literal", "raw_string_literal"):
            return True
        node = node.parent
    return False


def insertion_point(data: bytes) -> int:
    """After `#pragma once` or the include guard; else after the leading comment block."""
    m = _PRAGMA_ONCE.search(data)
    if m:
        return m.end()
    m = _GUARD.match(data)
    if m:
        return m.end()
    m = _LEADING_COMMENTS.match(data)
    return m.end() if m else 0
