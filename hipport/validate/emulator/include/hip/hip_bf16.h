// hipport wave emulator: bfloat16 (__hip_bfloat16, __hip_bfloat162 and their intrinsics, as
// HIP's hip_bf16.h; hip_bfloat16 as hip_bfloat16.h).  In the emulator hip_bfloat16,
// __hip_bfloat16 and __nv_bfloat16 are one type (ROCm has two classes).  Arithmetic is
// computed in float and rounded to bfloat16 (round to nearest even), one op at a time.
#pragma once
#include "hip_runtime.h"
#include <cmath>
#include <cstdint>
#include <cstring>

namespace hipemu {
namespace bf16 {
inline uint16_t from_float(float f, bool truncate = false) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);  // quiet NaN
  if (truncate) return (uint16_t)(x >> 16);
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even (overflow rounds to inf)
  return (uint16_t)(x >> 16);
}
inline float to_float(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
}  // namespace bf16
}  // namespace hipemu

struct __hip_bfloat16_raw { unsigned short x; };
struct __hip_bfloat162_raw { unsigned short x, y; };

struct __hip_bfloat16 {
  uint16_t data;
  enum truncate_t { truncate };
  __hip_bfloat16() = default;
  __hip_bfloat16(float f) : data(::hipemu::bf16::from_float(f)) {}
  __hip_bfloat16(float f, truncate_t) : data(::hipemu::bf16::from_float(f, true)) {}
  __hip_bfloat16(double d) : data(::hipemu::bf16::from_float((float)d)) {}
  __hip_bfloat16(int i) : data(::hipemu::bf16::from_float((float)i)) {}
  __hip_bfloat16(unsigned i) : data(::hipemu::bf16::from_float((float)i)) {}
  __hip_bfloat16(long long i) : data(::hipemu::bf16::from_float((float)i)) {}
  __hip_bfloat16(const __hip_bfloat16_raw& r) : data(r.x) {}
  operator float() const { return ::hipemu::bf16::to_float(data); }
  operator __hip_bfloat16_raw() const { return __hip_bfloat16_raw{data}; }
  static __hip_bfloat16 round_to_bfloat16(float f) { return __hip_bfloat16(f); }
};
typedef __hip_bfloat16 hip_bfloat16;
typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat16 nv_bfloat16;
typedef __hip_bfloat16_raw __nv_bfloat16_raw;

struct __hip_bfloat162 {
  __hip_bfloat16 x, y;
  __hip_bfloat162() = default;
  constexpr __hip_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) : x(a), y(b) {}
  __hip_bfloat162(const __hip_bfloat162_raw& r) { x.data = r.x; y.data = r.y; }
  operator __hip_bfloat162_raw() const { return __hip_bfloat162_raw{x.data, y.data}; }
};
typedef __hip_bfloat162 __nv_bfloat162;
typedef __hip_bfloat162 nv_bfloat162;
typedef __hip_bfloat162_raw __nv_bfloat162_raw;

namespace hipemu {
namespace bf16 {
inline __hip_bfloat16 make(uint16_t b) { __hip_bfloat16 h; h.data = b; return h; }
}  // namespace bf16
}  // namespace hipemu

// ---------------------------------------------------------------- conversions
inline __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
inline __hip_bfloat16 __float2bfloat16_rn(float f) { return __hip_bfloat16(f); }
inline __hip_bfloat16 __float2bfloat16_rz(float f) { return __hip_bfloat16(f, __hip_bfloat16::truncate); }
inline __hip_bfloat16 __double2bfloat16(double d) { return __hip_bfloat16((float)d); }
inline float __bfloat162float(__hip_bfloat16 b) { return (float)b; }
inline __hip_bfloat16 __int2bfloat16_rn(int i) { return __hip_bfloat16((float)i); }
inline __hip_bfloat16 __uint2bfloat16_rn(unsigned i) { return __hip_bfloat16((float)i); }
inline int __bfloat162int_rn(__hip_bfloat16 b) { return (int)std::nearbyint((float)b); }
inline int __bfloat162int_rz(__hip_bfloat16 b) { return (int)(float)b; }
inline unsigned __bfloat162uint_rz(__hip_bfloat16 b) { return (unsigned)(float)b; }
inline unsigned short __bfloat16_as_ushort(__hip_bfloat16 b) { return b.data; }
inline short __bfloat16_as_short(__hip_bfloat16 b) { return (short)b.data; }
inline __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { return ::hipemu::bf16::make(u); }
inline __hip_bfloat16 __short_as_bfloat16(short u) { return ::hipemu::bf16::make((uint16_t)u); }
inline __hip_bfloat162 __floats2bfloat162_rn(float a, float b) { return __hip_bfloat162(__hip_bfloat16(a), __hip_bfloat16(b)); }
inline __hip_bfloat162 __float2bfloat162_rn(float a) { return __hip_bfloat162(__hip_bfloat16(a), __hip_bfloat16(a)); }
inline __hip_bfloat162 __float22bfloat162_rn(float2 f) { return __hip_bfloat162(__hip_bfloat16(f.x), __hip_bfloat16(f.y)); }
inline float2 __bfloat1622float2(__hip_bfloat162 b) { return float2{(float)b.x, (float)b.y}; }
inline float __low2float(__hip_bfloat162 b) { return (float)b.x; }
inline float __high2float(__hip_bfloat162 b) { return (float)b.y; }
inline __hip_bfloat16 __low2bfloat16(__hip_bfloat162 b) { return b.x; }
inline __hip_bfloat16 __high2bfloat16(__hip_bfloat162 b) { return b.y; }
inline __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 b) { return __hip_bfloat162(b, b); }
inline __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat162(a, b); }
inline __hip_bfloat162 __low2bfloat162(__hip_bfloat162 b) { return __hip_bfloat162(b.x, b.x); }
inline __hip_bfloat162 __high2bfloat162(__hip_bfloat162 b) { return __hip_bfloat162(b.y, b.y); }
inline __hip_bfloat162 __lows2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) { return __hip_bfloat162(a.x, b.x); }
inline __hip_bfloat162 __highs2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) { return __hip_bfloat162(a.y, b.y); }
inline __hip_bfloat162 make_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat162(a, b); }

