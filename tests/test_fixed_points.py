"""A second port over ported output changes nothing, and comments inside rewritten code survive.

Every form hipport writes is listed in IDIOMS (read off the code that builds replacement text:
hipport/wave64/emit.py, the wave64 rules and the translator): a small CUDA input holding the
hazard, the options under which it is written, and the text it is written as. Each is ported
(real tree-sitter parse, the real passes), checked to hold that text, ported again and checked
byte for byte, under every wave strategy, review setting and ROCm floor and every translator
option; then compiled with hipcc. The fixture inputs of the repository go through the same
twice-port under every option combination, and a real `hipport port --in-place` run is checked
with `--check` afterwards.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hipport.config import (
    BLAS_TARGETS,
    INCLUDE_LAYOUTS,
    LAUNCH_SYNTAXES,
    LIBRARY_TARGETS,
    WAVE_STRATEGIES,
    Config,
)
from hipport.model import FileStatus
from hipport.passes import port_bytes
from hipport.workspace import role_of
from tests.conftest import hipport

ROOT = Path(__file__).resolve().parent.parent
HIPCC = shutil.which("hipcc")
SHIM_DIR = ROOT / "tests" / "wave64" / "include"
SHIM = SHIM_DIR / "rocm7_shim.h"  # HIP 7.0's *_sync builtins and non-constexpr warpSize, for 7.0 floors
HEAD = "#include <cuda_runtime.h>\n"
CG = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"

# Every option that changes what hipport writes: the wave64 settings crossed, the translator's
# one at a time, and all at once.
WAVE_OPTIONS = [dict(wave_strategy=s, apply_review_fixes=r, rocm=v)
                for s in WAVE_STRATEGIES for r in (False, True) for v in ("5.2", "6.2", "7.0")]
TRANSLATOR_OPTIONS = ([dict(launch_syntax=x) for x in LAUNCH_SYNTAXES if x != "chevron"]
                      + [dict(blas=x) for x in BLAS_TARGETS if x != "hipblas"]
                      + [{k: x} for k, v in LIBRARY_TARGETS.items() if k != "blas" for x in v[1:]]
                      + [dict(include_quotes="keep")]
                      + [dict(include_layout=x) for x in INCLUDE_LAYOUTS if x != "current"]
                      + [dict(rename_extensions=True)])
ALL_AT_ONCE = dict(launch_syntax="ggl", blas="rocblas", include_layout="flat", rename_extensions=True,
                   wave_strategy="native", apply_review_fixes=True, rocm="7.0")
OPTIONS = WAVE_OPTIONS + TRANSLATOR_OPTIONS + [ALL_AT_ONCE]
NATIVE = dict(wave_strategy="native", apply_review_fixes=True)
LOGICAL = dict(wave_strategy="logical32", apply_review_fixes=True)


def label(opts: dict[str, object]) -> str:
    return ",".join(f"{k}={v}" for k, v in opts.items()) or "defaults"


@dataclass(frozen=True)
class Idiom:
    name: str
    options: dict[str, object]  # the options under which hipport writes it
    code: str  # CUDA after HEAD
    emits: str  # text the first port holds
    compiles: bool = True  # False: needs a library header this machine lacks
    head: str = field(default=HEAD)

    def source(self) -> bytes:
        return (self.head + self.code).encode()


IDIOMS: list[Idiom] = [
    # ---- W001 and emit.py: *_sync masks ----
    Idiom("drop_sync_mask", {}, """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  d[threadIdx.x] = v;
}
""", "__shfl_down(v, 16, 32)"),
    Idiom("full_mask_native_rocm7", dict(rocm="7.0"), """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  d[threadIdx.x] = v;
}
""", "__shfl_xor_sync(~0ull, v, o)"),
    Idiom("half_mask_logical32_rocm7", dict(rocm="7.0"), """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  d[threadIdx.x] = v;
}
""", "__shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, 16, 32)"),
    Idiom("shifted_mask_logical32_rocm7", dict(rocm="7.0", **LOGICAL), """__global__ void k(float* d, unsigned m) {
  int lane = threadIdx.x & 31;
  float v = __shfl_sync(m, d[threadIdx.x], 0);
  d[lane] = v;
}
""", "((unsigned long long)(m) << (__lane_id() & 32))"),
    Idiom("cast_mask_native_rocm7", dict(rocm="7.0", **NATIVE), """__global__ void k(float* d, unsigned m) {
  float v = __shfl_sync(m, d[threadIdx.x], 0);
  d[threadIdx.x % warpSize] = v;
}
""", "__shfl_sync((unsigned long long)(m), "),
    Idiom("partial_ballot_native", NATIVE, """__global__ void k(const float* d, unsigned long long* out, unsigned m) {
  unsigned long long b = __ballot_sync(m, d[threadIdx.x] > 0.f);
  out[threadIdx.x / warpSize] = b;
}
""", "((m) & __ballot(d[threadIdx.x] > 0.f))"),
    Idiom("partial_ballot_logical32", LOGICAL, """__global__ void k(const float* d, unsigned* out, unsigned m) {
  unsigned b = __ballot_sync(m, d[threadIdx.x] > 0.f);
  out[threadIdx.x >> 5] = b;
}
""", "(((unsigned long long)(m) << (__lane_id() & 32)) & __ballot("),
    Idiom("wrapper_half_mask_rocm7", dict(rocm="7.0"), """#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)
