// Cross-lane intrinsics: every kernel writes per-lane results; main prints
// them as "KEY v0 v1 ..." lines that tests/test_emulator.py compares with a
// Python model of the AMD semantics.
// hipcc predefines these before any include (emulator.build force-includes
// hipemu/predef.h for the same effect).
#if defined(__HIPCC__) && defined(__HIP__) && defined(__HIP_PLATFORM_AMD__) && \
    defined(__AMDGCN_WAVEFRONT_SIZE) && !defined(__HIP_DEVICE_COMPILE__)
#define PREDEFINED 1
#else
#define PREDEFINED 0
#endif
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <cstdio>
#include <cstring>

constexpr int N = 128;  // 2 waves of 64 or 4 waves of 32
typedef unsigned long long u64;

static void dump(const char* key, const long long* v, int n = N) {
  printf("%s", key);
  for (int i = 0; i < n; ++i) printf(" %lld", v[i]);
  printf("\n");
}

__global__ void k_shfl(long long* out, int op, int p, int width) {
  int t = threadIdx.x;
  int v = t * 3 + 1;
  int r = 0;
  switch (op) {
    case 0: r = __shfl(v, (int)((__lane_id() * 7 + p) % 97), width); break;
    case 1: r = __shfl_up(v, (unsigned)p, width); break;
    case 2: r = __shfl_down(v, (unsigned)p, width); break;
    case 3: r = __shfl_xor(v, p, width); break;
  }
  out[t] = r;
}

// Same shuffles through the *_sync variants with a full 64-bit mask.
__global__ void k_shfl_sync(long long* out, int op, int p, int width) {
  int t = threadIdx.x;
  int v = t * 3 + 1;
  int r = 0;
  const u64 full = ~0ull >> (64 - warpSize);
  switch (op) {
    case 0: r = __shfl_sync(full, v, (int)((__lane_id() * 7 + p) % 97), width); break;
    case 1: r = __shfl_up_sync(full, v, (unsigned)p, width); break;
    case 2: r = __shfl_down_sync(full, v, (unsigned)p, width); break;
    case 3: r = __shfl_xor_sync(full, v, p, width); break;
  }
  out[t] = r;
}

// Value types: results re-encoded as integers.
__global__ void k_types(long long* out) {
  int t = threadIdx.x;
  unsigned u = 0x80000000u + t;
  float f = t * 0.5f + 0.25f;
  double d = t * 1e10 + 0.125;
  long long ll = ((long long)t << 40) - 7;
  u64 ull = ((u64)t << 50) | (u64)t;
  __half h = __float2half((float)t);
  out[0 * N + t] = (long long)__shfl_xor(u, 1);
  out[1 * N + t] = (long long)(__shfl_down(f, 2) * 4.0f);
  out[2 * N + t] = (long long)((__shfl_up(d, 3) - 0.125) / 1e10);
  out[3 * N + t] = __shfl(ll, 5) + 7;
  out[4 * N + t] = (long long)(__shfl_xor(ull, 4, 8) >> 50);
  out[5 * N + t] = (long long)__half2float(__shfl_xor(h, 2));
  out[6 * N + t] = (long long)__shfl((long)t * 2, 3, 16);
  out[7 * N + t] = (long long)__shfl((unsigned short)(t + 1), 1, 4);
}

// Full-wave sum in a helper function (a different call site and function).
__device__ int wave_sum(int v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  return __shfl(v, 0);
}

__global__ void k_votes(long long* out) {
  int t = threadIdx.x;
  int lane = __lane_id();
  int pred = (t % 3 == 0) || t == 5;
  const u64 full = ~0ull >> (64 - warpSize);
  long long* o = out;
  o[0 * N + t] = (long long)__ballot(pred);
  o[1 * N + t] = __any(t == 7);
  o[2 * N + t] = __all(t < 1000);
  o[3 * N + t] = __all(t != 3);
  o[4 * N + t] = (long long)__activemask();
  o[5 * N + t] = lane;
  // divergence: only odd lanes are active at this call (exec-mask semantics)
  long long am = -1;
  if (t & 1) am = (long long)__activemask();
  o[6 * N + t] = am;
  long long b = -1;
  if (t % 4 == 0) b = (long long)__ballot(t % 8 == 0);
  o[7 * N + t] = b;
  o[8 * N + t] = (long long)__ballot_sync(full, pred);
  o[9 * N + t] = __any_sync(full, t == 9);
  o[10 * N + t] = __all_sync(full, t >= 0);
  long long hs = -1;  // sub-wave mask in a branch
  if (lane < 16) hs = (long long)__ballot_sync(0xffffull, lane % 2);
  o[11 * N + t] = hs;
  o[12 * N + t] = (long long)__match_any_sync(full, t % 5);
  int pr = -1;
  long long ma = (long long)__match_all_sync(full, 7, &pr);
  o[13 * N + t] = ma;
  o[14 * N + t] = pr;
  o[15 * N + t] = (long long)__match_all_sync(full, t / 2, &pr);
  o[16 * N + t] = pr;
  o[17 * N + t] = __reduce_add_sync(full, t);
  o[18 * N + t] = __reduce_max_sync(full, (unsigned)(t * 7 % 11));
  o[19 * N + t] = __syncthreads_count(t % 3 == 0);
  o[20 * N + t] = __syncthreads_and(t < 1000);
  o[21 * N + t] = __syncthreads_and(t != 77);
  o[22 * N + t] = __syncthreads_or(t == 77);
  o[23 * N + t] = __syncthreads_or(0);
  __syncwarp();
  o[24 * N + t] = (long long)__lanemask_lt();
  // if/else with cross-lane ops in both branches: each branch is its own
  // exec mask; reads stay inside the branch.
  int v = t * 10;
  int r;
  if (lane % 2 == 0)
    r = __shfl_xor(v, 2);
  else
    r = __shfl_down(v, 2);
  o[25 * N + t] = r;
  // A branch with a shuffle, then a full-wave reduction: the branch's lanes
  // are executed first and then join the reduction, as on hardware.
  int x = t;
  if (lane < 16) x = __shfl_xor(x, 1) * 2;
  o[27 * N + t] = wave_sum(x);
  // Extras used by ported code.
  o[28 * N + t] = (long long)__ballot64(pred);
  o[29 * N + t] = (long long)__lanemask_ge();
  long long mo = -1;
  if (t & 1) mo = (long long)__match_any(t % 5);  // over the active (odd) lanes
  o[30 * N + t] = mo;
  int ap = -1;
  o[31 * N + t] = (long long)__match_all(7, &ap) + ap;
  o[32 * N + t] = __uni_sync(full, t < 1000) * 10 + __uni_sync(full, t == 3);
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_s_barrier();
  o[33 * N + t] = __builtin_amdgcn_ds_bpermute((int)((lane + 1) % warpSize) * 4, t);
  o[34 * N + t] = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0));
