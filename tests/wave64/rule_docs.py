"""The text of rules/wave64/W0nn.md, and the writer that renders it.

    python -m tests.wave64.rule_docs       # rewrite rules/wave64/*.md

Prose lives here; the "HIP after" examples are produced by running the pass on the "CUDA before"
snippet, so a doc always shows what hipport emits (tests/wave64/test_docs.py re-checks that).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from hipport.wave64.registry import RULES
from tests.wave64.helpers import ROOT, port

DOCS_DIR = ROOT / "rules" / "wave64"
HEADINGS = ("What it does", "Why is this bad?", "Example", "Fix safety", "Options", "How to suppress",
            "References")
ROCM_REFS = {
    "sync": "HIP 6.2 adds the `*_sync` warp builtins behind `HIP_ENABLE_WARP_SYNC_BUILTINS`; HIP 7.0 enables"
            " them by default and adds `__syncwarp` and `__reduce_*_sync` (ROCm/clr CHANGELOG.md, HIP 6.2 and 7.0);"
            " masks must be 64-bit (`static_assert` in `amd_warp_sync_functions.h`, tag rocm-6.2.0).",
    "ballot": "`__ballot`, `__activemask`, `__match_*` return `unsigned long long` on every AMD target; the"
              " upper 32 bits are zero on wave32 (HIP 5.2 `amd_warp_functions.h`; HIP docs, warp cross-lane"
              " functions).",
    "width": "`__shfl*(var, lane, width = warpSize)`: the default width is the wave size, 64 on CDNA (HIP 5.2"
             " and 7.x `amd_warp_functions.h`).",
    "warpsize7": "HIP 7.0: `warpSize` is no longer `constexpr` (ROCm/clr CHANGELOG.md, HIP 7.0); it cannot size"
                 " arrays, be a template argument or appear in `static_assert` (turboderp-org/exllamav2 PR #815,"
                 " ROCm/rocm-libraries issue #3153).",
    "arch": "AMD's recipe for a compile-time wave size: `__GFX8__` / `__GFX9__` -> 64, else 32 (HIP docs,"
            " `how-to/hip_cpp_language_extensions.rst`, warpSize); host code must query"
            " `hipDeviceAttributeWarpSize` at run time (vllm-project/vllm PR #22822).",
    "waves": "CDNA GPUs (gfx9: MI100, MI200, MI300, MI350) run 64-lane wavefronts; RDNA (gfx10+) runs 32-lane"
             " waves under HIP (`-mwavefrontsize64` is not supported by the HIP runtime).",
    "design": "hipport design notes: shared/design/wave64.md §3 (strategies and the consistency rule) and §4"
              " (this hazard).",
}


@dataclass(frozen=True)
class Doc:
    what: str
    why: str
    before: str
    safety: str
    refs: tuple[str, ...]
    rocm: str = "5.2"
    suppress_line: str = ""


def _k(body: str, head: str = "") -> str:
    return "#include <hip/hip_runtime.h>\n" + head + body


DOCS: dict[str, Doc] = {
    "W001": Doc(
        what="Finds `__shfl*_sync`, `__ballot_sync`, `__any_sync` and `__all_sync` calls whose mask is 32-bit "
             "(`0xffffffff`, `~0u`, an `unsigned` variable), and, below a ROCm 7.0 floor, every such call: HIP "
             "does not declare them before 6.2 and hides them behind `HIP_ENABLE_WARP_SYNC_BUILTINS` until 7.0.",
        why="A CUDA full mask is a compile error twice over: the builtin is undeclared on ROCm 5.x, and from 6.2 "
            "HIP's `static_assert` rejects any mask that is not a 64-bit integer. The tempting fix, "
            "`0xffffffffull`, compiles but names only lanes 0-31 while 64 lanes call: a mask-check trap without "
            "`NDEBUG`, undefined behaviour with it.",
        before=_k("__global__ void k(float* p) {\n"
                  "  const int lane = threadIdx.x & 31;\n"
                  "  float v = p[threadIdx.x] + lane;\n"
                  "  v += __shfl_xor_sync(0xffffffff, v, 1);\n"
                  "  p[threadIdx.x] = __shfl_sync(0xffffffff, v, 0);\n"
                  "}\n"),
        safety="Safe when the kernel's model is unambiguous: below a 7.0 floor the call becomes its non-sync form "
               "(AMD waves run in lockstep, so the mask only restricted which lanes may be read); a ballot with a "
               "partial mask keeps the mask as `mask & __ballot(p)`. With a 7.0 floor a full mask becomes `~0ull` "
               "(native) or the caller's half `0xffffffffull << (__lane_id() & 32)` (logical32); any other mask "
               "is a review fix.",
        refs=("sync", "design")),
    "W002": Doc(
        what="Finds ballot, `__activemask` and `__match_any_sync` results stored in, cast to, returned as or "
             "passed as a 32-bit integer, and 32-bit variables that receive such a mask through other "
             "variables. In 32-lane code it also reports a ballot used as a whole-wave mask.",
        why="On AMD these return `unsigned long long`. `unsigned m = __ballot(p)` drops lanes 32-63 without any "
            "diagnostic under `-Wall -Wextra` (only `-Wshorten-64-to-32` warns); every count or position "
            "derived from `m` then ignores half of the wave.",
        before=_k("__global__ void k(const int* in, int* count) {\n"
                  "  const int lane = threadIdx.x % 32;\n"
                  "  unsigned m = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);\n"
                  "  if (lane == 0) atomicAdd(count, __popc(m));\n"
                  "}\n"),
        safety="Safe in a kernel with an unambiguous model: logical32 takes the caller's 32-lane half "
               "`(unsigned)(__ballot(p) >> (__lane_id() & 32))`, which has CUDA's bit layout, so the 32-bit "
               "variable and everything downstream stay as written; native widens the variable (or parameter, "
               "return type, cast) to `unsigned long long`. A declaration shared with other names is reported "
               "without a fix.",
        refs=("ballot", "design")),
    "W003": Doc(
        what="Finds `__popc`, `__ffs`, `__clz`, `__brev`, `__fns32` and the `__builtin_*` 32-bit bit operations "
             "applied to a wave mask, the constants around them (`31 - __clz(m)`, `m == 0xffffffff`) and loops "
             "over the bits of a mask that stop at 32.",
        why="The 32-bit overloads silently take the truncated mask: counts, first and last lanes ignore lanes "
            "32-63. `31 - __clz(m)` and `== 0xffffffff` assume 32 lanes.",
        before=_k("__global__ void k(const int* in, int* out) {\n"
                  "  unsigned long long m = __ballot(in[threadIdx.x] != 0);\n"
                  "  out[threadIdx.x] = __popc(m) + (31 - __clz(m)) + (__ffs(m) - 1);\n"
                  "}\n"),
        safety="Native renames to the 64-bit forms (`__popcll`, `__ffsll`, `__clzll` with `63 -`, `__brevll`, "
               "`__fns64`): safe for popc/ffs/fns, review for a bare `__clz`/`__brev` whose result changes "
               "meaning with 64 bits. Under logical32 the mask is the caller's 32-lane half, so the 32-bit forms "
               "stay (only a ballot passed directly is narrowed to the half). A comparison with `0xffffffff` "
               "becomes a comparison with the full wave `(~0ull >> (64 - warpSize))`: review.",
        refs=("ballot", "design")),
    "W004": Doc(
        what="Finds lane ids computed as `tid & 31`, `tid % 32` or `tid & 0x1f` (tid derived from `threadIdx`), "
             "and loops that stride over lanes by 32, in functions that use warp operations. In a mixed kernel "
             "it also reports the wave-wide forms (`tid % warpSize`, `__lane_id()`).",
        why="A wave64 lane is 0..63. The 32-lane id is right only if every other warp-size site of the kernel "
            "also keeps 32-lane logical warps; mixed with wave-wide shuffles, ballot bit positions or "
            "`warpSize`-based warp ids it aliases lanes and silently produces wrong results.",
        before=_k("__global__ void k(const float* in, float* out) {\n"
                  "  const int lane = threadIdx.x & 31;\n"
                  "  float v = in[threadIdx.x];\n"
                  "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n"
                  "  if (lane == 0) out[threadIdx.x >> 5] = v;\n"
                  "}\n"),
        safety="Never safe: under logical32 the id stays (reported as info); natively it becomes "
               "`tid & (warpSize - 1)` or `tid % warpSize` as part of the whole-kernel rewrite, a review fix "
               "(equal to `__lane_id()` for 1-D blocks; for 2-D blocks lanes follow the linearized thread id).",
        refs=("waves", "design")),
    "W005": Doc(
        what="Finds warp ids and warp counts computed as `tid >> 5`, `tid / 32`, `blockDim.x / 32`, "
             "`(n + 31) / 32`, lanes compared with `BLOCK / 32`, and `tid < 32` guards around warp collectives.",
        why="With 64-lane waves a block holds half as many warps: per-warp indices, final-stage guards and "
            "partial counts all change. Mixed with wave-wide reductions they read slots nobody wrote or skip "
            "data.",
        before=_k("__global__ void k(const float* in, float* out) {\n"
                  "  const int warp = threadIdx.x >> 5;\n"
                  "  const int nwarps = (blockDim.x + 31) / 32;\n"
                  "  float v = in[threadIdx.x];\n"
                  "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);\n"
                  "  if ((threadIdx.x & 31) == 0) out[blockIdx.x * nwarps + warp] = v;\n"
                  "}\n"),
        safety="Review: natively `>> 5` and `/ 32` become `/ warpSize` (a run-time value, right on ROCm 7 outside "
               "constant expressions; array bounds are W007/W008). Under logical32 they stay.",
        refs=("waves", "warpsize7", "design")),
    "W006": Doc(
        what="Finds shuffle reductions and scans sized for 32 lanes with the default width: loops starting at "
             "16, scans bounded by 32, unrolled 16/8/4/2/1 steps, bitonic stages bounded by 32, and shuffles "
             "pinned to width 32 in code that is made wave-agnostic.",
        why="With the default width of 64 a loop from 16 reduces each 32-lane half of the wave separately. That "
            "is right only if the bookkeeping also keeps 32-lane warps; once a kernel reads the result as the "
            "wave's (`lane == 0` of `tid % warpSize`) lane 0 holds half the sum (528 instead of 2080 for lanes "
            "holding 1..64). Scans cross the 32-lane boundary.",
        before=_k("__device__ float warp_sum(float v) {\n"
                  "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
                  "  return v;\n"
                  "}\n\n"
                  "__global__ void k(const float* in, float* out) {\n"
                  "  float v = warp_sum(in[threadIdx.x]);\n"
                  "  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;\n"
                  "}\n"),
        safety="Logical32 passes `width = 32`: safe, each 32-lane half of the wave computes exactly what the CUDA "
               "warp computed (bit-identical floating-point results). Natively the loop starts at "
               "`warpSize / 2` (or is bounded by `warpSize`) and an unrolled sequence gets a delta-32 step: a "
               "review fix (the reduction tree changes, float results may differ in the last bits).",
        refs=("width", "design")),
    "W007": Doc(
        what="Finds `__shared__` arrays sized by 32, 33 or `X / 32` and indexed by a lane or warp id. A 32x33 "
             "transpose tile or a 32-bin histogram indexed by data is not reported.",
        why="Natively a wave has up to 64 lanes and a block half as many warps. A per-lane buffer `[32]` indexed "
            "by the lane is written out of bounds by lanes 32-63 (silent LDS corruption); a per-warp buffer "
            "sized for 32-lane warps is an upper bound for any wave size and stays correct.",
        before=_k("__global__ void k(const float* in, float* out) {\n"
                  "  __shared__ float per_lane[32];\n"
                  "  const int lane = threadIdx.x & 31;\n"
                  "  float v = __shfl_xor(in[threadIdx.x], 1);\n"
                  "  if (threadIdx.x < 64) per_lane[lane] = v;\n"
                  "  __syncthreads();\n"
                  "  out[threadIdx.x] = per_lane[lane];\n"
                  "}\n"),
        safety="Review: natively a per-lane bound becomes 64 (the largest wave; `65` for a padded 33); per-warp "
               "arrays are kept and reported as info, as are arrays under logical32. Arrays bounded by a "
               "warp-size constant follow that constant (W008). `warpSize` cannot be an array bound on ROCm 7.",
        refs=("warpsize7", "design")),
    "W008": Doc(
        what="Finds warp-size constants of 32 (`#define WARP_SIZE 32`, `constexpr int kWarpSize = 32`, "
             "enumerators, template parameters defaulted to 32) and `warpSize` used where a constant expression "
             "is required (array bound, template argument, `static_assert`, constexpr initializer or return).",
        why="The constant is wrong on CDNA and everything derived from it inherits W004-W007. Constant uses of "
            "`warpSize` compile on ROCm 6.x and fail on ROCm 7, where `warpSize` is a run-time value.",
        before=_k("#define WARP_SIZE 32\n\n"
                  "__global__ void k(float* out) {\n"
                  "  __shared__ float s[warpSize];\n"
                  "  const int lane = threadIdx.x % WARP_SIZE;\n"
                  "  s[lane] = __shfl_xor(out[threadIdx.x], 1);\n"
                  "  __syncthreads();\n"
                  "  out[threadIdx.x] = s[(lane + 1) % WARP_SIZE];\n"
                  "}\n"),
        safety="A 32 constant is kept under logical32 (it is the logical warp size); natively it becomes "
               "`HIPPORT_WAVE_SIZE`, a per-architecture constant defined once, inline, after the file's includes "
               "(64 on gfx8/gfx9, 32 on gfx10+ and NVIDIA, 64 as an array bound in the host pass): review. A "
               "constant use of `warpSize` becomes `HIPPORT_WAVE_SIZE` (32 under logical32): safe, it has the "
               "same value in every device pass.",
        refs=("warpsize7", "arch", "design")),
    "W009": Doc(
        what="Finds cooperative-groups tiles of 32 (`tiled_partition<32>`, `thread_block_tile<32>`, "
             "`tiled_partition(g, 32)`) used as the warp, and the tile members `ballot`, `any`, `all`, "
             "`match_any`, `meta_group_rank`, `meta_group_size` that HIP lacks below 7.0.",
        why="A 32-thread tile is legal on wave64 and already behaves as a 32-lane logical warp (tile shuffles "
            "pass width 32), so under logical32 it is right as written. The tile members do not compile on "
            "ROCm 5.x. The over-correction `tiled_partition<64>` fails on wave32 targets (W019).",
        before=_k("#include <hip/hip_cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\n"
                  "__global__ void k(const float* in, int* out) {\n"
                  "  auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
                  "  unsigned b = tile.ballot(in[threadIdx.x] > 0.f);\n"
                  "  if (tile.thread_rank() == 0) out[threadIdx.x / 32] = __popc(b);\n"
                  "}\n"),
        safety="Tile members become plain wave operations restricted to the caller's 32-lane half (logical32) or "
               "over the whole wave (native): safe, `meta_group_*` is a review (1-D blocks). Natively the tile "
               "becomes `tiled_partition<HIPPORT_WAVE_SIZE>`: review.",
        refs=("sync", "arch", "design")),
    "W010": Doc(
        what="Finds `__syncwarp`, `__activemask`, `__match_any_sync`, `__match_all_sync` and `__reduce_*_sync`, "
             "which the ROCm floor lacks (6.2 behind a macro, 7.0 by default), and their 32-bit masks from 7.0.",
        why="Below the floor they do not compile. From 7.0 their masks must be 64-bit like W001's.",
        before=_k("__global__ void k(const int* keys, unsigned* out, int* sums) {\n"
                  "  const int key = keys[threadIdx.x];\n"
                  "  const unsigned peers = __match_any_sync(__activemask(), key);\n"
                  "  __syncwarp();\n"
                  "  const int total = __reduce_add_sync(0xffffffff, key);\n"
                  "  out[threadIdx.x] = peers;\n"
                  "  if ((threadIdx.x & 31) == 0) sums[threadIdx.x / 32] = total;\n"
                  "}\n"),
        safety="Safe: `__activemask()` -> `__ballot(1)`; `__syncwarp()` -> a wave-scope release fence, wave "
               "barrier and acquire fence (what HIP 7.0 does); `__match_any_sync` -> a small inline "
               "`hipport_match_any` helper; `__reduce_<op>_sync` -> an inline butterfly helper over 32 lanes "
               "(logical32) or `warpSize` (native); a reduction with a partial mask is a review. "
               "`__match_all_sync` is reported without a fix.",
        refs=("sync", "design")),
    "W011": Doc(
        what="Finds lane masks built with a 32-bit shift by a lane number: `1u << lane`, `(1u << lane) - 1`, "
             "`0xffffffffu >> (32 - n)`.",
        why="A shift count of 32 or more is undefined behaviour; the 32-bit shifter uses the count's low five "
            "bits, so lane 33 gets bit 1 and ranks computed from the mask are wrong.",
        before=_k("__global__ void k(const int* in, int* out) {\n"
                  "  const unsigned lane = __lane_id();\n"
                  "  const unsigned long long keep = __ballot(in[threadIdx.x] > 0);\n"
                  "  out[threadIdx.x] = __popcll(keep & ((1u << lane) - 1));\n"
                  "}\n"),
        safety="Natively the constant becomes `1ull` / `~0ull` (and `32 -` becomes `64 -`) and a 32-bit variable "
               "holding the mask becomes 64-bit: safe in a wave-agnostic kernel, review otherwise. Under "
               "logical32 lanes are 0..31 and the masks stay.",
        refs=("waves", "design")),
    "W012": Doc(
        what="Finds inline PTX with lane or warp semantics in device code: `%laneid`, `%lanemask_*`, "
             "`activemask`, `%warpid`, `shfl.sync`, `vote`, `match`, `redux`. PTX without them (`cvt.rn.f16.f32`, "
             "`ld.global.cs`, `bfe`) holds no warp-size assumption and is not reported here.",
        why="HIP-Clang compiles device code to AMDGCN, so any PTX `asm()` is a compile error (\"invalid "
            "instruction\"); HIPIFY does not translate inline assembly.",
        before=_k("__device__ unsigned lane_ptx() {\n"
                  "  unsigned r;\n"
                  "  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r));\n"
                  "  return r;\n"
                  "}\n\n"
                  "__global__ void k(unsigned* out) {\n"
                  "  out[threadIdx.x] = lane_ptx() + __shfl_xor(out[threadIdx.x], 1);\n"
                  "}\n"),
        safety="Safe for `%laneid` (`__lane_id()`, `& 31` under logical32), `%lanemask_*` (computed from the "
               "lane) and `activemask` (`__ballot(1)`); `%warpid` becomes a 1-D warp index (review). Other PTX "
               "with warp semantics is reported without a fix.",
        refs=("design",)),
    "W013": Doc(
        what="Finds CUB / hipCUB warp primitives (`WarpReduce`, `WarpScan`, `WarpExchange`, `WarpLoad`, "
             "`WarpStore`, `WarpMergeSort`) that leave the logical warp width at its default.",
        why="CUB's default is 32 threads; hipCUB's is the device wave, 64 on CDNA. After the port the two 32-lane "
            "halves of a wave call one 64-lane collective with different TempStorage slots.",
        before="#include <hip/hip_runtime.h>\n#include <hipcub/hipcub.hpp>\n\n"
               "__global__ void k(const float* in, float* out) {\n"
               "  typedef hipcub::WarpReduce<float> WarpReduce;\n"
               "  __shared__ typename WarpReduce::TempStorage tmp[256 / 32];\n"
               "  float s = WarpReduce(tmp[threadIdx.x / 32]).Sum(in[threadIdx.x]);\n"
               "  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = s;\n"
               "}\n",
        safety="Logical32 pins the width to 32: safe (rocPRIM supports logical warps smaller than the wave). "
               "Natively it is pinned to `HIPPORT_WAVE_SIZE`: review.",
        refs=("arch", "design")),
    "W014": Doc(
        what="Finds kernel launches whose block is one 32-thread warp (`<<<n, 32>>>`, `dim3(32)`, "
             "`dim3 block(32, N)`, `hipLaunchKernelGGL(k, g, 32, ...)`) of a kernel with warp operations, grids "
             "computed for 32-lane warps (`ceil_div(N * 32, block)`) for a kernel that maps its work by "
             "`warpSize`, launches sized by the host's queried wave size for a kernel kept at 32 lanes, and "
             "`warpSize` read in host code (not a host variable of that name).",
        why="Under logical32 a block whose thread count is not a multiple of 64 leaves part of a wave64 idle "
            "(`dim3(32, 4)` fills two waves and is not reported). Once the kernel "
            "is wave-agnostic a 32-thread block fills half a wave and `warpSize`-strided loops skip half the data. "
            "Host code is compiled once for every offload target, so no host constant is the wave size: "
            "`warpSize` on the host is 64 for every AMD GPU on ROCm 6 and does not compile on ROCm 7.",
        before=_k("__global__ void row_sum(const float* in, float* out, int cols) {\n"
                  "  float v = 0.f;\n"
                  "  for (int c = threadIdx.x; c < cols; c += warpSize) v += in[blockIdx.x * cols + c];\n"
                  "  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);\n"
                  "  if (threadIdx.x == 0) out[blockIdx.x] = v;\n"
                  "}\n\n"
                  "void launch(const float* in, float* out, int rows, int cols) {\n"
                  "  hipLaunchKernelGGL(row_sum, dim3(rows), dim3(32), 0, 0, in, out, cols);\n"
                  "}\n"),
        safety="Review: the block becomes `hipport_warp_size()`, a small inline host helper that queries "
               "`hipDeviceAttributeWarpSize`; `dim3(32, N)` becomes `dim3(hipport_warp_size(), N)` (one wave per "
               "row, same grid). Under logical32 launches are kept and reported as info.",
        refs=("arch", "design")),
    "W015": Doc(
        what="Finds 16-lane half-warp bit tricks on wave masks: `m >> 16`, `m & 0xffff`, `m & 0xffff0000`, and "
             "`*_sync` masks `0xffff` / `0xffff0000`. Shuffles with an explicit width of 16 are fine and are not "
             "reported.",
        why="On a 64-bit ballot `m >> 16` returns lanes 16-47 and `0xffff0000` names only the first logical "
            "warp's upper half; a wave64 has four 16-lane groups.",
        before=_k("__global__ void k(const int* in, int* out) {\n"
                  "  const int lane = threadIdx.x & 31;\n"
                  "  const unsigned b = __ballot(in[threadIdx.x] > 0);\n"
                  "  out[threadIdx.x] = lane < 16 ? __popc(b & 0xffff) : __popc(b >> 16);\n"
                  "}\n"),
        safety="Under logical32 the mask is the caller's 32-lane half and the idioms keep CUDA's meaning (info). "
               "Natively there is no mechanical rewrite: recompute the group's bits from the lane, e.g. "
               "`(m >> (__lane_id() & ~15)) & 0xffff` (no fix, a review).",
        refs=("ballot", "design")),
    "W016": Doc(
        what="Finds broadcast (`__shfl(v, 0)`), rotate (`__shfl(v, lane + 1)`), neighbour (`__shfl_up(v, 1)`) "
             "and last-lane (`__shfl(v, 31)`) shuffles with the default width in 32-lane code, and shuffles pinned "
             "to width 32 when the kernel is made wave-agnostic.",
        why="After the port the default width is the wave: lanes 32-63 receive lane 0 of the wave instead of "
            "lane 32, a rotation wraps at 64, `__shfl(v, 31)` is no longer the last lane.",
        before=_k("__global__ void k(const float* in, float* out) {\n"
                  "  const int lane = threadIdx.x & 31;\n"
                  "  float v = in[threadIdx.x];\n"
                  "  out[threadIdx.x] = __shfl(v, 0) + __shfl(v, lane + 1) + __shfl(v, 31);\n"
                  "}\n"),
        safety="Logical32 passes `width = 32`: safe, CUDA's semantics exactly; below a 5.7 floor a computed "
               "source lane is also masked to the width (W021). Natively the last lane becomes `warpSize - 1` "
               "and width-32 pins are dropped: review.",
        refs=("width", "design")),
    "W017": Doc(
        what="Finds `__any`, `__all`, `__any_sync`, `__all_sync` and `__uni_sync` votes in 32-lane code.",
        why="A vote covers the whole 64-lane wave, so the two 32-lane warps of a wave contaminate each other: "
            "warp 0 sees \"not all\" because a lane of warp 1 is false. HIP has no `__uni_sync` at all.",
        before=_k("__global__ void k(const int* in, int* out) {\n"
                  "  const int v = in[threadIdx.x];\n"
                  "  const int all_pos = __all_sync(0xffffffff, v > 0);\n"
                  "  const int any_big = __any_sync(0xffffffff, v > 1000);\n"
                  "  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = all_pos * 2 + any_big;\n"
                  "}\n"),
        safety="Safe under logical32: the vote is computed from the caller's half of a ballot, "
               "`(unsigned)(__ballot(p) >> (__lane_id() & 32)) != 0` for any and the same ballot of `!p` equal to "
               "0 for all (a ballot counts active lanes only, so this is exact in divergent code). Natively a "
               "wave-wide vote is right; only the `*_sync` form changes.",
        refs=("ballot", "design")),
    "W018": Doc(
        what="Finds spin locks (`while (atomicCAS(&lock, 0, 1) != 0)`) and spin-waits on shared or volatile "
             "memory written by other threads, with no `__syncthreads()` in the loop.",
        why="Lanes of one wave have no independent forward progress: a lane spinning on a lock held by another "
            "lane of the same wave never lets it run. Under logical32 two CUDA warps share one wave, so a "
            "handshake between them deadlocks although it works on CUDA.",
        before=_k("__device__ int lock = 0;\n\n"
                  "__global__ void k(int* counter) {\n"
                  "  while (atomicCAS(&lock, 0, 1) != 0) {}\n"
                  "  *counter += __shfl_xor(*counter, 1);\n"
                  "  atomicExch(&lock, 0);\n"
                  "}\n"),
        safety="No automatic fix: elect one lane per wave (`__ffsll(__ballot(1)) - 1`) to take the lock and "
               "broadcast, put producer and consumer in different waves (`tid / 64`, not `tid / 32`), or use "
               "`__syncthreads()`. Lock-free CAS retry loops and the `volatile` last-warp reduction are fine.",
        refs=("waves", "design")),
    "W019": Doc(
        what="Finds a wave size hard-coded to 64 for every AMD GPU: warp-size constants of 64 (typically under "
             "`#if defined(__HIP_PLATFORM_AMD__)`), `tiled_partition<64>`, a shuffle width of 64. Constants "
             "selected with the `__GFX8__`/`__GFX9__` arch macros are already right and are not reported.",
        why="RDNA GPUs (gfx10+) run 32-lane waves under HIP: the constant is wrong there, and "
            "`tiled_partition<64>` does not compile with HIP <= 6.2 for wave32 targets.",
        before=_k("#if defined(__HIP_PLATFORM_AMD__)\n#define WARP_SIZE 64\n#else\n#define WARP_SIZE 32\n#endif\n\n"
                  "__global__ void k(float* p) {\n"
                  "  float v = p[threadIdx.x];\n"
                  "  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor(v, o, 64);\n"
                  "  p[threadIdx.x] = v;\n"
                  "}\n"),
        safety="Safe: the value becomes `HIPPORT_WAVE_SIZE` (the arch-selected constant) and a width of 64 "
               "becomes `warpSize`; in a mixed kernel rewritten as logical32 they become 32.",
        refs=("arch", "waves", "design")),
    "W020": Doc(
        what="Finds `__AMDGCN_WAVEFRONT_SIZE` and `__AMDGCN_WAVEFRONT_SIZE__` in code, `#if` lines and macro "
             "bodies (not in comments or strings).",
        why="LLVM deprecated the macros in Nov 2024 (a warning with ROCm 6.4+ compilers) and removed them in "
            "Oct 2025: \"use of undeclared identifier\" on ROCm 7.2. In the host pass they are 64 whatever the "
            "target.",
        before=_k("#ifdef __AMDGCN_WAVEFRONT_SIZE\n#define LANES __AMDGCN_WAVEFRONT_SIZE\n#else\n#define LANES 32\n"
                  "#endif\n\n"
                  "__global__ void k(float* p) {\n"
                  "  __shared__ float s[LANES];\n"
                  "  s[threadIdx.x % LANES] = __shfl_xor(p[threadIdx.x], 1);\n"
                  "  __syncthreads();\n"
                  "  p[threadIdx.x] = s[0];\n"
                  "}\n"),
        safety="Safe: a value use becomes `HIPPORT_WAVE_SIZE`, which has the same value in every pass (64 on "
               "gfx8/gfx9, 32 on gfx10+, 64 in the host pass); `defined(...)` / `#ifdef` becomes "
               "`__HIP_PLATFORM_AMD__`. A use before the file's includes is reported without a fix.",
        refs=("arch", "design")),
    "W021": Doc(
        what="Below a ROCm 5.7 floor, finds `__shfl(v, src, w)` (and tile `shfl`) with an explicit width smaller "
             "than the wave whose source lane can reach the width (`lane + 1`, `lane - 1`, `threadIdx.x + k`).",
        why="CUDA and HIP >= 5.7 take the source lane modulo the width. HIP <= 5.6 computes "
            "`src + (self & ~(width - 1))` without it, so `__shfl(v, lane + 1, 32)` at lane 31 reads lane 32 of "
            "the next segment (ROCm/clr commit 23e99dbb0, first in rocm-5.7.0).",
        before=_k("__global__ void k(const int* in, int* out) {\n"
                  "  const int lane = threadIdx.x & 31;\n"
                  "  out[threadIdx.x] = __shfl(in[threadIdx.x], lane + 1, 32);\n"
                  "}\n"),
        safety="Safe: the source becomes `(src) & (w - 1)`, right on every HIP version and on CUDA.",
        refs=("width", "design")),
}

OPTIONS = ("- `wave-strategy` (`auto`, `logical32`, `native`; default `auto`): `auto` keeps 32-lane logical "
           "warps in kernels written for them and makes mixed kernels wave-agnostic; wave-agnostic kernels "
           "stay wave-agnostic under every strategy.\n"
           "- `rocm` (default `5.2`): the oldest ROCm the emitted code must compile on. Below 7.0 no `*_sync` "
           "builtin is emitted; below 5.7 computed `__shfl` source lanes are masked.\n"
           "- `apply-review-fixes` (default `false`): apply review fixes too.\n")


def render(rule_id: str) -> str:
    info = RULES[rule_id]
    d = DOCS[rule_id]
    logical = port(d.before, "logical32", d.rocm)
    native = port(d.before, "native", d.rocm)
    floor = "" if d.rocm == "5.2" else f" (ROCm floor {d.rocm})"
    refs = "\n".join(f"- {ROCM_REFS[r]}" for r in d.refs)
    return (
        f"# {rule_id}: {info.name}\n\n"
        f"## What it does\n\n{d.what}\n\n"
        f"## Why is this bad?\n\n{d.why}\n\n"
        f"## Example\n\nCUDA:\n\n```cuda\n{d.before}```\n\n"
        f"HIP with `--wave-strategy logical32`{floor}:\n\n```hip\n{logical}```\n\n"
        f"HIP with `--wave-strategy native`{floor}:\n\n```hip\n{native}```\n\n"
        f"## Fix safety\n\n{d.safety}\n\n"
        f"## Options\n\n{OPTIONS}\n"
        f"## How to suppress\n\nOn the line, or alone on the line above, by id or by name:\n\n"
        f"```cuda\n// hipport: ignore[{rule_id}]\n// hipport: ignore[{info.name}]\n```\n\n"
        f"`// hipport: ignore` silences every rule; a suppression that silences nothing is reported as HP900.\n\n"
        f"## References\n\n{refs}\n"
    )


def main() -> int:
    DOCS_DIR.mkdir(parents=True, exist_ok=True)
    for rid in RULES:
        (DOCS_DIR / f"{rid}.md").write_text(render(rid), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
