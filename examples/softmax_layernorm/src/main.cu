// Softmax and layer norm over the rows of a small matrix, one warp per row.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "row_kernels.cuh"

#define CK(x)                                                                      \
  do {                                                                             \
    cudaError_t st = (x);                                                          \
    if (st != cudaSuccess) {                                                       \
      fprintf(stderr, "%s line %d: %s\n", #x, __LINE__, cudaGetErrorString(st));  \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

static const int kRows = 26;
static const int kCols = 96;
static const int kReduceBlock = 256;
static const int kReduceGrid = 8;
static const float kEps = 1e-3f;

int main() {
  const int n = kRows * kCols;
  std::vector<float> x(n), gamma(kCols), beta(kCols);
  for (int i = 0; i < n; ++i) x[i] = (i * 37 % 101) / 16.0f - 3.0f;
  for (int c = 0; c < kCols; ++c) {
    gamma[c] = 1.0f + (c % 5) * 0.125f;
    beta[c] = (c % 3 - 1) * 0.25f;
  }

  float *d_x, *d_gamma, *d_beta, *d_sm, *d_ln, *d_mean, *d_rstd, *d_part;
  CK(cudaMalloc(&d_x, n * sizeof(float)));
  CK(cudaMalloc(&d_gamma, kCols * sizeof(float)));
  CK(cudaMalloc(&d_beta, kCols * sizeof(float)));
  CK(cudaMalloc(&d_sm, n * sizeof(float)));
  CK(cudaMalloc(&d_ln, n * sizeof(float)));
  CK(cudaMalloc(&d_mean, kRows * sizeof(float)));
  CK(cudaMalloc(&d_rstd, kRows * sizeof(float)));
  CK(cudaMalloc(&d_part, 2 * kReduceGrid * sizeof(float)));
  CK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_gamma, gamma.data(), kCols * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_beta, beta.data(), kCols * sizeof(float), cudaMemcpyHostToDevice));

  dim3 block(32, 4);
  dim3 grid((kRows + 3) / 4);
  softmax_rows<<<grid, block>>>(d_x, d_sm, kRows, kCols);
  layernorm_rows<<<grid, block>>>(d_x, d_gamma, d_beta, d_ln, d_mean, d_rstd, kRows, kCols, kEps);
  block_reduce_sum<kReduceBlock><<<kReduceGrid, kReduceBlock>>>(d_x, d_part, n);
  block_reduce_sum<kReduceBlock><<<kReduceGrid, kReduceBlock>>>(d_sm, d_part + kReduceGrid, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::vector<float> sm(n), ln(n), mean(kRows), rstd(kRows), part(2 * kReduceGrid);
  CK(cudaMemcpy(sm.data(), d_sm, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ln.data(), d_ln, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(mean.data(), d_mean, kRows * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(rstd.data(), d_rstd, kRows * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(part.data(), d_part, part.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double precision; the kernels use fast exp / rsqrt, hence the tolerance.
  double worst = 0.0;
  for (int r = 0; r < kRows; ++r) {
    const float* xr = &x[r * kCols];
    double mx = xr[0], den = 0.0, mu = 0.0, var = 0.0;
    for (int c = 1; c < kCols; ++c) mx = fmax(mx, (double)xr[c]);
    for (int c = 0; c < kCols; ++c) den += exp(xr[c] - mx);
    for (int c = 0; c < kCols; ++c) mu += xr[c];
    mu /= kCols;
    for (int c = 0; c < kCols; ++c) var += (xr[c] - mu) * (xr[c] - mu);
    const double rs = 1.0 / sqrt(var / kCols + kEps);
    int arg = 0;
    for (int c = 0; c < kCols; ++c) {
      worst = fmax(worst, fabs(sm[r * kCols + c] - exp(xr[c] - mx) / den));
      worst = fmax(worst, fabs(ln[r * kCols + c] - ((xr[c] - mu) * rs * gamma[c] + beta[c])));
      if (sm[r * kCols + c] > sm[r * kCols + arg]) arg = c;
    }
    worst = fmax(worst, fabs(mean[r] - mu));
    worst = fmax(worst, fabs(rstd[r] - rs) / rs);
    printf("row %2d: softmax argmax %2d p %.3f | layernorm mean %.3f rstd %.3f y[1] %.3f\n", r, arg,
           sm[r * kCols + arg], mean[r], rstd[r], ln[r * kCols + 1]);
  }

  double sumX = 0.0, sumSm = 0.0, refX = 0.0;
  for (int b = 0; b < kReduceGrid; ++b) {
    sumX += part[b];
    sumSm += part[kReduceGrid + b];
  }
  for (int i = 0; i < n; ++i) refX += x[i];
  printf("global sums: x %.4f (reference %.4f), softmax %.3f (rows %d)\n", sumX, refX, sumSm, kRows);
  const bool ok = worst < 1e-4 && sumX == refX && fabs(sumSm - kRows) < 1e-3;
  fprintf(stderr, "max abs error vs double reference: %.3g\n", worst);
  printf("%s\n", ok ? "PASS" : "FAIL");

  cudaFree(d_x);
  cudaFree(d_gamma);
  cudaFree(d_beta);
  cudaFree(d_sm);
  cudaFree(d_ln);
  cudaFree(d_mean);
  cudaFree(d_rstd);
  cudaFree(d_part);
  return ok ? 0 : 1;
}
