// Warp-level building blocks for 32-thread warps.
#pragma once

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ int lane_id() { return threadIdx.x & 31; }
__device__ __forceinline__ int warp_id() { return threadIdx.x >> 5; }

// Tree reduction down the warp; the result is valid in lane 0.
template <typename T>
__device__ __forceinline__ T warp_reduce_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

// Hillis-Steele inclusive scan across the 32 lanes.
template <typename T>
__device__ __forceinline__ T warp_inclusive_scan(T v) {
  const int lane = lane_id();
#pragma unroll
  for (int d = 1; d < WARP_SIZE; d <<= 1) {
    T up = __shfl_up_sync(FULL_MASK, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

// Butterfly argmax: every lane ends with the largest value and its (smallest) index.
__device__ __forceinline__ void warp_argmax(float& v, int& idx) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) {
    float ov = __shfl_xor_sync(FULL_MASK, v, mask);
    int oi = __shfl_xor_sync(FULL_MASK, idx, mask);
    if (ov > v || (ov == v && oi < idx)) {
      v = ov;
      idx = oi;
    }
  }
}

// Same reduction expressed with a cooperative-groups tile.
__device__ __forceinline__ int tile_reduce_sum(cg::thread_block_tile<32> tile, int v) {
  for (int offset = tile.size() / 2; offset > 0; offset /= 2)
    v += tile.shfl_down(v, offset);
  return v;
}
