"""Cooperative-groups features HIP 5.2 lacks, written in HIP terms.

- `<cooperative_groups/reduce.h>` has no HIP counterpart: its include becomes HIP's
  cooperative-groups header followed by a reduction of hipport's own (a shuffle loop over the
  tile, exact at any tile width up to the 64-lane wavefront) under the names `cg::reduce`,
  `cg::plus`, `cg::less`, `cg::greater`, `cg::bit_and`, `cg::bit_or`, `cg::bit_xor`. A value
  that is not an integer or float (a struct of a running max and sum) is shuffled word by word.
- `tile.meta_group_rank()` / `tile.meta_group_size()` (HIP 6.2) are computed from the
  thread block's rank and size, which is what they mean for a tile of the thread block (the
  usual `tiled_partition<N>(this_thread_block())`); a tile of a tile is not, so each site
  gets a note to check.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.translate.context import Context
from hipport.translate.includes import _include_lines, _is_include_directive, _line_end

REDUCE_HEADER = "cooperative_groups/reduce.h"
META = {"meta_group_rank": "(cooperative_groups::this_thread_block().thread_rank() / ({g}).size())",
        "meta_group_size": "((cooperative_groups::this_thread_block().size() + ({g}).size() - 1) / ({g}).size())"}
_META = re.compile(rb"\bmeta_group_(?:rank|size)\b")

# Written once per translation unit (the guard), after HIP's cooperative-groups header.
REDUCE_BLOCK = """\
#ifndef HIPPORT_CG_REDUCE
#define HIPPORT_CG_REDUCE
// hipport: HIP has no cooperative_groups/reduce.h; this reduction over a tile or a coalesced
// group stands in for cg::reduce (every thread of the group gets the result, as in CUDA).
namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(const T& a, const T& b) const { return a ^ b; } };
// HIP's group shuffles move integers and floats only; a struct (a running max and sum) moves
// as 32-bit words, each with the group's own shuffle, as CUDA moves it.
struct hipport_shfl_xor { template <class G, class V> __device__ V operator()(const G& g, V v, unsigned int n) const { return g.shfl_xor(v, n); } };
struct hipport_shfl_down { template <class G, class V> __device__ V operator()(const G& g, V v, unsigned int n) const { return g.shfl_down(v, n); } };
struct hipport_shfl { template <class G, class V> __device__ V operator()(const G& g, V v, unsigned int n) const { return g.shfl(v, n); } };
template <class How, class G, class T> __device__ T hipport_move(const G& g, T v, unsigned int n, std::true_type) { return How()(g, v, n); }
template <class How, class G, class T> __device__ T hipport_move(const G& g, T v, unsigned int n, std::false_type) {
  int w[(sizeof(T) + sizeof(int) - 1) / sizeof(int)] = {};
  __builtin_memcpy(w, &v, sizeof(T));
  for (unsigned int k = 0; k < sizeof(w) / sizeof(int); ++k) w[k] = How()(g, w[k], n);
  __builtin_memcpy(&v, w, sizeof(T));
  return v;
}
template <class How, class G, class T> __device__ T hipport_move(const G& g, T v, unsigned int n) {
  return hipport_move<How>(g, v, n, std::integral_constant<bool, std::is_arithmetic<T>::value>());
}
template <unsigned int Size, class Parent, class T, class Op>
__device__ T reduce(const thread_block_tile<Size, Parent>& g, T value, Op op) {
  for (unsigned int lanes = Size / 2; lanes > 0; lanes /= 2) value = op(value, hipport_move<hipport_shfl_xor>(g, value, lanes));
  return value;
}
template <class T, class Op>
__device__ T reduce(const coalesced_group& g, T value, Op op) {
  for (unsigned int lanes = 1; lanes < g.size(); lanes *= 2) {
    T other = hipport_move<hipport_shfl_down>(g, value, lanes);
    if (g.thread_rank() + lanes < g.size()) value = op(value, other);
  }
  return hipport_move<hipport_shfl>(g, value, 0);
}
}  // namespace cooperative_groups
#endif
"""


def run(ctx: Context) -> None:
    data = ctx.src.data
    if REDUCE_HEADER.encode() in data:
        _reduce_header(ctx)
    if b"meta_group_" in data and not ctx.floor.has("cg-meta-group"):
        _meta_groups(ctx)


def _reduce_header(ctx: Context) -> None:
    data = ctx.src.data
    for _, m in _include_lines(data):
        if m.group(2) != REDUCE_HEADER.encode() or not _is_include_directive(ctx, m.start(1)):
            continue
        at = _line_end(data, m.end())
        nl = ctx.src.newline
        block = REDUCE_BLOCK.replace("\n", nl)
        if at == len(data) and not data.endswith(b"\n"):
            block = nl + block
        ctx.edit(at, at, block, FixKind.INCLUDE)
        ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, m.start(2), m.end(2),
                   "HIP has no cooperative_groups/reduce.h: hipport writes a shuffle reduction "
                   "for cg::reduce and its operators here (exact at any tile width up to 64)",
                   "cooperative_groups")


def _meta_groups(ctx: Context) -> None:
    data = ctx.src.data
    rewritten: list[tuple[int, int]] = []
    for m in _META.finditer(data):
        node = ctx.src.node_at(m.start(), m.end())
        if node is None or node.type != "field_identifier":
            continue
        field = node.parent
        call = field.parent if field is not None else None
        if field is None or call is None or field.type != "field_expression" \
                or call.type != "call_expression":
            continue
        args = call.child_by_field_name("arguments")
        obj = field.child_by_field_name("argument")
        if obj is None or args is None or args.named_child_count:
            continue
        op = ctx.src.data[obj.end_byte:node.start_byte].strip()
        group = ctx.src.text(obj) if op == b"." else f"*({ctx.src.text(obj)})"
        name = m.group(0).decode()
        ctx.edit(call.start_byte, call.end_byte, META[name].format(g=group), FixKind.RENAME)
        rewritten.append((call.start_byte, call.end_byte))
        ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, node.start_byte, node.end_byte,
                   f"{name}() is not in HIP 5.2: computed from the thread block, which is right "
                   f"for a tile of the thread block; check it if this tile's parent is a tile",
                   "cooperative_groups")
    if rewritten:  # the "needs ROCm 6.2" notes are moot where the call is rewritten
        ctx.findings = [f for f in ctx.findings if not (f.rule == HP.NEEDS_NEWER_ROCM and any(
            s <= f.span.start < e for s, e in rewritten))]
