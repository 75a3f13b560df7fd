// hipport wave emulator: device-side API (index variables, barriers,
// cross-lane operations with AMD semantics, bit intrinsics, atomics).
#pragma once
#include "core.h"

// Index variables: per fiber (threadIdx) or per block / launch.
#define threadIdx (static_cast<const ::uint3&>(::hipemu::detail::g.cur->tid))
#define blockIdx (static_cast<const ::uint3&>(::hipemu::detail::g.bidx))
#define blockDim (static_cast<const ::dim3&>(::hipemu::detail::g.bdim))
#define gridDim (static_cast<const ::dim3&>(::hipemu::detail::g.gdim))
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

// The *_sync mask parameter.  CUDA (HIPEMU_CUDA_WIDTHS): `unsigned int mask`, any integer
// converts to it.  HIP 6.2+: a template whose type must be 64-bit (static_assert in
// amd_warp_sync_functions.h); on wave32 a 32-bit mask is accepted.
#define HIPEMU_CHECK_MASK(MaskT)                                                          \
  static_assert(std::is_integral<MaskT>::value && (sizeof(MaskT) == 8 || HIPEMU_WAVE == 32), \
                "hipemu: the mask of a *_sync function must be a 64-bit integer (unsigned "   \
                "long long) on a wave64 target; a 32-bit mask such as 0xffffffff covers only " \
                "half of the 64-lane wavefront")
#if HIPEMU_CUDA_WIDTHS
#define HIPEMU_MASK_TEMPLATE
#define HIPEMU_MASK_PARAM unsigned int mask
#define HIPEMU_SYNC_MASK_CHECK
#else
#define HIPEMU_MASK_TEMPLATE template <class MaskT>
#define HIPEMU_MASK_PARAM MaskT mask
#define HIPEMU_SYNC_MASK_CHECK HIPEMU_CHECK_MASK(MaskT)
#endif

namespace hipemu {
// Ballots, active masks and lane masks: 32-bit in the CUDA reference, 64-bit in HIP.
#if HIPEMU_CUDA_WIDTHS
using lane_mask_t = unsigned int;
#else
using lane_mask_t = unsigned long long;
#endif
}  // namespace hipemu

// ------------------------------------------------------------ barriers
inline void __syncthreads(::hipemu::Site s = ::hipemu::Site()) {
  ::hipemu::detail::barrier(0, 0, "__syncthreads", s);
}
inline int __syncthreads_count(int pred, ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::barrier(1, pred, "__syncthreads_count", s);
}
inline int __syncthreads_and(int pred, ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::barrier(2, pred, "__syncthreads_and", s);
}
inline int __syncthreads_or(int pred, ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::barrier(3, pred, "__syncthreads_or", s);
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// __syncwarp: rendezvous of the lanes named in mask (exited lanes ignored).
#if HIPEMU_CUDA_WIDTHS
inline void __syncwarp(unsigned int mask = 0xffffffffu, ::hipemu::Site s = ::hipemu::Site()) {
#else
template <class MaskT = unsigned long long>
inline void __syncwarp(MaskT mask = (MaskT)::hipemu::kWaveBits,
                       ::hipemu::Site s = ::hipemu::Site()) {
#endif
  HIPEMU_SYNC_MASK_CHECK;
  ::hipemu::detail::wave_op(::hipemu::detail::OP_SYNC, "__syncwarp", 0, 0, 0,
                            (unsigned long long)mask,
                            ::hipemu::detail::FL_MASK | ::hipemu::detail::FL_LENIENT_EXITED, s);
}

// ------------------------------------------------------------ lane queries
inline unsigned int __lane_id() { return (unsigned)::hipemu::detail::g.cur->lane; }
inline ::hipemu::lane_mask_t __lanemask_lt() {
  return (::hipemu::lane_mask_t)((1ull << __lane_id()) - 1);
}
inline ::hipemu::lane_mask_t __lanemask_le() {
  return (::hipemu::lane_mask_t)(__lane_id() == 63 ? ~0ull : (1ull << (__lane_id() + 1)) - 1);
}
inline ::hipemu::lane_mask_t __lanemask_gt() {
  return (::hipemu::lane_mask_t)(::hipemu::kWaveBits & ~(unsigned long long)__lanemask_le());
}
inline ::hipemu::lane_mask_t __lanemask_eq() { return (::hipemu::lane_mask_t)(1ull << __lane_id()); }
inline ::hipemu::lane_mask_t __lanemask_ge() {
  return (::hipemu::lane_mask_t)(::hipemu::kWaveBits & ~(unsigned long long)__lanemask_lt());
}

// ------------------------------------------------------------ shuffles
template <class T>
inline T __shfl(T var, int srcLane, int width = warpSize, ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL, "__shfl", var, srcLane, width, 0,
                                   0, s);
}
template <class T>
inline T __shfl_up(T var, unsigned int delta, int width = warpSize,
                   ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL_UP, "__shfl_up", var, (int)delta,
                                   width, 0, 0, s);
}
template <class T>
inline T __shfl_down(T var, unsigned int delta, int width = warpSize,
                     ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL_DOWN, "__shfl_down", var,
                                   (int)delta, width, 0, 0, s);
}
template <class T>
inline T __shfl_xor(T var, int laneMask, int width = warpSize,
                    ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL_XOR, "__shfl_xor", var, laneMask,
                                   width, 0, 0, s);
}

