"""W016 shuffle-default-width: broadcast, rotate, neighbour, last-lane shuffles in 32-lane code."""

import pytest

from tests.wave64.helpers import assert_fix, assert_kept, assert_noop, kernel

RULE = "W016"
LANE = "  const int lane = threadIdx.x & 31;\n"

NOOP = [
    pytest.param(kernel(LANE + "  p[0] = __shfl_xor(p[0], 1) + lane;\n"), id="xor-never-crosses-a-32-lane-half"),
    pytest.param(kernel("  p[0] = __shfl(p[0], 0) + __shfl(p[0], warpSize - 1);\n"), id="wave-agnostic-broadcast"),
    pytest.param(kernel(LANE + "  p[0] = __shfl(p[0], 0, 16) + lane;\n"), id="sixteen-lane-groups"),
]

FIX = [
    pytest.param(kernel(LANE + "  p[0] = __shfl(p[0], 0) + lane;\n"), kernel(LANE + "  p[0] = __shfl(p[0], 0, 32) + lane;\n"),
                 "logical32", "5.2", id="broadcast-within-the-logical-warp"),
    pytest.param(kernel(LANE + "  p[0] = __shfl(p[0], lane + 1);\n"),
                 kernel(LANE + "  p[0] = __shfl(p[0], (lane + 1) & 31, 32);\n"), "logical32", "5.2",
                 id="rotate-masks-the-source-below-5.7"),
    pytest.param(kernel(LANE + "  p[0] = __shfl(p[0], lane + 1);\n"),
                 kernel(LANE + "  p[0] = __shfl(p[0], lane + 1, 32);\n"), "logical32", "5.7",
                 id="rotate-wraps-from-5.7"),
    pytest.param(kernel(LANE + "  p[0] = __shfl_up(p[0], 1) + lane;\n"),
                 kernel(LANE + "  p[0] = __shfl_up(p[0], 1, 32) + lane;\n"), "logical32", "5.2",
                 id="neighbour-stays-in-the-logical-warp"),
    pytest.param(kernel(LANE + "  p[0] = __shfl(p[0], 31) + lane;\n"),
                 kernel(LANE + "  p[0] = __shfl(p[0], warpSize - 1) + lane;\n"), "native", "5.2",
                 id="last-lane-of-the-wave"),
    pytest.param(kernel(LANE + "  p[0] = __shfl(p[0], (lane + 1) & 31, 32);\n"),
                 kernel(LANE + "  p[0] = __shfl(p[0], (lane + 1) & (warpSize - 1));\n"), "native", "5.2",
                 id="native-unpins-width-32-and-its-mask"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy", "rocm"), FIX)
def test_fix(before: str, after: str, strategy: str, rocm: str) -> None:
    assert_fix(before, after, RULE, strategy, rocm)


def test_broadcast_is_kept_natively() -> None:
    assert_kept(kernel(LANE + "  p[0] = __shfl(p[0], 0) + lane;\n"), RULE, "native")
