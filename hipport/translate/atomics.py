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
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.helpers import declared_in_scope, write_before
from hipport.translate.names import SKIP_TYPES

USE = re.compile(rb"(?<![\w$])hipport_atomic(?:Inc|Dec)_system(?![\w$])|(?<![\w$])atomic(?:Inc|Dec)_system(?![\w$])")
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
    for m in USE.finditer(data):
        if m.group().startswith(b"hipport_"):
            continue  # a use written by hand, or ported by an older run: not ours to define
        node = ctx.src.node_at(m.start(), m.end())
        if node is None or node.type in SKIP_TYPES or node.type in ("preproc_arg", "preproc_params"):
            continue
        if ctx.hip and ctx.hip.covers(m.start(), m.end()):
            continue
        write_before(ctx, node, BLOCK, FixKind.ATOMICS)
        return


# CUDA's 16-bit float types, and what HIP calls them.
_HALF = {"__half": "__half", "half": "__half", "__half2": "__half2", "half2": "__half2",
         "__nv_bfloat16": "__hip_bfloat16", "nv_bfloat16": "__hip_bfloat16",
         "__nv_bfloat162": "__hip_bfloat162", "nv_bfloat162": "__hip_bfloat162"}
_ADD = re.compile(rb"(?<![\w$.>])atomicAdd\s*\(")
_POINTER = re.compile(r"^\(\s*&?\s*([A-Za-z_]\w*)")  # `(p, ...`, `(&p[i], ...`, `(&v, ...`
# A declaration of a name with one of those types: (type, `*` or not, name, what follows it).
_DECL = re.compile(rb"\b(" + b"|".join(t.encode() for t in sorted(_HALF, key=len, reverse=True))
                   + rb")\b\s*(?:const\b\s*)?(\*?)\s*(?:(?:const|__restrict__)\b\s*)*([A-Za-z_]\w*)\s*([\[;=,)])")


def _half_adds(ctx: Context) -> None:
    data = ctx.src.data
    if b"atomicAdd" not in data or not any(t.encode() in data for t in _HALF):
        return
    decls: dict[str, list[tuple[int, str, bool]]] = {}  # name -> (offset, type, holds an address)
    for d in _DECL.finditer(data):
        decls.setdefault(d[3].decode(), []).append((d.start(), d[1].decode(), bool(d[2]) or d[4] == b"["))
    for m in _ADD.finditer(data):
        node = ctx.src.node_at(m.start(), m.start() + len(b"atomicAdd"))
        if node is None or node.type != "identifier" or node.parent is None:
            continue
        call = node.parent
        args = call.child_by_field_name("arguments")
        if call.type != "call_expression" or args is None:
            continue
        p = _POINTER.match(ctx.src.text(args))
        if p is None or p[1] not in decls:
            continue
        address = ctx.src.text(args).lstrip("( \t").startswith("&")
        kind = _declared_type(ctx, call, decls[p[1]], address)
        if kind is None:
            continue
        hip = _HALF[kind]
        if hip.endswith("2"):
            how = ("`unsafeAtomicAdd(p, v)` (HIP 6.x: a hardware add on gfx90a and later, right on "
                   "device memory but not on fine-grained host memory), or a compare-and-swap loop "
                   "on the 32-bit word")
        else:
            how = "a compare-and-swap loop on the aligned 32-bit word that holds it"
        ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, m.start(), m.start() + len(b"atomicAdd"),
                   f"HIP has no atomicAdd for {hip}{'' if hip == kind else f' (CUDA: {kind})'}: use {how}",
                   "device", "atomicAdd")


def _declared_type(ctx: Context, call: Node, found: list[tuple[int, str, bool]], address: bool) -> str | None:
    """The 16-bit float type of the name's declaration in scope at the call: in the function
    holding it (its parameters too), else at file scope; as a pointer or array, or, for `&name`,
    as a value."""
    fits = [(at, t) for at, t, holds_address in found if holds_address or address]
    fn = call.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    if fn is not None:
        inside = [t for at, t in fits if fn.start_byte <= at < call.start_byte]
        if inside:
            return inside[-1]
    outside = [t for at, t in fits if at < call.start_byte and declared_in_scope(ctx, call, [at])
               and not (fn is not None and fn.start_byte <= at < fn.end_byte)]
    return outside[-1] if outside else None
