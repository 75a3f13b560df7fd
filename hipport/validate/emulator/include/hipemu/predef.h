// hipport wave emulator: the macros hipcc (clang -x hip) predefines, for the
// device pass of the emulated target.  emulator.build() force-includes this
// file (-include) so that tests placed before any #include see them, as with
// hipcc; config.h includes it too.  __HIP_DEVICE_COMPILE__ is NOT defined:
// host and device code are one host compilation.
#pragma once
#ifndef HIPEMU_WAVE
#define HIPEMU_WAVE 64
#endif
#ifndef __HIPCC__
#define __HIPCC__ 1
#endif
#ifndef __HIP__
#define __HIP__ 1
#endif
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#ifndef __AMDGCN_WAVEFRONT_SIZE
#define __AMDGCN_WAVEFRONT_SIZE HIPEMU_WAVE
#endif
#ifndef __AMDGCN_WAVEFRONT_SIZE__
#define __AMDGCN_WAVEFRONT_SIZE__ HIPEMU_WAVE
#endif
#if HIPEMU_WAVE == 64
#ifndef __GFX9__
#define __GFX9__ 1
#endif
#ifndef __gfx942__
#define __gfx942__ 1
#endif
#else
#ifndef __GFX10__
#define __GFX10__ 1
#endif
#ifndef __GFX11__
#define __GFX11__ 1
#endif
#ifndef __gfx1100__
#define __gfx1100__ 1
#endif
#endif