#define HIPEMU_SHFL_SYNC_BODY(OP, NAME, P)                                                   \
  {                                                                                          \
    HIPEMU_SYNC_MASK_CHECK;                                                                  \
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP, NAME, var, (int)(P), width,      \
                                     (unsigned long long)mask,                               \
                                     ::hipemu::detail::FL_MASK |                             \
                                         ::hipemu::detail::FL_LENIENT_EXITED,                \
                                     s);                                                     \
  }
#if HIPEMU_CUDA_WIDTHS
// CUDA overloads the *_sync shuffles on exact value types (a short promotes to the int one);
// <hip/hip_fp16.h> and <hip/hip_bf16.h> add the 16-bit float types, as cuda_fp16.h does.
#define HIPEMU_CUDA_SHFL_SYNC(T)                                                             \
  inline T __shfl_sync(unsigned int mask, T var, int srcLane, int width = warpSize,          \
                       ::hipemu::Site s = ::hipemu::Site())                                  \
      HIPEMU_SHFL_SYNC_BODY(OP_SHFL, "__shfl_sync", srcLane)                                 \
  inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize, \
                          ::hipemu::Site s = ::hipemu::Site())                               \
      HIPEMU_SHFL_SYNC_BODY(OP_SHFL_UP, "__shfl_up_sync", delta)                             \
  inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta,                    \
                            int width = warpSize, ::hipemu::Site s = ::hipemu::Site())       \
      HIPEMU_SHFL_SYNC_BODY(OP_SHFL_DOWN, "__shfl_down_sync", delta)                         \
  inline T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = warpSize,     \
                           ::hipemu::Site s = ::hipemu::Site())                              \
      HIPEMU_SHFL_SYNC_BODY(OP_SHFL_XOR, "__shfl_xor_sync", laneMask)
HIPEMU_CUDA_SHFL_SYNC(int)
HIPEMU_CUDA_SHFL_SYNC(unsigned int)
HIPEMU_CUDA_SHFL_SYNC(long)
HIPEMU_CUDA_SHFL_SYNC(unsigned long)
HIPEMU_CUDA_SHFL_SYNC(long long)
HIPEMU_CUDA_SHFL_SYNC(unsigned long long)
HIPEMU_CUDA_SHFL_SYNC(float)
HIPEMU_CUDA_SHFL_SYNC(double)
#else
template <class MaskT, class T>
inline T __shfl_sync(MaskT mask, T var, int srcLane, int width = warpSize,
                     ::hipemu::Site s = ::hipemu::Site())
    HIPEMU_SHFL_SYNC_BODY(OP_SHFL, "__shfl_sync", srcLane)
template <class MaskT, class T>
inline T __shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = warpSize,
                        ::hipemu::Site s = ::hipemu::Site())
    HIPEMU_SHFL_SYNC_BODY(OP_SHFL_UP, "__shfl_up_sync", delta)
template <class MaskT, class T>
inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = warpSize,
                          ::hipemu::Site s = ::hipemu::Site())
    HIPEMU_SHFL_SYNC_BODY(OP_SHFL_DOWN, "__shfl_down_sync", delta)