#if HIPEMU_WAVE == 32
  // On wave32 a 32-bit mask is accepted.
  o[26 * N + t] = __shfl_sync(0xffffffffu, t, 0);
#else
  o[26 * N + t] = __shfl_sync(0xffffffffffffffffull, t, 0);
#endif
}
constexpr int NVOTE = 35;

__global__ void k_macros(long long* out) {
  static_assert(warpSize == HIPEMU_WAVE, "constexpr warpSize");
  int lanes[warpSize];  // usable as a constant expression
  lanes[0] = warpSize;
  out[0] = lanes[0];
  out[1] = __AMDGCN_WAVEFRONT_SIZE;
  out[2] = __AMDGCN_WAVEFRONT_SIZE__;
#ifdef __GFX9__
  out[3] = 9;
#elif defined(__GFX10__)
  out[3] = 10;
#endif
#ifdef __HIP_DEVICE_COMPILE__
  out[4] = 1;
#else
  out[4] = 0;
#endif
#ifdef __HIP_PLATFORM_AMD__
  out[5] = 1;
#endif
  out[6] = HIPEMU_WAVE;
  out[7] = PREDEFINED;
}

// 2D/3D blocks are linearised x-fastest into waves.
__global__ void k_linear(long long* out) {
  int lin = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  out[lin] = __shfl(lin, 0) * 1000 + __lane_id();
}

int main() {
  long long* d;
  hipMalloc(&d, sizeof(long long) * N * 40);
  static long long h[N * 40];
  char key[128];
  const int widths[] = {1, 2, 4, 8, 16, 32, 64};
  const int params[] = {0, 1, 3, 5, 16, 31, 32, 33, 63};
  const char* ops[] = {"shfl", "up", "down", "xor"};
  for (int sync = 0; sync < 2; ++sync)
    for (int op = 0; op < 4; ++op)
      for (int w : widths)
        for (int p : params) {
          if (sync)
            hipLaunchKernelGGL(k_shfl_sync, dim3(1), dim3(N), 0, 0, d, op, p, w);
          else
            hipLaunchKernelGGL(k_shfl, dim3(1), dim3(N), 0, 0, d, op, p, w);
          hipMemcpy(h, d, sizeof(long long) * N, hipMemcpyDeviceToHost);
          snprintf(key, sizeof key, "%s%s:%d:%d", ops[op], sync ? "_sync" : "", p, w);
          dump(key, h);
        }
  hipLaunchKernelGGL(k_types, dim3(1), dim3(N), 0, 0, d);
  hipMemcpy(h, d, sizeof(long long) * N * 8, hipMemcpyDeviceToHost);
  for (int i = 0; i < 8; ++i) {
    snprintf(key, sizeof key, "types:%d", i);
    dump(key, h + i * N);
  }
  hipLaunchKernelGGL(k_votes, dim3(1), dim3(N), 0, 0, d);
  hipMemcpy(h, d, sizeof(long long) * N * NVOTE, hipMemcpyDeviceToHost);
  for (int i = 0; i < NVOTE; ++i) {
    snprintf(key, sizeof key, "votes:%d", i);
    dump(key, h + i * N);
  }
  hipLaunchKernelGGL(k_macros, dim3(1), dim3(1), 0, 0, d);
  hipMemcpy(h, d, sizeof(long long) * 8, hipMemcpyDeviceToHost);
  dump("macros", h, 8);
  hipLaunchKernelGGL(k_linear, dim3(1), dim3(8, 4, 4), 0, 0, d);
  hipMemcpy(h, d, sizeof(long long) * N, hipMemcpyDeviceToHost);
  dump("linear", h);
  // Bit intrinsics (plain functions, evaluated on the host side here).
  const unsigned long long xs[] = {0ull, 1ull, 2ull, 0x80000000ull, 0xf0f0ull,
                                   0x123456789abcdef0ull, ~0ull, 0x8000000000000000ull};
  for (unsigned long long x : xs)
    printf("bits %llu %d %d %d %d %d %d %u %llu\n", x, __popc((unsigned)x), __popcll(x),
           __ffs((int)(unsigned)x), __ffsll((long long)x), __clz((int)(unsigned)x),
           __clzll((long long)x), __brev((unsigned)x), __brevll(x));
  hipFree(d);
  return 0;
}
