// TEST STUB, not hipCUB: hipCUB is not installed on this machine. It declares the primitives the
// wave64 fixtures use with hipCUB's template shape (a logical warp width that must be a power of
// two no larger than the wave), so that a rewrite pinning that width is type-checked by hipcc.
#pragma once
#include <hip/hip_runtime.h>

namespace hipcub {

template <typename T, int LOGICAL_WARP_THREADS = 64>
class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS > 0 && LOGICAL_WARP_THREADS <= 64 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "logical warp width must be a power of two <= the wave");

 public:
  struct TempStorage {
    T slot[1];
  };
  __device__ explicit WarpReduce(TempStorage& storage) : storage_(storage) {}
  __device__ T Sum(T v) {
    for (int o = LOGICAL_WARP_THREADS / 2; o > 0; o >>= 1) v += __shfl_down(v, o, LOGICAL_WARP_THREADS);
    return v;
  }

 private:
  TempStorage& storage_;
};

template <typename T, int LOGICAL_WARP_THREADS = 64>
class WarpScan {
  static_assert(LOGICAL_WARP_THREADS > 0 && LOGICAL_WARP_THREADS <= 64 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "logical warp width must be a power of two <= the wave");

 public:
  struct TempStorage {
    T slot[1];
  };
  __device__ explicit WarpScan(TempStorage& storage) : storage_(storage) {}
  __device__ void ExclusiveSum(T in, T& out) {
    T v = in;
    for (int d = 1; d < LOGICAL_WARP_THREADS; d <<= 1) {
      T up = __shfl_up(v, d, LOGICAL_WARP_THREADS);
      if ((int)(__lane_id() % LOGICAL_WARP_THREADS) >= d) v += up;
    }
    out = v - in;
  }

 private:
  TempStorage& storage_;
};

template <typename T, int BLOCK_DIM_X>
class BlockReduce {
 public:
  struct TempStorage {
    T slot[BLOCK_DIM_X];
  };
  __device__ explicit BlockReduce(TempStorage& storage) : storage_(storage) {}
  __device__ T Sum(T v) { return v; }

 private:
  TempStorage& storage_;
};

}  // namespace hipcub
