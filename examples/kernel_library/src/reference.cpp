// CPU references for the kl kernels. Built by the host C++ compiler: kl/common.cuh
// must compile without nvcc, which is what its __CUDACC__ branches are for.
#include "kl/common.cuh"

#include <cstddef>
#include <vector>

namespace kl {
namespace ref {

// Horner's rule, highest degree first, in single precision like the kernel.
void poly(const float* coeffs, int len, const std::vector<float>& x, std::vector<float>& y) {
  y.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    float acc = 0.0f;
    for (int k = 0; k < len; ++k) acc = acc * x[i] + coeffs[k];
    y[i] = acc;
  }
}

// Element i is visited by block (i / block) % grid in a grid-stride loop.
double block_sums(const std::vector<float>& x, int block, int grid, std::vector<double>& sums) {
  sums.assign(grid, 0.0);
  const int n = static_cast<int>(x.size());
  for (int i = 0; i < n; ++i) sums[(i / block) % grid] += x[i];
  double total = 0.0;
  for (double s : sums) total += s;
  return total;
}

void histogram(const std::vector<int>& keys, int bins, std::vector<unsigned>& hist) {
  hist.assign(bins, 0u);
  for (int k : keys) ++hist[k % bins];
}

}  // namespace ref
}  // namespace kl