__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += SHFL_DOWN(v, o);
  d[threadIdx.x] = v;
}
""", "__shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, o, 32)"),
    Idiom("wrapper_full_mask_native_rocm7", dict(rocm="7.0", **NATIVE), """#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)
__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += SHFL_DOWN(v, o);
  d[threadIdx.x] = v;
}
""", "__shfl_down_sync(~0ull, v, o)"),
    Idiom("wrapper_drop_mask", {}, """#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)
__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += SHFL_DOWN(v, o);
  d[threadIdx.x] = v;
}
""", "#define SHFL_DOWN(v, o) __shfl_down(v, o, 32)"),
    # ---- W002: ballots kept in 32 bits ----
    Idiom("ballot_half", {}, """__global__ void k(const float* d, int* out) {
  unsigned b = __ballot_sync(0xffffffff, d[threadIdx.x] > 0.f);
  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = __popc(b);
}
""", "unsigned b = (unsigned)(__ballot(d[threadIdx.x] > 0.f) >> (__lane_id() & 32));"),
    Idiom("ballot_widened_native", NATIVE, """__global__ void k(const float* d, int* out) {
  unsigned b = __ballot(d[threadIdx.x] > 0.f);
  out[threadIdx.x / warpSize] = __popc(b);
}
""", "unsigned long long b = __ballot("),
    Idiom("ballot_cast_widened_native", NATIVE, """__global__ void k(const float* d, int* out) {
  out[threadIdx.x / warpSize] = __popc((unsigned)__ballot(d[threadIdx.x] > 0.f));
}
""", "__popcll((unsigned long long)__ballot("),
    # ---- W003: 32-bit bit operations on wave masks ----
    Idiom("highest_lane_native", NATIVE, """__global__ void k(const float* d, int* out) {
  unsigned long long m = __ballot(d[threadIdx.x] > 0.f);
  out[threadIdx.x / warpSize] = 31 - __clz(m);
}
""", "63 - __clzll(m)"),
    Idiom("full_wave_compare_native", NATIVE, """__global__ void k(const float* d, int* out) {
  unsigned long long m = __ballot(d[threadIdx.x] > 0.f);
  out[threadIdx.x / warpSize] = m == 0xffffffff;
}
""", "m == (~0ull >> (64 - warpSize))"),
    Idiom("mask_bit_loop_native", NATIVE, """__global__ void k(const float* d, int* out) {
  unsigned long long m = __ballot(d[threadIdx.x] > 0.f);
  int c = 0;
  for (int b = 0; b < 32; ++b) c += (m & (1u << b)) != 0;
  out[threadIdx.x / warpSize] = c;
}
""", "for (int b = 0; b < warpSize; ++b) c += (m & (1ull << b)) != 0;"),
    Idiom("popc_of_half", {}, """__global__ void k(const float* d, int* out) {
  int lane = threadIdx.x & 31;
  if (lane == 0) out[threadIdx.x >> 5] = __popc(__ballot(d[threadIdx.x] > 0.f));
}
""", "__popc((unsigned)(__ballot(d[threadIdx.x] > 0.f) >> (__lane_id() & 32)))"),
    # ---- W004 / W005: lanes and warp ids ----
    Idiom("logical_lane_mixed", LOGICAL, """__global__ void k(float* d) {
  int lane = threadIdx.x & 31;
  int hw = __lane_id();
  d[threadIdx.x] = __shfl_xor(d[threadIdx.x], 1) + lane + hw;
}
""", "int hw = (__lane_id() & 31);"),
    Idiom("wave_lane_native", NATIVE, """__global__ void k(float* d) {
  int lane = threadIdx.x % 32, warp = threadIdx.x >> 5;
  d[threadIdx.x] = __shfl_xor(d[threadIdx.x], 1) + lane + warp;
}
""", "int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;"),
    Idiom("warp_id_parenthesised_native", NATIVE, """__global__ void k(float* d) {
  float v = __shfl_xor(d[threadIdx.x], 1);
  d[threadIdx.x + blockIdx.x * blockDim.x >> 5] = v;
}
""", "(threadIdx.x + blockIdx.x * blockDim.x) / warpSize"),
    # ---- W006: shuffle reductions ----
    Idiom("reduction_width32", {}, """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
  d[threadIdx.x] = v;
}
""", "__shfl_down(v, o, 32)"),
    Idiom("reduction_from_warpsize_native", NATIVE, """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
  d[threadIdx.x] = v;
}
""", "for (int o = warpSize / 2; o > 0; o >>= 1)"),
    Idiom("wrapper_width32", {}, """#define SHFL_DOWN(v, o) __shfl_down(v, o)
