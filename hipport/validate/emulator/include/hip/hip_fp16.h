// hipport wave emulator: __half / __half2 (storage, conversions, arithmetic, comparisons,
// math), as HIP's hip_fp16.h provides them.  Arithmetic is computed in float and rounded
// to half (round to nearest even), which is what the hardware's f16 ops give for one op.
#pragma once
#include "hip_runtime.h"
#include <cmath>
#include <cstdint>
#include <cstring>

namespace hipemu {
namespace fp16 {
// float -> half with rounding: 0 nearest even, 1 toward zero, 2 down, 3 up.
inline uint16_t from_float(float f, int mode = 0) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  const bool neg = sign != 0;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x1ffu));
  if (ax == 0x7f800000u) return (uint16_t)(sign | 0x7c00u);
  uint32_t r, rem, halfway;
  if (ax < 0x38800000u) {  // subnormal half (or zero)
    if (ax < 0x33000000u) {  // below half of the smallest subnormal, or an exact zero
      r = 0;
      rem = ax;
      halfway = 0x33000000u + 1;  // never a tie; any non-zero rem rounds away only in ru/rd
    } else {
      uint32_t m = (ax & 0x7fffffu) | 0x800000u;
      int shift = 126 - (int)(ax >> 23);
      r = m >> (shift + 1);
      rem = m & ((1u << (shift + 1)) - 1);
      halfway = 1u << shift;
    }
  } else {
    r = (ax - 0x38000000u) >> 13;
    rem = ax & 0x1fffu;
    halfway = 0x1000u;
  }
  bool up;
  switch (mode) {
    case 1: up = false; break;
    case 2: up = neg && rem; break;
    case 3: up = !neg && rem; break;
    default: up = rem > halfway || (rem == halfway && (r & 1)); break;
  }
  if (ax < 0x33000000u && mode == 0) up = false;
  if (up) ++r;
  if (r >= 0x7c00u) {  // overflow: inf, or the largest finite value when rounding toward 0
    const bool inf = mode == 0 || (mode == 2 && neg) || (mode == 3 && !neg);
    r = inf ? 0x7c00u : 0x7bffu;
  }
  return (uint16_t)(sign | r);
}
inline float to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
  if (e == 0) {
    if (!m) {
      x = sign;
    } else {
      e = 113;
      while (!(m & 0x400u)) { m <<= 1; --e; }
      x = sign | (e << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (e == 31) {
    x = sign | 0x7f800000u | (m << 13);
  } else {
    x = sign | ((e + 112) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
}  // namespace fp16
}  // namespace hipemu

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };

struct __half {
  uint16_t bits;
  __half() = default;
  __half(float f) : bits(::hipemu::fp16::from_float(f)) {}
  __half(double d) : bits(::hipemu::fp16::from_float((float)d)) {}
  __half(int i) : bits(::hipemu::fp16::from_float((float)i)) {}
  __half(unsigned i) : bits(::hipemu::fp16::from_float((float)i)) {}
  __half(long long i) : bits(::hipemu::fp16::from_float((float)i)) {}
  __half(unsigned long long i) : bits(::hipemu::fp16::from_float((float)i)) {}
  __half(short i) : bits(::hipemu::fp16::from_float((float)i)) {}
  __half(unsigned short i) : bits(::hipemu::fp16::from_float((float)i)) {}
  __half(const __half_raw& r) : bits(r.x) {}
  operator float() const { return ::hipemu::fp16::to_float(bits); }
  operator __half_raw() const { return __half_raw{bits}; }
  static uint16_t from_float(float f) { return ::hipemu::fp16::from_float(f); }
  static float to_float(uint16_t h) { return ::hipemu::fp16::to_float(h); }
};
typedef __half half;

struct __half2 {
  __half x, y;
  __half2() = default;
  constexpr __half2(__half a, __half b) : x(a), y(b) {}
  __half2(const __half2_raw& r) { x.bits = r.x; y.bits = r.y; }
  operator __half2_raw() const { return __half2_raw{x.bits, y.bits}; }
};
typedef __half2 half2;

namespace hipemu {
namespace fp16 {
inline __half make(uint16_t b) { __half h; h.bits = b; return h; }
}  // namespace fp16
}  // namespace hipemu

// ---------------------------------------------------------------- conversions
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __float2half_rz(float f) { return ::hipemu::fp16::make(::hipemu::fp16::from_float(f, 1)); }
inline __half __float2half_rd(float f) { return ::hipemu::fp16::make(::hipemu::fp16::from_float(f, 2)); }
inline __half __float2half_ru(float f) { return ::hipemu::fp16::make(::hipemu::fp16::from_float(f, 3)); }
inline __half __double2half(double d) { return __half((float)d); }
inline float __half2float(__half h) { return (float)h; }
inline __half __int2half_rn(int i) { return __half((float)i); }
inline __half __uint2half_rn(unsigned i) { return __half((float)i); }
inline __half __short2half_rn(short i) { return __half((float)i); }
inline __half __ushort2half_rn(unsigned short i) { return __half((float)i); }
inline __half __ll2half_rn(long long i) { return __half((float)i); }
inline __half __ull2half_rn(unsigned long long i) { return __half((float)i); }
inline int __half2int_rn(__half h) { return (int)std::nearbyint((float)h); }
inline int __half2int_rz(__half h) { return (int)(float)h; }
inline int __half2int_rd(__half h) { return (int)std::floor((float)h); }
inline int __half2int_ru(__half h) { return (int)std::ceil((float)h); }
inline unsigned __half2uint_rn(__half h) { return (unsigned)std::nearbyint((float)h); }
inline unsigned __half2uint_rz(__half h) { return (unsigned)(float)h; }
inline short __half2short_rn(__half h) { return (short)std::nearbyint((float)h); }
inline short __half2short_rz(__half h) { return (short)(float)h; }
inline long long __half2ll_rn(__half h) { return (long long)std::nearbyint((float)h); }
inline long long __half2ll_rz(__half h) { return (long long)(float)h; }
inline unsigned short __half_as_ushort(__half h) { return h.bits; }
inline short __half_as_short(__half h) { return (short)h.bits; }
inline __half __ushort_as_half(unsigned short b) { return ::hipemu::fp16::make(b); }
inline __half __short_as_half(short b) { return ::hipemu::fp16::make((uint16_t)b); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
inline __half2 __float2half2_rn(float a) { return __half2(__half(a), __half(a)); }
inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
inline float2 __half22float2(__half2 h) { return float2{(float)h.x, (float)h.y}; }
inline float __low2float(__half2 h) { return (float)h.x; }
inline float __high2float(__half2 h) { return (float)h.y; }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __half2half2(__half h) { return __half2(h, h); }
inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
inline __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }
inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }

// ---------------------------------------------------------------- __half arithmetic
inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
inline __half __hsub(__half a, __half b) { return __half((float)a - (float)b); }
inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
inline __half __hdiv(__half a, __half b) { return __half((float)a / (float)b); }
inline __half __hadd_sat(__half a, __half b) { return __half(__saturatef((float)a + (float)b)); }
inline __half __hsub_sat(__half a, __half b) { return __half(__saturatef((float)a - (float)b)); }
inline __half __hmul_sat(__half a, __half b) { return __half(__saturatef((float)a * (float)b)); }
inline __half __hneg(__half a) { return ::hipemu::fp16::make((uint16_t)(a.bits ^ 0x8000u)); }
inline __half __habs(__half a) { return ::hipemu::fp16::make((uint16_t)(a.bits & 0x7fffu)); }
inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(a, b, c)); }
inline __half __hfma_sat(__half a, __half b, __half c) { return __half(__saturatef(fmaf(a, b, c))); }
inline __half __hmax(__half a, __half b) { return __half(fmaxf(a, b)); }
inline __half __hmin(__half a, __half b) { return __half(fminf(a, b)); }
inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
inline bool __hne(__half a, __half b) { return (float)a != (float)b && (float)a == (float)a && (float)b == (float)b; }
inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
inline bool __hle(__half a, __half b) { return (float)a <= (float)b; }
inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
inline bool __hge(__half a, __half b) { return (float)a >= (float)b; }
inline bool __hisnan(__half a) { return (a.bits & 0x7fffu) > 0x7c00u; }
inline int __hisinf(__half a) { return (a.bits & 0x7fffu) == 0x7c00u ? ((a.bits & 0x8000u) ? -1 : 1) : 0; }
inline __half hsqrt(__half a) { return __half(sqrtf(a)); }
inline __half hrsqrt(__half a) { return __half(1.0f / sqrtf(a)); }
inline __half hrcp(__half a) { return __half(1.0f / (float)a); }
inline __half hexp(__half a) { return __half(expf(a)); }
inline __half hexp2(__half a) { return __half(exp2f(a)); }
inline __half hlog(__half a) { return __half(logf(a)); }
inline __half hlog2(__half a) { return __half(log2f(a)); }
inline __half hsin(__half a) { return __half(sinf(a)); }
inline __half hcos(__half a) { return __half(cosf(a)); }
inline __half htanh(__half a) { return __half(tanhf(a)); }
inline __half hfloor(__half a) { return __half(floorf(a)); }
inline __half hceil(__half a) { return __half(ceilf(a)); }
inline __half htrunc(__half a) { return __half(truncf(a)); }
inline __half hrint(__half a) { return __half(rintf(a)); }

