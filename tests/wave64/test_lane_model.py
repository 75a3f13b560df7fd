"""Per-lane values of the rewrites, computed in Python from AMD's semantics (wave64.md §2, §7.4).

Each test states what every lane of a 64-lane wave holds after a rewrite the pass emits, and
compares it with what the lane's CUDA warp (32 lanes) computes. The formulas are HIP's
(`amd_warp_functions.h`); a ballot only counts active lanes.
"""

from __future__ import annotations

import random

import pytest

from hipport.wave64.emit import HALF_MASK64, HALF_SHIFT
from tests.wave64.helpers import findings, kernel, port

W = 64
MASK64 = (1 << 64) - 1


def shfl(v: list, src: list[int], width: int = W, hip57: bool = True) -> list:
    """__shfl: (src & (width-1)) + (self & ~(width-1)) on ROCm >= 5.7; no wrap before (W021)."""
    out = []
    for s in range(W):
        base = s & ~(width - 1)
        i = ((src[s] & (width - 1)) if hip57 else src[s]) + base
        out.append(v[i & (W - 1)])
    return out


def shfl_down(v: list, d: int, width: int = W) -> list:
    return [v[s] if (s & (width - 1)) + d >= width else v[s + d] for s in range(W)]


def shfl_up(v: list, d: int, width: int = W) -> list:
    return [v[s] if (s & (width - 1)) - d < 0 else v[s - d] for s in range(W)]


def shfl_xor(v: list, m: int, width: int = W) -> list:
    return [v[s] if (s ^ m) >= ((s + width) & ~(width - 1)) else v[s ^ m] for s in range(W)]


def ballot(p: list[bool], active: list[bool] | None = None) -> int:
    active = active or [True] * W
    return sum(1 << i for i in range(W) if p[i] and active[i])


def cuda_ballot(p: list[bool], lane: int, active: list[bool] | None = None) -> int:
    """The 32-bit ballot of lane's CUDA warp, in warp-relative bit positions."""
    active = active or [True] * W
    base = lane & ~31
    return sum(1 << (i - base) for i in range(base, base + 32) if p[i] and active[i])


def half(b: int, lane: int) -> int:
    """`(unsigned)(b >> (__lane_id() & 32))`."""
    return (b >> (lane & 32)) & 0xFFFFFFFF


def test_the_emitted_expressions_are_the_ones_modelled_here() -> None:
    assert HALF_SHIFT == "(__lane_id() & 32)"
    assert HALF_MASK64 == "(0xffffffffull << (__lane_id() & 32))"
    out = port(kernel("  const int lane = threadIdx.x & 31;\n  unsigned m = __ballot(in[0] > 0);\n  out[lane] = m;\n"),
               "logical32")
    assert "(unsigned)(__ballot(in[0] > 0) >> (__lane_id() & 32))" in out


@pytest.mark.parametrize("seed", range(20))
def test_half_ballot_is_the_cuda_warp_ballot(seed: int) -> None:
    rnd = random.Random(seed)
    p = [rnd.random() < 0.5 for _ in range(W)]
    active = [rnd.random() < 0.8 for _ in range(W)]
    b = ballot(p, active)
    for lane in range(W):
        assert half(b, lane) == cuda_ballot(p, lane, active)


@pytest.mark.parametrize("seed", range(20))
def test_half_votes_are_the_cuda_warp_votes(seed: int) -> None:
    rnd = random.Random(seed)
    p = [rnd.random() < 0.9 for _ in range(W)]
    active = [rnd.random() < 0.8 for _ in range(W)]
    for lane in range(W):
        if not active[lane]:
            continue
        warp = [i for i in range(lane & ~31, (lane & ~31) + 32) if active[i]]
        any_ = half(ballot(p, active), lane) != 0
        all_ = half(ballot([not x for x in p], active), lane) == 0
        assert any_ == any(p[i] for i in warp)
        assert all_ == all(p[i] for i in warp)


def test_whole_wave_vote_leaks_between_logical_warps() -> None:
    """H6: what the rewrite prevents. One false lane in warp 1 makes warp 0's __all false."""
    p = [True] * W
    p[40] = False
    assert all(p) is False  # __all over the wave, seen by lane 0
    assert half(ballot([not x for x in p]), 0) == 0  # the half-ballot vote of warp 0: all true


def test_per_half_sync_mask_partitions_the_wave() -> None:
    masks = [(0xFFFFFFFF << (lane & 32)) & MASK64 for lane in range(W)]
    for lane in range(W):
        assert masks[lane] >> lane & 1, "each lane is in its own mask"
        assert all(masks[i] == masks[lane] for i in range(W) if masks[lane] >> i & 1)


