// Out-of-bounds shared memory, caught in checked (AddressSanitizer) builds.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstring>

__global__ void k_static(float* out) {
  __shared__ float tile[64];
  tile[threadIdx.x] = 1.0f;  // LINE_STATIC: 65 threads, tile has 64 slots
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x % 64];
}

__global__ void k_dynamic(float* out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = dyn[threadIdx.x + 1];  // LINE_DYNAMIC: last thread reads past the end
}

int main(int argc, char** argv) {
  float* d;
  hipMalloc(&d, 128 * sizeof(float));
  if (argc > 1 && !strcmp(argv[1], "static"))
    hipLaunchKernelGGL(k_static, dim3(1), dim3(65), 0, 0, d);
  if (argc > 1 && !strcmp(argv[1], "dynamic"))
    hipLaunchKernelGGL(k_dynamic, dim3(2), dim3(64), 64 * sizeof(float), 0, d);
  printf("ok\n");
  return 0;
}
