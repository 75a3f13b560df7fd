// hipport wave emulator: HIP host API on host memory, and kernel launch.
// Everything executes synchronously and in order; streams and events only
// keep order and timestamps.
#pragma once
#include "core.h"

#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorMemoryAllocation = 2,
  hipErrorNotInitialized = 3,
  hipErrorInitializationError = 3,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidContext = 201,
  hipErrorInvalidResourceHandle = 400,
  hipErrorInvalidHandle = 400,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorLaunchOutOfResources = 701,
  hipErrorLaunchFailure = 719,
  hipErrorNotSupported = 801,
  hipErrorUnknown = 999,
};

enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4,
};

enum hipDeviceAttribute_t {
  hipDeviceAttributeMaxThreadsPerBlock,
  hipDeviceAttributeMaxBlockDimX,
  hipDeviceAttributeMaxBlockDimY,
  hipDeviceAttributeMaxBlockDimZ,
  hipDeviceAttributeMaxGridDimX,
  hipDeviceAttributeMaxGridDimY,
  hipDeviceAttributeMaxGridDimZ,
  hipDeviceAttributeMaxSharedMemoryPerBlock,
  hipDeviceAttributeSharedMemPerBlockOptin,
  hipDeviceAttributeTotalConstantMemory,
  hipDeviceAttributeWarpSize,
  hipDeviceAttributeMaxRegistersPerBlock,
  hipDeviceAttributeClockRate,
  hipDeviceAttributeMemoryClockRate,
  hipDeviceAttributeMemoryBusWidth,
  hipDeviceAttributeMultiprocessorCount,
  hipDeviceAttributeComputeCapabilityMajor,
  hipDeviceAttributeComputeCapabilityMinor,
  hipDeviceAttributeL2CacheSize,
  hipDeviceAttributeMaxThreadsPerMultiProcessor,
  hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
  hipDeviceAttributeConcurrentKernels,
  hipDeviceAttributeIntegrated,
  hipDeviceAttributeCooperativeLaunch,
  hipDeviceAttributeManagedMemory,
  hipDeviceAttributeComputeMode,
  hipDeviceAttributePciBusId,
  hipDeviceAttributePciDeviceId,
  hipDeviceAttributeMaxBlocksPerMultiProcessor,
};

enum hipFuncCache_t {
  hipFuncCachePreferNone,
  hipFuncCachePreferShared,
  hipFuncCachePreferL1,
  hipFuncCachePreferEqual
};
enum hipSharedMemConfig {
  hipSharedMemBankSizeDefault,
  hipSharedMemBankSizeFourByte,
  hipSharedMemBankSizeEightByte
};
enum hipFuncAttribute {
  hipFuncAttributeMaxDynamicSharedMemorySize = 8,
  hipFuncAttributePreferredSharedMemoryCarveout = 9,
};

#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4
#define hipDeviceScheduleAuto 0x0
#define hipDeviceScheduleSpin 0x1
#define hipDeviceScheduleYield 0x2
#define hipDeviceScheduleBlockingSync 0x4
#define hipDeviceMapHost 0x8

struct ihipStream_t {
  unsigned magic;
  unsigned flags;
};
struct ihipEvent_t {
  unsigned magic;
  unsigned flags;
  bool recorded;
  double ms;
};
typedef ihipStream_t* hipStream_t;
typedef ihipEvent_t* hipEvent_t;
typedef void* hipDeviceptr_t;

struct hipUUID {
  char bytes[16];
};

struct hipDeviceProp_t {
  char name[256];
  hipUUID uuid;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
  int maxSharedMemoryPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  int isMultiGpuBoard;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int maxBlocksPerMultiProcessor;
  int clockInstructionRate;
  char gcnArchName[256];
  int gcnArch;
  int cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  int managedMemory;
  int concurrentManagedAccess;
  int pageableMemoryAccess;
  int unifiedAddressing;
  int asyncEngineCount;
  int regsPerMultiprocessor;
};

struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;
};