template <class MaskT, class T>
inline T __shfl_xor_sync(MaskT mask, T var, int laneMask, int width = warpSize,
                         ::hipemu::Site s = ::hipemu::Site())
    HIPEMU_SHFL_SYNC_BODY(OP_SHFL_XOR, "__shfl_xor_sync", laneMask)
#endif

// ------------------------------------------------------------ votes
inline ::hipemu::lane_mask_t __ballot(int pred, ::hipemu::Site s = ::hipemu::Site()) {
  return (::hipemu::lane_mask_t)::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "__ballot",
                                                         pred != 0, 0, 0, 0, 0, s);
}
inline int __any(int pred, ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "__any", pred != 0, 0, 0, 0, 0,
                                   s) != 0;
}
inline int __all(int pred, ::hipemu::Site s = ::hipemu::Site()) {
  unsigned long long active = 0;
  unsigned long long b = ::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "__all",
                                                   pred != 0, 0, 0, 0, 0, s, &active);
  return b == active;
}
inline unsigned long long __ballot64(int pred, ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "__ballot64", pred != 0, 0, 0, 0,
                                   0, s);
}
inline ::hipemu::lane_mask_t __activemask(::hipemu::Site s = ::hipemu::Site()) {
  return (::hipemu::lane_mask_t)::hipemu::detail::wave_op(::hipemu::detail::OP_ACTIVEMASK,
                                                         "__activemask", 0, 0, 0, 0, 0, s);
}
HIPEMU_MASK_TEMPLATE
inline ::hipemu::lane_mask_t __ballot_sync(HIPEMU_MASK_PARAM, int pred,
                                           ::hipemu::Site s = ::hipemu::Site()) {
  HIPEMU_SYNC_MASK_CHECK;
  return (::hipemu::lane_mask_t)(::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT,
                                                           "__ballot_sync", pred != 0, 0, 0,
                                                           (unsigned long long)mask,
                                                           ::hipemu::detail::FL_MASK, s) &
                                 (unsigned long long)mask);
}
HIPEMU_MASK_TEMPLATE
inline int __any_sync(HIPEMU_MASK_PARAM, int pred, ::hipemu::Site s = ::hipemu::Site()) {
  HIPEMU_SYNC_MASK_CHECK;
  return (::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "__any_sync", pred != 0, 0, 0,
                                    (unsigned long long)mask, ::hipemu::detail::FL_MASK, s) &
          (unsigned long long)mask) != 0;
}
HIPEMU_MASK_TEMPLATE
inline int __all_sync(HIPEMU_MASK_PARAM, int pred, ::hipemu::Site s = ::hipemu::Site()) {
  HIPEMU_SYNC_MASK_CHECK;
  unsigned long long m = (unsigned long long)mask & ::hipemu::kWaveBits;
  return (::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "__all_sync", pred != 0, 0, 0,
                                    (unsigned long long)mask, ::hipemu::detail::FL_MASK, s) &
          m) == m;
}
#define HIPEMU_MATCH_ANY_BODY                                                                \
  {                                                                                          \
    HIPEMU_SYNC_MASK_CHECK;                                                                  \
    return (::hipemu::lane_mask_t)::hipemu::detail::wave_op(                                 \
        ::hipemu::detail::OP_MATCH_ANY, "__match_any_sync", ::hipemu::detail::to_bits(value), \
        0, 0, (unsigned long long)mask, ::hipemu::detail::FL_MASK, s);                        \
  }
#define HIPEMU_MATCH_ALL_BODY                                                                \
  {                                                                                          \
    HIPEMU_SYNC_MASK_CHECK;                                                                  \
    unsigned long long ok = 0;                                                               \
    ::hipemu::lane_mask_t r = (::hipemu::lane_mask_t)::hipemu::detail::wave_op(              \
        ::hipemu::detail::OP_MATCH_ALL, "__match_all_sync", ::hipemu::detail::to_bits(value), \
        0, 0, (unsigned long long)mask, ::hipemu::detail::FL_MASK, s, &ok);                   \
    if (pred) *pred = (int)ok;                                                               \
    return r;                                                                                \
  }
