// Bit operations with CUDA's overload set: __ffs(int), __ffsll(long long), __popc(unsigned),
// __popcll(unsigned long long), __clz(int), __clzll(long long), __brev(unsigned),
// __brevll(unsigned long long). Other argument types convert to these (no ambiguity).
#include <cstdio>
#include <type_traits>
#include <cuda_runtime.h>

__global__ void bits(unsigned long long* o) {
  unsigned long long big = 0x100000001ull + threadIdx.x;  // one thread: threadIdx.x == 0
  int neg = -1 - (int)threadIdx.x;
  static_assert(std::is_same<decltype(__brev(1u)), unsigned>::value, "brev");
  static_assert(std::is_same<decltype(__brevll(1ull)), unsigned long long>::value, "brevll");
  static_assert(std::is_same<decltype(__popcll(1ull)), int>::value, "popcll");
  o[0] = __ffs(0x80000000u);
  o[1] = __ffs(big);  // converts to int: 1
  o[2] = __ffs(0);
  o[3] = __ffsll(1ll << 40);
  o[4] = __ffsll(0x8000000000000000ull);
  o[5] = __popc(0xf0f0u);
  o[6] = __popc(neg);  // converts to unsigned: 32 bits set
  o[7] = __popcll(0xf0f0f0f0f0f0f0f0ull);
  o[8] = __clz(0x00010000);
  o[9] = __clz(0);
  o[10] = __clz(-1);
  o[11] = __clzll(1ll);
  o[12] = __clzll(0ll);
  o[13] = __brev(1u);
  o[14] = __brev(0x0000ff01u);
  o[15] = __brevll(1ull);
  o[16] = __brevll(0xf0ull);
}

int main() {
  unsigned long long h[17], *d;
  cudaMalloc(&d, sizeof h);
  bits<<<1, 1>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("ffs %llu %llu %llu ffsll %llu %llu\n", h[0], h[1], h[2], h[3], h[4]);
  printf("popc %llu %llu popcll %llu\n", h[5], h[6], h[7]);
  printf("clz %llu %llu %llu clzll %llu %llu\n", h[8], h[9], h[10], h[11], h[12]);
  printf("brev %08llx %08llx brevll %016llx %016llx\n", h[13], h[14], h[15], h[16]);
  cudaFree(d);
  return 0;
}
