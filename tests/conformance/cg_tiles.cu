// Cooperative-groups tiles: thread_block_tile<8> shuffles, votes and matches (ballot and
// match_any are unsigned int, bit i = tile rank i), ranks and meta-group ranks, a 32-thread tile.
#include <cstdio>
#include <type_traits>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void tiles(int* out, int* sums) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(b);
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
  int v = (int)b.thread_rank();
  static_assert(std::is_same<decltype(t8.ballot(1)), unsigned>::value, "32-bit tile ballot");
  int sum = v;
  for (int o = 4; o > 0; o /= 2) sum += t8.shfl_down(sum, o);
  if (t8.thread_rank() == 0) sums[t8.meta_group_rank()] = sum;
  int* o = out + v * 13;
  o[0] = (int)t8.ballot(v % 3 == 0); o[1] = t8.any(v == 9); o[2] = t8.all(v < 60);
  o[3] = t8.shfl_up(v, 1); o[4] = t8.shfl_xor(v, 7); o[5] = t8.shfl(v, 2);
  o[6] = (int)t8.thread_rank(); o[7] = (int)t8.meta_group_rank(); o[8] = (int)t8.meta_group_size();
  o[9] = (int)w.meta_group_rank() * 100 + (int)w.num_threads();
  o[10] = (int)t8.match_any(v % 3); o[11] = (int)t8.match_all(v / 12, o[12]);
}

int main() {
  int h[64 * 13], s[8], *d, *ds;
  cudaMalloc(&d, sizeof h);
  cudaMalloc(&ds, sizeof s);
  tiles<<<1, 64>>>(d, ds);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(s, ds, sizeof s, cudaMemcpyDeviceToHost);
  printf("sums");
  for (int i = 0; i < 8; ++i) printf(" %d", s[i]);
  printf("\n");
  const int ts[5] = {0, 9, 15, 40, 63};
  for (int i = 0; i < 5; ++i) {
    const int* o = h + ts[i] * 13;
    printf("thread %d: ballot %02x any %d all %d up %d xor %d bcast %d rank %d meta %d/%d warp %d match %02x %02x/%d\n",
           ts[i], o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], o[10], o[11], o[12]);
  }
  cudaFree(d);
  cudaFree(ds);
  return 0;
}
