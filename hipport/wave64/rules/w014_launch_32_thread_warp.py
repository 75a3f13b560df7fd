"""W014 launch-32-thread-warp: a launch whose block is one 32-thread warp, and `warpSize` in host
code.

`k<<<rows, 32>>>` ("one warp per row") and `dim3 block(32, N)` ("x = lane, y = warp") of a kernel
with warp operations (a kernel without any only sees a smaller block): under logical32 they stay
correct (each block is one or more 32-lane logical warps); when the block's thread count is known
and not a multiple of 64 half of a wave64 idles, which is reported as info. Once the kernel is
wave-agnostic they are wrong: a 32-thread block fills half a wave and the kernel's `warpSize`
loops skip half the data, so the block must be the wave size queried at run time (host code is
compiled once for every offload target; no compile-time host value is the wave size).

The grid is part of the kernel's model too: `ceil_div(N * 32, block)` or `OC / 32` sizes the grid
for one 32-lane warp per row or per 32 columns; for a kernel that maps its work by `warpSize` it
covers half the rows (or runs past the columns) at wave64, so the 32 becomes the queried size.

`warpSize` read in host code is 64 for every AMD target on ROCm <= 6 and does not compile on
ROCm 7; the host learns the wave size from `hipDeviceAttributeWarpSize` (what
`hipDeviceProp_t::warpSize` holds). A host variable or parameter that happens to be named
`warpSize` (a value the code queried itself) is not HIP's and is left alone.
"""

from __future__ import annotations

import re

from hipport.model import Edit, Finding, Severity, evolve
from hipport.registry import W
from hipport.source import Node, children, named_children
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import BDIM, BID, TID, Facts, Func, is_warp_name
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short

RULE = W.LAUNCH_32_THREAD_WARP
# The page `hipport explain W014` and rules/wave64/W014.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds kernel launches whose block is one 32-thread warp (`<<<n, 32>>>`, `dim3(32)`, '
          '`dim3 block(32, N)`, `hipLaunchKernelGGL(k, g, 32, ...)`) of a kernel with warp '
          'operations, grids computed for 32-lane warps (`ceil_div(N * 32, block)`) for a kernel '
          "that maps its work by `warpSize`, launches sized by the host's queried wave size for a "
          'kernel kept at 32 lanes, blocks a launching host function rounds to whole 32-thread warps '
          '(`warps * WARP_SIZE`, `ceil_div(n, WARP_SIZE) * WARP_SIZE`; its warp counts are W005), and '
          '`warpSize` read in host code (not a host variable of that name).'),
    why=('Under logical32 a block whose thread count is not a multiple of 64 leaves part of a '
         'wave64 idle (`dim3(32, 4)` fills two waves and is not reported). Once the kernel is '
         'wave-agnostic a 32-thread block fills half a wave and `warpSize`-strided loops skip '
         'half the data. Host code is compiled once for every offload target, so no host constant '
         'is the wave size: `warpSize` on the host is 64 for every AMD GPU on ROCm 6 and does not '
         'compile on ROCm 7.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void row_sum(const float* in, float* out, int cols) {\n'
            '  float v = 0.f;\n'
            '  for (int c = threadIdx.x; c < cols; c += warpSize) v += in[blockIdx.x * cols + c];\n'
            '  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);\n'
            '  if (threadIdx.x == 0) out[blockIdx.x] = v;\n'
            '}\n'
            '\n'
            'void launch(const float* in, float* out, int rows, int cols) {\n'
            '  hipLaunchKernelGGL(row_sum, dim3(rows), dim3(32), 0, 0, in, out, cols);\n'
            '}\n'),
    safety=('Review: the block becomes `hipport_warp_size()`, a small inline host helper that '
            'queries `hipDeviceAttributeWarpSize`; `dim3(32, N)` becomes `dim3(hipport_warp_size(), '
            'N)` (one wave per row, same grid). A launch the kernel computes wrong results under '
            '(a 32-thread block or a 32-lane grid of a wave-agnostic kernel, a launch sized by the '
            'queried wave size for a kernel kept at 32 lanes) is an error until the fix is applied '
            '(`--apply-review-fixes`) or the launch changed by hand, and the headline counts its '
            'kernel as needing a person: the default port leaves it wrong at wave64. `warpSize` in '
            'host code is a warning (right on CDNA at ROCm 6 and below). Under logical32 launches '
            'are kept and reported as info.'),
    refs=('arch', 'design'),
)
QUERY = "hipport_warp_size()"