__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += SHFL_DOWN(v, o);
  d[threadIdx.x] = v;
}
""", "#define SHFL_DOWN(v, o) __shfl_down(v, o, 32)"),
    Idiom("wave64_step_native", NATIVE, """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  v += __shfl_down_sync(0xffffffff, v, 8);
  d[threadIdx.x] = v;
}
""", "if (warpSize > 32) v += __shfl_down(v, 32);"),
    Idiom("wave_loop_logical32_mixed", LOGICAL, """__global__ void k(float* d) {
  int lane = threadIdx.x & 31;
  float v = d[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  d[lane] = v;
}
""", "for (int o = 32 / 2; o > 0; o /= 2) v += __shfl_down(v, o, 32);"),
    # ---- W007 / W008 / W019 / W020: warp-size constants and the HIPPORT_WAVE_SIZE block ----
    Idiom("shared_per_lane_native", NATIVE, """#define WARP_SIZE 32
__global__ void k(float* d) {
  __shared__ float s[WARP_SIZE];
  int lane = threadIdx.x % WARP_SIZE;
  s[lane] = __shfl_xor(d[threadIdx.x], 1);
  d[threadIdx.x] = s[lane];
}
""", "#define WARP_SIZE HIPPORT_WAVE_SIZE"),
    Idiom("warpsize_constant_logical32", LOGICAL, """__global__ void k(float* d) {
  __shared__ float s[warpSize];
  int lane = threadIdx.x & 31;
  s[lane] = __shfl_xor(d[threadIdx.x], 1);
  d[threadIdx.x] = s[lane];
}
""", "__shared__ float s[32];"),
    Idiom("warpsize_constant_native", NATIVE, """__global__ void k(float* d) {
  __shared__ float s[warpSize];
  s[threadIdx.x % warpSize] = __shfl_xor(d[threadIdx.x], 1);
  d[threadIdx.x] = s[threadIdx.x % warpSize];
}
""", "__shared__ float s[HIPPORT_WAVE_SIZE];"),
    Idiom("warpsize_alias_native", NATIVE, """#define WS warpSize
__global__ void k(float* d) {
  __shared__ float s[WS];
  s[threadIdx.x % WS] = __shfl_xor(d[threadIdx.x], 1);
  d[threadIdx.x] = s[threadIdx.x % WS];
}
""", "#define WS HIPPORT_WAVE_SIZE"),
    Idiom("warpsize_mixed_logical32", LOGICAL, """__global__ void k(float* d) {
  int lane = threadIdx.x & 31;
  float v = __shfl_xor(d[threadIdx.x], 1);
  d[lane] = v * warpSize;
}
""", "d[lane] = v * 32;"),
    Idiom("hardcoded_64", {}, """#if defined(__HIP_PLATFORM_AMD__)
#define WARP_SIZE 64
#else
#define WARP_SIZE 32
#endif
__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  d[threadIdx.x] = v;
}
""", "#define WARP_SIZE HIPPORT_WAVE_SIZE"),
    Idiom("wavefront_macro", {}, """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = __AMDGCN_WAVEFRONT_SIZE / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  d[threadIdx.x] = v;
}
""", "HIPPORT_WAVE_SIZE / 2"),
    Idiom("wave_size_test_in_amd_branch", {}, """#if defined(__HIP_PLATFORM_AMD__)
