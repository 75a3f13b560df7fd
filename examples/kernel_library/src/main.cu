// Drives the kl kernel library: functor transforms, constant-memory polynomial,
// block sums, a histogram, and launch-attribute queries.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "kl/kernels.cuh"

namespace {

constexpr int kN = 4096;
constexpr int kBlock = 256;
constexpr int kGrid = 8;  // grid-stride kernels: two elements per thread

struct Config {
  float scale;
  float bias;
  float shift;
};

template <typename T>
std::vector<T> download(const T* d, int n) {
  std::vector<T> h(n);
  KL_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

int main() {
  const Config cfg{0.5f, 0.0f, 0.25f};
  std::vector<float> h_x(kN);
  for (int i = 0; i < kN; ++i) h_x[i] = (i * 37 % 101) / 64.0f - 0.75f;

  float *d_x, *d_t, *d_p, *d_c, *d_sums;
  int *d_keys, *d_isums;
  unsigned int* d_hist;
  KL_CHECK(cudaMalloc(&d_x, kN * sizeof(float)));
  KL_CHECK(cudaMalloc(&d_t, kN * sizeof(float)));
  KL_CHECK(cudaMalloc(&d_p, kN * sizeof(float)));
  KL_CHECK(cudaMalloc(&d_c, kN * sizeof(float)));
  KL_CHECK(cudaMalloc(&d_sums, kGrid * sizeof(float)));
  KL_CHECK(cudaMalloc(&d_keys, kN * sizeof(int)));
  KL_CHECK(cudaMalloc(&d_isums, kGrid * sizeof(int)));
  KL_CHECK(cudaMalloc(&d_hist, kl::kBins * sizeof(unsigned int)));
  KL_CHECK(cudaMemcpy(d_x, h_x.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  KL_CHECK(cudaStreamCreate(&stream));

  // 1. Affine functor; the launch spans several lines and nests parentheses.
  kl::transform_kernel<float, kBlock><<<dim3(kl::ceil_div(kN, kBlock)),
                                        dim3(kBlock), 0,
                                        stream>>>(
      d_x, d_t, kN, kl::Affine(cfg.scale * (1.0f + cfg.bias), std::max(cfg.shift, 0.0f)));
  KL_CHECK(cudaGetLastError());

  // 2. Polynomial with coefficients in constant memory, read back to check the upload.
  const float coeffs[] = {0.5f, -0.25f, 1.0f, 0.125f};
  kl::set_poly(coeffs, 4);
  int lenBack = 0;
  float coeffsBack[4] = {};
  KL_CHECK(cudaMemcpyFromSymbol(&lenBack, kl::c_poly_len, sizeof(int)));
  KL_CHECK(cudaMemcpyFromSymbol(coeffsBack, kl::c_poly, sizeof(coeffsBack)));
  kl::poly_kernel<float, kBlock><<<kl::ceil_div(kN, kBlock), kBlock, 0, stream>>>(d_t, d_p, kN);
  kl::transform_kernel<float, kBlock, kl::Clamp>
      <<<kl::ceil_div(kN, kBlock), kBlock, 0, stream>>>(d_p, d_c, kN, kl::Clamp{0.0f, 0.75f});
  kl::block_sum_kernel<float, kBlock><<<kGrid, kBlock, 0, stream>>>(d_t, d_sums, kN);
  KL_CHECK(cudaGetLastError());
  KL_CHECK(cudaStreamSynchronize(stream));

  // 3. Keys through the LAUNCH macro, then a histogram and integer block sums.
  LAUNCH(kl::iota_mod_kernel, kl::ceil_div(kN, kBlock), kBlock, d_keys, kN, 37, 101);
  unsigned int* d_done = nullptr;
  KL_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_done), kl::d_blocks_done));
  KL_CHECK(cudaMemset(d_done, 0, sizeof(unsigned int)));
  KL_CHECK(cudaMemset(d_hist, 0, kl::kBins * sizeof(unsigned int)));
  kl::histogram_kernel<kBlock, kl::kBins><<<kGrid, kBlock>>>(d_keys, kN, d_hist);
  kl::block_sum_kernel<int, kBlock><<<kGrid, kBlock>>>(d_keys, d_isums, kN);
  KL_CHECK(cudaGetLastError());
  KL_CHECK(cudaDeviceSynchronize());

  // 4. Launch attributes of one instantiation (details vary by GPU: stderr only).
  auto sumKernel = kl::block_sum_kernel<float, kBlock>;
  cudaFuncAttributes attr;
  int blocksPerSM = 0;
  KL_CHECK(cudaFuncGetAttributes(&attr, sumKernel));
  KL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSM, sumKernel, kBlock, 0));
  fprintf(stderr, "block_sum_kernel<float, %d>: %d registers, %zu B static shared, %d blocks/SM\n",
          kBlock, attr.numRegs, attr.sharedSizeBytes, blocksPerSM);

  // CPU side: the same functor through a host lambda, and the plain C++ references.
  const std::vector<float> t = download(d_t, kN), p = download(d_p, kN), c = download(d_c, kN);
  const std::vector<float> sums = download(d_sums, kGrid);
  const std::vector<int> keys = download(d_keys, kN), isums = download(d_isums, kGrid);
  const std::vector<unsigned int> hist = download(d_hist, kl::kBins);
  unsigned int done = 0;
  KL_CHECK(cudaMemcpy(&done, d_done, sizeof(done), cudaMemcpyDeviceToHost));

  const kl::Affine affine(cfg.scale * (1.0f + cfg.bias), std::max(cfg.shift, 0.0f));
  std::vector<float> refT(kN), refP, refC(kN);
  std::transform(h_x.begin(), h_x.end(), refT.begin(), [&affine](float v) { return affine(v); });
  kl::ref::poly(coeffs, 4, refT, refP);
  std::transform(refP.begin(), refP.end(), refC.begin(), [](float v) { return kl::Clamp{0.0f, 0.75f}(v); });
  auto mismatches = [](const std::vector<float>& a, const std::vector<float>& b) {
    int m = 0;
    for (size_t i = 0; i < a.size(); ++i) m += (a[i] != b[i]);
    return m;
  };
  std::vector<double> refSums;
  std::vector<unsigned> refHist;
  std::vector<int> refKeys(kN);
  for (int i = 0; i < kN; ++i) refKeys[i] = i * 37 % 101;
  const double refTotal = kl::ref::block_sums(refT, kBlock, kGrid, refSums);
  kl::ref::histogram(refKeys, kl::kBins, refHist);

  bool ok = mismatches(t, refT) == 0 && mismatches(p, refP) == 0 && mismatches(c, refC) == 0;
  ok = ok && keys == refKeys && hist == refHist && done == kGrid && lenBack == 4;
  printf("transform: t[0] %.3f t[1] %.3f t[%d] %.3f\n", t[0], t[1], kN - 1, t[kN - 1]);
  printf("poly: %d coeffs %.3f %.3f %.3f %.3f; p[1] %.3f p[2] %.3f\n", lenBack, coeffsBack[0],
         coeffsBack[1], coeffsBack[2], coeffsBack[3], p[1], p[2]);
  printf("clamp: c[1] %.3f c[%d] %.3f\n", c[1], kN - 1, c[kN - 1]);
  double total = 0.0;
  printf("block sums:");
  for (int b = 0; b < kGrid; ++b) {
    printf(" %.3f", sums[b]);
    total += sums[b];
    ok = ok && sums[b] == refSums[b];
  }
  printf(" | total %.3f\n", total);
  ok = ok && total == refTotal;
  printf("key sums:");
  long long keyTotal = 0;
  for (int b = 0; b < kGrid; ++b) {
    printf(" %d", isums[b]);
    keyTotal += isums[b];
  }
  printf(" | total %lld\n", keyTotal);
  printf("histogram:");
  for (int b = 0; b < kl::kBins; ++b) printf(" %u", hist[b]);
  printf(" | blocks done %u\n", done);
  printf("launch limits: %d threads fit: %s, resident blocks per SM: %s\n", kBlock,
         attr.maxThreadsPerBlock >= kBlock ? "yes" : "no", blocksPerSM >= 1 ? "yes" : "no");
  printf("%s\n", ok ? "PASS" : "FAIL");

  KL_CHECK(cudaStreamDestroy(stream));
  for (void* ptr : {(void*)d_x, (void*)d_t, (void*)d_p, (void*)d_c, (void*)d_sums, (void*)d_keys,
                    (void*)d_isums, (void*)d_hist})
    KL_CHECK(cudaFree(ptr));
  return ok ? 0 : 1;
}
