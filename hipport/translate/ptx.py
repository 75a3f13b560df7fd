"""Inline PTX that nothing ports: reported at its `asm` statement with what to do.

HIP-Clang compiles device code to AMDGCN, so a PTX `asm()` fails to build ("invalid
instruction"). The wave64 pass ports the warp forms (`%laneid`, lane masks, `activemask`:
W012); every other PTX statement (`vabsdiff4`, `bfind`, `prmt`, ...) is reported here, and
passes.py drops this report where a W012 finding covers the same statement.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.source import Node
from hipport.translate.context import Context

FAMILY = "ptx"
_ASM = re.compile(rb"(?<![\w$])(?:asm|__asm__|__asm)(?![\w$])")
# A PTX instruction: a dotted opcode (`mov.u32`, `vabsdiff4.u32.u32.u32.add`) at the start of a
# statement, or a special register (`%%laneid`). AMDGCN mnemonics have no dots (`v_add_u32`).
_PTX = re.compile(r"(?:^|[;{}\s])[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+(?=[\s;]|$)|%%[a-z]")


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"asm" not in data:
        return
    seen: set[int] = set()
    for m in _ASM.finditer(data):
        node: Node | None = ctx.src.root.descendant_for_byte_range(m.start(), m.end())
        for _ in range(3):
            if node is None or node.type == "gnu_asm_expression":
                break
            node = node.parent
        if node is None or node.type != "gnu_asm_expression" or node.start_byte in seen:
            continue
        seen.add(node.start_byte)
        text = _template(ctx, node)
        hit = _PTX.search(text)
        if hit is None:
            continue
        op = hit.group().strip(" ;{}\t\n")
        ctx.report("HP001", Severity.WARNING, node.start_byte, node.end_byte,
                   f"inline PTX `{op}` does not compile for AMD GPUs (HIP-Clang emits AMDGCN): "
                   f"write it in C++ or with HIP/AMDGCN intrinsics (__lane_id(), __ffs, __clz, "
                   f"__popc, __builtin_amdgcn_*), or keep the PTX under #ifdef __CUDA_ARCH__",
                   FAMILY)


def _template(ctx: Context, asm: Node) -> str:
    code = asm.child_by_field_name("assembly_code")
    if code is None:
        return ""
    parts: list[tuple[int, str]] = []
    stack = [code]
    while stack:
        n = stack.pop()
        if n.type in ("string_content", "escape_sequence"):
            parts.append((n.start_byte, ctx.src.text(n)))
        else:
            stack.extend(n.children)
    return "".join(t for _, t in sorted(parts)).replace("\\n", " ").replace("\\t", " ").strip()
