// Wrong programs that the emulator must stop with a clear message (exit 86),
// plus two that are legal on AMD and must run.  argv[1] selects the case.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cstdio>
#include <cstring>

__global__ void k_inactive(int* out) {
  int lane = __lane_id();
  int v = threadIdx.x;
  if (lane < 16) v = __shfl(v, lane + 16);  // LINE_INACTIVE: lanes 16.. are not here
  __syncthreads();
  out[threadIdx.x] = v;
}

__global__ void k_exited(int* out) {
  if (threadIdx.x >= 32) return;  // upper half of a 64-wave exits
  int v = threadIdx.x;
  v += __shfl_down(v, 16, 64);  // LINE_EXITED: lanes 16..31 read exited lanes
  out[threadIdx.x] = v;
}

__global__ void k_deadlock(int* out) {
  if (threadIdx.x % 2 == 0) {
    __syncthreads();  // LINE_DEADLOCK_A
  }
  out[threadIdx.x] = 1;
  __syncthreads();  // LINE_DEADLOCK_B
}

// Legal on AMD: exited threads count as arrived at the barrier.
__global__ void k_exit_barrier(int* out) {
  __shared__ int s[128];
  if (threadIdx.x >= 40) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[39 - threadIdx.x];
}

__global__ void k_syncwarp_deadlock(int* out) {
  if (__lane_id() < 16) {
    __syncwarp();  // LINE_SYNCWARP: waits for lanes that wait in __syncthreads
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

__global__ void k_mask(int* out) {
  out[threadIdx.x] = __shfl_sync(0xffffull, (int)threadIdx.x, 0);  // LINE_MASK
}

__global__ void k_grid_sync(int* out) {
  cooperative_groups::this_grid().sync();  // LINE_GRID
  out[0] = 1;
}

__global__ void k_spin(int* out) {
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x == 0)
    while (flag == 0) {
    }  // thread 1 never runs: fibers are cooperative
  if (threadIdx.x == 1) flag = 1;
  out[threadIdx.x] = 1;
}

__global__ void k_trap(int* out) {
  if (threadIdx.x == 3) __trap();  // LINE_TRAP
  out[threadIdx.x] = 1;
}

__global__ void k_partial(int* out) {
  out[threadIdx.x] = __shfl((int)threadIdx.x, 50);  // LINE_PARTIAL: 40-thread block
}

__global__ void k_segv(int* out) {
  if (blockIdx.x == 1 && threadIdx.x == 7) out = nullptr;
  out[threadIdx.x] = 1;
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  int* d;
  hipMalloc(&d, 256 * sizeof(int));
  hipMemset(d, 0, 256 * sizeof(int));
  if (!strcmp(c, "inactive")) hipLaunchKernelGGL(k_inactive, dim3(1), dim3(64), 0, 0, d);
  if (!strcmp(c, "exited")) hipLaunchKernelGGL(k_exited, dim3(1), dim3(64), 0, 0, d);
  if (!strcmp(c, "deadlock")) hipLaunchKernelGGL(k_deadlock, dim3(2), dim3(64), 0, 0, d);
  if (!strcmp(c, "exit_barrier")) hipLaunchKernelGGL(k_exit_barrier, dim3(1), dim3(128), 0, 0, d);
  if (!strcmp(c, "syncwarp")) hipLaunchKernelGGL(k_syncwarp_deadlock, dim3(1), dim3(64), 0, 0, d);
  if (!strcmp(c, "mask")) hipLaunchKernelGGL(k_mask, dim3(1), dim3(64), 0, 0, d);
  if (!strcmp(c, "grid")) hipLaunchKernelGGL(k_grid_sync, dim3(1), dim3(64), 0, 0, d);
  if (!strcmp(c, "spin")) hipLaunchKernelGGL(k_spin, dim3(1), dim3(64), 0, 0, d);
  if (!strcmp(c, "trap")) hipLaunchKernelGGL(k_trap, dim3(1), dim3(64), 0, 0, d);
  if (!strcmp(c, "partial")) hipLaunchKernelGGL(k_partial, dim3(1), dim3(40), 0, 0, d);
  if (!strcmp(c, "segv")) hipLaunchKernelGGL(k_segv, dim3(2), dim3(64), 0, 0, d);
  if (!strcmp(c, "outside")) printf("%d\n", __shfl(1, 0));  // LINE_OUTSIDE
  int h[64];
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  printf("ok");
  for (int i = 0; i < 40; ++i) printf(" %d", h[i]);
  printf("\n");
  return 0;
}