namespace hipemu {
namespace detail {
constexpr unsigned kStreamMagic = 0x5354524du, kEventMagic = 0x45564e54u, kDead = 0xdeadu;

inline hipError_t set_error(hipError_t e) {
  if (e != hipSuccess) g.last_error = e;
  return e;
}
inline bool stream_ok(hipStream_t s) { return !s || s->magic == kStreamMagic; }
inline bool event_ok(hipEvent_t e) { return e && e->magic == kEventMagic; }
inline double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
inline int num_cus() { return (int)env_size("HIPEMU_CUS", 8); }

inline int launch_impl(const char* name, const char* file, int line, dim3 grid, dim3 block,
                        size_t shm, void (*body)(void*), void* ctx) {
  if (g.in_kernel)
    unsupported("kernel launch from device code (dynamic parallelism)", Site(file, line, name));
  unsigned long long nb = (unsigned long long)block.x * block.y * block.z;
  if (!block.x || !block.y || !block.z || !grid.x || !grid.y || !grid.z ||
      nb > (unsigned long long)kMaxBlockThreads || block.z > 1024 || grid.x > 0x7fffffffu ||
      grid.y > 65535u || grid.z > 65535u)
    return set_error(hipErrorInvalidConfiguration);
  if (shm > kMaxDynShared) return set_error(hipErrorInvalidValue);
  // "HIP_KERNEL_NAME(k<T, 4>)" -> "k<T, 4>"
  static char kname[512];
  const char* pfx = "HIP_KERNEL_NAME(";
  if (std::strncmp(name, pfx, std::strlen(pfx)) == 0) {
    std::snprintf(kname, sizeof kname, "%s", name + std::strlen(pfx));
    size_t n = std::strlen(kname);
    if (n && kname[n - 1] == ')') kname[n - 1] = 0;
  } else {
    std::snprintf(kname, sizeof kname, "%s", name);
  }
  install_signals();
  const int n = (int)nb;
  alloc_fibers(n);
  for (int i = 0; i < n; ++i) {
    Fiber& f = g.fibers[i];
    f.tid = uint3{i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
    f.linear = i;
    f.wave = i / kWave;
    f.lane = i % kWave;
  }
  g.bdim = block;
  g.gdim = grid;
  g.nthreads = n;
  g.nwaves = (n + kWave - 1) / kWave;
  g.dyn_size = shm;
#if HIPEMU_ASAN
  __asan_unpoison_memory_region(dyn_storage, sizeof dyn_storage);
  __asan_poison_memory_region(dyn_storage, kDynGuard);
  __asan_poison_memory_region(dyn_storage + kDynGuard + shm, sizeof dyn_storage - kDynGuard - shm);
#endif
  g.kname = kname;
  occ_begin(kname);
  g.lfile = file;
  g.lline = line;
  g.body = body;
  g.body_ctx = ctx;
  g.in_kernel = 1;
  arm_watchdog(true);
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        g.bidx = uint3{x, y, z};
        run_block();
      }
  arm_watchdog(false);
  g.in_kernel = 0;
  g.cur = nullptr;
  return hipSuccess;
}
}  // namespace detail

// Launch dimensions as hipLaunchKernelGGL takes them (dim3, uint3, or an integer).
inline ::dim3 to_dim3(const ::dim3& d) { return d; }
inline ::dim3 to_dim3(const ::uint3& d) { return ::dim3(d); }
template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
inline ::dim3 to_dim3(I n) { return ::dim3((uint32_t)n); }

// `call` invokes the kernel expression with the arguments (each thread calls
// it, so every thread gets its own copies of the by-value parameters).  When the
// kernel cannot take the evaluated arguments as they are (an argument written `NULL`,
// which g++ types as `long`, passed for a pointer parameter) `direct` is used instead:
// it spells the call as written, so the argument expressions are evaluated per thread.
template <class F, class D, class... A>
inline void launch(const char* name, const char* file, int line, dim3 grid, dim3 block,
                   size_t shm, hipStream_t stream, F&& call, D&& direct, A&&... args) {
  if (!detail::stream_ok(stream)) {
    detail::set_error(hipErrorInvalidHandle);
    return;
  }
  if constexpr (std::is_invocable<F&, A&...>::value) {
    auto body = [&]() { call(args...); };
    using B = decltype(body);
    detail::launch_impl(name, file, line, grid, block, shm,
                        [](void* c) { (*static_cast<B*>(c))(); }, &body);
  } else {
    using B = std::remove_reference_t<D>;
    detail::launch_impl(name, file, line, grid, block, shm,
                        [](void* c) { (*static_cast<B*>(c))(); }, &direct);
  }
}
}  // namespace hipemu

