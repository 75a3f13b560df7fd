// Lane masks: CUDA reads them from PTX special registers (%laneid, %lanemask_*), 32 bits wide;
// with a ballot they give a lane's rank among the flagged lanes, in a full and a partial warp.
#include <cstdio>
#include <cuda_runtime.h>

__device__ unsigned lane_id() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ unsigned mask_lt() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); return r; }
__device__ unsigned mask_le() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(r)); return r; }
__device__ unsigned mask_gt() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(r)); return r; }
__device__ unsigned mask_ge() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(r)); return r; }
__device__ unsigned mask_eq() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(r)); return r; }

__global__ void masks(unsigned* out) {
  int t = threadIdx.x;
  unsigned b = __ballot_sync(__activemask(), t % 2 == 0);
  unsigned* o = out + t * 7;
  o[0] = lane_id(); o[1] = mask_lt(); o[2] = mask_le(); o[3] = mask_gt(); o[4] = mask_ge();
  o[5] = mask_eq(); o[6] = __popc(b & mask_lt());
}

int main() {
  unsigned h[48 * 7], *d;
  cudaMalloc(&d, sizeof h);
  masks<<<1, 48>>>(d);  // warp 1 has 16 threads
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  const int ts[4] = {0, 5, 31, 47};
  for (int i = 0; i < 4; ++i) {
    const unsigned* o = h + ts[i] * 7;
    printf("thread %d: lane %u lt %08x le %08x gt %08x ge %08x eq %08x rank %u\n", ts[i], o[0], o[1], o[2],
           o[3], o[4], o[5], o[6]);
  }
  cudaFree(d);
  return 0;
}