// __half op __half stays __half (as in HIP and CUDA); mixing with float converts the __half.
inline __half operator+(__half a, __half b) { return __hadd(a, b); }
inline __half operator-(__half a, __half b) { return __hsub(a, b); }
inline __half operator*(__half a, __half b) { return __hmul(a, b); }
inline __half operator/(__half a, __half b) { return __hdiv(a, b); }
inline __half operator-(__half a) { return __hneg(a); }
inline __half operator+(__half a) { return a; }
inline __half& operator+=(__half& a, __half b) { return a = __hadd(a, b); }
inline __half& operator-=(__half& a, __half b) { return a = __hsub(a, b); }
inline __half& operator*=(__half& a, __half b) { return a = __hmul(a, b); }
inline __half& operator/=(__half& a, __half b) { return a = __hdiv(a, b); }
inline __half& operator++(__half& a) { return a = __hadd(a, __half(1.0f)); }
inline __half& operator--(__half& a) { return a = __hsub(a, __half(1.0f)); }

// ---------------------------------------------------------------- __half2 arithmetic
#define HIPEMU_H2(NAME, OP) \
  inline __half2 NAME(__half2 a, __half2 b) { return __half2(OP(a.x, b.x), OP(a.y, b.y)); }
HIPEMU_H2(__hadd2, __hadd)
HIPEMU_H2(__hsub2, __hsub)
HIPEMU_H2(__hmul2, __hmul)
HIPEMU_H2(__h2div, __hdiv)
HIPEMU_H2(__hadd2_sat, __hadd_sat)
HIPEMU_H2(__hsub2_sat, __hsub_sat)
HIPEMU_H2(__hmul2_sat, __hmul_sat)
HIPEMU_H2(__hmax2, __hmax)
HIPEMU_H2(__hmin2, __hmin)
#undef HIPEMU_H2
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
inline __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
inline bool __hbeq2(__half2 a, __half2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }
inline bool __hblt2(__half2 a, __half2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }
inline bool __hbgt2(__half2 a, __half2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }
inline __half2 __heq2(__half2 a, __half2 b) { return __half2(__half(__heq(a.x, b.x) ? 1.0f : 0.0f), __half(__heq(a.y, b.y) ? 1.0f : 0.0f)); }
inline __half2 __hlt2(__half2 a, __half2 b) { return __half2(__half(__hlt(a.x, b.x) ? 1.0f : 0.0f), __half(__hlt(a.y, b.y) ? 1.0f : 0.0f)); }
inline __half2 __hgt2(__half2 a, __half2 b) { return __half2(__half(__hgt(a.x, b.x) ? 1.0f : 0.0f), __half(__hgt(a.y, b.y) ? 1.0f : 0.0f)); }
inline __half2 h2sqrt(__half2 a) { return __half2(hsqrt(a.x), hsqrt(a.y)); }
inline __half2 h2exp(__half2 a) { return __half2(hexp(a.x), hexp(a.y)); }
inline __half2 h2rcp(__half2 a) { return __half2(hrcp(a.x), hrcp(a.y)); }
inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
inline __half2 operator-(__half2 a) { return __hneg2(a); }
inline __half2& operator+=(__half2& a, __half2 b) { return a = __hadd2(a, b); }
inline __half2& operator-=(__half2& a, __half2 b) { return a = __hsub2(a, b); }
inline __half2& operator*=(__half2& a, __half2 b) { return a = __hmul2(a, b); }
inline __half2& operator/=(__half2& a, __half2 b) { return a = __h2div(a, b); }
inline bool operator==(__half2 a, __half2 b) { return __hbeq2(a, b); }
inline bool operator!=(__half2 a, __half2 b) { return !__hbeq2(a, b); }

// Atomics (fibers are cooperative: a plain read-modify-write is atomic); unsafeAtomicAdd
// and the scoped forms forward here (device.h).
inline __half atomicAdd(__half* p, __half v) { __half old = *p; *p = __hadd(old, v); return old; }
inline __half2 atomicAdd(__half2* p, __half2 v) { __half2 old = *p; *p = __hadd2(old, v); return old; }

#if HIPEMU_CUDA_WIDTHS  // cuda_fp16.h's *_sync shuffle overloads (HIP: the generic template)
HIPEMU_CUDA_SHFL_SYNC(__half)
HIPEMU_CUDA_SHFL_SYNC(__half2)
#endif