// As in HIP, the kernel expression is called with the arguments, so template
// parameters not given explicitly are deduced from them (k<float, 256>(x, op)).
// grid and block are converted with ::dim3 so that a variable named `dim3` in the
// calling scope does not hide the type.
#define hipLaunchKernelGGL(kernel, grid, block, shm, stream, ...)                       \
  ::hipemu::launch(                                                                     \
      #kernel, __FILE__, __LINE__, ::hipemu::to_dim3(grid), ::hipemu::to_dim3(block),   \
      shm, stream,                                                                      \
      [&](auto&&... hipemu_args) -> decltype((void)kernel(hipemu_args...)) {            \
        kernel(hipemu_args...);                                                         \
      },                                                                                \
      [&]() { kernel(__VA_ARGS__); }, ##__VA_ARGS__)

// ------------------------------------------------------------ errors
inline hipError_t hipGetLastError() {
  hipError_t e = (hipError_t)::hipemu::detail::g.last_error;
  ::hipemu::detail::g.last_error = hipSuccess;
  return e;
}
inline hipError_t hipPeekAtLastError() { return (hipError_t)::hipemu::detail::g.last_error; }
inline const char* hipGetErrorName(hipError_t e) {
  switch (e) {
#define HIPEMU_E(x) \
  case x:           \
    return #x;
    HIPEMU_E(hipSuccess)
    HIPEMU_E(hipErrorInvalidValue)
    HIPEMU_E(hipErrorOutOfMemory)
    HIPEMU_E(hipErrorNotInitialized)
    HIPEMU_E(hipErrorInvalidConfiguration)
    HIPEMU_E(hipErrorInvalidSymbol)
    HIPEMU_E(hipErrorInvalidDevicePointer)
    HIPEMU_E(hipErrorInvalidMemcpyDirection)
    HIPEMU_E(hipErrorInvalidDeviceFunction)
    HIPEMU_E(hipErrorNoDevice)
    HIPEMU_E(hipErrorInvalidDevice)
    HIPEMU_E(hipErrorInvalidContext)
    HIPEMU_E(hipErrorInvalidHandle)
    HIPEMU_E(hipErrorNotFound)
    HIPEMU_E(hipErrorNotReady)
    HIPEMU_E(hipErrorLaunchOutOfResources)
    HIPEMU_E(hipErrorLaunchFailure)
    HIPEMU_E(hipErrorNotSupported)
    HIPEMU_E(hipErrorUnknown)
#undef HIPEMU_E
  }
  return "hipErrorUnknown";
}
inline const char* hipGetErrorString(hipError_t e) {
  switch (e) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorNotInitialized: return "initialization error";
    case hipErrorInvalidConfiguration: return "invalid configuration argument";
    case hipErrorInvalidSymbol: return "invalid device symbol";
    case hipErrorInvalidDevicePointer: return "invalid device pointer";
    case hipErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case hipErrorInvalidDeviceFunction: return "invalid device function";
    case hipErrorNoDevice: return "no ROCm-capable device is detected";
    case hipErrorInvalidDevice: return "invalid device ordinal";
    case hipErrorInvalidContext: return "invalid device context";
    case hipErrorInvalidHandle: return "invalid resource handle";
    case hipErrorNotFound: return "named symbol not found";
    case hipErrorNotReady: return "device not ready";
    case hipErrorLaunchOutOfResources: return "too many resources requested for launch";
    case hipErrorLaunchFailure: return "unspecified launch failure";
    case hipErrorNotSupported: return "operation not supported";
    default: return "unknown error";
  }
}

