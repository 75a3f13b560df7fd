// Cooperative groups: block, static and dynamic tiles, coalesced groups.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;
constexpr int N = 128;
constexpr int NK = 32;

template <class Tile>
__device__ void tile_ops(const Tile& t, long long* o, int base) {
  int r = (int)t.thread_rank();
  int v = (int)threadIdx.x * 10;
  o[(base + 0) * N + threadIdx.x] = r;
  o[(base + 1) * N + threadIdx.x] = t.size() * 1000 + t.num_threads();
  o[(base + 2) * N + threadIdx.x] = t.meta_group_rank() * 1000 + t.meta_group_size();
  o[(base + 3) * N + threadIdx.x] = t.shfl(v, 2);
  o[(base + 4) * N + threadIdx.x] = t.shfl_up(v, 1);
  o[(base + 5) * N + threadIdx.x] = t.shfl_down(v, 1);
  o[(base + 6) * N + threadIdx.x] = t.shfl_xor(v, 1);
  o[(base + 7) * N + threadIdx.x] = (long long)t.ballot(r % 3 == 0);
  o[(base + 8) * N + threadIdx.x] = t.any(threadIdx.x == 5);
  o[(base + 9) * N + threadIdx.x] = t.all(threadIdx.x != 5);
  t.sync();
}

__global__ void k_coop(long long* o) {
  cg::thread_block b = cg::this_thread_block();
  int t = threadIdx.x;
  o[0 * N + t] = b.thread_rank();
  o[1 * N + t] = b.size() * 1000 + b.num_threads();
  o[2 * N + t] = b.group_index().x * 1000 + b.thread_index().x;
  b.sync();
  cg::sync(b);
  tile_ops(cg::tiled_partition<16>(b), o, 3);
  tile_ops(cg::tiled_partition<4>(b), o, 13);
  tile_ops(cg::tiled_partition(b, 8), o, 23);
  // coalesced group inside a branch: only lanes with lane%3==0 are active
  long long cs = -1, cr = -1, csh = -1;
  if (__lane_id() % 3 == 0) {
    cg::coalesced_group c = cg::coalesced_threads();
    cs = c.size();
    cr = c.thread_rank();
    csh = c.shfl(t, 1);
  }
  o[33 * N + t] = cs;
  o[34 * N + t] = cr;
  o[35 * N + t] = csh;
  auto w = cg::tiled_partition<warpSize>(b);  // a whole-wave tile
  o[36 * N + t] = w.shfl_down(t, warpSize / 2) * 1000 + w.meta_group_rank();
}

int main() {
  long long* d;
  hipMalloc(&d, sizeof(long long) * N * 40);
  hipLaunchKernelGGL(k_coop, dim3(2), dim3(N), 0, 0, d);
  static long long h[N * 40];
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  for (int k = 0; k < 37; ++k) {
    printf("coop:%d", k);
    for (int i = 0; i < N; ++i) printf(" %lld", h[k * N + i]);
    printf("\n");
  }
  return hipGetLastError() == hipSuccess ? 0 : 1;
}
