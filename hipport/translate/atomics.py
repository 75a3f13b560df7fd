"""Atomics HIP lacks: `atomicInc_system` and `atomicDec_system`, written as CUDA defines them;
`atomicAdd` on 16-bit floats, reported.

HIP has the device-scope `atomicInc`/`atomicDec` and the system-scope `atomicCAS_system`, so the
system-scope wrap-around increment and decrement are written once per translation unit as a
compare-and-swap loop at system scope (the tables rename the calls to these helpers).

CUDA's `atomicAdd` takes `__half`, `__half2`, `__nv_bfloat16` and `__nv_bfloat162` pointers;
HIP's (6.4) takes none of them, only `unsafeAtomicAdd` the two-element ones. A call whose
pointer argument the function (or the file) declares with one of those types is reported.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.helpers import write_before
from hipport.translate.names import SKIP_TYPES

_USE = re.compile(rb"(?<![\w$])hipport_atomic(?:Inc|Dec)_system(?![\w$])|(?<![\w$])atomic(?:Inc|Dec)_system(?![\w$])")
BLOCK = """\
#ifndef HIPPORT_ATOMIC_INC_DEC_SYSTEM
#define HIPPORT_ATOMIC_INC_DEC_SYSTEM
// hipport: HIP has no atomicInc_system/atomicDec_system; CUDA's meaning, as a system-scope
// compare-and-swap loop.
__device__ inline unsigned int hipport_atomicInc_system(unsigned int* address, unsigned int val) {
  unsigned int old = *address, assumed;
  do {
    assumed = old;
    old = atomicCAS_system(address, assumed, assumed >= val ? 0u : assumed + 1u);
  } while (old != assumed);
  return old;
}
__device__ inline unsigned int hipport_atomicDec_system(unsigned int* address, unsigned int val) {
  unsigned int old = *address, assumed;
  do {
    assumed = old;
    old = atomicCAS_system(address, assumed, (assumed == 0u || assumed > val) ? val : assumed - 1u);
  } while (old != assumed);
  return old;
}
#endif
"""


def run(ctx: Context) -> None:
    _half_adds(ctx)
    data = ctx.src.data
    if b"_system" not in data or b"HIPPORT_ATOMIC_INC_DEC_SYSTEM" in data:
        return
    for m in _USE.finditer(data):
        if m.group().startswith(b"hipport_"):
            continue  # a use written by hand, or ported by an older run: not ours to define
        node = ctx.src.node_at(m.start(), m.end())
        if node is None or node.type in SKIP_TYPES or node.type in ("preproc_arg", "preproc_params"):
            continue
        if ctx.hip and ctx.hip.covers(m.start(), m.end()):
            continue
        write_before(ctx, node, BLOCK, "HP-atomics")
        return


# CUDA's 16-bit float types, and what HIP calls them.
_HALF = {"__half": "__half", "half": "__half", "__half2": "__half2", "half2": "__half2",
         "__nv_bfloat16": "__hip_bfloat16", "nv_bfloat16": "__hip_bfloat16",
         "__nv_bfloat162": "__hip_bfloat162", "nv_bfloat162": "__hip_bfloat162"}
_ADD = re.compile(rb"(?<![\w$.>])atomicAdd\s*\(")
_POINTER = re.compile(r"^\(\s*&?\s*([A-Za-z_]\w*)")  # `(p, ...`, `(&p[i], ...`, `(&v, ...`


def _half_adds(ctx: Context) -> None:
    data = ctx.src.data
    if b"atomicAdd" not in data or not any(t.encode() in data for t in _HALF):
        return
    for m in _ADD.finditer(data):
        node = ctx.src.node_at(m.start(), m.start() + len(b"atomicAdd"))
        if node is None or node.type != "identifier" or node.parent is None:
            continue
        call = node.parent
        args = call.child_by_field_name("arguments")
        if call.type != "call_expression" or args is None:
            continue
        p = _POINTER.match(ctx.src.text(args))
        if p is None:
            continue
        address = ctx.src.text(args).lstrip("( \t").startswith("&")
        kind = _declared_type(ctx, call, p[1], address)
        if kind is None:
            continue
        hip = _HALF[kind]
        if hip.endswith("2"):
            how = ("`unsafeAtomicAdd(p, v)` (HIP 6.x: a hardware add on gfx90a and later, right on "
                   "device memory but not on fine-grained host memory), or a compare-and-swap loop "
                   "on the 32-bit word")
        else:
            how = "a compare-and-swap loop on the aligned 32-bit word that holds it"
        ctx.report("HP001", Severity.WARNING, m.start(), m.start() + len(b"atomicAdd"),
                   f"HIP has no atomicAdd for {hip}{'' if hip == kind else f' (CUDA: {kind})'}: use {how}",
                   "device", "atomicAdd")


def _declared_type(ctx: Context, call: Node, name: str, address: bool) -> str | None:
    """The 16-bit float type `name` is declared with in the function holding the call (its
    parameters too), else at file scope: as a pointer or array, or, for `&name`, as a value."""
    fn = call.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    types = "|".join(sorted(map(re.escape, _HALF), key=len, reverse=True))
    n = re.escape(name)
    shapes = [rf"\b({types})\s*(?:const\s*)?\*\s*(?:const\s+|__restrict__\s+)*{n}\b",
              rf"\b({types})\s+{n}\s*\["]
    if address:
        shapes.append(rf"\b({types})\s+{n}\s*[;=,)]")
    for scope in ([ctx.src.text(fn)] if fn is not None else []) + [ctx.src.data.decode("utf-8", "replace")]:
        for shape in shapes:
            found = re.search(shape, scope)
            if found:
                return found[1]
    return None
