// hipport wave emulator: configuration, platform macros and CUDA/HIP qualifiers.
// Part of hipport's own CPU emulator; see docs/emulator.md.
#pragma once

#ifndef HIPEMU_WAVE
#define HIPEMU_WAVE 64
#endif
#if HIPEMU_WAVE != 32 && HIPEMU_WAVE != 64
#error "hipemu: HIPEMU_WAVE must be 32 or 64"
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
