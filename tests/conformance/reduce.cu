// Reduce family (sm_80): __reduce_{add,min,max}_sync for int and unsigned (signedness picks
// the overload), __reduce_{and,or,xor}_sync for unsigned, and a half-warp mask.
#include <cstdio>
#include <type_traits>
#include <cuda_runtime.h>

__global__ void reduce(int* out) {
  int l = threadIdx.x;  // one warp
  const unsigned full = 0xffffffffu;
  static_assert(std::is_same<decltype(__reduce_add_sync(full, 1)), int>::value, "int");
  static_assert(std::is_same<decltype(__reduce_max_sync(full, 1u)), unsigned>::value, "unsigned");
  int r[10];
  r[0] = __reduce_add_sync(full, l - 20);
  r[1] = (int)__reduce_add_sync(full, (unsigned)l);
  r[2] = __reduce_min_sync(full, 5 - l);
  r[3] = (int)__reduce_max_sync(full, (unsigned)l - 3u);
  r[4] = __reduce_max_sync(full, l % 7 - 9);
  r[5] = (int)__reduce_min_sync(full, (unsigned)(l * 5 % 32) + 7u);
  r[6] = (int)__reduce_and_sync(full, 0xf0u | (unsigned)l);
  r[7] = (int)__reduce_or_sync(full, 1u << (l % 8));
  r[8] = (int)__reduce_xor_sync(full, (unsigned)l);
  r[9] = 0;
  if (l >= 16) r[9] = (int)__reduce_add_sync(0xffff0000u, (unsigned)l);
  for (int i = 0; i < 10; ++i) out[l * 10 + i] = r[i];
}

int main() {
  int h[320], *d;
  cudaMalloc(&d, sizeof h);
  reduce<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int l = 0; l < 32; l += 16) {
    const int* r = h + l * 10;
    printf("lane %d: add %d %d min %d %u max %d %u and %x or %x xor %x half %d\n", l, r[0], r[1], r[2],
           (unsigned)r[5], r[4], (unsigned)r[3], r[6], r[7], r[8], r[9]);
  }
  cudaFree(d);
  return 0;
}