// ------------------------------------------------------------ device
inline hipError_t hipInit(unsigned int) { return hipSuccess; }
inline hipError_t hipGetDeviceCount(int* n) {
  if (!n) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *n = 1;
  return hipSuccess;
}
inline hipError_t hipSetDevice(int d) {
  if (d != 0) return ::hipemu::detail::set_error(hipErrorInvalidDevice);
  return hipSuccess;
}
inline hipError_t hipGetDevice(int* d) {
  if (!d) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *d = 0;
  return hipSuccess;
}
inline hipError_t hipSetDeviceFlags(unsigned) { return hipSuccess; }
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline hipError_t hipDeviceReset() { return hipSuccess; }
inline hipError_t hipDriverGetVersion(int* v) {
  if (v) *v = 60200000;
  return hipSuccess;
}
inline hipError_t hipRuntimeGetVersion(int* v) {
  if (v) *v = 60200000;
  return hipSuccess;
}
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int dev) {
  if (!p) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  if (dev != 0) return ::hipemu::detail::set_error(hipErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "hipport wave emulator");
  const bool w64 = HIPEMU_WAVE == 64;
  std::snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s",
                w64 ? "gfx942:sramecc+:xnack-" : "gfx1100");
  p->gcnArch = w64 ? 942 : 1100;
  p->totalGlobalMem = 16ull << 30;
  p->sharedMemPerBlock = ::hipemu::kMaxDynShared;
  p->sharedMemPerBlockOptin = ::hipemu::kMaxDynShared;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536 * 8;
  p->warpSize = HIPEMU_WAVE;
  p->memPitch = 0x7fffffff;
  p->maxThreadsPerBlock = ::hipemu::kMaxBlockThreads;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
  p->maxGridSize[0] = 0x7fffffff;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  p->clockRate = 2100000;
  p->totalConstMem = 64 * 1024;
  p->major = w64 ? 9 : 11;
  p->minor = w64 ? 4 : 0;
  p->textureAlignment = 256;
  p->deviceOverlap = 1;
  p->multiProcessorCount = ::hipemu::detail::num_cus();
  p->integrated = 0;
  p->canMapHostMemory = 1;
  p->concurrentKernels = 1;
  p->maxSharedMemoryPerMultiProcessor = (int)::hipemu::kMaxDynShared;
  p->sharedMemPerMultiprocessor = ::hipemu::kMaxDynShared;
  p->memoryClockRate = 1300000;
  p->memoryBusWidth = 4096;
  p->l2CacheSize = 4 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->maxBlocksPerMultiProcessor = 32;
  p->clockInstructionRate = 1000000;
  p->cooperativeLaunch = 0;
  p->managedMemory = 1;
  p->concurrentManagedAccess = 1;
  p->unifiedAddressing = 1;
  p->asyncEngineCount = 1;
  return hipSuccess;
}
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int dev) {
  if (!v) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  hipDeviceProp_t p;
  hipError_t e = hipGetDeviceProperties(&p, dev);
  if (e != hipSuccess) return e;
  switch (a) {
    case hipDeviceAttributeMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case hipDeviceAttributeMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case hipDeviceAttributeMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case hipDeviceAttributeMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case hipDeviceAttributeMaxGridDimX: *v = p.maxGridSize[0]; break;
    case hipDeviceAttributeMaxGridDimY: *v = p.maxGridSize[1]; break;
    case hipDeviceAttributeMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
    case hipDeviceAttributeSharedMemPerBlockOptin: *v = (int)p.sharedMemPerBlock; break;
    case hipDeviceAttributeTotalConstantMemory: *v = (int)p.totalConstMem; break;
    case hipDeviceAttributeWarpSize: *v = p.warpSize; break;
    case hipDeviceAttributeMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    case hipDeviceAttributeClockRate: *v = p.clockRate; break;
    case hipDeviceAttributeMemoryClockRate: *v = p.memoryClockRate; break;
    case hipDeviceAttributeMemoryBusWidth: *v = p.memoryBusWidth; break;
    case hipDeviceAttributeMultiprocessorCount: *v = p.multiProcessorCount; break;
    case hipDeviceAttributeComputeCapabilityMajor: *v = p.major; break;
    case hipDeviceAttributeComputeCapabilityMinor: *v = p.minor; break;
    case hipDeviceAttributeL2CacheSize: *v = p.l2CacheSize; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
      *v = p.maxSharedMemoryPerMultiProcessor;
      break;
    case hipDeviceAttributeConcurrentKernels: *v = p.concurrentKernels; break;
    case hipDeviceAttributeIntegrated: *v = p.integrated; break;
    case hipDeviceAttributeCooperativeLaunch: *v = p.cooperativeLaunch; break;
    case hipDeviceAttributeManagedMemory: *v = p.managedMemory; break;
    case hipDeviceAttributeComputeMode: *v = p.computeMode; break;
    case hipDeviceAttributePciBusId: *v = p.pciBusID; break;
    case hipDeviceAttributePciDeviceId: *v = p.pciDeviceID; break;
    case hipDeviceAttributeMaxBlocksPerMultiProcessor: *v = p.maxBlocksPerMultiProcessor; break;
    default: return ::hipemu::detail::set_error(hipErrorInvalidValue);
  }
  return hipSuccess;
}
inline hipError_t hipDeviceSetCacheConfig(hipFuncCache_t) { return hipSuccess; }
inline hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig) { return hipSuccess; }
template <class F>
inline hipError_t hipFuncSetCacheConfig(F, hipFuncCache_t) { return hipSuccess; }
template <class F>
inline hipError_t hipFuncSetAttribute(F, hipFuncAttribute, int) { return hipSuccess; }
template <class F>
inline hipError_t hipFuncGetAttributes(hipFuncAttributes* a, F) {
  if (!a) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  std::memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = ::hipemu::kMaxBlockThreads;
  a->maxDynamicSharedSizeBytes = (int)::hipemu::kMaxDynShared;
  a->numRegs = 32;
  a->binaryVersion = a->ptxVersion = HIPEMU_WAVE == 64 ? 94 : 110;
  return hipSuccess;
}
// Simple occupancy model: the largest block (<= limit) that is a multiple of
// the wave size, and enough blocks for 2048 threads per compute unit.
template <class F>
inline hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, F,
                                                    size_t = 0, int blockSizeLimit = 0) {
  if (!gridSize || !blockSize) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  int b = ::hipemu::kMaxBlockThreads;
  if (blockSizeLimit > 0 && blockSizeLimit < b) b = blockSizeLimit;
  if (b >= HIPEMU_WAVE) b -= b % HIPEMU_WAVE;
  *blockSize = b;
  *gridSize = ::hipemu::detail::num_cus() * (2048 / b > 0 ? 2048 / b : 1);
  return hipSuccess;
}
template <class F>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F, int blockSize,
                                                               size_t = 0) {
  if (!n || blockSize <= 0) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *n = 2048 / blockSize > 0 ? 2048 / blockSize : 1;
  return hipSuccess;
}

