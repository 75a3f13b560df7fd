// Chunked SAXPY over pinned host buffers, overlapped on several CUDA streams.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      fprintf(stderr, "CUDA error at %s:%d: %s failed: %s\n", __FILE__,      \
              __LINE__, #call, cudaGetErrorString(err_));                    \
      exit(EXIT_FAILURE);                                                    \
    }                                                                        \
  } while (0)

constexpr int kN = 1 << 14;
constexpr int kStreams = 4;
constexpr int kChunk = kN / kStreams;
constexpr int kBlock = 256;

// Coefficient of y = a * x + y, set once from the host.
__constant__ float c_alpha;

__global__ void saxpy(int n, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = c_alpha * x[i] + y[i];
}

static void fill_inputs(float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) {
    x[i] = (i * 37 % 101) / 128.0f;  // exact in binary: results do not depend on FMA contraction
    y[i] = (i % 7) * 0.25f;
  }
}

int main() {
  const float alpha = 1.5f;

  float *h_x = nullptr, *h_y = nullptr, *h_ref = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_x, kN * sizeof(float)));
  CUDA_CHECK(cudaHostAlloc(&h_y, kN * sizeof(float), cudaHostAllocDefault));
  h_ref = static_cast<float*>(malloc(kN * sizeof(float)));
  fill_inputs(h_x, h_y, kN);
  for (int i = 0; i < kN; ++i) h_ref[i] = alpha * h_x[i] + h_y[i];

  float *d_x = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, kN * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, kN * sizeof(float)));
  CUDA_CHECK(cudaMemcpyToSymbol(c_alpha, &alpha, sizeof(float)));

  cudaStream_t streams[kStreams];
  cudaEvent_t chunkDone[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&chunkDone[s]));
  }
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));

  CUDA_CHECK(cudaEventRecord(start, streams[0]));
  for (int s = 1; s < kStreams; ++s) CUDA_CHECK(cudaStreamWaitEvent(streams[s], start, 0));

  // Each stream copies its chunk in, runs the kernel and copies the result back.
  for (int s = 0; s < kStreams; ++s) {
    const int off = s * kChunk;
    CUDA_CHECK(cudaMemcpyAsync(d_x + off, h_x + off, kChunk * sizeof(float),
                               cudaMemcpyHostToDevice, streams[s]));
    CUDA_CHECK(cudaMemcpyAsync(d_y + off, h_y + off, kChunk * sizeof(float),
                               cudaMemcpyHostToDevice, streams[s]));
    const int grid = (kChunk + kBlock - 1) / kBlock;
    saxpy<<<grid, kBlock, 0, streams[s]>>>(kChunk, d_x + off, d_y + off);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y + off, d_y + off, kChunk * sizeof(float),
                               cudaMemcpyDeviceToHost, streams[s]));
    CUDA_CHECK(cudaEventRecord(chunkDone[s], streams[s]));
  }

  // Stream 0 waits for every chunk before the stop event.
  for (int s = 1; s < kStreams; ++s) CUDA_CHECK(cudaStreamWaitEvent(streams[0], chunkDone[s], 0));
  CUDA_CHECK(cudaEventRecord(stop, streams[0]));
  CUDA_CHECK(cudaEventSynchronize(stop));

  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  fprintf(stderr, "elapsed: %.3f ms for %d streams\n", ms, kStreams);

  int mismatches = 0;
  for (int s = 0; s < kStreams; ++s) {
    double sum = 0.0, refSum = 0.0;
    for (int i = s * kChunk; i < (s + 1) * kChunk; ++i) {
      sum += h_y[i];
      refSum += h_ref[i];
      if (h_y[i] != h_ref[i]) ++mismatches;
    }
    printf("chunk %d: sum %.3f (reference %.3f)\n", s, sum, refSum);
  }
  printf("y[0] %.3f y[1] %.3f y[%d] %.3f\n", h_y[0], h_y[1], kN - 1, h_y[kN - 1]);
  float back = 0.0f;
  CUDA_CHECK(cudaMemcpyFromSymbol(&back, c_alpha, sizeof(float)));
  printf("alpha %.3f, mismatches %d\n", back, mismatches);
  printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  for (int s = 0; s < kStreams; ++s) {
    CUDA_CHECK(cudaEventDestroy(chunkDone[s]));
    CUDA_CHECK(cudaStreamDestroy(streams[s]));
  }
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));
  free(h_ref);
  return mismatches == 0 ? 0 : 1;
}