#if HIPEMU_CUDA_WIDTHS
// CUDA (sm_70_rt.h): one overload per value type, unsigned int result.
#define HIPEMU_CUDA_MATCH(T)                                                                 \
  inline unsigned int __match_any_sync(unsigned int mask, T value,                           \
                                       ::hipemu::Site s = ::hipemu::Site())                  \
      HIPEMU_MATCH_ANY_BODY                                                                  \
  inline unsigned int __match_all_sync(unsigned int mask, T value, int* pred,                \
                                       ::hipemu::Site s = ::hipemu::Site())                  \
      HIPEMU_MATCH_ALL_BODY
HIPEMU_CUDA_MATCH(unsigned int)
HIPEMU_CUDA_MATCH(int)
HIPEMU_CUDA_MATCH(unsigned long)
HIPEMU_CUDA_MATCH(long)
HIPEMU_CUDA_MATCH(unsigned long long)
HIPEMU_CUDA_MATCH(long long)
HIPEMU_CUDA_MATCH(float)
HIPEMU_CUDA_MATCH(double)
#undef HIPEMU_CUDA_MATCH
#else
template <class MaskT, class T>
inline unsigned long long __match_any_sync(MaskT mask, T value,
                                           ::hipemu::Site s = ::hipemu::Site())
    HIPEMU_MATCH_ANY_BODY
template <class MaskT, class T>
inline unsigned long long __match_all_sync(MaskT mask, T value, int* pred,
                                           ::hipemu::Site s = ::hipemu::Site())
    HIPEMU_MATCH_ALL_BODY
#endif
#undef HIPEMU_MATCH_ANY_BODY
#undef HIPEMU_MATCH_ALL_BODY

// Non-sync matches over the active lanes.
template <class T>
inline unsigned long long __match_any(T value, ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::wave_op(::hipemu::detail::OP_MATCH_ANY, "__match_any",
                                   ::hipemu::detail::to_bits(value), 0, 0, 0, 0, s);
}
template <class T>
inline unsigned long long __match_all(T value, int* pred, ::hipemu::Site s = ::hipemu::Site()) {
  unsigned long long ok = 0;
  unsigned long long r = ::hipemu::detail::wave_op(
      ::hipemu::detail::OP_MATCH_ALL, "__match_all", ::hipemu::detail::to_bits(value), 0, 0, 0, 0,
      s, &ok);
  if (pred) *pred = (int)ok;
  return r;
}
// __uni_sync: the predicate is the same on every lane of the mask.
HIPEMU_MASK_TEMPLATE
inline int __uni_sync(HIPEMU_MASK_PARAM, int pred, ::hipemu::Site s = ::hipemu::Site()) {
  HIPEMU_SYNC_MASK_CHECK;
  unsigned long long m = (unsigned long long)mask & ::hipemu::kWaveBits;
  unsigned long long b = ::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "__uni_sync",
                                                   pred != 0, 0, 0, (unsigned long long)mask,
                                                   ::hipemu::detail::FL_MASK, s) &
                         m;
  return b == 0 || b == m;
}

// A few AMDGCN builtins that ported code uses directly.
inline void __builtin_amdgcn_wave_barrier(::hipemu::Site s = ::hipemu::Site()) {
  ::hipemu::detail::wave_op(::hipemu::detail::OP_SYNC, "__builtin_amdgcn_wave_barrier", 0, 0, 0,
                            0, 0, s);
}
inline void __builtin_amdgcn_s_barrier(::hipemu::Site s = ::hipemu::Site()) {
  ::hipemu::detail::barrier(0, 0, "__builtin_amdgcn_s_barrier", s);
}
inline void __builtin_amdgcn_fence(int, const char*) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __builtin_amdgcn_s_sleep(int) {}
inline int __builtin_amdgcn_ds_bpermute(int byte_addr, int v,
                                        ::hipemu::Site s = ::hipemu::Site()) {
  return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL, "__builtin_amdgcn_ds_bpermute", v,
                                   (byte_addr >> 2) & (HIPEMU_WAVE - 1), HIPEMU_WAVE, 0, 0, s);
}
inline unsigned __builtin_amdgcn_mbcnt_lo(unsigned mask, unsigned add) {
  unsigned l = __lane_id();
  return add + (unsigned)__builtin_popcount(mask & (l >= 32 ? ~0u : ((1u << l) - 1)));
}
inline unsigned __builtin_amdgcn_mbcnt_hi(unsigned mask, unsigned add) {
  unsigned l = __lane_id();
  return add + (unsigned)__builtin_popcount(mask & (l <= 32 ? 0u : ((1u << (l - 32)) - 1)));
}