// ------------------------------------------------------------ memory
inline hipError_t hipMalloc(void** p, size_t n) {
  if (!p) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *p = n ? std::malloc(n) : nullptr;
  if (n && !*p) return ::hipemu::detail::set_error(hipErrorOutOfMemory);
  return hipSuccess;
}
template <class T>
inline hipError_t hipMalloc(T** p, size_t n) { return hipMalloc((void**)p, n); }
inline hipError_t hipMallocManaged(void** p, size_t n, unsigned = hipMemAttachGlobal) {
  return hipMalloc(p, n);
}
template <class T>
inline hipError_t hipMallocManaged(T** p, size_t n, unsigned f = hipMemAttachGlobal) {
  return hipMallocManaged((void**)p, n, f);
}
inline hipError_t hipHostMalloc(void** p, size_t n, unsigned = 0) { return hipMalloc(p, n); }
template <class T>
inline hipError_t hipHostMalloc(T** p, size_t n, unsigned f = 0) {
  return hipHostMalloc((void**)p, n, f);
}
inline hipError_t hipMallocHost(void** p, size_t n) { return hipMalloc(p, n); }
template <class T>
inline hipError_t hipMallocHost(T** p, size_t n) { return hipMalloc((void**)p, n); }
inline hipError_t hipHostAlloc(void** p, size_t n, unsigned = 0) { return hipMalloc(p, n); }
inline hipError_t hipFree(void* p) {
  std::free(p);
  return hipSuccess;
}
inline hipError_t hipHostFree(void* p) { return hipFree(p); }
inline hipError_t hipFreeHost(void* p) { return hipFree(p); }
inline hipError_t hipHostGetDevicePointer(void** d, void* h, unsigned) {
  if (!d) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *d = h;
  return hipSuccess;
}
inline hipError_t hipMemGetInfo(size_t* free_, size_t* total) {
  if (free_) *free_ = 15ull << 30;
  if (total) *total = 16ull << 30;
  return hipSuccess;
}
inline hipError_t hipMemcpy(void* dst, const void* src, size_t n, hipMemcpyKind k) {
  if ((unsigned)k > 4u) return ::hipemu::detail::set_error(hipErrorInvalidMemcpyDirection);
  if (n && (!dst || !src)) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  if (n) std::memmove(dst, src, n);
  return hipSuccess;
}
inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, hipMemcpyKind k,
                                 hipStream_t s = nullptr) {
  if (!::hipemu::detail::stream_ok(s)) return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  return hipMemcpy(dst, src, n, k);
}
inline hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void* src, size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyHostToDevice);
}
inline hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyDeviceToHost);
}
inline hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyDeviceToDevice);
}
inline hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, hipMemcpyKind k) {
  if ((unsigned)k > 4u) return ::hipemu::detail::set_error(hipErrorInvalidMemcpyDirection);
  if (width > dpitch || width > spitch) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  for (size_t r = 0; r < height; ++r)
    std::memmove((char*)dst + r * dpitch, (const char*)src + r * spitch, width);
  return hipSuccess;
}
inline hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                   size_t width, size_t height, hipMemcpyKind k,
                                   hipStream_t = nullptr) {
  return hipMemcpy2D(dst, dpitch, src, spitch, width, height, k);
}
inline hipError_t hipMemset(void* dst, int v, size_t n) {
  if (n && !dst) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  if (n) std::memset(dst, v, n);
  return hipSuccess;
}
inline hipError_t hipMemsetAsync(void* dst, int v, size_t n, hipStream_t s = nullptr) {
  if (!::hipemu::detail::stream_ok(s)) return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  return hipMemset(dst, v, n);
}
inline hipError_t hipMemsetD32(hipDeviceptr_t dst, int v, size_t count) {
  if (count && !dst) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) static_cast<int*>(dst)[i] = v;
  return hipSuccess;
}
inline hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char v, size_t count) {
  return hipMemset(dst, v, count);
}
inline hipError_t hipMemPrefetchAsync(const void*, size_t, int, hipStream_t = nullptr) {
  return hipSuccess;
}

