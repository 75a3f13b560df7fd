// Vote family at CUDA's widths: __ballot_sync and __activemask are unsigned int, so
// __ffs(__ballot_sync(...)) resolves to __ffs(int) (a 64-bit ballot makes it ambiguous).
#include <cstdio>
#include <type_traits>
#include <cuda_runtime.h>

__global__ void vote(unsigned* out) {
  int t = threadIdx.x, w = t / 32;
  unsigned am = __activemask();
  unsigned b = __ballot_sync(am, t % 3 == 0);
  static_assert(std::is_same<decltype(__ballot_sync(am, 1)), unsigned>::value, "32-bit ballot");
  static_assert(std::is_same<decltype(__activemask()), unsigned>::value, "32-bit activemask");
  int first = __ffs(__ballot_sync(am, t >= 20));
  int any = __any_sync(am, t == 40), all = __all_sync(am, t < 47);
  if (t % 32 == 0) {
    unsigned* o = out + w * 5;
    o[0] = am; o[1] = b; o[2] = first; o[3] = any; o[4] = all;
  }
}

int main() {
  unsigned h[10], *d;
  cudaMalloc(&d, sizeof h);
  vote<<<1, 48>>>(d);  // warp 1 has 16 threads
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int w = 0; w < 2; ++w)
    printf("warp %d: active %08x ballot %08x ffs %u any %u all %u\n", w, h[w * 5], h[w * 5 + 1],
           h[w * 5 + 2], h[w * 5 + 3], h[w * 5 + 4]);
  cudaFree(d);
  return 0;
}
