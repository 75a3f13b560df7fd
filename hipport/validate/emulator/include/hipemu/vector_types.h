// hipport wave emulator: CUDA/HIP vector types (float4, int2, uint3, ...) and dim3.
#pragma once
#include <cstdint>

#define HIPEMU_VEC1(N, T, A) \
  struct __attribute__((aligned(A))) N##1 { T x; }; \
  inline constexpr N##1 make_##N##1(T x) { return N##1{x}; }
#define HIPEMU_VEC2(N, T, A) \
  struct __attribute__((aligned(A))) N##2 { T x, y; }; \
  inline constexpr N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define HIPEMU_VEC3(N, T) \
  struct N##3 { T x, y, z; }; \
  inline constexpr N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define HIPEMU_VEC4(N, T, A) \
  struct __attribute__((aligned(A))) N##4 { T x, y, z, w; }; \
  inline constexpr N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define HIPEMU_VECS(N, T) \
  HIPEMU_VEC1(N, T, sizeof(T)) HIPEMU_VEC2(N, T, 2 * sizeof(T)) HIPEMU_VEC3(N, T) \
  HIPEMU_VEC4(N, T, (4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)))

HIPEMU_VECS(char, signed char)
HIPEMU_VECS(uchar, unsigned char)
HIPEMU_VECS(short, short)
HIPEMU_VECS(ushort, unsigned short)
HIPEMU_VECS(int, int)
HIPEMU_VECS(uint, unsigned int)
HIPEMU_VECS(long, long)
HIPEMU_VECS(ulong, unsigned long)
HIPEMU_VECS(longlong, long long)
HIPEMU_VECS(ulonglong, unsigned long long)
HIPEMU_VECS(float, float)
HIPEMU_VECS(double, double)

#undef HIPEMU_VEC1
#undef HIPEMU_VEC2
#undef HIPEMU_VEC3
#undef HIPEMU_VEC4
#undef HIPEMU_VECS

struct dim3 {
  uint32_t x, y, z;
  constexpr dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(const uint3& v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