def launch_parts(facts: Facts, call: Node) -> tuple[str, Node | None] | None:
    """(kernel name, block argument) of a kernel launch."""
    parts = launch_config(facts, call)
    return (parts[0], parts[2]) if parts is not None else None


def launch_config(facts: Facts, call: Node) -> tuple[str, Node | None, Node | None] | None:
    """(kernel name, grid argument, block argument) of a kernel launch."""
    if facts.data.find(b"<<<", call.start_byte, call.end_byte) >= 0:  # else no kernel_call_syntax child
        kcs = next((c for c in children(call) if c.type == "kernel_call_syntax"), None)
        if kcs is not None:
            cfg = [c for c in kcs.named_children if c.type != "comment"]
            return (facts.call_name(call), cfg[0] if cfg else None, cfg[1] if len(cfg) > 1 else None)
    if facts.call_name(call) == "hipLaunchKernelGGL":
        args = sx.call_args(call)
        if len(args) < 3:
            return None
        k = args[0]
        while k.type in ("call_expression", "template_function", "qualified_identifier"):
            k = k.child_by_field_id(sx.F_NAME) or (k.named_child(0) if k.named_child_count else k)
            if k.type == "identifier":
                break
        return facts.src.text(k), args[1], args[2]
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


def _threads(facts: Facts, fn: Func, block: Node, kind: str) -> int | None:
    """The thread count of a 32-wide block when every dimension is a known constant."""
    if kind == "one":
        return 32
    e = sx.unparen(block)
    args: list[Node] = []
    if e.type == "call_expression":
        args = sx.call_args(e)
    elif e.type == "identifier":
        var = fn.vars.get(facts.src.text(e))
        v = var.value if var is not None else None
        if v is not None and v.type in ("argument_list", "initializer_list"):
            args = [a for a in v.named_children if a.type != "comment"]
        elif v is not None and v.type == "call_expression":
            args = sx.call_args(v)
    n = 1
    for a in args:
        cv = facts.cval(a, fn)
        if cv is None:
            return None
        n *= cv[0]
    return n if args else None


def _grid32(facts: Facts, fn: Func, grid: Node) -> Node | None:
    """The `N * 32` or `N / 32` inside a launch's grid (through one local variable): the grid is
    computed for 32-lane warps."""
    stack = [sx.unparen(grid)]
    seen: set[str] = set()
    while stack:
        n = stack.pop()
        if n.type == "identifier":  # `grid` or `dim3(grid)`: follow local variables once
            name = facts.src.text(n)
            var = fn.vars.get(name)
            if var is not None and var.value is not None and name not in seen:
                seen.add(name)
                stack.append(var.value)
            continue
        if n.type == "binary_expression":
            op = n.child_by_field_id(sx.F_OPERATOR)
            right = n.child_by_field_id(sx.F_RIGHT)
            left = n.child_by_field_id(sx.F_LEFT)
            if op is not None and op.type in ("*", "/") and right is not None and left is not None:
                for side in ((right, left) if op.type == "*" else (right,)):
                    cv = facts.cval(side, fn)
                    # a literal 32 or a warp-size name (WARP_SIZE), not any value of 32 (ROWS)
                    if cv is not None and cv[0] == 32 and (side.type == "number_literal" or (
                            side.type == "identifier" and is_warp_name(facts.src.text(side)))):
                        return side
        stack.extend(c for c in n.named_children if c.type not in ("lambda_expression",))
    return None


_DECLARATORS = ("init_declarator", "pointer_declarator", "reference_declarator", "array_declarator")
_DECLARATIONS = ("declaration", "parameter_declaration", "optional_parameter_declaration", "field_declaration")


