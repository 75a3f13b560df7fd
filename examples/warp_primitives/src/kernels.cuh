// Kernels built on warp_utils.cuh. Blocks are kBlock threads = kWarpsPerBlock warps.
#pragma once

#include "warp_utils.cuh"

constexpr int kBlock = 256;
constexpr int kWarpsPerBlock = kBlock / WARP_SIZE;
constexpr int kBins = 16;

// Per-warp sums, then the first warp reduces the per-warp partials.
__global__ void block_sum_kernel(const float* in, float* warp_sums, float* block_sums, int n) {
  __shared__ float partial[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  float v = i < n ? in[i] : 0.0f;
  v = warp_reduce_sum(v);
  if (lane == 0) {
    partial[warp] = v;
    warp_sums[blockIdx.x * (blockDim.x / WARP_SIZE) + warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / WARP_SIZE ? partial[lane] : 0.0f;
    v = warp_reduce_sum(v);
    if (lane == 0) block_sums[blockIdx.x] = v;
  }
}

// Stream compaction inside each block's segment: ballot + popc ranks, warp offsets
// from a scan of the per-warp counts, base offset broadcast from lane 0.
__global__ void compact_kernel(const int* in, int* out, int* block_counts, int n, int threshold) {
  __shared__ int warp_counts[kWarpsPerBlock];
  __shared__ int warp_offsets[kWarpsPerBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = lane_id();
  const int warp = warp_id();
  const int v = i < n ? in[i] : 0;
  const bool keep = i < n && v >= threshold;
  const unsigned int ballot = __ballot_sync(FULL_MASK, keep);
  if (lane == 0) warp_counts[warp] = __popc(ballot);
  __syncthreads();
  if (warp == 0) {
    const int c = lane < kWarpsPerBlock ? warp_counts[lane] : 0;
    const int incl = warp_inclusive_scan(c);
    if (lane < kWarpsPerBlock) warp_offsets[lane] = incl - c;
    if (lane == kWarpsPerBlock - 1) block_counts[blockIdx.x] = incl;
  }
  __syncthreads();
  int base = 0;
  if (lane == 0) base = blockIdx.x * blockDim.x + warp_offsets[warp];
  base = __shfl_sync(0xffffffff, base, 0);
  if (keep) out[base + __popc(ballot & ((1u << lane) - 1))] = v;
}

// Per-warp votes: bit 1 = all values positive, bit 0 = some value >= big.
__global__ void vote_kernel(const int* in, int* flags, int big) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const int all_pos = __all_sync(FULL_MASK, v > 0);
  const int any_big = __any_sync(FULL_MASK, v >= big);
  if ((threadIdx.x & 31) == 0) flags[i >> 5] = (all_pos ? 2 : 0) | (any_big ? 1 : 0);
}

// Rank-weighted sum per 32-thread tile.
__global__ void tile_sum_kernel(const int* in, int* tile_sums) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + block.thread_rank();
  int v = in[i] * static_cast<int>(tile.thread_rank() + 1);
  v = tile_reduce_sum(tile, v);
  if (tile.thread_rank() == 0)
    tile_sums[blockIdx.x * (blockDim.x / 32) + block.thread_rank() / 32] = v;
}

// Block-wide inclusive scan: warp scans, warp totals from lane 31, scan of the totals.
__global__ void scan_kernel(const int* in, int* out, int* block_totals) {
  __shared__ int totals[kWarpsPerBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = lane_id();
  const int warp = warp_id();
  int v = warp_inclusive_scan(in[i]);
  if (lane == WARP_SIZE - 1) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < kWarpsPerBlock ? totals[lane] : 0;
    t = warp_inclusive_scan(t);
    if (lane < kWarpsPerBlock) totals[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += totals[warp - 1];
  out[i] = v;
  if (threadIdx.x == blockDim.x - 1) block_totals[blockIdx.x] = v;
}

__global__ void argmax_kernel(const float* x, int* warp_best) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  int idx = i;
  warp_argmax(v, idx);
  if (lane_id() == 0) warp_best[i / WARP_SIZE] = idx;
}

// Histogram with warp-aggregated atomics: the lowest pending lane elects a bin,
// a second ballot finds its peers, and one atomic adds the whole group.
__global__ void histogram_kernel(const int* in, int n, unsigned int* hist, int* warp_rounds) {
  __shared__ unsigned int local[kBins];
  if (threadIdx.x < kBins) local[threadIdx.x] = 0;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = lane_id();
  const bool valid = i < n;
  const int bin = valid ? in[i] % kBins : -1;
  unsigned int pending = __ballot_sync(FULL_MASK, valid);
  int rounds = 0;
  while (pending) {
    const int leader = __ffs(pending) - 1;
    const int leader_bin = __shfl_sync(FULL_MASK, bin, leader);
    const unsigned int peers = __ballot_sync(FULL_MASK, bin == leader_bin);
    if (lane == leader) atomicAdd(&local[leader_bin], (unsigned int)__popc(peers));
    pending &= ~peers;
    ++rounds;
  }
  if (lane == 0) warp_rounds[i / WARP_SIZE] = rounds;
  __syncthreads();
  if (threadIdx.x < kBins) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