// ------------------------------------------------------------ symbols
// HIP_SYMBOL(x) gives address and size; a plain symbol (CUDA style) or a
// const void* address are accepted too.
#define HIP_SYMBOL(X) (::hipemu::SymbolRef{(const void*)&(X), sizeof(X)})
namespace hipemu {
namespace detail {
inline hipError_t sym_copy(SymbolRef s, void* host, size_t n, size_t off, bool to_symbol) {
  if (!s.ptr || (n && !host)) return set_error(hipErrorInvalidSymbol);
  if (s.size && off + n > s.size) return set_error(hipErrorInvalidValue);
  if (to_symbol)
    std::memmove((char*)s.ptr + off, host, n);
  else
    std::memmove(host, (const char*)s.ptr + off, n);
  return hipSuccess;
}
}  // namespace detail
}  // namespace hipemu
#define HIPEMU_NOT_PTR(T) std::enable_if_t<!std::is_pointer<T>::value && !std::is_same<T, ::hipemu::SymbolRef>::value, int> = 0
inline hipError_t hipMemcpyToSymbol(::hipemu::SymbolRef s, const void* src, size_t n,
                                    size_t off = 0, hipMemcpyKind = hipMemcpyHostToDevice) {
  return ::hipemu::detail::sym_copy(s, const_cast<void*>(src), n, off, true);
}
inline hipError_t hipMemcpyToSymbol(const void* s, const void* src, size_t n, size_t off = 0,
                                    hipMemcpyKind k = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol(::hipemu::SymbolRef{s, 0}, src, n, off, k);
}
template <class T, HIPEMU_NOT_PTR(T)>
inline hipError_t hipMemcpyToSymbol(const T& s, const void* src, size_t n, size_t off = 0,
                                    hipMemcpyKind k = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol(::hipemu::SymbolRef{(const void*)&s, sizeof(T)}, src, n, off, k);
}
template <class S>
inline hipError_t hipMemcpyToSymbolAsync(const S& s, const void* src, size_t n, size_t off,
                                         hipMemcpyKind k, hipStream_t = nullptr) {
  return hipMemcpyToSymbol(s, src, n, off, k);
}
inline hipError_t hipMemcpyFromSymbol(void* dst, ::hipemu::SymbolRef s, size_t n, size_t off = 0,
                                      hipMemcpyKind = hipMemcpyDeviceToHost) {
  return ::hipemu::detail::sym_copy(s, dst, n, off, false);
}
inline hipError_t hipMemcpyFromSymbol(void* dst, const void* s, size_t n, size_t off = 0,
                                      hipMemcpyKind k = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, ::hipemu::SymbolRef{s, 0}, n, off, k);
}
template <class T, HIPEMU_NOT_PTR(T)>
inline hipError_t hipMemcpyFromSymbol(void* dst, const T& s, size_t n, size_t off = 0,
                                      hipMemcpyKind k = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, ::hipemu::SymbolRef{(const void*)&s, sizeof(T)}, n, off, k);
}
template <class S>
inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const S& s, size_t n, size_t off,
                                           hipMemcpyKind k, hipStream_t = nullptr) {
  return hipMemcpyFromSymbol(dst, s, n, off, k);
}
inline hipError_t hipGetSymbolAddress(void** p, ::hipemu::SymbolRef s) {
  if (!p || !s.ptr) return ::hipemu::detail::set_error(hipErrorInvalidSymbol);
  *p = const_cast<void*>(s.ptr);
  return hipSuccess;
}
inline hipError_t hipGetSymbolAddress(void** p, const void* s) {
  return hipGetSymbolAddress(p, ::hipemu::SymbolRef{s, 0});
}
template <class T, HIPEMU_NOT_PTR(T)>
inline hipError_t hipGetSymbolAddress(void** p, const T& s) {
  return hipGetSymbolAddress(p, ::hipemu::SymbolRef{(const void*)&s, sizeof(T)});
}
inline hipError_t hipGetSymbolSize(size_t* n, ::hipemu::SymbolRef s) {
  if (!n || !s.ptr) return ::hipemu::detail::set_error(hipErrorInvalidSymbol);
  *n = s.size;
  return hipSuccess;
}
template <class T, HIPEMU_NOT_PTR(T)>
inline hipError_t hipGetSymbolSize(size_t* n, const T&) {
  if (!n) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *n = sizeof(T);
  return hipSuccess;
}
#undef HIPEMU_NOT_PTR

