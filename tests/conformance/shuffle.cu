// Shuffle family: __shfl*_sync for each of CUDA's value types, with and without a width.
// CUDA overloads them on exact types: a short argument promotes to the int overload.
#include <cstdio>
#include <type_traits>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void shfl(long long* out) {
  int l = threadIdx.x;  // one warp
  const unsigned full = 0xffffffffu;
  static_assert(std::is_same<decltype(__shfl_sync(full, (short)1, 0)), int>::value, "short -> int");
  static_assert(std::is_same<decltype(__shfl_xor_sync(full, 1ul, 1)), unsigned long>::value, "ulong");
  static_assert(std::is_same<decltype(__shfl_down_sync(full, 1.0f, 1)), float>::value, "float");
  out[0 * 32 + l] = __shfl_sync(full, l * 10, 3);
  out[1 * 32 + l] = __shfl_up_sync(full, (unsigned)l + 100u, 2);
  out[2 * 32 + l] = __shfl_down_sync(full, (long)l - 50, 4, 8);
  out[3 * 32 + l] = (long long)__shfl_xor_sync(full, (unsigned long)l, 1);
  out[4 * 32 + l] = __shfl_sync(full, (long long)l << 33, l + 1, 16) >> 33;
  out[5 * 32 + l] = (long long)(__shfl_xor_sync(full, (unsigned long long)l << 40, 16) >> 40);
  out[6 * 32 + l] = (long long)(__shfl_down_sync(full, l * 0.5f, 1) * 2);
  out[7 * 32 + l] = (long long)(__shfl_up_sync(full, l * 0.25, 1, 4) * 4);
  out[8 * 32 + l] = (long long)__half2float(__shfl_sync(full, __float2half((float)l), 31 - l));
  __half2 h2 = __shfl_xor_sync(full, __floats2half2_rn((float)l, (float)(2 * l)), 2);
  out[9 * 32 + l] = (long long)__low2float(h2) * 100 + (long long)__high2float(h2);
}

int main() {
  const char* names[10] = {"int", "unsigned", "long", "ulong", "llong", "ullong", "float", "double", "half", "half2"};
  const int lanes[8] = {0, 1, 7, 8, 15, 16, 30, 31};
  long long h[320], *d;
  cudaMalloc(&d, sizeof h);
  shfl<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int r = 0; r < 10; ++r) {
    printf("%s", names[r]);
    for (int i = 0; i < 8; ++i) printf(" %lld", h[r * 32 + lanes[i]]);
    printf("\n");
  }
  cudaFree(d);
  return 0;
}