def test_width_32_reduction_gives_each_logical_warp_its_cuda_sum() -> None:
    """H1: the loop from 16 with width 32; lane 0 of each half holds its warp's sum."""
    v = list(range(1, W + 1))
    o = 16
    while o:
        v = [a + b for a, b in zip(v, shfl_down(v, o, 32), strict=False)]
        o >>= 1
    assert (v[0], v[32]) == (528, 1552)


def test_default_width_loop_from_16_is_wrong_for_a_wave_reader() -> None:
    """H2: the partial port. Lane 0 of the wave holds only lanes 0-31; native starts at 32."""
    v = list(range(1, W + 1))
    r = v
    o = 16
    while o:
        r = [a + b for a, b in zip(r, shfl_down(r, o), strict=False)]
        o >>= 1
    assert r[0] == 528
    o = 32
    while o:
        v = [a + b for a, b in zip(v, shfl_down(v, o), strict=False)]
        o >>= 1
    assert v[0] == 2080


def test_broadcast_with_width_32_stays_in_the_logical_warp() -> None:
    """H4: __shfl(v, 0) gives lane 32 lane 0's value; __shfl(v, 0, 32) gives it lane 32's."""
    v = list(range(1, W + 1))
    assert shfl(v, [0] * W)[32] == 1
    assert shfl(v, [0] * W, 32)[32] == 33


def test_rotate_with_a_masked_source_matches_cuda_on_hip_5_2() -> None:
    """W021/W016: HIP <= 5.6 does not wrap the source; `(lane + 1) & 31` restores CUDA's rotate."""
    v = list(range(W))
    lanes = [s & 31 for s in range(W)]
    cuda = [(s & ~31) + ((s & 31) + 1) % 32 for s in range(W)]
    unmasked = shfl(v, [lane + 1 for lane in lanes], 32, hip57=False)
    masked = shfl(v, [(lane + 1) & 31 for lane in lanes], 32, hip57=False)
    assert unmasked[31] == 32  # reads the next segment
    assert masked == cuda


def test_scan_with_width_32_restarts_at_each_logical_warp() -> None:
    v = [1] * W
    d = 1
    while d < 32:
        up = shfl_up(v, d, 32)
        v = [v[s] + up[s] if (s & 31) >= d else v[s] for s in range(W)]
        d <<= 1
    assert v == [(s & 31) + 1 for s in range(W)]


def test_lanemask_lt_from_the_lane() -> None:
    """W012: %lanemask_lt is positional; the rewrite computes it from the lane."""
    for lane in range(W):
        assert ((1 << (lane & 31)) - 1) & 0xFFFFFFFF == sum(1 << i for i in range(lane & 31))
        assert ((1 << lane) - 1) & MASK64 == sum(1 << i for i in range(lane))


def match_any(keys: list[int], active: list[bool]) -> list[int]:
    """The waterfall of emit.MATCH_ANY, lane by lane."""
    todo = ballot([True] * W, active)
    peers = [0] * W
    while todo:
        leader = (todo & -todo).bit_length() - 1
        lead_key = keys[leader]
        same = ballot([k == lead_key for k in keys], active) & todo
        for s in range(W):
            if active[s] and keys[s] == lead_key:
                peers[s] = same
        todo &= ~(same | (1 << leader))
    return peers


@pytest.mark.parametrize("seed", range(10))
def test_match_any_helper_finds_every_lane_with_the_same_key(seed: int) -> None:
    rnd = random.Random(seed)
    keys = [rnd.randrange(5) for _ in range(W)]
    active = [rnd.random() < 0.8 for _ in range(W)]
    peers = match_any(keys, active)
    for s in range(W):
        if active[s]:
            assert peers[s] == sum(1 << i for i in range(W) if active[i] and keys[i] == keys[s])
            # under logical32 the caller keeps its half: CUDA's 32-bit __match_any_sync
            assert half(peers[s], s) == cuda_ballot([k == keys[s] for k in keys], s, active)


@pytest.mark.parametrize("width", [32, 64])
def test_reduce_helper_butterfly_gives_every_lane_the_sum(width: int) -> None:
    v = list(range(W))
    o = width // 2
    while o:
        v = [a + b for a, b in zip(v, shfl_xor(v, o, width), strict=False)]
        o >>= 1
    for s in range(W):
        base = s & ~(width - 1)
        assert v[s] == sum(range(base, base + width))


def test_a_32_thread_block_with_a_warpSize_stride_skips_half_the_data() -> None:
    """H7, what W014 prevents: 32 lanes striding by warpSize = 64 touch 64 of 128 elements."""
    touched = {i for lane in range(32) for i in range(lane, 128, 64)}
    assert len(touched) == 64


def test_findings_state_their_model() -> None:
    fs = findings(kernel("  const int lane = threadIdx.x & 31;\n  p[lane] = __shfl(p[0], 0);\n"))
    assert {f.model for f in fs} == {"warp32"}
