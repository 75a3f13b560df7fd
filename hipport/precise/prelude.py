"""What clang needs to parse CUDA with no CUDA installation and no clang resource folder (the
libclang wheel ships neither): a prelude of CUDA's qualifiers, built-in variables and warp
intrinsics (declarations only), small CUDA headers in their place, and the few compiler
headers (stddef.h, stdarg.h) the C library includes. A declaration here only has to let the
code around it parse: a value is never taken from it."""

from __future__ import annotations

ROOT = "/__hipport_precise__"  # a folder no disk has: the files below are given to clang in memory
PRELUDE = f"{ROOT}/prelude.h"
HEADERS = f"{ROOT}/cuda"  # searched after the project's folders, for CUDA's headers
BUILTIN = f"{ROOT}/builtin"  # searched before the system's, for the compiler's own headers

_PRELUDE = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __CUDACC__ 1
#define __NVCC__ 1
struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
  __host__ __device__ dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
#define __HP_VEC(T, N) struct N##1 { T x; }; struct N##2 { T x, y; }; struct N##3 { T x, y, z; }; \
  struct N##4 { T x, y, z, w; };
__HP_VEC(float, float) __HP_VEC(double, double) __HP_VEC(int, int) __HP_VEC(unsigned, uint)
__HP_VEC(char, char) __HP_VEC(unsigned char, uchar) __HP_VEC(short, short) __HP_VEC(unsigned short, ushort)
__HP_VEC(long, long) __HP_VEC(unsigned long, ulong) __HP_VEC(long long, longlong)
__HP_VEC(unsigned long long, ulonglong)
#undef __HP_VEC
struct __half { unsigned short __x; };
struct __half2 { __half x, y; };
struct __nv_bfloat16 { unsigned short __x; };
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __half half;
typedef __half2 half2;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef int cudaError_t;
enum { cudaSuccess = 0 };
__device__ void __syncthreads();
__device__ int __syncthreads_or(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_count(int);
__device__ void __syncwarp(unsigned = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
template <class T> __device__ T __shfl_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __shfl_up_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned, T, int, int = 32);
template <class T> __device__ T __shfl(T, int, int = 32);
template <class T> __device__ T __shfl_up(T, unsigned, int = 32);
template <class T> __device__ T __shfl_down(T, unsigned, int = 32);
template <class T> __device__ T __shfl_xor(T, int, int = 32);
__device__ unsigned __ballot_sync(unsigned, int);
__device__ unsigned __ballot(int);
__device__ int __any_sync(unsigned, int);
__device__ int __all_sync(unsigned, int);
__device__ int __any(int);
__device__ int __all(int);
__device__ unsigned __activemask();
template <class T> __device__ unsigned __match_any_sync(unsigned, T);
template <class T> __device__ unsigned __match_all_sync(unsigned, T, int*);
template <class T> __device__ T __reduce_add_sync(unsigned, T);
template <class T> __device__ T __reduce_min_sync(unsigned, T);
template <class T> __device__ T __reduce_max_sync(unsigned, T);
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ unsigned __brev(unsigned);
template <class T> __device__ T __ldg(const T*);
template <class T> __device__ T atomicAdd(T*, T);
template <class T> __device__ T atomicSub(T*, T);
template <class T> __device__ T atomicMax(T*, T);
template <class T> __device__ T atomicMin(T*, T);
template <class T> __device__ T atomicExch(T*, T);
template <class T> __device__ T atomicOr(T*, T);
template <class T> __device__ T atomicAnd(T*, T);
template <class T> __device__ T atomicXor(T*, T);
template <class T> __device__ T atomicCAS(T*, T, T);
__device__ float __float2half(float);
__device__ float __half2float(__half);
__device__ float __expf(float);
__device__ float __fdividef(float, float);
"""

_COOPERATIVE_GROUPS = r"""
#pragma once
namespace cooperative_groups {
struct thread_group {
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ unsigned thread_rank() const;
  __device__ void sync() const;
};
struct thread_block : thread_group {
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 dim_threads() const;
};
__device__ thread_block this_thread_block();
template <unsigned N, class P = void> struct thread_block_tile : thread_group {
  template <class T> __device__ T shfl(T, int) const;
  template <class T> __device__ T shfl_up(T, unsigned) const;
  template <class T> __device__ T shfl_down(T, unsigned) const;
  template <class T> __device__ T shfl_xor(T, int) const;
  __device__ int any(int) const;
  __device__ int all(int) const;
  __device__ unsigned ballot(int) const;
  __device__ unsigned meta_group_rank() const;
  __device__ unsigned meta_group_size() const;
};
template <unsigned N, class P> __device__ thread_block_tile<N, P> tiled_partition(const P&);
__device__ thread_group tiled_partition(const thread_group&, unsigned);
struct coalesced_group : thread_block_tile<32> {};
__device__ coalesced_group coalesced_threads();
template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(T a, T b) const { return a < b ? a : b; } };
template <class T> struct greater { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
template <class G, class T, class Op> __device__ T reduce(const G&, T, Op);
template <class G> __device__ void sync(const G&);
}
"""

_STDDEF = r"""
#ifndef __HIPPORT_STDDEF
#define __HIPPORT_STDDEF
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef struct { long long __a; long double __b; } max_align_t;
#define NULL __null
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
"""

_STDARG = r"""
#ifndef __HIPPORT_STDARG
#define __HIPPORT_STDARG
typedef __builtin_va_list va_list;
typedef __builtin_va_list __gnuc_va_list;
#define va_start(v, l) __builtin_va_start(v, l)
#define va_end(v) __builtin_va_end(v)
#define va_arg(v, l) __builtin_va_arg(v, l)
#define va_copy(d, s) __builtin_va_copy(d, s)
#endif
"""

# CUDA's headers a file includes: the prelude has declared what parsing needs.
_CUDA_HEADERS = ("cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "device_launch_parameters.h",
                 "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "device_functions.h", "sm_60_atomic_functions.h",
                 "cooperative_groups/reduce.h", "cooperative_groups/memcpy_async.h", "cuda/std/limits")


def files() -> list[tuple[str, str]]:
    """(path, text) of every file clang reads from memory."""
    out = [(PRELUDE, _PRELUDE), (f"{HEADERS}/cooperative_groups.h", _COOPERATIVE_GROUPS),
           (f"{BUILTIN}/stddef.h", _STDDEF), (f"{BUILTIN}/stdarg.h", _STDARG)]
    out += [(f"{HEADERS}/{name}", "#pragma once\n") for name in _CUDA_HEADERS]
    return out
