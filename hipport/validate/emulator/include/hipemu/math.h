// hipport wave emulator: CUDA/HIP device math functions and intrinsics.
// Directed-rounding variants (_rz/_ru/_rd) of arithmetic intrinsics are
// computed in round-to-nearest (documented limit); conversions honour them.
#pragma once
#include <cmath>
#include <math.h>
#include <cstdint>
#include <cstring>
#include <type_traits>

// ------------------------------------------------------------ min / max
#define HIPEMU_MINMAX(T)                                    \
  inline T min(T a, T b) { return b < a ? b : a; }          \
  inline T max(T a, T b) { return a < b ? b : a; }
HIPEMU_MINMAX(int)
HIPEMU_MINMAX(unsigned int)
HIPEMU_MINMAX(long)
HIPEMU_MINMAX(unsigned long)
HIPEMU_MINMAX(long long)
HIPEMU_MINMAX(unsigned long long)
#undef HIPEMU_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
// HIP's one-type template: `min<unsigned int>(n - 1, i + blockDim.x)`, as hipport writes CUDA's
// unsigned overload, converts both arguments.
template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>
inline T min(std::common_type_t<T> a, std::common_type_t<T> b) { return b < a ? b : a; }
template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>
inline T max(std::common_type_t<T> a, std::common_type_t<T> b) { return a < b ? b : a; }
// Mixed argument types: usual arithmetic conversions (as CUDA's overloads).
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                   !std::is_same<A, B>::value>>
inline std::common_type_t<A, B> min(A a, B b) {
  using C = std::common_type_t<A, B>;
  return min((C)a, (C)b);
}
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                   !std::is_same<A, B>::value>>
inline std::common_type_t<A, B> max(A a, B b) {
  using C = std::common_type_t<A, B>;
  return max((C)a, (C)b);
}
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ------------------------------------------------------------ float intrinsics
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline float norm4df(float a, float b, float c, float d) { return sqrtf(a * a + b * b + c * c + d * d); }
inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
inline float sinpif(float x) { return sinf((float)M_PI * x); }
inline float cospif(float x) { return cosf((float)M_PI * x); }
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
inline double sinpi(double x) { return sin(M_PI * x); }
inline double cospi(double x) { return cos(M_PI * x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }

#define HIPEMU_ROUNDED(R)                                                     \
  inline float __fadd_##R(float a, float b) { return a + b; }                 \
  inline float __fsub_##R(float a, float b) { return a - b; }                 \
  inline float __fmul_##R(float a, float b) { return a * b; }                 \
  inline float __fdiv_##R(float a, float b) { return a / b; }                 \
  inline float __fmaf_##R(float a, float b, float c) { return fmaf(a, b, c); } \
  inline float __frcp_##R(float a) { return 1.0f / a; }                       \
  inline float __fsqrt_##R(float a) { return sqrtf(a); }                      \
  inline double __dadd_##R(double a, double b) { return a + b; }              \
  inline double __dsub_##R(double a, double b) { return a - b; }              \
  inline double __dmul_##R(double a, double b) { return a * b; }              \
  inline double __ddiv_##R(double a, double b) { return a / b; }              \
  inline double __fma_##R(double a, double b, double c) { return fma(a, b, c); } \
  inline double __drcp_##R(double a) { return 1.0 / a; }                      \
  inline double __dsqrt_##R(double a) { return sqrt(a); }
HIPEMU_ROUNDED(rn)
HIPEMU_ROUNDED(rz)
HIPEMU_ROUNDED(ru)
HIPEMU_ROUNDED(rd)
#undef HIPEMU_ROUNDED

// ------------------------------------------------------------ conversions
namespace hipemu {
namespace detail {
inline double rnd_rn(double x) { return std::nearbyint(x); }  // default mode: ties to even
inline double rnd_rz(double x) { return std::trunc(x); }
inline double rnd_ru(double x) { return std::ceil(x); }
inline double rnd_rd(double x) { return std::floor(x); }
}  // namespace detail
}  // namespace hipemu
#define HIPEMU_CVT(R)                                                                      \
  inline int __float2int_##R(float x) { return (int)::hipemu::detail::rnd_##R(x); }         \
  inline unsigned __float2uint_##R(float x) { return (unsigned)::hipemu::detail::rnd_##R(x); } \
  inline long long __float2ll_##R(float x) { return (long long)::hipemu::detail::rnd_##R(x); } \
  inline unsigned long long __float2ull_##R(float x) {                                     \
    return (unsigned long long)::hipemu::detail::rnd_##R(x);                               \
  }                                                                                        \
  inline int __double2int_##R(double x) { return (int)::hipemu::detail::rnd_##R(x); }       \
  inline unsigned __double2uint_##R(double x) { return (unsigned)::hipemu::detail::rnd_##R(x); } \
  inline long long __double2ll_##R(double x) { return (long long)::hipemu::detail::rnd_##R(x); } \
  inline unsigned long long __double2ull_##R(double x) {                                   \
    return (unsigned long long)::hipemu::detail::rnd_##R(x);                               \
  }                                                                                        \
  inline float __int2float_##R(int x) { return (float)x; }                                 \
  inline float __uint2float_##R(unsigned x) { return (float)x; }                           \
  inline float __ll2float_##R(long long x) { return (float)x; }                            \
  inline float __ull2float_##R(unsigned long long x) { return (float)x; }                  \
  inline float __double2float_##R(double x) { return (float)x; }                           \
  inline double __ll2double_##R(long long x) { return (double)x; }                         \
  inline double __ull2double_##R(unsigned long long x) { return (double)x; }
HIPEMU_CVT(rn)
HIPEMU_CVT(rz)
HIPEMU_CVT(ru)
HIPEMU_CVT(rd)
#undef HIPEMU_CVT
inline double __int2double_rn(int x) { return (double)x; }
inline double __uint2double_rn(unsigned x) { return (double)x; }

template <class To, class From>
inline To hipemu_bit_cast(From f) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
}
inline float __int_as_float(int x) { return hipemu_bit_cast<float>(x); }
inline int __float_as_int(float x) { return hipemu_bit_cast<int>(x); }
inline float __uint_as_float(unsigned x) { return hipemu_bit_cast<float>(x); }
inline unsigned __float_as_uint(float x) { return hipemu_bit_cast<unsigned>(x); }
inline double __longlong_as_double(long long x) { return hipemu_bit_cast<double>(x); }
inline long long __double_as_longlong(double x) { return hipemu_bit_cast<long long>(x); }
inline int __double2hiint(double x) { return (int)(hipemu_bit_cast<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return (int)hipemu_bit_cast<unsigned long long>(x); }
inline double __hiloint2double(int hi, int lo) {
  return hipemu_bit_cast<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

// ------------------------------------------------------------ integer intrinsics
inline int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline unsigned __sad(int x, int y, unsigned z) { return (unsigned)(x > y ? x - y : y - x) + z; }
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned sh) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (sh & 31)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned sh) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (sh > 32 ? 32 : sh)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned sh) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (sh & 31));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned sh) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (sh > 32 ? 32 : sh));
}
