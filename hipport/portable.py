"""One source for both HIP platforms: the AMD builtins hipport writes, in CUDA's terms.

Rewrites for 64-lane waves use AMD builtins that HIP's NVIDIA platform lacks (`__lane_id`, the
lane masks, `__builtin_amdgcn_*`) or maps to CUDA's pre-Volta votes, which ptxas rejects from
sm_70 on (`__ballot`, `__any`, `__all`). A file whose port writes one gets `NVIDIA_SHIMS` once,
after its includes: nothing on AMD (the block is compiled only on the NVIDIA platform), CUDA's
equivalents there, so the port still builds from one source.
"""

from __future__ import annotations

import re

# The shims' insertion has the same tag (FixKind.PORTABLE) and priority from either pass, so that
PRIORITY = 11  # the two merge; above the wave64 pass's (10): before its helpers at the same point

AMD_ONLY = re.compile(r"\b(?:__lane_id|__lanemask_(?:lt|le|gt|ge|eq)|__ballot|__any|__all"
                      r"|__builtin_amdgcn_(?:wave_barrier|fence|sad_u8))\b")

NVIDIA_SHIMS = """\
#if defined(__HIP_PLATFORM_NVIDIA__) && !defined(HIPPORT_NVIDIA_SHIMS)
#define HIPPORT_NVIDIA_SHIMS  // HIP's NVIDIA platform: the AMD builtins this port uses, in CUDA's terms
__device__ static inline unsigned int __lane_id() {  // a warp is 32 consecutive threads of the block
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;
}
__device__ static inline unsigned long long __lanemask_lt() { return (1ull << __lane_id()) - 1ull; }
__device__ static inline unsigned long long __lanemask_le() { return (2ull << __lane_id()) - 1ull; }
__device__ static inline unsigned long long __lanemask_eq() { return 1ull << __lane_id(); }
__device__ static inline unsigned long long __lanemask_gt() { return 0xffffffffull & ~__lanemask_le(); }
__device__ static inline unsigned long long __lanemask_ge() { return 0xffffffffull & ~__lanemask_lt(); }
#define __ballot(p) ((unsigned long long)__ballot_sync(__activemask(), (p)))
#define __any(p) __any_sync(__activemask(), (p))
#define __all(p) __all_sync(__activemask(), (p))
#define __builtin_amdgcn_wave_barrier() __syncwarp()
#define __builtin_amdgcn_fence(order, scope) __threadfence_block()
#define __builtin_amdgcn_sad_u8(a, b, c) (__vsadu4((a), (b)) + (c))
#endif
"""

_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include\b[^\n]*\n?", re.M)


def needs_shims(text: str) -> bool:
    """Does this code (an edit's replacement) use an AMD builtin HIP's NVIDIA platform lacks?"""
    return "__" in text and AMD_ONLY.search(text) is not None


def after_includes(data: bytes, before: int) -> int:
    """Where the shims go in a file: after the last `#include` line before `before`, else at
    the start of the line holding `before`."""
    last = None
    for m in _INCLUDE.finditer(data, 0, before):
        last = m
    if last is not None:
        return last.end()
    return data.rfind(b"\n", 0, before) + 1
