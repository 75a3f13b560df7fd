"""W014 launch-32-thread-warp: a launch whose block is one 32-thread warp, and `warpSize` in host
code.

`k<<<rows, 32>>>` ("one warp per row") and `dim3 block(32, N)` ("x = lane, y = warp"): under
logical32 they stay correct (each block is one or more 32-lane logical warps) but half of every
wave64 idles. Once the kernel is wave-agnostic they are wrong: a 32-thread block fills half a wave
and the kernel's `warpSize` loops skip half the data, so the block must be the wave size queried
at run time (host code is compiled once for every offload target; no compile-time host value is
the wave size). `warpSize` read in host code is 64 for every AMD target on ROCm <= 6 and does not
compile on ROCm 7.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts, Func
from hipport.wave64.rules._common import finding, short

RULE = "W014"
QUERY = "hipport_warp_size()"


def launch_parts(facts: Facts, call: Node) -> tuple[str, Node | None] | None:
    """(kernel name, block argument) of a kernel launch."""
    if facts.data.find(b"<<<", call.start_byte, call.end_byte) >= 0:  # else no kernel_call_syntax child
        kcs = next((c for c in call.children if c.type == "kernel_call_syntax"), None)
        if kcs is not None:
            cfg = [c for c in kcs.named_children if c.type != "comment"]
            return facts.call_name(call), cfg[1] if len(cfg) > 1 else None
    if facts.call_name(call) == "hipLaunchKernelGGL":
        args = sx.call_args(call)
        if len(args) < 3:
            return None
        k = args[0]
        while k.type in ("call_expression", "template_function", "qualified_identifier"):
            k = k.child_by_field_id(sx.F_NAME) or (k.named_child(0) if k.named_child_count else k)
            if k.type == "identifier":
                break
        return facts.src.text(k), args[2]
    return None


def block_shape(facts: Facts, fn: Func, expr: Node) -> tuple[str, Node, Node | None, bool] | None:
    """('one', x, None, named) for a 32-thread block, ('rows', x, y, named) for dim3(32, y)."""
    e = sx.unparen(expr)
    cv = facts.cval(e, fn)
    if cv is not None:
        return ("one", e, None, cv[2]) if cv[0] == 32 else None
    if e.type == "call_expression" and facts.call_name(e) == "dim3":
        args = sx.call_args(e)
        if args:
            cv = facts.cval(args[0], fn)
            if cv is not None and cv[0] == 32:
                return ("rows" if len(args) > 1 else "one"), args[0], (args[1] if len(args) > 1 else None), cv[2]
        return None
    if e.type == "identifier":
        var = fn.vars.get(facts.src.text(e))
        if var is None or var.value is None:
            return None
        v = var.value
        if v.type in ("argument_list", "initializer_list"):
            args = [a for a in v.named_children if a.type != "comment"]
            if args:
                cv = facts.cval(args[0], fn)
                if cv is not None and cv[0] == 32:
                    return ("rows" if len(args) > 1 else "one"), args[0], (args[1] if len(args) > 1 else None), cv[2]
            return None
        return block_shape(facts, fn, v)
    return None


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    fallback = "native" if facts.config.wave_strategy == "native" else "logical32"
    for fn in facts.funcs:
        if not fn.nodes or fn.body is None:
            continue
        raw = facts.data[fn.body.start_byte:fn.body.end_byte]
        if b"<<<" not in raw and b"hipLaunchKernelGGL" not in raw:
            continue
        for call in fn.node_list("call_expression"):
            parts = launch_parts(facts, call)
            if parts is None or parts[1] is None:
                continue
            kernel, block = parts
            shape = block_shape(facts, fn, block)
            if shape is None:
                continue
            kind, x, y, _named = shape
            targets = [k for k in facts.by_name.get(kernel, []) if k.group is not None]
            if targets:
                model, strategy = targets[0].group.model, targets[0].group.strategy  # type: ignore[union-attr]
            else:  # a kernel from another file: the launch itself assumes 32-thread warps
                strategy, model = fallback, "warp32"
            what = "one 32-thread warp per block" if kind == "one" else "dim3(32, N): x is the lane, y the row"
            msg = f"launch of `{kernel}` with {what} (`{short(facts.src.text(block), 30)}`)"
            if strategy == "logical32":
                out.append(finding(facts, RULE, call, msg + "; kept: correct as 32-lane logical warps, but half"
                                   " of each wave64 idles (prefer blocks of 64 threads)", fn, kept=True,
                                   model=model))
                continue
            # dim3(32, N) -> dim3(ws, N): each row keeps its own wave, the grid stays the same
            edits: list[Edit] = [sx.replace(x, QUERY, RULE), *em.host_helper()]
            out.append(finding(facts, RULE, call, msg + "; the kernel is wave-agnostic, so a block must be the"
                               " wave size queried at run time", fn, em.fix(
                                   "launch blocks of the device's wave size", edits, None, False, model, strategy),
                               model=model))
    for name, node, fn, _s, _e in facts.ident_uses:
        if fn is None or fn.device or name != "warpSize" or node.type != "identifier":
            continue
        msg = ("`warpSize` in host code: 64 for every AMD target on ROCm <= 6 (wrong on RDNA), a compile"
               " error on ROCm 7; host code must query the device")
        out.append(finding(facts, RULE, node, msg, fn, em.fix(
            "query the wave size at run time", [sx.replace(node, QUERY, RULE), *em.host_helper()], None, False,
            "agnostic", "native"), model="agnostic"))
    return out
