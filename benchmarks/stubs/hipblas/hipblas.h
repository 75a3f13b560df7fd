// Declaration stub of the hipBLAS v2 API (see ../README.md): compiles, computes nothing.
#pragma once
#include <stdint.h>
#include <hip/hip_runtime.h>
#include <hip/library_types.h>

typedef void* hipblasHandle_t;
typedef int64_t hipblasStride;

typedef enum {
  HIPBLAS_STATUS_SUCCESS = 0,
  HIPBLAS_STATUS_NOT_INITIALIZED = 1,
  HIPBLAS_STATUS_ALLOC_FAILED = 2,
  HIPBLAS_STATUS_INVALID_VALUE = 3,
  HIPBLAS_STATUS_MAPPING_ERROR = 4,
  HIPBLAS_STATUS_EXECUTION_FAILED = 5,
  HIPBLAS_STATUS_INTERNAL_ERROR = 6,
  HIPBLAS_STATUS_NOT_SUPPORTED = 7,
  HIPBLAS_STATUS_ARCH_MISMATCH = 8,
  HIPBLAS_STATUS_HANDLE_IS_NULLPTR = 9,
  HIPBLAS_STATUS_INVALID_ENUM = 10,
  HIPBLAS_STATUS_UNKNOWN = 11
} hipblasStatus_t;

typedef enum { HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112, HIPBLAS_OP_C = 113 } hipblasOperation_t;
typedef enum { HIPBLAS_GEMM_DEFAULT = 160 } hipblasGemmAlgo_t;
typedef enum {
  HIPBLAS_DEFAULT_MATH = 0,
  HIPBLAS_XF32_XDL_MATH = 1,
  HIPBLAS_PEDANTIC_MATH = 2,
  HIPBLAS_TF32_TENSOR_OP_MATH = 3,
  HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16,
  HIPBLAS_TENSOR_OP_MATH = 17
} hipblasMath_t;
typedef enum {
  HIPBLAS_COMPUTE_16F = 0,
  HIPBLAS_COMPUTE_16F_PEDANTIC = 1,
  HIPBLAS_COMPUTE_32F = 2,
  HIPBLAS_COMPUTE_32F_PEDANTIC = 3,
  HIPBLAS_COMPUTE_32F_FAST_16F = 4,
  HIPBLAS_COMPUTE_32F_FAST_16BF = 5,
  HIPBLAS_COMPUTE_32F_FAST_TF32 = 6,
  HIPBLAS_COMPUTE_64F = 7,
  HIPBLAS_COMPUTE_64F_PEDANTIC = 8,
  HIPBLAS_COMPUTE_32I = 9,
  HIPBLAS_COMPUTE_32I_PEDANTIC = 10
} hipblasComputeType_t;

static inline hipblasStatus_t hipblasCreate(hipblasHandle_t* handle) {
  *handle = (hipblasHandle_t)0;
  return HIPBLAS_STATUS_SUCCESS;
}
static inline hipblasStatus_t hipblasDestroy(hipblasHandle_t) { return HIPBLAS_STATUS_SUCCESS; }
static inline hipblasStatus_t hipblasSetStream(hipblasHandle_t, hipStream_t) { return HIPBLAS_STATUS_SUCCESS; }
static inline hipblasStatus_t hipblasSetMathMode(hipblasHandle_t, hipblasMath_t) { return HIPBLAS_STATUS_SUCCESS; }
static inline hipblasStatus_t hipblasSetWorkspace(hipblasHandle_t, void*, size_t) { return HIPBLAS_STATUS_SUCCESS; }

static inline hipblasStatus_t hipblasSgemm(hipblasHandle_t, hipblasOperation_t, hipblasOperation_t, int, int, int,
                                           const float*, const float*, int, const float*, int, const float*,
                                           float*, int) {
  return HIPBLAS_STATUS_NOT_SUPPORTED;
}
static inline hipblasStatus_t hipblasSgemmStridedBatched(hipblasHandle_t, hipblasOperation_t, hipblasOperation_t,
                                                         int, int, int, const float*, const float*, int,
                                                         hipblasStride, const float*, int, hipblasStride,
                                                         const float*, float*, int, hipblasStride, int) {
  return HIPBLAS_STATUS_NOT_SUPPORTED;
}
static inline hipblasStatus_t hipblasGemmEx(hipblasHandle_t, hipblasOperation_t, hipblasOperation_t, int, int, int,
                                            const void*, const void*, hipDataType, int, const void*, hipDataType,
                                            int, const void*, void*, hipDataType, int, hipblasComputeType_t,
                                            hipblasGemmAlgo_t) {
  return HIPBLAS_STATUS_NOT_SUPPORTED;
}
static inline hipblasStatus_t hipblasGemmStridedBatchedEx(hipblasHandle_t, hipblasOperation_t, hipblasOperation_t,
                                                          int, int, int, const void*, const void*, hipDataType,
                                                          int, hipblasStride, const void*, hipDataType, int,
                                                          hipblasStride, const void*, void*, hipDataType, int,
                                                          hipblasStride, int, hipblasComputeType_t,
                                                          hipblasGemmAlgo_t) {
  return HIPBLAS_STATUS_NOT_SUPPORTED;
}
