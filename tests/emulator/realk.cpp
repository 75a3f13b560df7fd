// Constructs that real ML/HPC kernels use (issue 16): __half / __half2 and bfloat16
// arithmetic and conversions, cache-hint loads/stores, vector types, launches with
// NULL / nullptr arguments, templates with constexpr launch parameters, a parameter
// named like a type, and shuffles whose source lane has exited (undefined, not a fault).
// Every value is printed as an integer (bit patterns for 16-bit floats).
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_cooperative_groups.h>
#include <cstdio>
#include <cstring>

constexpr int N = 128;
constexpr int kRows = 16;  // rows of per-thread results in `out`

__device__ float input(int t) { return (float)(t * t * 37 - 5000) / 16384.0f; }

__global__ void k_half(int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const float x = input(t), y = (float)(t - 50) / 8.0f;
  const __half hx = __float2half(x), hy = __float2half_rn(y);
  out[0 * N + t] = __half_as_ushort(hx);
  out[1 * N + t] = __half_as_ushort(__hadd(hx, hy));
  out[2 * N + t] = __half_as_ushort(__hmul(hx, hy));
  out[3 * N + t] = __half_as_ushort(__hfma(hx, hy, __float2half(0.3f)));
  __half acc = hx * hy + hx;  // operators stay __half (rounded after each op)
  acc -= hy;
  out[4 * N + t] = __half_as_ushort(acc);
  out[5 * N + t] = __half_as_ushort(__float2half_rz(x));
  const __half2 a = __floats2half2_rn(x, y), b = __float22half2_rn(make_float2(y, 0.5f));
  const __half2 c = __hfma2(a, b, __hmul2(a, a)) + __hsub2(a, b);
  out[6 * N + t] = __half_as_ushort(__low2half(c));
  out[7 * N + t] = __half_as_ushort(__high2half(c));
  out[8 * N + t] = (int)(__low2float(a) * 1024.0f);
  out[9 * N + t] = (int)__half2float(__hmax(hx, hy)) * 16;
  const __half2 s = __shfl_xor(a, 1);  // a 4-byte __half2 crosses lanes
  out[10 * N + t] = __half_as_ushort(__high2half(s));
  out[11 * N + t] = __heq(hx, __ushort_as_half(__half_as_ushort(hx))) + 2 * __hlt(hx, hy);
  out[12 * N + t] = __half2int_rn(hy * __float2half(3.0f));
  __shared__ __half2 sum2;
  __shared__ __half sum1;
  if (threadIdx.x == 0) sum2 = __float2half2_rn(0.0f), sum1 = __float2half(0.0f);
  __syncthreads();
  atomicAdd(&sum2, __floats2half2_rn(1.0f, 0.5f));
  unsafeAtomicAdd(&sum1, __float2half(0.25f));
  __syncthreads();
  out[13 * N + t] = __half_as_ushort(__low2half(sum2));
  out[14 * N + t] = __half_as_ushort(__high2half(sum2));
  out[15 * N + t] = __half_as_ushort(sum1);
}

__global__ void k_bf16(int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const float x = input(t), y = (float)(t - 50) / 8.0f;
  const __hip_bfloat16 bx = __float2bfloat16(x), by = __float2bfloat16_rn(y);
  out[0 * N + t] = __bfloat16_as_ushort(bx);
  out[1 * N + t] = __bfloat16_as_ushort(__hadd(bx, by));
  out[2 * N + t] = __bfloat16_as_ushort(__hmul(bx, by));
  out[3 * N + t] = __bfloat16_as_ushort(__hfma(bx, by, __float2bfloat16(0.3f)));
  __nv_bfloat16 acc = bx * by + bx;
  acc -= by;
  out[4 * N + t] = __bfloat16_as_ushort(acc);
  out[5 * N + t] = __bfloat16_as_ushort(__float2bfloat16_rz(x));
  const __hip_bfloat162 a = __floats2bfloat162_rn(x, y), b = __halves2bfloat162(by, bx);
  const __hip_bfloat162 c = __hfma2(a, b, __hmul2(a, a));
  out[6 * N + t] = __bfloat16_as_ushort(__low2bfloat16(c));
  out[7 * N + t] = __bfloat16_as_ushort(__high2bfloat16(c));
  out[8 * N + t] = (int)(__high2float(a) * 8.0f);
  hip_bfloat16 old_style = hip_bfloat16(x);  // ROCm 5.2's class, as hipport maps __nv_bfloat16
  out[9 * N + t] = (int)(float(old_style) * 4.0f);
  const __hip_bfloat16 s = __shfl_down(bx, 2, 16);
  out[10 * N + t] = __bfloat16_as_ushort(s);
  out[11 * N + t] = __bfloat16_as_ushort(__float2bfloat16(__bfloat162float(bx) + 1.0f));
  __shared__ __hip_bfloat162 sum2;
  if (threadIdx.x == 0) sum2 = __float2bfloat162_rn(0.0f);
  __syncthreads();
  atomicAdd(&sum2, __floats2bfloat162_rn(1.0f, 0.5f));  // as llm.c's layernorm backward
  __syncthreads();
  out[12 * N + t] = __bfloat16_as_ushort(sum2.x);
  out[13 * N + t] = __bfloat16_as_ushort(sum2.y);
}

