// The classic wave-size bug: a reduction written for 32-thread warps.
//   warp id = tid / 32, 5 shuffle steps (offsets 16..1), lane 0 writes.
// "lane 0" is the hardware lane (__lane_id() == 0, what hipify makes of a
// lane-id query).  On wave64 only every other 32-thread "warp" has a lane 0,
// so half of the per-warp sums are never written.  The second variant
// broadcasts the sum from lane 0 with __shfl(v, 0): on wave64 the upper half
// of each wave receives the lower half's sum.  The third variant (lane =
// tid % 32) is wave-size independent and must agree at both sizes.
#include <hip/hip_runtime.h>
#include <cstdio>

constexpr int BLOCK = 128, GRID = 2, WARPS = GRID * BLOCK / 32;

__global__ void warp_sums(const int* x, int* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[tid];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);
  if (__lane_id() == 0) out[tid / 32] = v;
}

__global__ void warp_sums_bcast(const int* x, int* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[tid];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);
  v = __shfl(v, 0);
  if (tid % 32 == 0) out[tid / 32] = v;
}

__global__ void warp_sums_portable(const int* x, int* out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[tid];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);
  if (tid % 32 == 0) out[tid / 32] = v;
}

static void run(const char* name, void (*k)(const int*, int*), const int* dx, int* dout) {
  int h[WARPS];
  for (int& v : h) v = -1;
  hipMemcpy(dout, h, sizeof h, hipMemcpyHostToDevice);
  hipLaunchKernelGGL(k, dim3(GRID), dim3(BLOCK), 0, 0, dx, dout);
  hipMemcpy(h, dout, sizeof h, hipMemcpyDeviceToHost);
  printf("%s", name);
  for (int v : h) printf(" %d", v);
  printf("\n");
}

int main() {
  int hx[GRID * BLOCK];
  for (int i = 0; i < GRID * BLOCK; ++i) hx[i] = i + 1;
  int *dx, *dout;
  hipMalloc(&dx, sizeof hx);
  hipMalloc(&dout, WARPS * sizeof(int));
  hipMemcpy(dx, hx, sizeof hx, hipMemcpyHostToDevice);
  run("lane0", warp_sums, dx, dout);
  run("bcast", warp_sums_bcast, dx, dout);
  run("portable", warp_sums_portable, dx, dout);
  return 0;
}