#if __AMDGCN_WAVEFRONT_SIZE == 32u
constexpr int kWarpSize = 32;
#else
constexpr int kWarpSize = 64;
#endif
#else
constexpr int kWarpSize = 32;
#endif
__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = kWarpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  d[threadIdx.x] = v;
}
""", "#if HIPPORT_WAVE_SIZE == 32u\nconstexpr int kWarpSize = 32;\n#else\nconstexpr int kWarpSize = 64;"),
    # ---- W009: cooperative-groups tiles (their votes before HIP 7.0) ----
    Idiom("tile_votes_logical32", dict(apply_review_fixes=True), """__global__ void k(const float* d, unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = d[threadIdx.x];
  unsigned b = tile.ballot(v > 0.f);
  int any = tile.any(v > 1.f);
  int all = tile.all(v > 2.f);
  unsigned m = tile.match_any((int)v);
  out[threadIdx.x] = b + any + all + m + tile.meta_group_rank() + tile.meta_group_size();
}
""", "int any = ((unsigned)(__ballot(v > 1.f) >> (__lane_id() & 32)) != 0);", head=HEAD + CG),
    Idiom("tile_votes_native", NATIVE, """__global__ void k(const float* d, unsigned long long* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = d[threadIdx.x];
  unsigned long long b = tile.ballot(v > 0.f);
  int any = tile.any(v > 1.f);
  int all = tile.all(v > 2.f);
  unsigned long long m = tile.match_any((int)v);
  out[threadIdx.x] = b + any + all + m + tile.meta_group_rank() + tile.meta_group_size();
}
""", "cg::thread_block_tile<HIPPORT_WAVE_SIZE> tile = cg::tiled_partition<HIPPORT_WAVE_SIZE>(block);",
          head=HEAD + CG),
    Idiom("tile_parameter_native", NATIVE, """__device__ float row_max(cg::thread_block_tile<32>& warp, const float* x) {
  __shared__ float part[32];
  int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  warp.sync();
  if (lane == 0) part[w] = x[threadIdx.x];
  __syncthreads();
  return part[0];
}
__global__ void k(const float* x, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  out[threadIdx.x] = row_max(warp, x);
}
""", "int lane = threadIdx.x % warpSize, w = threadIdx.x / warpSize;",
          head=HEAD + CG),
    Idiom("dynamic_tile_native", NATIVE, """__global__ void k(const float* d, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, 32);
  out[threadIdx.x] = d[threadIdx.x] + tile.size();
}
""", "cg::tiled_partition(block, warpSize)", head=HEAD + CG),
    # ---- W010: builtins the floor lacks, and hipport's helper functions ----
    Idiom("sync_builtins_and_helpers", {}, """__global__ void k(const int* d, int* out) {
  unsigned a = __activemask();
  unsigned peers = __match_any_sync(0xffffffff, d[threadIdx.x]);
  int s = __reduce_add_sync(0xffffffff, d[threadIdx.x]);
  int lo = __reduce_min_sync(0xffffffff, d[threadIdx.x]);
  __syncwarp();
  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = __popc(a) + __popc(peers) + s + lo;
}
""", "__device__ inline T hipport_reduce_min(T v, int width)"),
    # ---- W011: lane masks ----
    Idiom("lane_mask_64_native", NATIVE, """__global__ void k(const float* d, int* out) {
  unsigned long long keep = __ballot(d[threadIdx.x] > 0.f);
  unsigned below = (1u << (threadIdx.x % warpSize)) - 1;
  unsigned long long upto = 0xffffffffu >> (32 - (threadIdx.x % warpSize + 1));
  out[threadIdx.x] = __popcll(keep & below) + __popcll(keep & upto);
}
""", "~0ull >> (64 - (threadIdx.x % warpSize + 1))"),
    Idiom("lane_mask_cast_native", NATIVE, """__global__ void k(const float* d, int* out) {
  const unsigned one = 1;
  unsigned long long keep = __ballot(d[threadIdx.x] > 0.f);
  out[threadIdx.x] = __popcll(keep & ((one << (threadIdx.x % warpSize)) - 1));
}
""", "(unsigned long long)(one) << "),
    # ---- W012: inline PTX ----
    Idiom("inline_ptx_logical32", {}, """__device__ unsigned lane_ptx() {
  unsigned r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__device__ unsigned lt_ptx() {
  unsigned r;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
  return r;
}
__global__ void k(const int* in, int* out) {
  const unsigned keep = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);
  out[threadIdx.x] = __popc(keep & lt_ptx()) + (int)lane_ptx() + (int)(threadIdx.x & 31);
}
""", "r = (__lane_id() & 31)"),
    Idiom("inline_ptx_native", NATIVE, """__device__ unsigned lane_ptx() {
  unsigned r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__global__ void k(int* out) {
  out[threadIdx.x] = (int)lane_ptx() + warpSize;
}
""", "r = __lane_id()"),
    # ---- W014: launches of one 32-thread warp, host-side warpSize ----
    Idiom("host_warp_size", dict(apply_review_fixes=True), """__global__ void k(float* d) {
  float v = d[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);
  d[threadIdx.x] = v;
}
void launch(float* d) { k<<<1, 32>>>(d); }
int threads_for(int warps) { return warps * warpSize; }
""", "k<<<1, hipport_warp_size()>>>(d);"),
    # ---- W016 / W021: shuffle widths and source lanes ----
    Idiom("width_dropped_native", NATIVE, """__global__ void k(float* d) {
  int lane = threadIdx.x & 31;
  float v = __shfl(d[threadIdx.x], 31, 32);
  float w = __shfl(d[threadIdx.x], (lane + 1) & 31, 32);
  float x = __shfl(d[threadIdx.x], (lane + 1) % 32, 32);
  d[threadIdx.x] = v + w + x;
}
""", "__shfl(d[threadIdx.x], (lane + 1) & (warpSize - 1))"),
    Idiom("wrapper_broadcast_width32", {}, """#define BCAST(v, l) __shfl(v, l)
__global__ void k(float* d) {
  int lane = threadIdx.x & 31;
  d[threadIdx.x] = BCAST(d[threadIdx.x], 0) + lane;
}
""", "#define BCAST(v, l) __shfl(v, l, 32)"),
    Idiom("source_lane_wrapped", {}, """__global__ void k(float* d) {
  int lane = threadIdx.x & 31;
  d[threadIdx.x] = __shfl(d[threadIdx.x], lane + 1);
}
""", "(lane + 1) & 31, 32)"),
    Idiom("source_lane_wrapped_agnostic", {}, """__global__ void k(float* d) {
  int lane = threadIdx.x % warpSize;
  d[threadIdx.x] = __shfl(d[threadIdx.x], lane + 1, 16);
}
""", "(lane + 1) & 15"),
    # ---- W017: votes ----
    Idiom("votes_logical32", {}, """__global__ void k(const int* d, int* out) {
  int lane = threadIdx.x & 31;
  int a = __any_sync(0xffffffff, d[threadIdx.x] > 0);
  int b = __all_sync(0xffffffff, d[threadIdx.x] > 0);
  if (lane == 0) out[threadIdx.x >> 5] = a + b;
}
""", "((unsigned)(__ballot(!(d[threadIdx.x] > 0)) >> (__lane_id() & 32)) == 0)"),
    Idiom("uniform_vote_logical32", {}, """__global__ void k(const int* d, int* out) {
  int lane = threadIdx.x & 31;
  int p = d[threadIdx.x] > 0;
  int u = __uni_sync(0xffffffff, p);
  if (lane == 0) out[threadIdx.x >> 5] = u;
}
""", "((unsigned)(__ballot(p) >> (__lane_id() & 32)) == 0 || "),
    Idiom("uniform_vote_native", NATIVE, """__global__ void k(const int* d, int* out) {
  int lane = threadIdx.x & 31;
  int p = d[threadIdx.x] > 0;
  int u = __uni_sync(0xffffffff, p);
  if (lane == 0) out[threadIdx.x >> 5] = u;
}
""", "(__all(p) || !__any(p))"),
    Idiom("uniform_vote_agnostic", {}, """__global__ void k(const int* d, int* out) {
  int p = d[threadIdx.x] > 0;
  int u = __uni_sync(0xffffffff, p);
  out[threadIdx.x / warpSize] = u;
}
""", "(__all(p) || !__any(p))"),
    # ---- the translator ----
    Idiom("runtime_launches_and_arguments", dict(launch_syntax="ggl"), """__constant__ float coef[4];
template <typename T> __global__ void scale(T* p, int n) { p[threadIdx.x] *= coef[0]; }
__global__ void add(float* p, int n) { p[threadIdx.x] += 1.f; }
int main() {
  float h[4] = {1, 2, 3, 4};
  float *d, *pinned;
  cudaMalloc(&d, 64 * sizeof(float));
  cudaMallocHost(&pinned, 64 * sizeof(float));
  cudaMemcpyToSymbol(coef, h, sizeof(h));
  cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, add);
  scale<float><<<1, 64>>>(d, 64);
  add<<<dim3(1), 64, 0, 0>>>(d, 64);
  cudaFreeHost(pinned);
  cudaFree(d);
  return 0;
}
""", "hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<float>), dim3(1), dim3(64), 0, 0, d, 64);"),
    Idiom("library_names_and_headers", dict(blas="rocblas", include_layout="flat"), """#include <cublas_v2.h>
