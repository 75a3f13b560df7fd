// A 32-bit mask passed to a *_sync function: rejected at compile time on a
// wave64 target (as HIP's static_assert does), accepted on wave32.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void k(int* out) {
  out[threadIdx.x] = __shfl_down_sync(0xffffffff, (int)threadIdx.x, 1);
}

int main() {
  int* d;
  hipMalloc(&d, 32 * sizeof(int));
  hipLaunchKernelGGL(k, dim3(1), dim3(32), 0, 0, d);
  int h[32];
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  printf("%d %d\n", h[0], h[31]);
  return 0;
}
