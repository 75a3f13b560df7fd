// kl kernels: templated on the element type and the block size.
#pragma once

#include "kl/common.cuh"

namespace kl {

// Polynomial coefficients, highest degree first, and their count.
__constant__ float c_poly[kMaxPoly];
__constant__ int c_poly_len;
// Number of histogram blocks that have finished; the host reads it through its address.
__device__ unsigned int d_blocks_done;

template <typename T, int BLOCK, typename Op>
__global__ void __launch_bounds__(BLOCK)
transform_kernel(const T* __restrict__ in, T* __restrict__ out, int n, Op op) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = op(load(in + i));
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) poly_kernel(const T* __restrict__ in, T* __restrict__ out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= n) return;
  T x = in[i];
  T acc = T(0);
  for (int k = 0; k < c_poly_len; ++k) acc = acc * x + T(c_poly[k]);
  out[i] = acc;
}

// Grid-stride load, then a shared-memory tree per block; one partial per block.
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) block_sum_kernel(const T* __restrict__ in, T* block_sums, int n) {
  static_assert((BLOCK & (BLOCK - 1)) == 0, "BLOCK must be a power of two");
  __shared__ T s[BLOCK];
  const int tid = threadIdx.x;
  T v = T(0);
  for (int i = blockIdx.x * BLOCK + tid; i < n; i += gridDim.x * BLOCK) v += in[i];
  s[tid] = v;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = s[0];
}

template <int BLOCK, int BINS>
__global__ void __launch_bounds__(BLOCK) histogram_kernel(const int* __restrict__ keys, int n, unsigned int* hist) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += BLOCK) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
    atomicAdd(&local[keys[i] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += BLOCK) atomicAdd(&hist[b], local[b]);
  if (threadIdx.x == 0) atomicAdd(&d_blocks_done, 1u);
}

// Deterministic key generator: keys[i] = i * mul % mod.
__global__ void iota_mod_kernel(int* keys, int n, int mul, int mod) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = i * mul % mod;
}

// Host-side helper: upload polynomial coefficients into constant memory.
inline void set_poly(const float* coeffs, int len) {
  KL_CHECK(cudaMemcpyToSymbol(c_poly, coeffs, len * sizeof(float)));
  KL_CHECK(cudaMemcpyToSymbol(c_poly_len, &len, sizeof(int)));
}

}  // namespace kl