#define HIPEMU_REDUCE(NAME, T, RED)                                                          \
  HIPEMU_MASK_TEMPLATE                                                                       \
  inline T NAME(HIPEMU_MASK_PARAM, T value, ::hipemu::Site s = ::hipemu::Site()) {          \
    HIPEMU_SYNC_MASK_CHECK;                                                                  \
    return (T)::hipemu::detail::wave_op(::hipemu::detail::OP_REDUCE, #NAME, (unsigned)value, \
                                        ::hipemu::detail::RED, 0, (unsigned long long)mask,   \
                                        ::hipemu::detail::FL_MASK, s);                        \
  }
HIPEMU_REDUCE(__reduce_add_sync, int, RED_ADD)
HIPEMU_REDUCE(__reduce_add_sync, unsigned, RED_ADD)
HIPEMU_REDUCE(__reduce_min_sync, int, RED_MIN)
HIPEMU_REDUCE(__reduce_min_sync, unsigned, RED_UMIN)
HIPEMU_REDUCE(__reduce_max_sync, int, RED_MAX)
HIPEMU_REDUCE(__reduce_max_sync, unsigned, RED_UMAX)
HIPEMU_REDUCE(__reduce_and_sync, unsigned, RED_AND)
HIPEMU_REDUCE(__reduce_or_sync, unsigned, RED_OR)
HIPEMU_REDUCE(__reduce_xor_sync, unsigned, RED_XOR)
#undef HIPEMU_REDUCE

// ------------------------------------------------------------ bit intrinsics
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
#if !HIPEMU_CUDA_WIDTHS  // HIP adds unsigned overloads; CUDA has only these two (an unsigned
                         // long long argument converts to int: one candidate, no ambiguity)
inline int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
inline int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
#endif
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
// n-th set bit search (HIP __fns64): position of the offset-th set bit after base.
inline unsigned int __fns64(unsigned long long mask, unsigned int base, int offset) {
  if (offset == 0) return (mask >> base) & 1 ? base : ~0u;
  int step = offset > 0 ? 1 : -1, n = offset > 0 ? offset : -offset;
  for (int i = (int)base + step; i >= 0 && i < 64; i += step)
    if (((mask >> i) & 1) && --n == 0) return (unsigned)i;
  return ~0u;
}
inline unsigned int __fns32(unsigned long long mask, unsigned int base, int offset) {
  return __fns64(mask & 0xffffffffull, base, offset);
}
inline unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  return __fns32(mask, base, offset);
}

// ------------------------------------------------------------ misc
inline long long clock64() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}
inline long long __clock64() { return clock64(); }
inline long long wall_clock64() { return clock64(); }
inline void __nanosleep(unsigned int) {}
[[noreturn]] inline void __trap(::hipemu::Site s = ::hipemu::Site()) {
  ::hipemu::detail::fatal_at(::hipemu::detail::g.in_kernel ? ::hipemu::detail::g.cur : nullptr,
                             &s, "__trap() called");
}
// Cache-hint loads and stores (read-only, streaming, L2-only, ...): plain accesses on the CPU.
template <class T>
inline T __ldg(const T* p) { return *p; }
template <class T>
inline T __ldcs(const T* p) { return *p; }
template <class T>
inline T __ldcg(const T* p) { return *p; }
template <class T>
inline T __ldca(const T* p) { return *p; }
template <class T>
inline T __ldlu(const T* p) { return *p; }
template <class T>
inline T __ldcv(const T* p) { return *p; }
template <class T>
inline void __stcs(T* p, T v) { *p = v; }
template <class T>
inline void __stcg(T* p, T v) { *p = v; }
template <class T>
inline void __stwb(T* p, T v) { *p = v; }
template <class T>
inline void __stwt(T* p, T v) { *p = v; }
#if !__has_builtin(__builtin_nontemporal_load)
template <class T>
inline T __builtin_nontemporal_load(const T* p) { return *p; }
template <class T>
inline void __builtin_nontemporal_store(T v, T* p) { *p = v; }
#endif

// ------------------------------------------------------------ atomics
// Fibers are cooperative: a plain read-modify-write is atomic.
#define HIPEMU_ATOMIC(NAME, T, EXPR) \
  inline T NAME(T* addr, T val) {    \
    T old = *addr;                   \
    *addr = (EXPR);                  \
    return old;                      \
  }
