"""Dynamic parallelism: kernels launched, or the runtime API called, from device code.

CUDA's device runtime lets a kernel launch kernels and call `cudaMalloc`,
`cudaStreamCreateWithFlags` or `cudaDeviceSynchronize`; HIP has no device-side runtime, so
each such site is reported (the code is renamed like any other, and does not compile).
"""

from __future__ import annotations

from hipport.model import Severity
from hipport.registry import HP
from hipport.source import Node, walk
from hipport.translate.context import Context

DEVICE = (b"__global__", b"__device__")
_RUNTIME = frozenset({"runtime"})


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"__global__" not in data or (b"<<<" not in data and b"cuda" not in data):
        return
    for fn in _device_functions(ctx):
        body = fn.child_by_field_name("body")
        if body is None:
            continue
        # A cursor walk: a stack of `named_children` would keep every node of the body as a
        # Python object while `body` lives (a node keeps the list of its children once read).
        for n in walk(body):
            t = n.type
            if t == "kernel_call_syntax":
                ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, n.start_byte, n.end_byte,
                           "a kernel launched from device code (dynamic parallelism) has no HIP "
                           "equivalent; launch it from the host, or fold the work into this kernel",
                           "runtime")
            elif t == "call_expression":
                callee = n.child_by_field_name("function")
                name = ctx.src.text(callee) if callee is not None and callee.type == "identifier" else ""
                m = ctx.rules.names.get(name)
                if callee is not None and m is not None and m.family in _RUNTIME and m.kind == "function":
                    ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, callee.start_byte, callee.end_byte,
                               f"{name} called from device code (CUDA's device runtime) has no "
                               f"HIP equivalent: HIP's runtime API is host-only", "runtime")


def _device_functions(ctx: Context) -> list[Node]:
    out = []
    stack = [ctx.src.root]
    while stack:
        n = stack.pop()
        if n.type == "function_definition":
            decl = n.child_by_field_name("declarator")
            head = ctx.src.data[n.start_byte:decl.start_byte if decl is not None else n.start_byte]
            if any(q in head for q in DEVICE) and b"__host__" not in head:
                out.append(n)
            continue
        if n.type in ("translation_unit", "preproc_if", "preproc_ifdef", "preproc_else",
                      "preproc_elif", "namespace_definition", "declaration_list",
                      "template_declaration", "linkage_specification"):
            stack.extend(n.named_children)
    return out
