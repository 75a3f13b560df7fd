"""W007 shared-array-warp-sized: shared arrays sized by 32 and indexed per lane or per warp."""

import pytest

from tests.wave64.helpers import assert_fix, assert_kept, assert_noop, kernel

RULE = "W007"

NOOP = [
    pytest.param(kernel("  __shared__ float tile[32][33];\n  tile[threadIdx.y][threadIdx.x] = p[0];\n"
                        "  __syncthreads();\n  p[0] = __shfl_xor(tile[threadIdx.x][threadIdx.y], 1);\n"),
                 id="transpose-tile-with-bank-padding"),
    pytest.param(kernel("  __shared__ int bins[32];\n  atomicAdd(&bins[in[0] & 31], 1);\n"
                        "  out[0] = __shfl_xor(bins[0], 1);\n"), id="bins-indexed-by-data"),
    pytest.param(kernel("  __shared__ float s[32];\n  s[threadIdx.x] = p[0];\n  p[0] = __shfl_xor(s[0], 1);\n"),
                 id="indexed-by-the-thread-not-a-lane"),
]

LANE = ("  __shared__ float s[32];\n  const int lane = threadIdx.x & 31;\n"
        "  s[lane] = __shfl_xor(p[0], 16);\n  __syncthreads();\n  p[0] = s[(lane + 1) & 31];\n")
FIX = [
    pytest.param(kernel(LANE), kernel(LANE.replace("s[32]", "s[64]")), "native",
                 id="per-lane-buffer-sized-for-the-largest-wave"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


@pytest.mark.parametrize("strategy", ["logical32", "native"])
def test_per_warp_slots_are_an_upper_bound_for_any_wave(strategy: str) -> None:
    code = kernel("  __shared__ float partial[256 / 32];\n  const int warp = threadIdx.x >> 5;\n"
                  "  partial[warp] = __shfl_xor(p[0], 16);\n  p[0] = partial[0];\n")
    assert_kept(code, RULE, strategy)


def test_per_lane_buffer_kept_under_logical32() -> None:
    assert_kept(kernel(LANE), RULE, "logical32")
