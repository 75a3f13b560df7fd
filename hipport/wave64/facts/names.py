"""Names: the CUDA warp intrinsics by family, the 32- and 64-bit integer types, and the shape of
a warp-size name (`is_warp_name`). Plain tables and string tests; no file is read here."""

from __future__ import annotations

import re
from functools import cache

# ---- names -----------------------------------------------------------------------------------
SHFL = {"__shfl": "shfl", "__shfl_up": "shfl_up", "__shfl_down": "shfl_down", "__shfl_xor": "shfl_xor"}
SHFL_SYNC = {k + "_sync": v for k, v in SHFL.items()}
BALLOTS = {"__ballot", "__ballot64", "__ballot_sync"}
VOTES = {"__any", "__all", "__any_sync", "__all_sync", "__uni_sync", "__uni"}
MATCHES = {"__match_any_sync", "__match_all_sync", "__match_any", "__match_all"}
REDUCES = {f"__reduce_{op}_sync" for op in ("add", "min", "max", "and", "or", "xor")}
LANEMASKS = {"__lanemask_lt", "__lanemask_le", "__lanemask_gt", "__lanemask_ge", "__lanemask_eq"}
MASK_SOURCES = BALLOTS | MATCHES | LANEMASKS | {"__activemask"}
BITOPS32 = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll",
            "__fns32": "__fns64", "__builtin_popcount": "__builtin_popcountll",
            "__builtin_ctz": "__builtin_ctzll", "__builtin_clz": "__builtin_clzll",
            "__builtin_ffs": "__builtin_ffsll"}
TILE_MEMBERS = {"ballot", "any", "all", "match_any", "match_all", "meta_group_rank",
                "meta_group_size"}
COALESCED_VOTES = {"ballot", "any", "all", "match_any", "match_all"}  # on a coalesced_group
TILE_SHFL = {"shfl": "shfl", "shfl_up": "shfl_up", "shfl_down": "shfl_down", "shfl_xor": "shfl_xor"}
WARP_CALLS = (set(SHFL) | set(SHFL_SYNC) | BALLOTS | VOTES | MATCHES | REDUCES | LANEMASKS
              | {"__activemask", "__syncwarp", "__lane_id"})

TYPES32 = {"int", "unsigned", "unsigned int", "signed", "signed int", "uint32_t", "int32_t", "uint",
           "unsigned short", "short", "uint16_t", "int16_t", "bool", "char", "unsigned char",
           "uint8_t", "int8_t", "u32", "s32", "uint32", "int32"}
TYPES64 = {"unsigned long long", "unsigned long long int", "long long", "long long int", "uint64_t",
           "int64_t", "size_t", "unsigned long", "unsigned long int", "long", "long int",
           "lane_mask_t", "uint64", "u64", "ulong", "ulonglong", "unsigned __int64"}

# A quick test for files that cannot hold a wave64 hazard.
QUICK_TOKENS = (b"__global__", b"__device__", b"warp", b"Warp", b"WARP", b"wave", b"Wave", b"WAVE", b"__shfl",
                b"__ballot", b"__activemask", b"__syncwarp", b"__any", b"__all", b"__lane_id", b"<<<",
                b"hipLaunchKernelGGL", b"tiled_partition", b"__AMDGCN")


def might_hold_hazards(data: bytes) -> bool:
    """A few substring searches (fast, C): files without any of these hold no wave64 hazard."""
    for t in QUICK_TOKENS:
        if t in data:
            return True
    return False


_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WARP_NAME = re.compile(r"(?i)^k?_?ws$|^k?_?wsz$|^lanes_?per")
_NOT_WARP_NAME = re.compile(r"(?i)num|count|per_?block|_?id$|idx|index|mask|tile|bank")
# a function whose name says it works on a warp (a collective, worth the full analysis)
WARP_FN = re.compile(r"(?i)warp|lane|shfl|ballot")


@cache
def is_warp_name(name: str) -> bool:
    """WARP_SIZE, kWarpSize, WARPSIZE, THREADS_PER_WARP, WAVEFRONT_SIZE, WS ... but not
    WARPS_PER_BLOCK, kNumWarps, WARP_ID, FULL_WARP_MASK."""
    if _NOT_WARP_NAME.search(name):
        return False
    words = [w.lower() for w in _WORDS.findall(name)]
    if any(w in ("warps", "waves") for w in words):
        return False
    if any(w.startswith(("warp", "wave")) for w in words):
        return True
    return bool(_WARP_NAME.search(name))


@cache
def type_bits(text: str) -> int | None:
    t = " ".join(text.replace("const", " ").replace("volatile", " ").replace("static", " ")
                 .replace("__restrict__", " ").split())
    if t in TYPES32:
        return 32
    if t in TYPES64:
        return 64
    return None


