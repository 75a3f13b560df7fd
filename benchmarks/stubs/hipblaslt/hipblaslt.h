// Declaration stub of the hipBLASLt API (see ../README.md): compiles, computes nothing.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <hip/hip_runtime.h>
#include <hip/library_types.h>
#include <hipblas/hipblas.h>

typedef void* hipblasLtHandle_t;
typedef void* hipblasLtMatmulDesc_t;
typedef void* hipblasLtMatrixLayout_t;
typedef void* hipblasLtMatmulPreference_t;
typedef struct { uint8_t data[16]; size_t max_workspace_bytes; } hipblasLtMatmulAlgo_t;
typedef struct {
  hipblasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  hipblasStatus_t state;
  float wavesCount;
  int reserved[4];
} hipblasLtMatmulHeuristicResult_t;

typedef enum {
  HIPBLASLT_EPILOGUE_DEFAULT = 1,
  HIPBLASLT_EPILOGUE_RELU = 2,
  HIPBLASLT_EPILOGUE_BIAS = 4,
  HIPBLASLT_EPILOGUE_RELU_BIAS = 6,
  HIPBLASLT_EPILOGUE_GELU = 32,
  HIPBLASLT_EPILOGUE_GELU_BIAS = 36,
  HIPBLASLT_EPILOGUE_GELU_AUX = 160,
  HIPBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
  HIPBLASLT_EPILOGUE_DGELU = 192,
  HIPBLASLT_EPILOGUE_DGELU_BGRAD = 208,
  HIPBLASLT_EPILOGUE_BGRADA = 256,
  HIPBLASLT_EPILOGUE_BGRADB = 512
} hipblasLtEpilogue_t;
typedef enum {
  HIPBLASLT_MATMUL_DESC_TRANSA = 0,
  HIPBLASLT_MATMUL_DESC_TRANSB = 1,
  HIPBLASLT_MATMUL_DESC_EPILOGUE = 2,
  HIPBLASLT_MATMUL_DESC_BIAS_POINTER = 3,
  HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 4,
  HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER = 5,
  HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER = 6,
  HIPBLASLT_MATMUL_DESC_C_SCALE_POINTER = 7,
  HIPBLASLT_MATMUL_DESC_D_SCALE_POINTER = 8,
  HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 10,
  HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 11
} hipblasLtMatmulDescAttributes_t;
typedef enum {
  HIPBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
  HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1
} hipblasLtMatmulPreferenceAttributes_t;
typedef enum {
  HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 0,
  HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 1
} hipblasLtMatrixLayoutAttribute_t;

#define HIPBLASLT_STUB_OK { return HIPBLAS_STATUS_SUCCESS; }
static inline hipblasStatus_t hipblasLtCreate(hipblasLtHandle_t* h) { *h = 0; return HIPBLAS_STATUS_SUCCESS; }
static inline hipblasStatus_t hipblasLtDestroy(const hipblasLtHandle_t) HIPBLASLT_STUB_OK
static inline hipblasStatus_t hipblasLtMatmulDescCreate(hipblasLtMatmulDesc_t* d, hipblasComputeType_t, hipDataType) {
  *d = 0;
  return HIPBLAS_STATUS_SUCCESS;
}
static inline hipblasStatus_t hipblasLtMatmulDescDestroy(const hipblasLtMatmulDesc_t) HIPBLASLT_STUB_OK
static inline hipblasStatus_t hipblasLtMatmulDescSetAttribute(hipblasLtMatmulDesc_t, hipblasLtMatmulDescAttributes_t,
                                                              const void*, size_t) HIPBLASLT_STUB_OK
static inline hipblasStatus_t hipblasLtMatrixLayoutCreate(hipblasLtMatrixLayout_t* l, hipDataType, uint64_t, uint64_t,
                                                          int64_t) {
  *l = 0;
  return HIPBLAS_STATUS_SUCCESS;
}
static inline hipblasStatus_t hipblasLtMatrixLayoutDestroy(const hipblasLtMatrixLayout_t) HIPBLASLT_STUB_OK
static inline hipblasStatus_t hipblasLtMatrixLayoutSetAttribute(hipblasLtMatrixLayout_t,
                                                                hipblasLtMatrixLayoutAttribute_t, const void*,
                                                                size_t) HIPBLASLT_STUB_OK
static inline hipblasStatus_t hipblasLtMatmulPreferenceCreate(hipblasLtMatmulPreference_t* p) {
  *p = 0;
  return HIPBLAS_STATUS_SUCCESS;
}
static inline hipblasStatus_t hipblasLtMatmulPreferenceDestroy(const hipblasLtMatmulPreference_t) HIPBLASLT_STUB_OK
static inline hipblasStatus_t hipblasLtMatmulPreferenceSetAttribute(hipblasLtMatmulPreference_t,
                                                                    hipblasLtMatmulPreferenceAttributes_t,
                                                                    const void*, size_t) HIPBLASLT_STUB_OK
static inline hipblasStatus_t hipblasLtMatmulAlgoGetHeuristic(hipblasLtHandle_t, hipblasLtMatmulDesc_t,
                                                              hipblasLtMatrixLayout_t, hipblasLtMatrixLayout_t,
                                                              hipblasLtMatrixLayout_t, hipblasLtMatrixLayout_t,
                                                              hipblasLtMatmulPreference_t, int,
                                                              hipblasLtMatmulHeuristicResult_t[], int*) {
  return HIPBLAS_STATUS_NOT_SUPPORTED;
}
static inline hipblasStatus_t hipblasLtMatmul(hipblasLtHandle_t, hipblasLtMatmulDesc_t, const void*, const void*,
                                              hipblasLtMatrixLayout_t, const void*, hipblasLtMatrixLayout_t,
                                              const void*, const void*, hipblasLtMatrixLayout_t, void*,
                                              hipblasLtMatrixLayout_t, const hipblasLtMatmulAlgo_t*, void*, size_t,
                                              hipStream_t) {
  return HIPBLAS_STATUS_NOT_SUPPORTED;
}
#undef HIPBLASLT_STUB_OK