// ------------------------------------------------------------ streams
inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned flags) {
  if (!s) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *s = new ihipStream_t{::hipemu::detail::kStreamMagic, flags};
  return hipSuccess;
}
inline hipError_t hipStreamCreate(hipStream_t* s) { return hipStreamCreateWithFlags(s, 0); }
inline hipError_t hipStreamCreateWithPriority(hipStream_t* s, unsigned flags, int) {
  return hipStreamCreateWithFlags(s, flags);
}
inline hipError_t hipDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return hipSuccess;
}
inline hipError_t hipStreamDestroy(hipStream_t s) {
  if (!s || s->magic != ::hipemu::detail::kStreamMagic)
    return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  s->magic = ::hipemu::detail::kDead;  // kept allocated so stale use is detected
  return hipSuccess;
}
inline hipError_t hipStreamSynchronize(hipStream_t s) {
  if (!::hipemu::detail::stream_ok(s)) return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  return hipSuccess;
}
inline hipError_t hipStreamQuery(hipStream_t s) { return hipStreamSynchronize(s); }
inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned = 0) {
  if (!::hipemu::detail::stream_ok(s) || !::hipemu::detail::event_ok(e))
    return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  return hipSuccess;
}

// ------------------------------------------------------------ events
inline hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned flags) {
  if (!e) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *e = new ihipEvent_t{::hipemu::detail::kEventMagic, flags, false, 0.0};
  return hipSuccess;
}
inline hipError_t hipEventCreate(hipEvent_t* e) { return hipEventCreateWithFlags(e, 0); }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = nullptr) {
  if (!::hipemu::detail::event_ok(e) || !::hipemu::detail::stream_ok(s))
    return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  e->recorded = true;
  e->ms = ::hipemu::detail::now_ms();
  return hipSuccess;
}
inline hipError_t hipEventSynchronize(hipEvent_t e) {
  if (!::hipemu::detail::event_ok(e)) return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  return hipSuccess;
}
inline hipError_t hipEventQuery(hipEvent_t e) { return hipEventSynchronize(e); }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) {
  if (!ms) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  if (!::hipemu::detail::event_ok(a) || !::hipemu::detail::event_ok(b) || !a->recorded ||
      !b->recorded || ((a->flags | b->flags) & hipEventDisableTiming))
    return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  *ms = (float)(b->ms - a->ms);
  return hipSuccess;
}
inline hipError_t hipEventDestroy(hipEvent_t e) {
  if (!::hipemu::detail::event_ok(e)) return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  e->magic = ::hipemu::detail::kDead;
  return hipSuccess;
}

