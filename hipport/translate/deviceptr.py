"""Arithmetic on a `CUdeviceptr`: an integer in CUDA, `void *` (hipDeviceptr_t) in HIP.

`CUdeviceptr b = a + offset;` is integer arithmetic under CUDA and arithmetic on a pointer to
void under HIP, which C++ rejects. Where the left operand of `+` or `-` is a variable the file
declares as a CUdeviceptr and the right one is not, the sum is written in bytes, as CUDA means
it: `(hipDeviceptr_t)((char *)a + offset)`. Other arithmetic on it (`a += n`, `a % align`) is
reported with that spelling. Texture and surface objects (integers in CUDA, pointers in HIP)
have no arithmetic HIP could mean: each use in one is reported.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.helpers import declared_in_scope

_TYPES = (b"CUdeviceptr", b"CUdeviceptr_v2", b"cudaTextureObject_t", b"cudaSurfaceObject_t")
_HANDLES = re.compile(rb"\b(cudaTextureObject_t|cudaSurfaceObject_t)\s*(?:const\s*)?&?\s*(\w+)\s*(?=[;=,)\[])")
_HANDLE_CAST = re.compile(rb"\(\s*(cudaTextureObject_t|cudaSurfaceObject_t)\s*\)")
_DECLARED = re.compile(rb"\bCUdeviceptr(?:_v2)?\s*(?:const\s*)?&?\s*(\w+)\s*(?=[;=,)\[])")
_OPS = frozenset({"+", "-"})
_OTHER = frozenset({"+=", "-=", "%", "&", "|", "*", "/", "%=", "&=", "|=", "*=", "/=", "<<", ">>"})


def run(ctx: Context) -> None:
    data = ctx.src.data
    if not any(t in data for t in _TYPES):
        return
    _handles(ctx)
    declared: dict[bytes, list[int]] = {}
    for m in _DECLARED.finditer(data):
        if m.group(1) != b"const":
            declared.setdefault(m.group(1), []).append(m.start())
    names = set(declared)
    if not names:
        return
    pattern = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(n) for n in sorted(names)) + rb")(?![\w$])")
    for m in pattern.finditer(data):
        node = ctx.src.root.descendant_for_byte_range(m.start(), m.end())
        if node is None or node.type != "identifier" or node.start_byte != m.start():
            continue
        parent = node.parent
        if parent is None or parent.type not in ("binary_expression", "assignment_expression"):
            continue
        if not declared_in_scope(ctx, node, declared[m.group()]):
            continue  # a CUdeviceptr of that name elsewhere; here another variable
        op = parent.child_by_field_name("operator")
        left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
        if op is None or left is None or right is None:
            continue
        sym = ctx.src.text(op)
        if parent.type == "binary_expression" and sym in _OPS and left == node \
                and not _is_deviceptr(ctx, right, names):
            top = parent  # `a + n + m` is `(a + n) + m`: the sum ends after m
            while top.parent is not None and top.parent.type == "binary_expression" \
                    and top.parent.child_by_field_name("left") == top \
                    and _operator(ctx, top.parent) in _OPS:
                top = top.parent
            ctx.edit(node.start_byte, node.start_byte, "(hipDeviceptr_t)((char *)", "HP-deviceptr")
            ctx.edit(top.end_byte, top.end_byte, ")", "HP-deviceptr")
            ctx.report("HP011", Severity.INFO, parent.start_byte, top.end_byte,
                       "CUdeviceptr arithmetic: hipDeviceptr_t is void *, so the offset is "
                       "written in bytes through char *", "driver")
        elif sym in _OTHER and (left == node or parent.type == "binary_expression"):
            ctx.report("HP001", Severity.WARNING, parent.start_byte, parent.end_byte,
                       f"`{sym}` on a CUdeviceptr: hipDeviceptr_t is void *, not an integer; write "
                       f"it through char * (`(char *)p + n`) or uintptr_t", "driver")


def _is_deviceptr(ctx: Context, node: Node, names: set[bytes]) -> bool:
    return node.type == "identifier" and ctx.src.text(node).encode() in names


def _handles(ctx: Context) -> None:
    """Texture and surface objects in arithmetic (`obj >> 32`, `(cudaTextureObject_t)x | y`)."""
    data = ctx.src.data
    if b"cudaTextureObject_t" not in data and b"cudaSurfaceObject_t" not in data:
        return
    kinds = {m.group(2): m.group(1).decode() for m in _HANDLES.finditer(data)}
    spots: list[tuple[Node, str]] = []
    if kinds:
        pattern = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(n) for n in sorted(kinds)) + rb")(?![\w$])")
        for m in pattern.finditer(data):
            node = ctx.src.root.descendant_for_byte_range(m.start(), m.end())
            if node is not None and node.type == "identifier" and node.start_byte == m.start():
                spots.append((node, kinds[m.group()]))
    for m in _HANDLE_CAST.finditer(data):
        node = ctx.src.root.descendant_for_byte_range(m.start(), m.end())
        while node is not None and node.type not in ("cast_expression", "translation_unit"):
            node = node.parent
        if node is not None and node.type == "cast_expression":
            spots.append((node, m.group(1).decode()))
    for node, kind in spots:
        parent = node.parent
        while parent is not None and parent.type == "parenthesized_expression":
            node, parent = parent, parent.parent
        if parent is None or parent.type not in ("binary_expression", "assignment_expression"):
            continue
        op = parent.child_by_field_name("operator")
        sym = ctx.src.text(op) if op is not None else ""
        if sym in _OPS or sym in _OTHER:
            ctx.report("HP001", Severity.WARNING, node.start_byte, node.end_byte,
                       f"`{sym}` on a {kind}: CUDA's is a 64-bit integer, HIP's a pointer; keep "
                       f"the object itself (an array of objects, or reinterpret_cast through "
                       f"uintptr_t where it must be packed into integers)", "runtime")


def _operator(ctx: Context, node: Node) -> str:
    op = node.child_by_field_name("operator")
    return ctx.src.text(op) if op is not None else ""
