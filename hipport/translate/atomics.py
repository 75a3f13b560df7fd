"""`atomicInc_system` and `atomicDec_system`, which HIP lacks, written as CUDA defines them.

HIP has the device-scope `atomicInc`/`atomicDec` and the system-scope `atomicCAS_system`, so the
system-scope wrap-around increment and decrement are written once per translation unit as a
compare-and-swap loop at system scope (the tables rename the calls to these helpers).
"""

from __future__ import annotations

import re

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
