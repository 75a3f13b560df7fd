// hipport wave emulator: minimal __half (storage, conversions, arithmetic).
#pragma once
#include "hip_runtime.h"
#include <cstdint>
#include <cstring>

struct __half {
  uint16_t bits;
  __half() = default;
  __half(float f) : bits(from_float(f)) {}
  __half(double d) : bits(from_float((float)d)) {}
  __half(int i) : bits(from_float((float)i)) {}
  operator float() const { return to_float(bits); }
  static uint16_t from_float(float f) {  // round to nearest even
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  // overflow -> inf
    if (ax < 0x38800000u) {  // subnormal or zero
      if (ax < 0x33000000u) return (uint16_t)sign;
      uint32_t m = (ax & 0x7fffffu) | 0x800000u;
      int shift = 126 - (int)(ax >> 23);
      uint32_t r = m >> (shift + 1), rem = m & ((1u << (shift + 1)) - 1), half = 1u << shift;
      if (rem > half || (rem == half && (r & 1))) ++r;
      return (uint16_t)(sign | r);
    }
    uint32_t r = ((ax - 0x38000000u) >> 13), rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) ++r;
    return (uint16_t)(sign | r);
  }
  static float to_float(uint16_t h) {
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
};
typedef __half half;
struct __half2 { __half x, y; };
typedef __half2 half2;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return (float)h; }
inline __half __int2half_rn(int i) { return __half((float)i); }
inline int __half2int_rn(__half h) { return __float2int_rn((float)h); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline float __low2float(__half2 h) { return (float)h.x; }
inline float __high2float(__half2 h) { return (float)h.y; }
inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
inline __half __hsub(__half a, __half b) { return __half((float)a - (float)b); }
inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
inline __half __hdiv(__half a, __half b) { return __half((float)a / (float)b); }
inline __half __hneg(__half a) { __half r; r.bits = a.bits ^ 0x8000u; return r; }
inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(a, b, c)); }
inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline __half& operator+=(__half& a, __half b) { return a = a + b; }
inline __half& operator*=(__half& a, __half b) { return a = a * b; }
