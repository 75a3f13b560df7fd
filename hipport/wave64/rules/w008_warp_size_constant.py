"""W008 warp-size-constant: a hard-coded warp size of 32, or `warpSize` where a constant
expression is required.

- `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32`, `enum { kWarp = 32 }`,
  `template <int WS = 32>`, `constexpr int warp_size() { return 32; }`: under logical32 the constant is the *logical* warp size and stays;
  natively it becomes `HIPPORT_WAVE_SIZE`, the per-architecture constant (64 on gfx8/gfx9, 32 on
  gfx10+ and NVIDIA; 64 as an array bound in the host pass), so every use follows.
- `warpSize` as an array bound, template argument, `static_assert` operand, constexpr initializer
  or constexpr return value compiles on ROCm 6.x but not on ROCm 7 (`warpSize` is no longer
  constexpr): it becomes `HIPPORT_WAVE_SIZE` (or 32 under logical32).
- in a mixed kernel rewritten as logical32, other `warpSize` uses become 32.
"""

from __future__ import annotations

from hipport.model import Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import WAVE, Emitter
from hipport.wave64.facts import Facts, Func
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, in_constant_context

RULE = W.WARP_SIZE_CONSTANT
# The page `hipport explain W008` and rules/wave64/W008.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds warp-size constants of 32 (`#define WARP_SIZE 32`, `constexpr int kWarpSize = '
          '32`, enumerators, template parameters defaulted to 32, a zero-argument constexpr function '
          'returning 32 such as `warp_size()`, whose calls count as the constant) and `warpSize` used where a '
          'constant expression is required (array bound, template argument, `static_assert`, '
          'constexpr initializer or return).'),
    why=('The constant is wrong on CDNA and everything derived from it inherits W004-W007. '
         'Constant uses of `warpSize` compile on ROCm 6.x and fail on ROCm 7, where `warpSize` is '
         'a run-time value.'),
    before=('#include <hip/hip_runtime.h>\n'
            '#define WARP_SIZE 32\n'
            '\n'
            '__global__ void k(float* out) {\n'
            '  __shared__ float s[warpSize];\n'
            '  const int lane = threadIdx.x % WARP_SIZE;\n'
            '  s[lane] = __shfl_xor(out[threadIdx.x], 1);\n'
            '  __syncthreads();\n'
            '  out[threadIdx.x] = s[(lane + 1) % WARP_SIZE];\n'
            '}\n'),
    safety=('A 32 constant is kept under logical32 (it is the logical warp size); natively it '
            'becomes `HIPPORT_WAVE_SIZE`, a per-architecture constant defined once, inline, after '
            "the file's includes (64 on gfx8/gfx9, 32 on gfx10+ and NVIDIA, 64 as an array bound in "
            'the host pass): review. A constant use of `warpSize` becomes `HIPPORT_WAVE_SIZE` (32 '
            'under logical32): safe, it has the same value in every device pass.'),
    refs=('warpsize7', 'arch', 'design'),
)


def _constexpr_func(facts: Facts, fn: Func) -> bool:
    decl = fn.node.child_by_field_id(sx.F_DECLARATOR)
    head = facts.data[fn.node.start_byte:(decl or fn.node).start_byte]
    return b"constexpr" in head


def _covered(facts: Facts, fn: Func, node) -> bool:  # type: ignore[no-untyped-def]
    for s in fn.sites:
        if s.origin == "rt" and sx.inside(node, s.node):
            return True
    for lp in fn.loops:
        if lp.warp == "rt":
            for part in (lp.start, lp.bound):
                if part is not None and sx.inside(node, part):
                    return True
    return False


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for name, defs in facts.consts.items():
        for c in defs:
            if c.value != 32:
                continue
            model, strategy = facts.model_of_const(c)
            fn = c.func
            grouped = [u for u in c.users if u.group is not None]
            if grouped and all(facts.is_thread_group(u) for u in grouped):
                continue  # only numbers threads and 32-slot groups of shared memory (crosslane.py)
            if c.via is not None:  # natively W008 makes `via` the wave size where it is defined
                what = "template parameter" if c.kind == "template" else "constant"
                out.append(finding(facts, RULE, c.node, f"{what} `{name} = {c.via}` is a 32-lane warp size; kept: "
                                   f"it follows `{c.via}`", fn, kept=True, model=model))
                continue
            what = {"macro": f"`#define {name} 32`", "variable": f"`{name} = 32`",
                    "enumerator": f"enumerator `{name} = 32`",
                    "template": f"template parameter `{name} = 32`",
                    "function": f"constexpr function `{name}` returning 32"}[c.kind]
            msg = f"{what} hard-codes a 32-lane warp"
            at = c.value_node if c.kind == "function" and c.value_node is not None else c.node  # its `return 32;`
            if strategy == "logical32":
                out.append(finding(facts, RULE, at, msg + "; kept as the logical warp size (32 lanes)",
                                   fn, kept=True, model=model))
                continue
            edits = [sx.replace_span(c.value_span[0], c.value_span[1], WAVE, RULE), *em.prelude()]
            out.append(finding(facts, RULE, at, msg + "; a wave64 has 64 lanes", fn, em.fix(
                f"use the per-architecture wave size `{WAVE}`", edits, None, False, model, strategy),
                model=model))
    alias_fixed: set[str] = set()
    for name, node, fn, _start, _end in facts.ident_uses:
        if fn is None or not fn.device or node.type != "identifier":
            continue
        if name != "warpSize" and name not in facts.aliases:
            continue
        if em.removed(node) or fn.group is None:
            continue
        model, strategy = em.model(fn), em.strategy(fn)
        constant = in_constant_context(facts, node) or _constexpr_func(facts, fn)
        if constant:
            msg = (f"`{name}` used in a constant expression: ROCm 7 made `warpSize` a run-time value"
                   " (not constexpr), so this stops compiling")
            if strategy == "logical32" and model != "agnostic":
                edits = [sx.replace(node, "32", RULE)]
                title = "use the logical warp size 32"
            elif name in facts.aliases:
                mdef = facts.macros[name][0][0]
                value = mdef.child_by_field_id(sx.F_VALUE)
                if value is None:
                    continue
                raw = facts.data[value.start_byte:value.end_byte]
                i = raw.find(b"warpSize")
                edits = [sx.replace_span(value.start_byte + i, value.start_byte + i + 8, WAVE, RULE),
                         *em.prelude()]
                title = f"define `{name}` as the per-architecture constant `{WAVE}`"
                alias_fixed.add(name)
            else:
                edits = [sx.replace(node, WAVE, RULE), *em.prelude()]
                title = f"use the per-architecture constant `{WAVE}`"
            out.append(finding(facts, RULE, node, msg, fn, em.fix(title, edits, fn, True)))
            continue
        if model != "mixed" or _covered(facts, fn, node):
            continue
        msg = f"`{name}` follows the wave while other sites of this kernel assume 32-lane warps"
        if strategy == "native":
            out.append(finding(facts, RULE, node, msg + "; kept: the kernel becomes wave-agnostic", fn, kept=True))
            continue
        out.append(finding(facts, RULE, node, msg, fn, em.fix(
            "use the logical warp size 32", [sx.replace(node, "32", RULE)], fn, False)))
    return out
