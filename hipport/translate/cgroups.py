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
- CUDA 12's member spellings HIP lacks (`block.num_threads()`, `grid.num_blocks()`,
  `grid.block_rank()`, `block.dim_threads()`, ...) are written as the tables' `expr` for the
  group's type (rules/api/cooperative_groups.toml: `size()`, a linearised `blockIdx`, ...),
  where the file says the type: a declaration, or the call that makes the group.
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.includes import _include_lines, _is_include_directive, _line_end

REDUCE_HEADER = "cooperative_groups/reduce.h"
META = {"meta_group_rank": "(cooperative_groups::this_thread_block().thread_rank() / ({g}).size())",
        "meta_group_size": "((cooperative_groups::this_thread_block().size() + ({g}).size() - 1) / ({g}).size())"}
_META = re.compile(rb"\bmeta_group_(?:rank|size)\b")
CG = "cooperative_groups"
# The group type a call makes (a `tiled_partition(g, n)` of a run-time size is a thread_group).
MAKERS = {"this_grid": "grid_group", "this_thread_block": "thread_block", "coalesced_threads": "coalesced_group",
          "this_multi_grid": "multi_grid_group", "tiled_partition<": "thread_block_tile",
          "tiled_partition": "thread_group"}
_FUNCTIONS = ("function_definition", "lambda_expression")
GROUPS = ("grid_group", "thread_block_tile", "thread_block", "coalesced_group", "thread_group", "multi_grid_group")

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
    if CG in ctx.families:
        _members(ctx)


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


def _members(ctx: Context) -> None:
    """`g.member()` where HIP at the floor lacks the member and the tables give an `expr` for
    g's group type: written as that expression; the bare name's report there goes."""
    data = ctx.src.data
    members = {k.rsplit("::", 1)[1] for k, m in ctx.rules.qualified.items() if m.expr and k.startswith(CG + "::")}
    if not members:
        return
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(m.encode()) for m in sorted(members)) + rb")\b")
    done: list[tuple[int, int, str]] = []
    for m in pattern.finditer(data):
        node = ctx.src.node_at(m.start(), m.end())
        field = node.parent if node is not None and node.type == "field_identifier" else None
        call = field.parent if field is not None else None
        if node is None or field is None or call is None or field.type != "field_expression" \
                or call.type != "call_expression" or call.child_by_field_name("function") != field:
            continue
        args, obj = call.child_by_field_name("arguments"), field.child_by_field_name("argument")
        if obj is None or args is None or args.named_child_count:
            continue
        name = m.group(0).decode()
        group = _group_type(ctx, obj)
        rule = ctx.rules.qualified.get(f"{CG}::{group}::{name}") if group else None
        if rule is None or rule.expr is None or not (rule.status == "unsupported" or not ctx.floor.at_least(rule.since)):
            continue
        op = data[obj.end_byte:node.start_byte].strip()
        g = ctx.src.text(obj) if op == b"." else f"(*{ctx.src.text(obj)})"
        ctx.edit(call.start_byte, call.end_byte, rule.expr.format(g=g), FixKind.RENAME)
        done.append((node.start_byte, node.end_byte, name))
        ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, node.start_byte, node.end_byte,
                   f"{group}::{name}() is not in HIP at ROCm {ctx.config.rocm}: written as "
                   f"{rule.expr.format(g='g')}", CG)
    if not done:
        return
    # The names pass reported the bare member (HP001 unsupported, HP003 newer) and counted it:
    # it is ported now.
    spans = {(s, e) for s, e, _ in done}
    count = ctx.families[CG]
    kept = []
    for f in ctx.findings:
        if f.rule in (HP.UNSUPPORTED_API, HP.NEEDS_NEWER_ROCM) and (f.span.start, f.span.end) in spans:
            if f.rule == HP.UNSUPPORTED_API:
                count.unsupported -= 1
                count.ported += 1
            continue
        kept.append(f)
    ctx.findings = kept


def _group_type(ctx: Context, obj: Node) -> str | None:
    """The cooperative-groups type of `obj` (`grid_group`, `thread_block_tile`, ...): from the
    call that makes it, or the last declaration of the variable it names in its function
    (`auto` from the call that makes its value). Declarations are read from the text:
    tree-sitter takes `cg::thread_block_tile<16> t = ...` for a comparison in some files."""
    if obj.type == "call_expression":
        fn = obj.child_by_field_name("function")
        return _made(ctx, re.sub(r"\s+", "", ctx.src.text(fn)) if fn is not None else "")
    if obj.type != "identifier":
        return None
    fn = next((a for a in ctx.src.ancestors(obj) if a.type in _FUNCTIONS), None)
    if fn is None:
        return None
    name = re.escape(ctx.src.text(obj))
    text = ctx.src.data[fn.start_byte:obj.start_byte].decode("utf-8", "replace")
    typed = rf"((?:\w+::)*)({'|'.join(GROUPS)})\s*(?:<[^;{{}}]*?>)?\s*(?:const\s*)?[&*]?\s*\b{name}\s*(?=[=;,)({{\[])"
    auto = rf"\bauto\s*[&*]?\s*\b{name}\s*=\s*((?:\w+::)*\w+\s*<?)"
    best: tuple[int, str | None] = (-1, None)
    for m in re.finditer(typed, text):
        best = (m.start(), m.group(2) if _in_cg(ctx, m.group(1) + m.group(2)) else None)
    for m in re.finditer(auto, text):
        if m.start() > best[0]:
            best = (m.start(), _made(ctx, re.sub(r"\s+", "", m.group(1))))
    return best[1]


def _made(ctx: Context, fn: str) -> str | None:
    """The group type a call of `fn` (`cg::this_grid`, `cg::tiled_partition<16>`) makes."""
    name = fn.split("<", 1)[0]
    key = name.rsplit("::", 1)[-1] + ("<" if "<" in fn else "")
    return MAKERS.get(key) if _in_cg(ctx, name) else None


def _in_cg(ctx: Context, qualified: str) -> bool:
    """Is `qualified` (`cg::this_grid`, `cooperative_groups::grid_group`, `grid_group`) a name
    of the cooperative-groups namespace? A bare name counts where the file uses the namespace."""
    if "::" not in qualified:
        return b"using namespace cooperative_groups" in ctx.src.data
    space = qualified.rsplit("::", 1)[0].lstrip(":")
    if space == CG:
        return True
    return re.search(rb"namespace\s+" + re.escape(space.encode()) + rb"\s*=\s*(?:::)?cooperative_groups\s*;",
                     ctx.src.data) is not None