// Cache-hint loads and stores on vector types, as llm.c's Packed128 uses them.
__global__ void k_hints(const float* in, float* outf, int* outi) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 v = __ldcs(reinterpret_cast<const float4*>(in) + t);
  __stcs(reinterpret_cast<float4*>(outf) + t, make_float4(v.w, v.z, v.y, v.x));
  const int4 bits = __ldcg(reinterpret_cast<const int4*>(in) + t);
  __stcg(outi + t, bits.x ^ bits.w);
  const float2 p = __ldg(reinterpret_cast<const float2*>(in) + t);
  __stwt(outi + N + t, (int)(p.x + p.y));
  const float s = __ldlu(in + t) + __ldca(in + t) + __ldcv(in + t);
  __stwb(outi + 2 * N + t, (int)s);
}

// NULL and nullptr arguments, and a parameter named like a type.
__global__ void k_null(int* out, const float* maybe, int* opt, int dim3, int float4) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = (maybe == NULL ? 1 : 0) + (opt == nullptr ? 2 : 0) + 4 * (t * dim3 + float4);
}

template <int BLOCK, typename T>
__global__ void k_tmpl(T* out, T scale) {
  __shared__ T tile[BLOCK];
  tile[threadIdx.x] = (T)threadIdx.x * scale;
  __syncthreads();
  out[blockIdx.x * BLOCK + threadIdx.x] = tile[BLOCK - 1 - threadIdx.x] + (T)(BLOCK * blockIdx.x);
}

// Correct CUDA: the last live lane reads an exited neighbour and discards the result;
// lanes of a masked shuffle read a lane outside the mask and discard it.
__global__ void k_exited(int* out, int n) {
  const int t = threadIdx.x;
  if (t >= n) return;
  const int nb = __shfl_down(t * 10, 1);  // LINE_NEIGHBOUR
  if (t + 1 < n) out[t] = t * 10 + nb;
  const unsigned long long low20 = (1ull << 20) - 1;
  if (t < 20) {  // lanes 0..19 of the first wave
    const int up = __shfl_down_sync(low20, t, 1);  // LINE_MASKED: lane 19 reads lane 20
    if (t < 19) out[N + t] = up;
  }
}

// A coalesced group of the lanes whose lane % 3 != 0: shfl_down / shfl_up by rank (own value
// past the ends), and a sum over the group in the shape hipport's cg::reduce stand-in has.
namespace cg = cooperative_groups;
template <class T>
__device__ T group_sum(const cg::coalesced_group& g, T value) {
  for (unsigned int lanes = 1; lanes < g.size(); lanes *= 2) {
    T other = g.shfl_down(value, lanes);
    if (g.thread_rank() + lanes < g.size()) value = value + other;
  }
  return g.shfl(value, 0);
}
__global__ void k_coalesced(int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = -7;
  out[N + t] = -7;
  out[2 * N + t] = -7;
  if (__lane_id() % 3 != 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    out[t] = g.shfl_down(t, 2);
    out[N + t] = g.shfl_up(t, 1);
    out[2 * N + t] = group_sum(g, t);
  }
}

static void launch_null(int* d, int dim3) {  // a host variable named dim3 too
  hipLaunchKernelGGL(k_null, 2, N / 2, 0, NULL, d, NULL, nullptr, dim3, 5);
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "";
  int* d;
  float *fin, *fout;
  hipMalloc(&d, kRows * N * sizeof(int));
  hipMalloc(&fin, 4 * N * sizeof(float));
  hipMalloc(&fout, 4 * N * sizeof(float));
  hipMemset(d, 0, kRows * N * sizeof(int));
  int rows = 0;
  if (!strcmp(c, "half")) { hipLaunchKernelGGL(k_half, dim3(N / 32), dim3(32), 0, 0, d); rows = 16; }
  if (!strcmp(c, "bf16")) { hipLaunchKernelGGL(k_bf16, dim3(1), dim3(N), 0, 0, d); rows = 14; }
  if (!strcmp(c, "hints")) {
    float h[4 * N];
    for (int i = 0; i < 4 * N; ++i) h[i] = (float)(i * 3 - 7);
    hipMemcpy(fin, h, sizeof h, hipMemcpyHostToDevice);
    hipLaunchKernelGGL(k_hints, dim3(2), dim3(N / 2), 0, nullptr, fin, fout, d);
    hipMemcpy(h, fout, sizeof h, hipMemcpyDeviceToHost);
    printf("f4");
    for (int i = 0; i < 4 * N; ++i) printf(" %d", (int)h[i]);
    printf("\n");
    rows = 3;
  }
  if (!strcmp(c, "null")) { launch_null(d, 3); rows = 1; }
  if (!strcmp(c, "tmpl")) {
    constexpr int kBlock = 32;
    constexpr dim3 grid(N / kBlock);
    hipLaunchKernelGGL(HIP_KERNEL_NAME(k_tmpl<kBlock, int>), grid, dim3(kBlock), 0, 0, d, 3);
    hipLaunchKernelGGL(k_tmpl<2 * kBlock>, dim3(N / (2 * kBlock)), dim3(2 * kBlock), 0, 0,
                       d + N, 5);  // T deduced from the arguments
    rows = 2;
  }
  if (!strcmp(c, "coalesced")) { hipLaunchKernelGGL(k_coalesced, dim3(1), dim3(N), 0, 0, d); rows = 3; }
  if (!strcmp(c, "exited")) { hipLaunchKernelGGL(k_exited, dim3(1), dim3(64), 0, 0, d, 40); rows = 2; }
  if (hipDeviceSynchronize() != hipSuccess || hipGetLastError() != hipSuccess) return 1;
  static int h[kRows * N];
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  for (int r = 0; r < rows; ++r) {
    printf("%s:%d", c, r);
    for (int t = 0; t < N; ++t) printf(" %d", h[r * N + t]);
    printf("\n");
  }
  return 0;
}