_QUERIED = re.compile(r"\.\s*warp_?[sS]ize\b|\b(?:hip|cuda)Dev(?:ice)?Attr(?:ibute)?WarpSize\b")


def _queried_wave(facts: Facts, fn: Func, expr: Node) -> str | None:
    """The host's queried wave size inside a launch argument (through local variables):
    `prop.warpSize`, a device table's `.warp_size`, or a variable filled by
    hipDeviceGetAttribute(..., hipDeviceAttributeWarpSize, ...). Returns its text."""
    # The body's text only where it holds a GetAttribute call (it was decoded for each launch).
    queries = fn.body is not None and facts.data.find(b"GetAttribute", fn.body.start_byte, fn.body.end_byte) >= 0
    body = facts.src.text(fn.body) if queries and fn.body is not None else ""
    # The pattern is searched in the text of each expression followed (the argument, a
    # variable's value), not of every node below it: a node's text lies in its expression's,
    # so it matches only where the expression's does (n^2 over a long argument otherwise).
    stack = [(expr, True)]
    seen: set[str] = set()
    while stack:
        n, whole = stack.pop()
        if whole:
            text = facts.src.text(n)
            if _QUERIED.search(text) is not None:
                return text.strip()
        if n.type == "identifier":
            name = facts.src.text(n)
            if name in seen:
                continue
            seen.add(name)
            var = fn.vars.get(name)
            if var is not None and var.value is not None:
                stack.append((var.value, True))
            if queries and re.search(r"GetAttribute\s*\(\s*&\s*" + re.escape(name) + r"\s*,\s*\w*WarpSize", body):
                return name
            continue
        stack.extend((c, False) for c in named_children(n))
    return None


def _maps_by_warpsize(facts: Facts, k: Func) -> bool:
    """The kernel divides its block or grid into warps of `warpSize` (`blockDim.x / warpSize`,
    `threadIdx.x / warpSize`, `blockIdx.x * warpSize`): its work per block follows the wave."""
    for b in k.node_list("binary_expression"):
        op, left, right = facts.binop(b)
        if op not in ("/", "*") or left is None or right is None:
            continue
        for a, c in ((left, right), (right, left)) if op == "*" else ((left, right),):
            if sx.unparen(c).type == "identifier" and facts.src.text(sx.unparen(c)) == "warpSize" and \
                    facts.kinds(a, k) & (TID | BDIM | BID):
                return True
    return False


def _host_shadows(facts: Facts) -> set[int]:
    """Host functions (by node id) that declare their own `warpSize` (a variable or parameter)."""
    out: set[int] = set()
    for name, node, user, _s, _e in facts.ident_uses:
        if user is None or user.device or name != "warpSize" or node.type != "identifier":
            continue
        child, p = node, node.parent
        while p is not None and p.type in _DECLARATORS and p.child_by_field_id(sx.F_DECLARATOR) == child:
            child, p = p, p.parent
        if p is not None and p.type in _DECLARATIONS and \
                any(d == child for d in p.children_by_field_name("declarator")):
            out.add(user.node.id)
    return out


