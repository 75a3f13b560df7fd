// kl: a small header-only kernel library. Common macros, functors and host helpers.
// This header is also included by plain C++ translation units (src/reference.cpp),
// so every CUDA-specific construct sits behind __CUDACC__ / __CUDA_ARCH__.
#ifndef KL_COMMON_CUH
#define KL_COMMON_CUH

#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define KL_HD __host__ __device__
#define KL_CHECK(expr)                                                          \
  do {                                                                          \
    cudaError_t kl_err_ = (expr);                                               \
    if (kl_err_ != cudaSuccess) {                                               \
      fprintf(stderr, "kl: %s failed at %s:%d: %s\n", #expr, __FILE__, __LINE__, \
              cudaGetErrorString(kl_err_));                                     \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)
// Launch helper used by the examples; the kernel name must not contain a top-level comma.
#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)
#else
#define KL_HD
#endif

namespace kl {

constexpr int kMaxPoly = 8;
constexpr int kBins = 16;

KL_HD inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Read-only load: the texture path on the device, a plain load on the host.
template <typename T>
KL_HD inline T load(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// y = x * scale + shift, usable on both sides.
struct Affine {
  float scale;
  float shift;
  KL_HD Affine(float s, float t) : scale(s), shift(t) {}
  KL_HD float operator()(float v) const { return v * scale + shift; }
};

// Clamps into [lo, hi]; composes with Affine in the CPU reference.
struct Clamp {
  float lo;
  float hi;
  KL_HD float operator()(float v) const { return v < lo ? lo : (v > hi ? hi : v); }
};

// Host reference implementations (src/reference.cpp), compiled without nvcc.
namespace ref {
void poly(const float* coeffs, int len, const std::vector<float>& x, std::vector<float>& y);
double block_sums(const std::vector<float>& x, int block, int grid, std::vector<double>& sums);
void histogram(const std::vector<int>& keys, int bins, std::vector<unsigned>& hist);
}  // namespace ref

}  // namespace kl

#endif  // KL_COMMON_CUH