#define HIPEMU_ATOMIC_INT(NAME, EXPR)              \
  HIPEMU_ATOMIC(NAME, int, EXPR)                   \
  HIPEMU_ATOMIC(NAME, unsigned int, EXPR)          \
  HIPEMU_ATOMIC(NAME, unsigned long long, EXPR)    \
  HIPEMU_ATOMIC(NAME, long long, EXPR)
HIPEMU_ATOMIC_INT(atomicAdd, old + val)
HIPEMU_ATOMIC(atomicAdd, float, old + val)
HIPEMU_ATOMIC(atomicAdd, double, old + val)
HIPEMU_ATOMIC(atomicSub, int, old - val)
HIPEMU_ATOMIC(atomicSub, unsigned int, old - val)
HIPEMU_ATOMIC(atomicSub, unsigned long long, old - val)
HIPEMU_ATOMIC(atomicSub, float, old - val)
HIPEMU_ATOMIC(atomicSub, double, old - val)
HIPEMU_ATOMIC_INT(atomicMax, val > old ? val : old)
HIPEMU_ATOMIC(atomicMax, float, val > old ? val : old)
HIPEMU_ATOMIC(atomicMax, double, val > old ? val : old)
HIPEMU_ATOMIC_INT(atomicMin, val < old ? val : old)
HIPEMU_ATOMIC(atomicMin, float, val < old ? val : old)
HIPEMU_ATOMIC(atomicMin, double, val < old ? val : old)
HIPEMU_ATOMIC_INT(atomicExch, val)
HIPEMU_ATOMIC(atomicExch, float, val)
HIPEMU_ATOMIC(atomicExch, double, val)
HIPEMU_ATOMIC_INT(atomicAnd, old & val)
HIPEMU_ATOMIC_INT(atomicOr, old | val)
HIPEMU_ATOMIC_INT(atomicXor, old ^ val)
#undef HIPEMU_ATOMIC_INT
#undef HIPEMU_ATOMIC
inline unsigned int atomicInc(unsigned int* addr, unsigned int val) {
  unsigned int old = *addr;
  *addr = old >= val ? 0u : old + 1u;
  return old;
}
inline unsigned int atomicDec(unsigned int* addr, unsigned int val) {
  unsigned int old = *addr;
  *addr = (old == 0u || old > val) ? val : old - 1u;
  return old;
}
#define HIPEMU_CAS(T)                             \
  inline T atomicCAS(T* addr, T compare, T val) { \
    T old = *addr;                                \
    if (old == compare) *addr = val;              \
    return old;                                   \
  }
HIPEMU_CAS(int)
HIPEMU_CAS(unsigned int)
HIPEMU_CAS(unsigned long long)
HIPEMU_CAS(long long)
HIPEMU_CAS(unsigned short)
#undef HIPEMU_CAS

// Scoped / system / unsafe variants forward to the plain ones.
#define HIPEMU_ATOMIC_FWD(NAME, BASE)                    \
  template <class P, class... V>                         \
  inline auto NAME(P* addr, V... v) { return BASE(addr, v...); }
HIPEMU_ATOMIC_FWD(atomicAdd_system, atomicAdd)
HIPEMU_ATOMIC_FWD(atomicAdd_block, atomicAdd)
HIPEMU_ATOMIC_FWD(unsafeAtomicAdd, atomicAdd)
HIPEMU_ATOMIC_FWD(safeAtomicAdd, atomicAdd)
HIPEMU_ATOMIC_FWD(atomicSub_system, atomicSub)
HIPEMU_ATOMIC_FWD(atomicMax_system, atomicMax)
HIPEMU_ATOMIC_FWD(atomicMin_system, atomicMin)
HIPEMU_ATOMIC_FWD(atomicExch_system, atomicExch)
HIPEMU_ATOMIC_FWD(atomicCAS_system, atomicCAS)
HIPEMU_ATOMIC_FWD(atomicAnd_system, atomicAnd)
HIPEMU_ATOMIC_FWD(atomicOr_system, atomicOr)
HIPEMU_ATOMIC_FWD(atomicXor_system, atomicXor)
#undef HIPEMU_ATOMIC_FWD
