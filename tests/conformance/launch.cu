// Launch APIs: <<<>>>, cudaLaunchKernel with a void** argument array (kernel cast to void*, and a
// template kernel with the default shared-memory size and stream), cudaLaunchCooperativeKernel.
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
template <int K>
__global__ void fill(int* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = K * (int)threadIdx.x + (int)blockIdx.x; }
__global__ void grid_info(int* p) {
  cg::grid_group g = cg::this_grid();
  p[g.thread_rank()] = (int)g.num_threads() * 10 + (g.is_valid() ? 1 : 0);
}

int main() {
  float hx[128], hy[128], *x, *y;
  int hp[64], *p;
  for (int i = 0; i < 128; ++i) { hx[i] = (float)i; hy[i] = 1.0f; }
  cudaMalloc(&x, sizeof hx);
  cudaMalloc(&y, sizeof hy);
  cudaMalloc(&p, sizeof hp);
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice);
  float a = 2.0f;
  int n = 100;
  void* args[] = {&a, &x, &y, &n};
  cudaError_t e1 = cudaLaunchKernel((void*)axpy, dim3(2), dim3(64), args, 0, 0);
  axpy<<<2, 64>>>(a, x, y, 10);
  cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
  printf("axpy %d: %g %g %g %g %g\n", e1 == cudaSuccess, hy[0], hy[9], hy[10], hy[99], hy[100]);
  void* fargs[] = {&p};
  cudaError_t e2 = cudaLaunchKernel(fill<3>, dim3(2), dim3(4), fargs);
  cudaMemcpy(hp, p, 8 * sizeof(int), cudaMemcpyDeviceToHost);
  printf("fill %d:", e2 == cudaSuccess);
  for (int i = 0; i < 8; ++i) printf(" %d", hp[i]);
  printf("\n");
  cudaError_t e3 = cudaLaunchCooperativeKernel((void*)grid_info, dim3(2), dim3(32), fargs, 0, 0);
  cudaMemcpy(hp, p, sizeof hp, cudaMemcpyDeviceToHost);
  printf("cooperative %d: %d %d %d\n", e3 == cudaSuccess, hp[0], hp[33], hp[63]);
  cudaFree(x);
  cudaFree(y);
  cudaFree(p);
  return 0;
}
