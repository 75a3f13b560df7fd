// Match family: __match_any_sync / __match_all_sync return unsigned int (pred by pointer),
// for int, unsigned long long and float keys, and under a half-warp mask.
#include <cstdio>
#include <type_traits>
#include <cuda_runtime.h>

__global__ void match(unsigned* out) {
  int l = threadIdx.x;  // one warp
  const unsigned full = 0xffffffffu;
  static_assert(std::is_same<decltype(__match_any_sync(full, 1)), unsigned>::value, "32-bit");
  int p1 = -1, p2 = -1;
  unsigned any = __match_any_sync(full, l % 4);
  unsigned anyll = __match_any_sync(full, l < 16 ? 7ull : 9ull);
  unsigned all1 = __match_all_sync(full, 3.5f, &p1);
  unsigned all2 = __match_all_sync(full, l / 16, &p2);
  unsigned half = 0;
  if (l < 16) half = __match_any_sync(0x0000ffffu, l % 2);
  unsigned* o = out + l * 7;
  o[0] = any; o[1] = anyll; o[2] = all1; o[3] = p1; o[4] = all2; o[5] = p2; o[6] = half;
}

int main() {
  unsigned h[32 * 7], *d;
  cudaMalloc(&d, sizeof h);
  match<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  const int lanes[4] = {0, 5, 17, 31};
  for (int i = 0; i < 4; ++i) {
    const unsigned* o = h + lanes[i] * 7;
    printf("lane %d: any %08x anyll %08x all %08x/%u all %08x/%u half %08x\n", lanes[i], o[0], o[1],
           o[2], o[3], o[4], o[5], o[6]);
  }
  cudaFree(d);
  return 0;
}