// ------------------------------------------------------------ misc host API
enum hipLimit_t { hipLimitStackSize = 0, hipLimitPrintfFifoSize = 1, hipLimitMallocHeapSize = 2 };
inline hipError_t hipDeviceSetLimit(hipLimit_t, size_t) { return hipSuccess; }
inline hipError_t hipDeviceGetLimit(size_t* v, hipLimit_t l) {
  if (!v) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  size_t stack = ::hipemu::detail::g.stack_size;
  if (!stack) stack = ::hipemu::detail::env_size("HIPEMU_STACK_KB", HIPEMU_ASAN ? 512 : 128) * 1024;
  *v = l == hipLimitStackSize ? stack : (size_t)1 << 20;
  return hipSuccess;
}
#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2
inline hipError_t hipHostRegister(void*, size_t, unsigned) { return hipSuccess; }
inline hipError_t hipHostUnregister(void*) { return hipSuccess; }
inline hipError_t hipProfilerStart() { return hipSuccess; }
inline hipError_t hipProfilerStop() { return hipSuccess; }
inline hipError_t hipDeviceCanAccessPeer(int* can, int, int) {
  if (!can) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  *can = 0;
  return hipSuccess;
}
inline hipError_t hipMemcpyPeer(void* dst, int, const void* src, int, size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyDeviceToDevice);
}
inline hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, const void* src, size_t n,
                                     hipStream_t s = nullptr) {
  return hipMemcpyAsync(dst, src, n, hipMemcpyHostToDevice, s);
}
inline hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t n,
                                     hipStream_t s = nullptr) {
  return hipMemcpyAsync(dst, src, n, hipMemcpyDeviceToHost, s);
}
inline hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n,
                                     hipStream_t s = nullptr) {
  return hipMemcpyAsync(dst, src, n, hipMemcpyDeviceToDevice, s);
}
inline hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short v, size_t count) {
  if (count && !dst) return ::hipemu::detail::set_error(hipErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) static_cast<unsigned short*>(dst)[i] = v;
  return hipSuccess;
}
inline hipError_t hipMallocAsync(void** p, size_t n, hipStream_t s = nullptr) {
  if (!::hipemu::detail::stream_ok(s)) return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  return hipMalloc(p, n);
}
template <class T>
inline hipError_t hipMallocAsync(T** p, size_t n, hipStream_t s = nullptr) {
  return hipMallocAsync((void**)p, n, s);
}
inline hipError_t hipFreeAsync(void* p, hipStream_t s = nullptr) {
  if (!::hipemu::detail::stream_ok(s)) return ::hipemu::detail::set_error(hipErrorInvalidHandle);
  return hipFree(p);
}
// Host callbacks run immediately: all earlier work of the stream is done.
typedef void (*hipHostFn_t)(void*);
typedef void (*hipStreamCallback_t)(hipStream_t, hipError_t, void*);
inline hipError_t hipLaunchHostFunc(hipStream_t s, hipHostFn_t fn, void* data) {
  if (!::hipemu::detail::stream_ok(s) || !fn)
    return ::hipemu::detail::set_error(hipErrorInvalidValue);
  fn(data);
  return hipSuccess;
}
inline hipError_t hipStreamAddCallback(hipStream_t s, hipStreamCallback_t cb, void* data,
                                       unsigned) {
  if (!::hipemu::detail::stream_ok(s) || !cb)
    return ::hipemu::detail::set_error(hipErrorInvalidValue);
  cb(s, hipSuccess, data);
  return hipSuccess;
}

// hipLaunchKernel / hipLaunchCooperativeKernel (cudaLaunchKernel's shape): args[i] points at the
// value of the kernel's i-th parameter.  The kernel's type gives the parameter types, so it
// must reach here as a function: emulator.prepare_source turns the cast to `const void*` that
// ported code writes around it into HIP_KERNEL_NAME(kernel) (the name of the launch, too).
namespace hipemu {
namespace detail {
template <class... P, size_t... I>
inline void call_with_args(void (*k)(P...), void** args, std::index_sequence<I...>) {
  k(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(args[I])...);
}
}  // namespace detail
template <class... P>
inline hipError_t launch_args(const char* name, bool cooperative, const Site& site, void (*k)(P...),
                              dim3 grid, dim3 block, void** args, size_t shm = 0,
                              hipStream_t stream = nullptr) {
  if (!k || (sizeof...(P) > 0 && !args)) return detail::set_error(hipErrorInvalidValue);
  if (!detail::stream_ok(stream)) return detail::set_error(hipErrorInvalidHandle);
  auto body = [&]() { detail::call_with_args(k, args, std::index_sequence_for<P...>()); };
  using B = decltype(body);
  detail::g.cooperative = cooperative;  // grid_group::is_valid()
  int e = detail::launch_impl(name, site.file, site.line, grid, block, shm,
                              [](void* c) { (*static_cast<B*>(c))(); }, &body);
  detail::g.cooperative = false;
  return (hipError_t)e;
}
// A kernel address without its type (a void* variable): its arguments cannot be unpacked.
inline hipError_t launch_args(const char* name, bool, const Site& site, const void*, dim3, dim3,
                              void**, size_t = 0, hipStream_t = nullptr) {
  char what[640];
  std::snprintf(what, sizeof what,
                "a launch of '%s' through a `const void*` kernel address (the emulator needs the "
                "kernel's parameter types: pass the kernel function itself)", name);
  detail::unsupported(what, site);
}
}  // namespace hipemu
#define hipLaunchKernel(kernel, ...) \
  ::hipemu::launch_args(#kernel, false, ::hipemu::Site(__FILE__, __LINE__), kernel, __VA_ARGS__)
#define hipLaunchCooperativeKernel(kernel, ...) \
  ::hipemu::launch_args(#kernel, true, ::hipemu::Site(__FILE__, __LINE__), kernel, __VA_ARGS__)
