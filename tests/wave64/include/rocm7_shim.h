// TEST ONLY (force-included with -include): gives the HIP 5.2 headers installed here the ROCm 7
// shape of everything the wave64 pass depends on, so a rewrite is checked against it:
//  - *_sync warp builtins, __activemask, __syncwarp, __match_any_sync, __reduce_*_sync declared
//    (HIP 7.0 enables them by default), with HIP's rule that a mask is a 64-bit integer
//    (static_assert "The mask must be a 64-bit integer", HIP >= 6.2);
//  - warpSize that is not a constant expression (HIP 7.0): a device-only object whose int
//    conversion is not constexpr, as in wave64.md Appendix C;
//  - no __AMDGCN_WAVEFRONT_SIZE (removed in ROCm 7.2).
// It is not AMD's header; it reproduces the diagnostics that matter for a port.
#pragma once
#include <hip/hip_runtime.h>

template <typename M>
__device__ inline void hipport_test_mask64(M) {
  static_assert(sizeof(M) == 8, "The mask must be a 64-bit integer.");
}
template <typename M, typename T>
__device__ inline T __shfl_sync(M m, T v, int src, int width = __AMDGCN_WAVEFRONT_SIZE) {
  hipport_test_mask64(m);
  return __shfl(v, src, width);
}
template <typename M, typename T>
__device__ inline T __shfl_up_sync(M m, T v, unsigned d, int width = __AMDGCN_WAVEFRONT_SIZE) {
  hipport_test_mask64(m);
  return __shfl_up(v, d, width);
}
template <typename M, typename T>
__device__ inline T __shfl_down_sync(M m, T v, unsigned d, int width = __AMDGCN_WAVEFRONT_SIZE) {
  hipport_test_mask64(m);
  return __shfl_down(v, d, width);
}
template <typename M, typename T>
__device__ inline T __shfl_xor_sync(M m, T v, int lm, int width = __AMDGCN_WAVEFRONT_SIZE) {
  hipport_test_mask64(m);
  return __shfl_xor(v, lm, width);
}
template <typename M>
__device__ inline unsigned long long __ballot_sync(M m, int p) {
  hipport_test_mask64(m);
  return __ballot(p) & m;
}
template <typename M>
__device__ inline int __any_sync(M m, int p) {
  hipport_test_mask64(m);
  return __any(p);
}
template <typename M>
__device__ inline int __all_sync(M m, int p) {
  hipport_test_mask64(m);
  return __all(p);
}
__device__ inline unsigned long long __activemask() { return __ballot(1); }
__device__ inline void __syncwarp() { __builtin_amdgcn_wave_barrier(); }
template <typename M>
__device__ inline void __syncwarp(M m) {
  hipport_test_mask64(m);
  __builtin_amdgcn_wave_barrier();
}
template <typename M, typename T>
__device__ inline unsigned long long __match_any_sync(M m, T v) {
  hipport_test_mask64(m);
  return __ballot(v == v) & m;
}
#define HIPPORT_TEST_REDUCE(op, expr)                               \
  template <typename M, typename T>                                 \
  __device__ inline T __reduce_##op##_sync(M m, T v) {              \
    hipport_test_mask64(m);                                         \
    for (int o = __AMDGCN_WAVEFRONT_SIZE / 2; o > 0; o >>= 1) {     \
      T u = __shfl_xor(v, o);                                       \
      v = (expr);                                                   \
    }                                                               \
    return v;                                                       \
  }
HIPPORT_TEST_REDUCE(add, v + u)
HIPPORT_TEST_REDUCE(min, u < v ? u : v)
HIPPORT_TEST_REDUCE(max, u > v ? u : v)
HIPPORT_TEST_REDUCE(and, v & u)
HIPPORT_TEST_REDUCE(or, v | u)
HIPPORT_TEST_REDUCE(xor, v ^ u)
#undef HIPPORT_TEST_REDUCE

__device__ inline int hipport_test_runtime_wave() {
  return __builtin_amdgcn_read_exec() ? __AMDGCN_WAVEFRONT_SIZE : __AMDGCN_WAVEFRONT_SIZE;
}
struct hipport_test_warp_size_t {
  __device__ operator int() const { return hipport_test_runtime_wave(); }
};
__device__ const hipport_test_warp_size_t hipport_test_warpSize{};
#define warpSize hipport_test_warpSize
#undef __AMDGCN_WAVEFRONT_SIZE
