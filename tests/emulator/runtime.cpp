// Host API, memory, dynamic/constant memory, streams/events, atomics, math,
// printf ordering.  Prints "KEY values..." lines checked by test_emulator.py.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstring>

#define CHECK(x)                                                              \
  do {                                                                        \
    hipError_t e_ = (x);                                                      \
    if (e_ != hipSuccess) {                                                   \
      printf("FAIL %s -> %s\n", #x, hipGetErrorName(e_));                     \
      return 1;                                                               \
    }                                                                         \
  } while (0)

__constant__ int ctab[16];
__device__ float gscale;

// Namespace-scope dynamic shared array (rewritten by the Python pre-pass).
extern __shared__ int gdyn[];

__global__ void k_dyn(const float* in, float* out, int n) {
  extern __shared__ float buf[];
  int t = threadIdx.x;
  buf[t] = in[blockIdx.x * n + t];
  __syncthreads();
  out[blockIdx.x * n + t] = buf[n - 1 - t] * gscale;
}

__global__ void k_dyn2(int* out) {
  HIP_DYNAMIC_SHARED(double, hd)
  int t = threadIdx.x;
  gdyn[t] = t * t;  // same buffer as hd, seen as int
  __syncthreads();
  out[t] = gdyn[(t + 1) % blockDim.x] + (reinterpret_cast<int*>(hd) == gdyn ? 1000000 : 0);
}

__global__ void k_const(int* out) { out[threadIdx.x] = ctab[threadIdx.x] * 2; }

__global__ void k_atomics(int* i, unsigned* u, unsigned long long* ull, float* f, double* d) {
  int t = threadIdx.x;
  atomicAdd(&i[0], t);
  atomicSub(&i[1], 2);
  atomicMax(&i[2], t * 3 - 50);
  atomicMin(&i[3], 100 - t);
  atomicExch(&i[4], 42);
  atomicCAS(&i[5], t, t + 1000);  // succeeds only for the matching thread
  atomicAnd(&i[6], ~(1 << (t % 8)));
  atomicOr(&i[7], 1 << (t % 16));
  atomicXor(&i[8], t);
  atomicAdd(&u[0], 3u);
  atomicInc(&u[1], 9u);
  atomicDec(&u[2], 9u);
  atomicMax(&u[3], (unsigned)t);
  atomicAdd(&ull[0], (unsigned long long)t << 33);
  atomicCAS(&ull[1], 0ull, (unsigned long long)t + 5);
  atomicAdd(&f[0], 0.5f);
  atomicAdd(&d[0], 0.25);
  atomicMax(&f[1], (float)t);
}

__global__ void k_math(float* o, int* oi) {
  o[0] = sqrtf(16.0f);
  o[1] = expf(0.0f);
  o[2] = __expf(1.0f);
  o[3] = __fdividef(7.0f, 2.0f);
  o[4] = rsqrtf(4.0f);
  o[5] = fmaf(2.0f, 3.0f, 1.0f);
  o[6] = __fmul_rn(1.5f, 4.0f);
  o[7] = min(2.5f, -1.0f);
  o[8] = max(2.5f, -1.0f);
  o[9] = __saturatef(-1.0f);
  o[10] = __saturatef(0.25f);
  o[11] = __saturatef(3.0f);
  o[12] = __int2float_rn(7);
  o[13] = __fadd_rn(0.5f, 0.25f);
  o[14] = __powf(2.0f, 10.0f);
  o[15] = __logf(1.0f);
  oi[0] = min(3, -4);
  oi[1] = max(3, -4);
  oi[2] = __float2int_rn(2.5f);
  oi[3] = __float2int_rn(3.5f);
  oi[4] = __float2int_rn(-2.5f);
  oi[5] = __float2int_rz(-2.7f);
  oi[6] = __float2int_ru(2.1f);
  oi[7] = __float2int_rd(-2.1f);
  oi[8] = __float_as_int(1.0f);
  oi[9] = (int)min(5u, 7u);
  oi[10] = __mul24(3, 5);
  oi[11] = __umulhi(0x80000000u, 4u);
}

__global__ void k_print(int phase_shift) {
  static __shared__ int shift;  // legal CUDA: the pre-pass drops the extra static
  int t = threadIdx.x;
  if (t == 0) shift = phase_shift;
  printf("P b%u t%d phase0\n", blockIdx.x, t);
  int v = __shfl_xor(t, 1);  // a cross-lane op between the prints
  __syncthreads();
  printf("P b%u t%d phase1 %d\n", blockIdx.x, t, v + shift);
}

__global__ void k_noop() {}

template <typename T, int K>
__global__ void k_scale(T* out) {
  out[threadIdx.x] = (T)(threadIdx.x * K);
}

struct Affine {
  float a, b;
  __device__ float operator()(float x) const { return a * x + b; }
};
// Op is deduced from the launch arguments, as with kernel<<<...>>>(args).
template <typename T, int B, typename Op>
__global__ void __launch_bounds__(B) k_transform(const T* __restrict__ in, T* out, int n, Op op) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

template <typename T>
static T launch_scale(T* d) {
  hipLaunchKernelGGL(HIP_KERNEL_NAME(k_scale<T, 3>), dim3(1), dim3(8), 0, 0, d);
  T h[8];
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  return h[7];
}

int main() {
  // ---- device queries
  int n = 0, dev = -1, ws = 0;
  CHECK(hipGetDeviceCount(&n));
  CHECK(hipSetDevice(0));
  CHECK(hipGetDevice(&dev));
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  CHECK(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0));
  printf("device %d %d %d %d %d %d\n", n, dev, prop.warpSize, ws, prop.maxThreadsPerBlock,
         prop.multiProcessorCount > 0);
  printf("name %s\n", prop.name);
  hipFuncAttributes fa;
  CHECK(hipFuncGetAttributes(&fa, reinterpret_cast<const void*>(k_noop)));
  int gs = 0, bs = 0;
  CHECK(hipOccupancyMaxPotentialBlockSize(&gs, &bs, k_noop, 0, 200));
  printf("occupancy %d %d %d\n", bs, gs > 0, fa.maxThreadsPerBlock);

  // ---- dynamic shared memory + __device__ symbol
  const int B = 2, T = 96;
  float *din, *dout;
  CHECK(hipMalloc(&din, B * T * sizeof(float)));
  CHECK(hipMalloc((void**)&dout, B * T * sizeof(float)));
  float hin[B * T], hout[B * T];
  for (int i = 0; i < B * T; ++i) hin[i] = (float)i;
  CHECK(hipMemcpy(din, hin, sizeof hin, hipMemcpyHostToDevice));
  float scale = 2.0f;
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(gscale), &scale, sizeof scale));
  hipLaunchKernelGGL(k_dyn, dim3(B), dim3(T), T * sizeof(float), 0, din, dout, T);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(hout, dout, sizeof hout, hipMemcpyDeviceToHost));
  printf("dyn");
  for (int i = 0; i < B * T; ++i) printf(" %g", hout[i]);
  printf("\n");
  int* di;
  CHECK(hipMalloc(&di, 64 * sizeof(int)));
  hipLaunchKernelGGL(k_dyn2, dim3(1), dim3(64), 64 * sizeof(double), 0, di);
  int hi[64];
  CHECK(hipMemcpy(hi, di, sizeof hi, hipMemcpyDeviceToHost));
  printf("dyn2");
  for (int i = 0; i < 64; ++i) printf(" %d", hi[i]);
  printf("\n");

  // ---- constant memory
  int tab[16];
  for (int i = 0; i < 16; ++i) tab[i] = i * i;
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(ctab), tab, sizeof tab));
  int seven = 7;
  CHECK(hipMemcpyToSymbol(ctab, &seven, sizeof(int), 3 * sizeof(int)));  // CUDA-style symbol
  hipLaunchKernelGGL(k_const, dim3(1), dim3(16), 0, 0, di);
  CHECK(hipMemcpy(hi, di, 16 * sizeof(int), hipMemcpyDeviceToHost));
  int back[16];
  CHECK(hipMemcpyFromSymbol(back, HIP_SYMBOL(ctab), sizeof back));
  void* addr = nullptr;
  CHECK(hipGetSymbolAddress(&addr, HIP_SYMBOL(ctab)));
  size_t sz = 0;
  CHECK(hipGetSymbolSize(&sz, HIP_SYMBOL(ctab)));
  printf("const");
  for (int i = 0; i < 16; ++i) printf(" %d", hi[i]);
  printf(" | %d %d %d %zu\n", back[3], back[15], addr == (void*)ctab, sz);
  printf("symerr %s\n", hipGetErrorName(hipMemcpyToSymbol(HIP_SYMBOL(ctab), tab, sizeof tab, 4)));
  (void)hipGetLastError();

  // ---- streams and events, executed in order
  hipStream_t s;
  hipEvent_t e0, e1;
  CHECK(hipStreamCreate(&s));
  CHECK(hipEventCreate(&e0));
  CHECK(hipEventCreate(&e1));
  CHECK(hipEventRecord(e0, s));
  CHECK(hipMemsetAsync(di, 0, 64 * sizeof(int), s));
  hipLaunchKernelGGL(k_const, dim3(1), dim3(16), 0, s, di);
  CHECK(hipMemcpyAsync(hi, di, 64 * sizeof(int), hipMemcpyDeviceToHost, s));
  CHECK(hipEventRecord(e1, s));
  CHECK(hipEventSynchronize(e1));
  CHECK(hipStreamSynchronize(s));
  float ms = -1;
  CHECK(hipEventElapsedTime(&ms, e0, e1));
  printf("stream %d %d %d %d\n", hi[1], hi[3], hi[16], ms >= 0.0f);
  CHECK(hipEventDestroy(e0));
  CHECK(hipEventDestroy(e1));
  CHECK(hipStreamDestroy(s));
  hipError_t bad = hipStreamSynchronize(s);
  printf("destroyed %s %s\n", hipGetErrorName(bad), hipGetErrorName(hipGetLastError()));

  // ---- errors: invalid launch configuration, peek vs get
  hipLaunchKernelGGL(k_noop, dim3(1), dim3(2048), 0, 0);
  hipError_t p1 = hipPeekAtLastError();
  hipError_t g1 = hipGetLastError();
  hipError_t g2 = hipGetLastError();
  printf("launcherr %s %s %s | %s\n", hipGetErrorName(p1), hipGetErrorName(g1),
         hipGetErrorName(g2), hipGetErrorString(g1));
  printf("memcpykind %s\n",
         hipGetErrorName(hipMemcpy(hi, di, 4, static_cast<hipMemcpyKind>(9))));
  (void)hipGetLastError();

  // ---- managed / host memory and atomics
  int* ai;
  unsigned* au;
  unsigned long long* aull;
  float* af;
  double* ad;
  CHECK(hipMallocManaged(&ai, 16 * sizeof(int)));
  CHECK(hipHostMalloc(&au, 4 * sizeof(unsigned)));
  CHECK(hipMalloc(&aull, 2 * sizeof(unsigned long long)));
  CHECK(hipMallocManaged(&af, 2 * sizeof(float)));
  CHECK(hipMalloc(&ad, sizeof(double)));
  int iinit[9] = {0, 1000, -1000, 1000, 0, 37, -1, 0, 0};
  std::memcpy(ai, iinit, sizeof iinit);
  unsigned uinit[4] = {0, 0, 0, 0};
  CHECK(hipMemcpy(au, uinit, sizeof uinit, hipMemcpyHostToDevice));
  CHECK(hipMemset(aull, 0, 2 * sizeof(unsigned long long)));
  af[0] = 0;
  af[1] = -1;
  CHECK(hipMemset(ad, 0, sizeof(double)));
  hipLaunchKernelGGL(k_atomics, dim3(2), dim3(100), 0, 0, ai, au, aull, af, ad);
  CHECK(hipDeviceSynchronize());
  unsigned long long hull[2];
  double hd;
  CHECK(hipMemcpy(hull, aull, sizeof hull, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&hd, ad, sizeof hd, hipMemcpyDeviceToHost));
  printf("atomics");
  for (int i = 0; i < 9; ++i) printf(" %d", ai[i]);
  printf(" | %u %u %u %u | %llu %llu | %g %g %g\n", au[0], au[1], au[2], au[3], hull[0],
         hull[1], af[0], af[1], hd);
  CHECK(hipFree(ai));
  CHECK(hipHostFree(au));
  CHECK(hipFree(aull));
  CHECK(hipFree(af));
  CHECK(hipFree(ad));

  // ---- math
  float* mf;
  int* mi;
  CHECK(hipMalloc(&mf, 16 * sizeof(float)));
  CHECK(hipMalloc(&mi, 12 * sizeof(int)));
  hipLaunchKernelGGL(k_math, dim3(1), dim3(1), 0, 0, mf, mi);
  float hmf[16];
  int hmi[12];
  CHECK(hipMemcpy(hmf, mf, sizeof hmf, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(hmi, mi, sizeof hmi, hipMemcpyDeviceToHost));
  printf("mathf");
  for (float v : hmf) printf(" %.6g", v);
  printf("\nmathi");
  for (int v : hmi) printf(" %d", v);
  printf("\n");

  // ---- template kernels through HIP_KERNEL_NAME
  printf("template %d %g\n", launch_scale(di), (double)launch_scale(mf));
  hipLaunchKernelGGL(HIP_KERNEL_NAME(k_transform<float, 32>), dim3(2), dim3(32), 0, 0, din, dout,
                     40, Affine{2.0f, 1.0f});
  void (*noop)() = k_noop;  // a kernel through a function pointer variable
  hipLaunchKernelGGL(noop, dim3(1), dim3(1), 0, 0);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(hout, dout, 64 * sizeof(float), hipMemcpyDeviceToHost));
  printf("deduced %g %g %g\n", hout[0], hout[39], hout[40]);

  // ---- printf ordering: 2 blocks of 70 threads (partial last wave)
  hipLaunchKernelGGL(k_print, dim3(2), dim3(70), 0, 0, 0);
  CHECK(hipDeviceSynchronize());
  printf("done\n");
  return 0;
}
