// hipport wave emulator: configuration, platform macros and CUDA/HIP qualifiers.
// Part of hipport's own CPU emulator; see docs/emulator.md.
#pragma once

#ifndef HIPEMU_WAVE
#define HIPEMU_WAVE 64
#endif
#if HIPEMU_WAVE != 32 && HIPEMU_WAVE != 64
#error "hipemu: HIPEMU_WAVE must be 32 or 64"
#endif

// Integer widths of the warp intrinsics.  Wave 32 is the CUDA reference: ballots, lane masks
// and *_sync masks are `unsigned int` and the overload sets are CUDA's (CUDA C++ Programming
// Guide; crt/device_functions.h, sm_30_intrinsics.h), so `__ffs(__ballot_sync(m, p))` resolves
// as with nvcc.  Wave 64 is HIP: 64-bit `unsigned long long` masks, HIP's overloads.
// -DHIPEMU_CUDA_WIDTHS=0 at wave 32 gives HIP's widths on a wave32 (RDNA) target.
#ifndef HIPEMU_CUDA_WIDTHS
#define HIPEMU_CUDA_WIDTHS (HIPEMU_WAVE == 32)
#endif
#if HIPEMU_CUDA_WIDTHS && HIPEMU_WAVE != 32
#error "hipemu: HIPEMU_CUDA_WIDTHS (CUDA's 32-bit warp masks) needs HIPEMU_WAVE=32"
#endif

#define HIPEMU 1
#define HIPEMU_EXIT_CODE 86

// Platform macros as the AMD toolchain predefines them (device-side view of
// the wavefront size); see predef.h.
#include "predef.h"

// <memory> uses __attribute__((__noinline__)); include it before the macro
// below so that later includes by the program still compile.
#include <memory>

// Qualifiers: everything is one host program.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __constant__
#define __managed__
#define __grid_constant__
// Blocks run one at a time, so a function-local static is exactly one
// instance per kernel (instantiation) shared by the threads of the block.
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
// Dynamic shared memory lives in one fixed buffer, so the pointer may be
// declared at block or namespace scope.
#define HIP_DYNAMIC_SHARED(type, var) \
  type* const var = reinterpret_cast<type*>(::hipemu::detail::dyn_smem());
