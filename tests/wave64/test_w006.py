"""W006 shuffle-loop-from-16: 32-lane reductions and scans with the default width."""

import pytest

from tests.wave64.helpers import HEADER, assert_fix, assert_kept, assert_noop, kernel

RULE = "W006"


def dev(body: str) -> str:
    return f"{HEADER}__device__ float f(float v, int lane) {{\n{body}  return v;\n}}\n"


NOOP = [
    pytest.param(kernel("  for (int i = 16; i > 0; i >>= 1) out[i] += i;\n  out[0] += __shfl_xor(in[0], 1);\n"),
                 id="loop-from-16-without-a-shuffle"),
    pytest.param(dev("  for (int o = 8; o > 0; o >>= 1) v += __shfl_xor(v, o, 16);\n"),
                 id="sixteen-lane-groups"),
    pytest.param(dev("  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 16);\n"),
                 id="loop-from-16-with-an-explicit-width-16"),
    pytest.param(dev("  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);\n"),
                 id="wave-agnostic-reduction"),
    pytest.param(dev("  v += __shfl_down(v, 8);\n  v += __shfl_down(v, 4);\n"), id="unrolled-steps-without-16"),
]

FIX = [
    pytest.param(dev("  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n"),
                 dev("  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o, 32);\n"), "logical32",
                 id="logical32-passes-width-32"),
    pytest.param(dev("  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n"),
                 dev("  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);\n"), "native",
                 id="native-starts-at-half-the-wave"),
    pytest.param(dev("  for (int d = 1; d < 32; d <<= 1) { float t = __shfl_up(v, d); if (lane >= d) v += t; }\n"),
                 dev("  for (int d = 1; d < warpSize; d <<= 1) { float t = __shfl_up(v, d); if (lane >= d) v += t; }\n"),
                 "native", id="scan-bounded-by-the-wave"),
    pytest.param(dev("  v += __shfl_xor(v, 16);\n  v += __shfl_xor(v, 8);\n"),
                 dev("  v += __shfl_xor(v, 16, 32);\n  v += __shfl_xor(v, 8, 32);\n"), "logical32",
                 id="unrolled-steps-get-width-32"),
    pytest.param(dev("  v += __shfl_xor(v, 16);\n  v += __shfl_xor(v, 8);\n"),
                 dev("  if (warpSize > 32) v += __shfl_xor(v, 32);\n  v += __shfl_xor(v, 16);\n"
                     "  v += __shfl_xor(v, 8);\n"), "native", id="unrolled-steps-get-a-delta-32-step"),
    pytest.param(dev("  if (lane < 32) v += __shfl_xor(v, 16);\n  v += __shfl_xor(v, 8);\n"),
                 dev("  if (lane < 32) { if (warpSize > 32) v += __shfl_xor(v, 32); v += __shfl_xor(v, 16); }\n"
                     "  v += __shfl_xor(v, 8);\n"), "native", id="a-step-under-an-unbraced-if-stays-under-it"),
    pytest.param(dev("  for (int k = 2; k <= 32; k <<= 1)\n    for (int j = k >> 1; j > 0; j >>= 1)\n"
                     "      v = fmaxf(v, __shfl_xor(v, j));\n"),
                 dev("  for (int k = 2; k <= warpSize; k <<= 1)\n    for (int j = k >> 1; j > 0; j >>= 1)\n"
                     "      v = fmaxf(v, __shfl_xor(v, j));\n"), "native", id="bitonic-stages-follow-the-outer-bound"),
    pytest.param(dev("  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);\n"),
                 dev("  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);\n"), "native",
                 id="native-drops-a-width-32-pin"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_a_loop_bounded_by_a_warp_size_constant_is_kept_natively() -> None:
    code = dev("  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);\n").replace(
        HEADER, HEADER + "#define WARP_SIZE 32\n")
    assert_kept(code, RULE, "native")
