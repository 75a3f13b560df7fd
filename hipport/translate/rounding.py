"""CUDA's directed-rounding arithmetic (`__fadd_rd`, `__dmul_ru`, `__fsqrt_rz`, ...), written.

HIP 5.2 declares these only under `OCML_BASIC_ROUNDED_OPERATIONS` and its device library does
not define them, so a port that keeps them fails to link. Each is exact in HIP terms: the
round-to-nearest result, stepped one unit in the last place in the asked direction when its
exact error points that way. The error's sign comes from an error-free transformation (TwoSum
for a sum; for a product, a quotient's remainder or a root's residual, the float's computed in
double, the double's with a fused multiply-add), so the result is CUDA's, except for a double
whose product, remainder or residual falls below the normal range (results near 1e-292). The tables rename the calls to
`hipport_fadd_rd` and friends; this pass writes their definitions once per translation unit.
"""

from __future__ import annotations

import re

from hipport.registry import FixKind
from hipport.translate.context import Context
from hipport.translate.helpers import write_before
from hipport.translate.names import SKIP_TYPES

GUARD = "HIPPORT_DIRECTED_ROUNDING"
DIRECTIONS = {"rd": -1, "ru": 1, "rz": 0}
# CUDA name stem -> (arity, how hipport computes it with the type's general helper)
_OPS = {"add": (2, "add(a, b"), "sub": (2, "add(a, -b"), "mul": (2, "mul(a, b"),
        "div": (2, "div(a, b"), "rcp": (1, "div(1, a"), "sqrt": (1, "sqrt(a")}
_TYPES = {"f": ("float", "nextafterf", "__FLT_MAX__", "f"), "d": ("double", "nextafter", "__DBL_MAX__", "")}
NAMES = tuple(f"__{t}{op}_{d}" for t in _TYPES for op in _OPS for d in DIRECTIONS)
USE = re.compile(rb"(?<![\w$])__[fd](?:add|sub|mul|div|rcp|sqrt)_r[duz](?![\w$])")
# The same without its look-behind: it starts with a literal, which the regex engine scans for
# in C (the look-behind made it try every byte); a file it finds nothing in holds no use.
QUICK = re.compile(USE.pattern.removeprefix(rb"(?<![\w$])"))

_STEP = """\
__device__ inline {T} hipport_step({T} r, int err, bool finite, int dir) {{
  if (dir == 0) {{
    if (r == 0) return r;
    dir = r > 0 ? -1 : 1;  // toward zero
  }}
  if (__builtin_isinf(r))  // overflow of finite operands rounds to the largest finite value
    return finite && (r > 0) == (dir < 0) ? (r > 0 ? {MAX} : -{MAX}) : r;
  if (err != dir) return r;
  return {NEXT}(r, dir < 0 ? -__builtin_huge_val{S}() : __builtin_huge_val{S}());
}}
__device__ inline {T} hipport_{t}add({T} a, {T} b, int dir) {{
  {T} s = a + b, v = s - a, e = (a - (s - v)) + (b - v);  // TwoSum: s + e is exactly a + b
  if (s == 0 && dir < 0) return -(-a - b);  // an exact zero is -0 when rounding down
  return hipport_step(s, hipport_sign(e), __builtin_isfinite(a) && __builtin_isfinite(b), dir);
}}
"""
# A float's product, remainder and residual are exact in double; a double's are exact with a
# fused multiply-add unless they fall below the normal range.
_EXACT = {
    "float": """\
__device__ inline float hipport_fmul(float a, float b, int dir) {
  float p = a * b;
  return hipport_step(p, hipport_sign((double)a * b - p), __builtin_isfinite(a) && __builtin_isfinite(b), dir);
}
__device__ inline float hipport_fdiv(float a, float b, int dir) {
  float q = a / b;
  int err = hipport_sign(__builtin_fma(-(double)q, b, a)) * (b < 0 ? -1 : 1);
  return hipport_step(q, err, __builtin_isfinite(a) && __builtin_isfinite(b) && b != 0, dir);
}
__device__ inline float hipport_fsqrt(float a, int dir) {
  float s = __builtin_sqrtf(a);
  return hipport_step(s, hipport_sign(__builtin_fma(-(double)s, s, a)), __builtin_isfinite(a) && a >= 0, dir);
}
""",
    "double": """\
__device__ inline double hipport_dmul(double a, double b, int dir) {
  double p = a * b;
  return hipport_step(p, hipport_sign(__builtin_fma(a, b, -p)), __builtin_isfinite(a) && __builtin_isfinite(b), dir);
}
__device__ inline double hipport_ddiv(double a, double b, int dir) {
  double q = a / b;
  int err = hipport_sign(__builtin_fma(-q, b, a)) * (b < 0 ? -1 : 1);
  return hipport_step(q, err, __builtin_isfinite(a) && __builtin_isfinite(b) && b != 0, dir);
}
__device__ inline double hipport_dsqrt(double a, int dir) {
  double s = __builtin_sqrt(a);
  return hipport_step(s, hipport_sign(__builtin_fma(-s, s, a)), __builtin_isfinite(a) && a >= 0, dir);
}
""",
}


def _block() -> str:
    parts = [f"#ifndef {GUARD}\n#define {GUARD}\n",
             "// hipport: HIP 5.2 declares CUDA's directed-rounding arithmetic but does not define it.\n"
             "// Round to nearest, then step one ulp in the asked direction when the exact error\n"
             "// (an error-free transformation) points that way: CUDA's result, bar double results\n"
             "// within a few ulps of the subnormal range.\n",
             "template <class T> __device__ inline int hipport_sign(T e) { return (e > 0) - (e < 0); }\n"]
    for t, (T, nxt, big, suffix) in _TYPES.items():
        parts.append(_STEP.format(T=T, t=t, NEXT=nxt, MAX=big, S=suffix) + _EXACT[T])
        for op, (arity, call) in _OPS.items():
            params = f"{T} a, {T} b" if arity == 2 else f"{T} a"
            for d, sign in DIRECTIONS.items():
                parts.append(f"__device__ inline {T} hipport_{t}{op}_{d}({params}) "
                             f"{{ return hipport_{t}{call}, {sign}); }}\n")
    parts.append("#endif\n")
    return "".join(parts)


BLOCK = _block()


def run(ctx: Context) -> None:
    data = ctx.src.data
    if GUARD.encode() in data or not QUICK.search(data):
        return
    for m in USE.finditer(data):
        node = ctx.src.node_at(m.start(), m.end())
        if node is None or node.type in SKIP_TYPES or node.type in ("preproc_arg", "preproc_params"):
            continue
        if ctx.hip and ctx.hip.covers(m.start(), m.end()):
            continue
        if m.group().decode() in ctx.defines:
            continue  # the project defines it itself
        write_before(ctx, node, BLOCK, FixKind.ROUNDING)
        return