def wrong(f: Finding, kernel: str) -> Finding:
    """A launch the kernel's port computes wrong results under (half the data at wave64, or
    host and device disagreeing on the warp size) is an error, not a suggestion: its fix
    changes host code and needs review, so the default port leaves the kernel wrong until a
    person applies it (--apply-review-fixes) or changes the launch. `subject` names the
    kernel, which the headline counts as needing a person."""
    return evolve(f, severity=Severity.ERROR, subject=kernel)


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
            parts = launch_config(facts, call)
            if parts is None:
                continue
            kernel, grid, block = parts
            if block is None:
                continue
            kernels = [k for k in facts.by_name.get(kernel, []) if k.device]
            if kernels and not any(k.collective for k in kernels):
                continue  # no warp operations: a smaller block, not a warp-size assumption
            targets = [k for k in kernels if k.group is not None]
            if targets and not any(f.agnostic or f.strong32 or f.weak32 for k in targets
                                   for f in k.group.funcs):  # type: ignore[union-attr]
                continue  # no warp-size evidence in this file (its warp helpers live elsewhere): unknown model
            if targets:
                model, strategy = targets[0].group.model, targets[0].group.strategy  # type: ignore[union-attr]
            else:  # a kernel from another file: the launch itself assumes 32-thread warps
                strategy, model = fallback, "warp32"
            g32 = _grid32(facts, fn, grid) if grid is not None and targets and strategy == "native" \
                and any(_maps_by_warpsize(facts, k) for k in targets) else None
            if g32 is not None:
                gtext = short(facts.src.text(g32.parent or g32), 30)
                out.append(wrong(finding(facts, RULE, g32.parent or g32, (
                    f"grid `{gtext}` of the launch of `{kernel}` counts 32-lane warps, while the kernel maps its"
                    " work by warpSize: at wave64 it covers half the rows (or runs past the end)"), fn, em.fix(
                        "size the grid by the device's wave size",
                        [sx.replace(g32, QUERY, RULE), *em.host_helper()], None, False, model, strategy),
                    model=model), kernel))
            if targets and model == "warp32" and strategy == "logical32":
                q = next((x for x in (_queried_wave(facts, fn, a) for a in (block, grid) if a is not None) if x), None)
                if q is not None:
                    out.append(wrong(finding(facts, RULE, call, (
                        f"launch of `{kernel}` sized by the device's wave size (`{short(q, 30)}`: 64 on CDNA) while"
                        " the kernel assumes 32-lane warps: host and device disagree on the warp size (size the"
                        " launch by 32, or make the kernel wave-agnostic)"), fn, model=model), kernel))
                    continue
            shape = block_shape(facts, fn, block)
            if shape is None:
                continue
            kind, x, y, _named = shape
            what = "one 32-thread warp per block" if kind == "one" else "dim3(32, N): x is the lane, y the row"
            msg = f"launch of `{kernel}` with {what} (`{short(facts.src.text(block), 30)}`)"
            if strategy == "logical32":
                threads = _threads(facts, fn, block, kind)
                if threads is None or threads % 64 == 0:
                    continue  # whole waves (or unknown): correct as 32-lane logical warps
                out.append(finding(facts, RULE, call, msg + f"; kept: correct as 32-lane logical warps, but the"
                                   f" block's {threads} threads leave part of a wave64 idle (prefer multiples of"
                                   " 64 threads)", fn, kept=True, model=model))
                continue
            # dim3(32, N) -> dim3(ws, N): each row keeps its own wave, the grid stays the same
            edits: list[Edit] = [sx.replace(x, QUERY, RULE), *em.host_helper()]
            out.append(wrong(finding(facts, RULE, call, msg + "; the kernel is wave-agnostic, so a block must be"
                                     " the wave size queried at run time", fn, em.fix(
                                         "launch blocks of the device's wave size", edits, None, False, model,
                                         strategy), model=model), kernel))
    for node, _ws, fn in facts.host_blocks:  # `warps * WARP_SIZE` (facts/hostsizes.py)
        msg = (f"host block `{short(facts.src.text(node), 40)}` is rounded to whole 32-thread warps: a block of an odd"
               " number of them leaves half a wave64 idle")
        if fallback == "native":
            out.append(finding(facts, RULE, node, msg + ", and the host has no wave size (a constant is 64 in the"
                               " host pass, 32 on RDNA): round to the queried wave size", fn, model="warp32"))
        else:
            out.append(finding(facts, RULE, node, msg + "; kept: correct as 32-lane logical warps", fn, kept=True,
                               model="warp32"))
    shadows = _host_shadows(facts)
    for name, node, user, _s, _e in facts.ident_uses:
        if user is None or user.device or name != "warpSize" or node.type != "identifier" or user.node.id in shadows:
            continue
        msg = ("`warpSize` in host code: 64 for every AMD target on ROCm <= 6 (wrong on RDNA), a compile"
               " error on ROCm 7; host code must query the device")
        out.append(finding(facts, RULE, node, msg, user, em.fix(
            "query the wave size at run time", [sx.replace(node, QUERY, RULE), *em.host_helper()], None, False,
            "agnostic", "native"), model="agnostic"))
    return out
