"""W018 warp-synchronous-progress: a spin-wait that needs independent progress inside a wave.

AMD waves have no independent forward progress between lanes: a lane spinning on a lock that
another lane of the same wave holds never lets that lane run (as on pre-Volta NVIDIA). Under
logical32 two CUDA warps share one wave, so a handshake between them deadlocks although it works
on CUDA. A review finding only: elect one lane per wave for the lock (`__ffsll(__ballot(1)) - 1`)
and broadcast, or put producer and consumer in different waves (`tid / 64`, not `tid / 32`), or
use `__syncthreads()`. Lock-free CAS retry loops and the `volatile` last-warp reduction are fine.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts, Func
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short

RULE = W.WARP_SYNCHRONOUS_PROGRESS
# The page `hipport explain W018` and rules/wave64/W018.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds spin locks (`while (atomicCAS(&lock, 0, 1) != 0)`) and spin-waits on shared or '
          'volatile memory written by other threads, with no `__syncthreads()` in the loop.'),
    why=('Lanes of one wave have no independent forward progress: a lane spinning on a lock held '
         'by another lane of the same wave never lets it run. Under logical32 two CUDA warps '
         'share one wave, so a handshake between them deadlocks although it works on CUDA.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__device__ int lock = 0;\n'
            '\n'
            '__global__ void k(int* counter) {\n'
            '  while (atomicCAS(&lock, 0, 1) != 0) {}\n'
            '  *counter += __shfl_xor(*counter, 1);\n'
            '  atomicExch(&lock, 0);\n'
            '}\n'),
    safety=('No automatic fix: elect one lane per wave (`__ffsll(__ballot(1)) - 1`) to take the lock '
            'and broadcast, put producer and consumer in different waves (`tid / 64`, not `tid / '
            '32`), or use `__syncthreads()`. Lock-free CAS retry loops and the `volatile` last-warp '
            'reduction are fine.'),
    refs=('waves', 'design'),
)
IDLE = {"__threadfence", "__threadfence_block", "__threadfence_system", "__nanosleep",
        "__builtin_amdgcn_s_sleep", "__builtin_amdgcn_s_sethalt"}
LOCKS = {"atomicCAS", "atomicExch", "atomicCAS_system", "atomicExch_system"}
READS = {"atomicAdd", "atomicOr", "atomicCAS", "atomicExch", "__atomic_load_n", "atomicAdd_system"}


def _calls(facts: Facts, node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            out.append(n)
        stack.extend(n.children)
    return out


def _has(node: Node, kind: str) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == kind:
            return True
        stack.extend(n.children)
    return False


def _idle(facts: Facts, body: Node | None) -> bool:
    if body is None:
        return True
    if _has(body, "assignment_expression") or _has(body, "update_expression"):
        return False
    return all(facts.call_name(c) in IDLE for c in _calls(facts, body))


def _lock_call(facts: Facts, fn: Func, c: Node) -> bool:
    name = facts.call_name(c)
    if name not in LOCKS:
        return False
    args = sx.call_args(c)
    consts = [facts.cval(a, fn) for a in args[1:]]
    return bool(consts) and all(cv is not None for cv in consts)


def _shared_read(facts: Facts, fn: Func, cond: Node) -> bool:
    stack = [cond]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            var = facts.var(fn, facts.src.text(n))
            if var is not None and (var.is_shared or b"volatile" in facts.data[var.decl.start_byte:var.decl.end_byte]):
                return True
        if n.type == "call_expression" and facts.call_name(n) in READS:
            return True
        stack.extend(n.children)
    return False


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        for loop in fn.node_list("while_statement") + fn.node_list("do_statement"):
            cond = loop.child_by_field_id(sx.F_CONDITION)
            body = loop.child_by_field_id(sx.F_BODY)
            if cond is None or any(facts.call_name(c) == "__syncthreads" for c in
                                   (_calls(facts, body) if body is not None else [])):
                continue
            lock = any(_lock_call(facts, fn, c) for c in _calls(facts, cond)) and _idle(facts, body)
            if not lock and loop.type == "do_statement" and body is not None:
                stmts = [s for s in body.named_children if s.type != "comment"]
                lock = (len(stmts) == 1 and any(_lock_call(facts, fn, c) for c in _calls(facts, stmts[0])))
            wait = not lock and _idle(facts, body) and _shared_read(facts, fn, cond)
            if not (lock or wait):
                continue
            what = "spin lock" if lock else "spin-wait on memory written by other threads"
            msg = (f"{what} `{short(facts.src.text(loop), 50)}`: lanes of one wave have no independent"
                   " progress, so waiting on another lane (or, under logical32, on the other 32-lane warp of"
                   " the same wave) hangs; elect one lane per wave (`__ffsll(__ballot(1)) - 1`) or hand off"
                   " through `__syncthreads()`")
            out.append(finding(facts, RULE, loop, msg, fn))
    return out
