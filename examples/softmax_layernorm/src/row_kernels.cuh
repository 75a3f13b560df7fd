// Row-wise kernels with one 32-thread warp per row, plus a block reduction.
#pragma once

#include <cuda_runtime.h>

#define WARP 32
#define ROWS_PER_BLOCK 4

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}

// blockDim = (32, ROWS_PER_BLOCK): threadIdx.x is the lane, threadIdx.y picks the row.
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // whole warps leave together
  const int lane = threadIdx.x;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;

  float m = -INFINITY;
  for (int c = lane; c < cols; c += WARP) m = fmaxf(m, xr[c]);
  m = warp_max(m);

  float s = 0.0f;
  for (int c = lane; c < cols; c += WARP) {
    const float e = __expf(xr[c] - m);
    yr[c] = e;
    s += e;
  }
  const float inv = 1.0f / warp_sum(s);
  for (int c = lane; c < cols; c += WARP) yr[c] *= inv;
}

__global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ gamma,
                               const float* __restrict__ beta, float* __restrict__ y,
                               float* __restrict__ mean_out, float* __restrict__ rstd_out,
                               int rows, int cols, float eps) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;

  float s = 0.0f;
  for (int c = lane; c < cols; c += WARP) s += xr[c];
  const float mean = warp_sum(s) / cols;

  float v = 0.0f;
  for (int c = lane; c < cols; c += WARP) {
    const float d = xr[c] - mean;
    v += d * d;
  }
  const float rstd = rsqrtf(warp_sum(v) / cols + eps);

  for (int c = lane; c < cols; c += WARP) yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  if (lane == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}

// Grid-stride sum; one partial per block, combined on the host in a fixed order.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) block_reduce_sum(const float* __restrict__ in, float* partials, int n) {
  __shared__ float warp_partials[BLOCK / WARP];
  const int lane = threadIdx.x % WARP;
  const int warp = threadIdx.x / WARP;
  float v = 0.0f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += in[i];
  v = warp_sum(v);
  if (lane == 0) warp_partials[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / WARP ? warp_partials[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) partials[blockIdx.x] = v;
  }
}