// ---------------------------------------------------------------- arithmetic
inline __hip_bfloat16 __hadd(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16((float)a + (float)b); }
inline __hip_bfloat16 __hsub(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16((float)a - (float)b); }
inline __hip_bfloat16 __hmul(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16((float)a * (float)b); }
inline __hip_bfloat16 __hdiv(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16((float)a / (float)b); }
inline __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) { return __hip_bfloat16(fmaf(a, b, c)); }
inline __hip_bfloat16 __hneg(__hip_bfloat16 a) { return ::hipemu::bf16::make((uint16_t)(a.data ^ 0x8000u)); }
inline __hip_bfloat16 __habs(__hip_bfloat16 a) { return ::hipemu::bf16::make((uint16_t)(a.data & 0x7fffu)); }
inline __hip_bfloat16 __hmax(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16(fmaxf(a, b)); }
inline __hip_bfloat16 __hmin(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16(fminf(a, b)); }
inline bool __heq(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a == (float)b; }
inline bool __hlt(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a < (float)b; }
inline bool __hgt(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a > (float)b; }
inline bool __hisnan(__hip_bfloat16 a) { return (a.data & 0x7fffu) > 0x7f80u; }
inline __hip_bfloat16 hsqrt(__hip_bfloat16 a) { return __hip_bfloat16(sqrtf(a)); }
inline __hip_bfloat16 hexp(__hip_bfloat16 a) { return __hip_bfloat16(expf(a)); }
inline __hip_bfloat16 hlog(__hip_bfloat16 a) { return __hip_bfloat16(logf(a)); }
inline __hip_bfloat16 hrcp(__hip_bfloat16 a) { return __hip_bfloat16(1.0f / (float)a); }
inline __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hadd(a, b); }
inline __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hsub(a, b); }
inline __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hmul(a, b); }
inline __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hdiv(a, b); }
inline __hip_bfloat16 operator-(__hip_bfloat16 a) { return __hneg(a); }
inline __hip_bfloat16 operator+(__hip_bfloat16 a) { return a; }
inline __hip_bfloat16& operator+=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hadd(a, b); }
inline __hip_bfloat16& operator-=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hsub(a, b); }
inline __hip_bfloat16& operator*=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hmul(a, b); }
inline __hip_bfloat16& operator/=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hdiv(a, b); }

#define HIPEMU_B2(NAME, OP) \
  inline __hip_bfloat162 NAME(__hip_bfloat162 a, __hip_bfloat162 b) { return __hip_bfloat162(OP(a.x, b.x), OP(a.y, b.y)); }
HIPEMU_B2(__hadd2, __hadd)
HIPEMU_B2(__hsub2, __hsub)
HIPEMU_B2(__hmul2, __hmul)
HIPEMU_B2(__h2div, __hdiv)
HIPEMU_B2(__hmax2, __hmax)
HIPEMU_B2(__hmin2, __hmin)
#undef HIPEMU_B2
inline __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b, __hip_bfloat162 c) {
  return __hip_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
inline __hip_bfloat162 __hneg2(__hip_bfloat162 a) { return __hip_bfloat162(__hneg(a.x), __hneg(a.y)); }
inline __hip_bfloat162 __habs2(__hip_bfloat162 a) { return __hip_bfloat162(__habs(a.x), __habs(a.y)); }
inline __hip_bfloat162 operator+(__hip_bfloat162 a, __hip_bfloat162 b) { return __hadd2(a, b); }
inline __hip_bfloat162 operator-(__hip_bfloat162 a, __hip_bfloat162 b) { return __hsub2(a, b); }
inline __hip_bfloat162 operator*(__hip_bfloat162 a, __hip_bfloat162 b) { return __hmul2(a, b); }
inline __hip_bfloat162 operator/(__hip_bfloat162 a, __hip_bfloat162 b) { return __h2div(a, b); }
inline __hip_bfloat162& operator+=(__hip_bfloat162& a, __hip_bfloat162 b) { return a = __hadd2(a, b); }
inline __hip_bfloat162& operator*=(__hip_bfloat162& a, __hip_bfloat162 b) { return a = __hmul2(a, b); }

// Atomics (fibers are cooperative: a plain read-modify-write is atomic); unsafeAtomicAdd
// and the scoped forms forward here (device.h).
inline __hip_bfloat16 atomicAdd(__hip_bfloat16* p, __hip_bfloat16 v) { __hip_bfloat16 old = *p; *p = __hadd(old, v); return old; }
inline __hip_bfloat162 atomicAdd(__hip_bfloat162* p, __hip_bfloat162 v) { __hip_bfloat162 old = *p; *p = __hadd2(old, v); return old; }

#if HIPEMU_CUDA_WIDTHS  // cuda_bf16.h's *_sync shuffle overloads (HIP: the generic template)
HIPEMU_CUDA_SHFL_SYNC(__hip_bfloat16)
HIPEMU_CUDA_SHFL_SYNC(__hip_bfloat162)
#endif
