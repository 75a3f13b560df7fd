"""Inline PTX that nothing ports: reported at its `asm` statement with what to do.

HIP-Clang compiles device code to AMDGCN, so a PTX `asm()` fails to build ("invalid
instruction"). The wave64 pass ports the warp forms (`%laneid`, lane masks, `activemask`:
W012); every other PTX statement (`vabsdiff4`, `bfind`, `prmt`, ...) is reported here, and
passes.py drops this report where a W012 finding covers the same statement.
"""

from __future__ import annotations

import re

from hipport import portable
from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node, asm_template
from hipport.translate.context import Context

FAMILY = "ptx"
ASM = re.compile(rb"(?<![\w$])(?:asm|__asm__|__asm)(?![\w$])")
# A PTX instruction: a dotted opcode (`mov.u32`, `vabsdiff4.u32.u32.u32.add`) at the start of a
# statement, or a special register (`%%laneid`). AMDGCN mnemonics have no dots (`v_add_u32`).
_PTX = re.compile(r"(?:^|[;{}\s])[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+(?=[\s;]|$)|%%[a-z]")
# One-instruction forms with an AMDGCN builtin of the same meaning: the statement becomes an
# assignment to its one output (%0) from the builtin of its inputs (%1...).
FORMS = {
    # the sum of the four bytes' absolute differences, plus %3: V_SAD_U8
    re.compile(r"vabsdiff4\.u32\.u32\.u32\.add\s+%0\s*,\s*%1\s*,\s*%2\s*,\s*%3\s*;?"):
        "__builtin_amdgcn_sad_u8({1}, {2}, {3})",
    # the position of the highest set bit, 0xffffffff for 0: HIP's __clz(0) is 32
    re.compile(r"bfind\.u32\s+%0\s*,\s*%1\s*;?"): "(31u - (unsigned int)__clz({1}))",
    re.compile(r"brev\.b32\s+%0\s*,\s*%1\s*;?"): "__brev({1})",
    re.compile(r"popc\.b32\s+%0\s*,\s*%1\s*;?"): "__popc({1})",
}


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"asm" not in data:
        return
    seen: set[int] = set()
    for m in ASM.finditer(data):
        node: Node | None = ctx.src.node_at(m.start(), m.end())
        for _ in range(3):
            if node is None or node.type == "gnu_asm_expression":
                break
            node = node.parent
        if node is None or node.type != "gnu_asm_expression" or node.start_byte in seen:
            continue
        seen.add(node.start_byte)
        text = asm_template(ctx.src, node)
        hit = _PTX.search(text)
        if hit is None:
            continue
        if _port(ctx, node, text):
            continue
        op = hit.group().strip(" ;{}\t\n")
        ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, node.start_byte, node.end_byte,
                   f"inline PTX `{op}` does not compile for AMD GPUs (HIP-Clang emits AMDGCN): "
                   f"write it in C++ or with HIP/AMDGCN intrinsics (__lane_id(), __ffs, __clz, "
                   f"__popc, __builtin_amdgcn_*), or keep the PTX under #ifdef __CUDA_ARCH__",
                   FAMILY)


def _port(ctx: Context, asm: Node, text: str) -> bool:
    """Write a known one-instruction form as its builtin; False if it is not one."""
    form = next((f for pattern, f in FORMS.items() if pattern.fullmatch(text)), None)
    if form is None or asm.parent is None or asm.parent.type != "expression_statement":
        return False
    outs = _operands(asm, "output_operands")
    ins = _operands(asm, "input_operands")
    if len(outs) != 1 or not ctx.src.text(outs[0][0]).strip('"').endswith("r"):
        return False
    values = [ctx.src.text(v) for _, v in outs + ins]
    ctx.edit(asm.start_byte, asm.end_byte,
             f"{values[0]} = " + form.format(*[f"({v})" if not v.isidentifier() else v for v in values]),
             FixKind.PTX)
    if portable.needs_shims(form) and portable.NVIDIA_SHIMS.encode() not in ctx.src.data:
        at = portable.after_includes(ctx.src.data, asm.start_byte)
        ctx.edit(at, at, portable.NVIDIA_SHIMS.replace("\n", ctx.src.newline), FixKind.PORTABLE,
                 portable.PRIORITY)
    ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, asm.start_byte, asm.end_byte,
               f"inline PTX `{text.split()[0]}` written in HIP terms ({form.format(*'…' * 4)}), "
               f"the same value", FAMILY)
    return True


def _operands(asm: Node, fieldname: str) -> list[tuple[Node, Node]]:
    """(constraint, value) of each operand in the list."""
    group = asm.child_by_field_name(fieldname)
    out = []
    for op in (group.named_children if group is not None else []):
        c, v = op.child_by_field_name("constraint"), op.child_by_field_name("value")
        if c is not None and v is not None:
            out.append((c, v))
    return out