int main() {
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasDestroy(handle);
  return 0;
}
""", "#include <rocblas.h>", compiles=False),  # no rocBLAS or hipBLAS headers on this machine
]

# Comments inside rewritten calls and launches: each survives, once.
COMMENTED = HEAD + """__global__ void k(float* d, int n) {
  float v = d[threadIdx.x];
  v += __shfl_down_sync(0xffffffff /* all */, v, 16 /* half */);
  v += __shfl_down_sync(0xffffffff, // every lane
                        v, 8);
  unsigned b = __ballot_sync(0xffffffff /* mask */, v > 0.f /* positive */);
  int a = __any_sync(0xffffffff /* voters */, v > 1.f);
  __syncwarp(0xffffffff /* all lanes */);
  if ((threadIdx.x & 31) == 0) d[threadIdx.x >> 5] = v + b + a;
}
void launch(float* d, int n) {
  k<<<(n + 255) / 256, // blocks
      256>>>(d, // data
             n /* count */);
}
"""
COMMENTS = ("/* all */", "/* half */", "// every lane", "/* mask */", "/* positive */", "/* voters */",
            "/* all lanes */", "// blocks", "// data", "/* count */")


def port(data: bytes, opts: dict[str, object], name: str = "k.cu") -> bytes:
    r = port_bytes(name, role_of(name, data[:65536]), data, Config(**opts))  # type: ignore[arg-type]
    assert r.status != FileStatus.FAILED, r.error
    return r.ported if r.ported is not None else data


def assert_fixed_point(data: bytes, opts: dict[str, object], name: str = "k.cu") -> bytes:
    once = port(data, opts, name)
    twice = port(once, opts, name)
    if twice != once:
        import difflib

        diff = "".join(difflib.unified_diff(once.decode(errors="replace").splitlines(True),
                                            twice.decode(errors="replace").splitlines(True), "first", "second"))
        pytest.fail(f"{name} under {label(opts)}: a second port changed the output\n{diff}")
    return once


@pytest.mark.parametrize("idiom", IDIOMS, ids=[i.name for i in IDIOMS])
def test_idiom_is_written_and_left_alone(idiom: Idiom) -> None:
    out = assert_fixed_point(idiom.source(), idiom.options)
    assert idiom.emits.encode() in out, f"{idiom.name} no longer writes {idiom.emits!r}:\n{out.decode()}"


@pytest.mark.parametrize("opts", OPTIONS, ids=[label(o) for o in OPTIONS])
def test_every_idiom_is_a_fixed_point_under(opts: dict[str, object]) -> None:
    for idiom in IDIOMS:
        assert_fixed_point(idiom.source(), opts)


def test_the_issue_cases() -> None:
    """The two reported: a logical-32 tile vote rewritten again, the HIPPORT_WAVE_SIZE block
    added again by `--wave-strategy native --apply-review-fixes`."""
    vote = next(i for i in IDIOMS if i.name == "tile_votes_logical32")
    for opts in ({}, vote.options):
        once = port(vote.source(), opts)
        assert b"((unsigned)(__ballot(v > 1.f) >> (__lane_id() & 32)) != 0)" in once
        assert port(once, opts) == once
    block = next(i for i in IDIOMS if i.name == "shared_per_lane_native")
    once = port(block.source(), NATIVE)
    assert once.count(b"#ifndef HIPPORT_WAVE_SIZE") == 1
    assert port(once, NATIVE) == once


def test_a_block_already_written_is_not_written_twice() -> None:
    """A new site in a ported file that needs the HIPPORT_WAVE_SIZE block (and a helper) again."""
    once = port((HEAD + """__global__ void k(float* d) {
  __shared__ float s[warpSize];
  s[threadIdx.x % warpSize] = __shfl_xor(d[threadIdx.x], 1);
  d[threadIdx.x] = s[threadIdx.x % warpSize] + __reduce_add_sync(0xffffffff, (int)d[0]);
}
""").encode(), NATIVE)
    more = once + b"""__global__ void k2(float* d) {
  __shared__ float t[warpSize];
  t[threadIdx.x % warpSize] = d[threadIdx.x] + __reduce_add_sync(0xffffffff, (int)d[1]);
  d[threadIdx.x] = t[threadIdx.x % warpSize];
}
"""
    again = port(more, NATIVE)
    assert b"float t[HIPPORT_WAVE_SIZE]" in again and b"hipport_reduce_add((int)d[1]" in again
    assert again.count(b"#ifndef HIPPORT_WAVE_SIZE") == 1
    assert again.count(b"inline T hipport_reduce_add(") == 1


@pytest.mark.parametrize("opts", OPTIONS, ids=[label(o) for o in OPTIONS])
def test_comments_in_rewritten_calls_survive(opts: dict[str, object]) -> None:
    out = assert_fixed_point(COMMENTED.encode(), opts).decode()
    for c in COMMENTS:
        assert out.count(c) >= 1, f"{c!r} lost under {label(opts)}:\n{out}"
    # a // comment still ends at its own line break: the code after it is not swallowed
    assert re.search(r"// every lane\n\s+v, 8", out), out
    assert re.search(r"// blocks\n\s+256", out), out


def test_comment_kept_beside_the_rewrite() -> None:
    out = port(COMMENTED.encode(), {}).decode()
    assert "__shfl_down(/* all */ v, 16, 32 /* half */);" in out
    assert "__ballot(/* mask */ v > 0.f /* positive */)" in out
    ggl = port(COMMENTED.encode(), dict(launch_syntax="ggl")).decode()
    assert "hipLaunchKernelGGL(k, dim3((n + 255) / 256), dim3(// blocks\n      256), 0, 0, d, // data\n" in ggl


def fixture_inputs() -> list[Path]:
    keep = (".cu", ".cuh", ".cpp", ".h", ".hpp", ".c")
    out = [p for p in sorted((ROOT / "fixtures").rglob("*")) if p.is_file() and p.suffix in keep
           and "expected" not in p.name]
    return out + [p for p in sorted((ROOT / "examples").rglob("*")) if p.is_file() and p.suffix in keep]


@pytest.mark.slow
@pytest.mark.parametrize("opts", OPTIONS, ids=[label(o) for o in OPTIONS])
def test_fixture_inputs_are_fixed_points_under(opts: dict[str, object]) -> None:
    files = fixture_inputs()
    assert len(files) > 100
    for p in files:
        assert_fixed_point(p.read_bytes(), opts, str(p.relative_to(ROOT)))


def test_a_real_second_run_finds_nothing_to_change(tmp_path: Path) -> None:
    """`hipport port --in-place`, then `--check` with the same options: nothing would change;
    and `-o` twice (the second over the first's output) gives the same tree."""
    src = tmp_path / "src"
    src.mkdir()
    for i, idiom in enumerate(IDIOMS):
        (src / f"i{i:02d}_{idiom.name}.cu").write_bytes(idiom.source())
    (src / "commented.cu").write_text(COMMENTED)
    for opts in ([], ["--wave-strategy", "native", "--apply-review-fixes"],
                 ["--wave-strategy", "logical32", "--apply-review-fixes", "--rocm", "7.0", "--launch-syntax", "ggl"]):
        tree = tmp_path / f"tree{len(opts)}"
        shutil.copytree(src, tree)
        first = hipport("port", tree, "--in-place", "--no-cache", "-q", *opts)
        assert first.returncode == 0, first.stderr.decode()[-2000:]
        again = hipport("port", tree, "--check", "--no-cache", *opts)
        assert again.returncode == 0, (opts, again.stdout.decode()[-2000:], again.stderr.decode()[-2000:])
    out1, out2 = tmp_path / "out1", tmp_path / "out2"
    for a, b in ((src, out1), (out1, out2)):
        r = hipport("port", a, "-o", b, "--no-cache", "-q", "--rename-extensions")
        assert r.returncode == 0, r.stderr.decode()[-2000:]
    files1 = sorted(p.relative_to(out1) for p in out1.rglob("*") if p.is_file())
    assert files1 == sorted(p.relative_to(out2) for p in out2.rglob("*") if p.is_file())
    assert all(str(f).endswith(".hip") for f in files1)
    for f in files1:
        assert (out1 / f).read_bytes() == (out2 / f).read_bytes(), f


# ---- the outputs compile ----------------------------------------------------------------------

def compile_batch(sources: dict[str, bytes], tmp: Path, rocm7: bool) -> subprocess.CompletedProcess[str]:
    """One translation unit for gfx90a: each output in its own namespace, its macros undefined
    after it (the 7.0-floor outputs against the ROCm 7 test header)."""
    lines = ["#include <hip/hip_runtime.h>", "#include <hip/hip_cooperative_groups.h>"]
    for name, data in sources.items():
        f = tmp / f"{name}.hip"
        f.write_bytes(data)
        lines += [f"namespace fp_{name} {{", f'#include "{f}"', "}"]
        lines += [f"#undef {m}" for m in sorted(set(re.findall(rb"^\s*#\s*define\s+(\w+)", data, re.M)))
                  for m in [m.decode()]]
    tu = tmp / ("batch7.hip" if rocm7 else "batch.hip")
    tu.write_text("\n".join(lines) + "\n")
    extra = ["-I", str(SHIM_DIR), "-include", str(SHIM)] if rocm7 else []
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    return subprocess.run(["hipcc", "--offload-arch=gfx90a", "-std=c++17", "-c", "-o", os.devnull, "-x", "hip",
                           *extra, str(tu)], capture_output=True, text=True, env=env, timeout=600)


def floor7(opts: dict[str, object]) -> bool:
    return Config(**opts).floor.at_least("7.0")  # type: ignore[arg-type]


@pytest.mark.hipcc
@pytest.mark.skipif(HIPCC is None, reason="hipcc is not installed (apt-get install hipcc libamdhip64-dev "
                    "rocm-device-libs)")
@pytest.mark.parametrize("rocm7", [False, True], ids=["rocm5.2-6.x", "rocm7.0"])
def test_idiom_outputs_compile(rocm7: bool, tmp_path: Path) -> None:
    """Each idiom as written under its own options, and the commented file under each strategy."""
    sources = {i.name: port(i.source(), i.options) for i in IDIOMS if i.compiles and floor7(i.options) == rocm7}
    for s in WAVE_STRATEGIES:
        opts = dict(wave_strategy=s, apply_review_fixes=True, rocm="7.0" if rocm7 else "5.2")
        sources[f"commented_{s}"] = port(COMMENTED.encode(), opts)
        sources[f"commented_ggl_{s}"] = port(COMMENTED.encode(), {**opts, "launch_syntax": "ggl"})
    assert len(sources) > 6
    proc = compile_batch(sources, tmp_path, rocm7)
    assert proc.returncode == 0, "\n".join(line for line in proc.stderr.splitlines() if "error" in line)[:6000]


# ---- keep_comments on its own -------------------------------------------------------------------

def _keep(text: str, start: str, end: str, replacement: str) -> str:
    from hipport.edits import apply_edits, keep_comments
    from hipport.model import Edit

    data = text.encode()
    a = data.index(start.encode())
    b = data.index(end.encode(), a)
    return apply_edits(data, keep_comments([Edit(a, b, replacement, "T", 10)], data)).decode()


def test_keep_comments_splits_around_block_and_line_comments() -> None:
    assert _keep("f(0xffffffff /* all */, v)", "0xffffffff", "v)", "") == "f(/* all */ v)"
    assert _keep("f(m, // lanes\r\n  v)", "m,", "v)", "") == "f(// lanes\r\n  v)"
    assert _keep("g(a /*1*/ /*2*/, b)", "a", "b)", "") == "g(/*1*/ /*2*/ b)"
    assert _keep("__syncwarp(m /* all */);", "__syncwarp", ";", "B()") == "B()/* all */;"


def test_keep_comments_leaves_strings_and_copied_comments() -> None:
    assert _keep('f("/* no */", x)', '"', "x)", "") == "f(x)"
    assert _keep("f('/', x /* c */)", "'", ")", "g(x /* c */)") == "f(g(x /* c */))"
    assert _keep('f(R"(/* raw */)", x)', 'R"', "x)", "") == "f(x)"  # a raw string: nothing to find
