// Runs the warp-primitive kernels on fixed inputs and checks each against a CPU reference.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "kernels.cuh"

#define CHECK_CUDA(call)                                                                  \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

constexpr int kN = 1024;
constexpr int kBlocks = kN / kBlock;
constexpr int kWarps = kN / WARP_SIZE;
constexpr int kThreshold = 80;
constexpr int kBig = 99;

template <typename T>
T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
std::vector<T> to_host(const T* d, int n) {
  std::vector<T> h(n);
  CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <typename T>
void print_rows(const char* title, const std::vector<T>& v, const char* fmt) {
  printf("%s:\n", title);
  for (size_t k = 0; k < v.size(); ++k) {
    printf(fmt, v[k]);
    printf((k % 8 == 7 || k + 1 == v.size()) ? "\n" : " ");
  }
}

int main() {
  std::vector<int> h_in(kN), h_keys(kN);
  std::vector<float> h_f(kN), h_x(kN);
  for (int i = 0; i < kN; ++i) {
    h_in[i] = (i * 37 + 11) % 101;
    h_keys[i] = i / 3;  // runs of equal keys, as in sorted or coherent data
    h_f[i] = static_cast<float>(h_in[i]);
    h_x[i] = ((i * 53 + 7) % 97) / 97.0f;
  }
  int* d_in = to_device(h_in);
  int* d_keys = to_device(h_keys);
  float* d_f = to_device(h_f);
  float* d_x = to_device(h_x);

  float *d_warp_sums, *d_block_sums;
  int *d_out, *d_counts, *d_flags, *d_tiles, *d_scan, *d_totals, *d_best, *d_rounds;
  unsigned int* d_hist;
  CHECK_CUDA(cudaMalloc(&d_warp_sums, kWarps * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_block_sums, kBlocks * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_out, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_counts, kBlocks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_flags, kWarps * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_tiles, kWarps * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_scan, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_totals, kBlocks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_best, kWarps * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_rounds, kWarps * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)));
  CHECK_CUDA(cudaMemset(d_out, 0xff, kN * sizeof(int)));
  CHECK_CUDA(cudaMemset(d_hist, 0, kBins * sizeof(unsigned int)));

  block_sum_kernel<<<kBlocks, kBlock>>>(d_f, d_warp_sums, d_block_sums, kN);
  compact_kernel<<<kBlocks, kBlock>>>(d_in, d_out, d_counts, kN, kThreshold);
  vote_kernel<<<kBlocks, kBlock>>>(d_in, d_flags, kBig);
  tile_sum_kernel<<<kBlocks, kBlock>>>(d_in, d_tiles);
  scan_kernel<<<kBlocks, kBlock>>>(d_in, d_scan, d_totals);
  argmax_kernel<<<kBlocks, kBlock>>>(d_x, d_best);
  histogram_kernel<<<kBlocks, kBlock>>>(d_keys, kN, d_hist, d_rounds);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());

  const auto warp_sums = to_host(d_warp_sums, kWarps);
  const auto block_sums = to_host(d_block_sums, kBlocks);
  const auto out = to_host(d_out, kN);
  const auto counts = to_host(d_counts, kBlocks);
  const auto flags = to_host(d_flags, kWarps);
  const auto tiles = to_host(d_tiles, kWarps);
  const auto scan = to_host(d_scan, kN);
  const auto totals = to_host(d_totals, kBlocks);
  const auto best = to_host(d_best, kWarps);
  const auto rounds = to_host(d_rounds, kWarps);
  const auto hist = to_host(d_hist, kBins);

  // CPU references, warp by warp.
  int errors = 0;
  std::vector<int> scan_ends(kWarps);
  for (int w = 0; w < kWarps; ++w) {
    const int b = w * WARP_SIZE / kBlock;
    float s = 0.0f;
    int all_pos = 1, any_big = 0, tile = 0, arg = w * WARP_SIZE, bins_seen = 0;
    for (int l = 0; l < WARP_SIZE; ++l) {
      const int i = w * WARP_SIZE + l;
      s += h_f[i];
      all_pos &= h_in[i] > 0;
      any_big |= h_in[i] >= kBig;
      tile += h_in[i] * (l + 1);
      if (h_x[i] > h_x[arg]) arg = i;
      bins_seen |= 1 << (h_keys[i] % kBins);
    }
    int run = 0;
    for (int i = b * kBlock; i <= w * WARP_SIZE + WARP_SIZE - 1; ++i) run += h_in[i];
    scan_ends[w] = scan[w * WARP_SIZE + WARP_SIZE - 1];
    errors += warp_sums[w] != s;
    errors += flags[w] != (all_pos * 2 + any_big);
    errors += tiles[w] != tile;
    errors += best[w] != arg;
    errors += rounds[w] != __builtin_popcount(bins_seen);
    errors += scan_ends[w] != run;
  }
  std::vector<long long> compact_checks(kBlocks);
  std::vector<unsigned int> ref_hist(kBins, 0);
  for (int b = 0; b < kBlocks; ++b) {
    int k = 0, bs = 0;
    long long check = 0;
    for (int i = b * kBlock; i < (b + 1) * kBlock; ++i) {
      bs += h_in[i];
      ++ref_hist[h_keys[i] % kBins];
      if (h_in[i] < kThreshold) continue;
      errors += out[b * kBlock + k] != h_in[i];
      check += static_cast<long long>(out[b * kBlock + k]) * (k % 7 + 1);
      ++k;
    }
    compact_checks[b] = check;
    errors += counts[b] != k;
    errors += block_sums[b] != static_cast<float>(bs);
    errors += totals[b] != bs;
  }
  for (int k = 0; k < kBins; ++k) errors += hist[k] != ref_hist[k];

  print_rows("warp sums", warp_sums, "%.3f");
  print_rows("block sums", block_sums, "%.3f");
  for (int b = 0; b < kBlocks; ++b)
    printf("block %d: kept %d (>= %d), checksum %lld, scan total %d\n", b, counts[b], kThreshold,
           compact_checks[b], totals[b]);
  printf("votes per warp (2 = all positive, 1 = any >= %d):", kBig);
  for (int w = 0; w < kWarps; ++w) printf(" %d", flags[w]);
  printf("\n");
  print_rows("tile weighted sums", tiles, "%d");
  print_rows("scan at the last lane of each warp", scan_ends, "%d");
  print_rows("argmax index per warp", best, "%d");
  print_rows("histogram", hist, "%u");
  printf("aggregation rounds per warp:");
  for (int w = 0; w < kWarps; ++w) printf(" %d", rounds[w]);
  printf("\nerrors: %d\n%s\n", errors, errors == 0 ? "PASS" : "FAIL");

  for (void* p : {(void*)d_in, (void*)d_keys, (void*)d_f, (void*)d_x, (void*)d_warp_sums,
                  (void*)d_block_sums, (void*)d_out, (void*)d_counts, (void*)d_flags,
                  (void*)d_tiles, (void*)d_scan, (void*)d_totals, (void*)d_best,
                  (void*)d_rounds, (void*)d_hist})
    CHECK_CUDA(cudaFree(p));
  return errors == 0 ? 0 : 1;
}
