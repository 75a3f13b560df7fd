"""W021 shfl-source-wrap: __shfl source lanes that reach the width on HIP before 5.7."""

import pytest

from tests.wave64.helpers import assert_fix, assert_noop, kernel

RULE = "W021"
LANE = "  const int lane = threadIdx.x & 31;\n"

NOOP = [
    pytest.param(kernel(LANE + "  out[0] = __shfl(in[0], (lane + 1) & 31, 32);\n"), "5.2", id="already-masked"),
    pytest.param(kernel(LANE + "  out[0] = __shfl(in[0], 3, 32) + lane;\n"), "5.2", id="constant-below-the-width"),
    pytest.param(kernel(LANE + "  out[0] = __shfl(in[0], lane + 1, 32);\n"), "5.7", id="hip-5.7-wraps-it"),
    pytest.param(kernel("  out[0] = __shfl(in[0], (int)(__lane_id() + 1));\n"), "5.2", id="whole-wave-wraps-in-hardware"),
]

FIX = [
    pytest.param(kernel(LANE + "  out[0] = __shfl(in[0], lane + 1, 32);\n"),
                 kernel(LANE + "  out[0] = __shfl(in[0], (lane + 1) & 31, 32);\n"), "logical32",
                 id="rotate-within-32"),
    pytest.param(kernel("  out[0] = __shfl(in[0], threadIdx.x + 3, 16);\n"),
                 kernel("  out[0] = __shfl(in[0], (threadIdx.x + 3) & 15, 16);\n"), "native",
                 id="sixteen-lane-groups"),
]


@pytest.mark.parametrize(("code", "rocm"), NOOP)
def test_noop(code: str, rocm: str) -> None:
    assert_noop(code, RULE, rocm=rocm)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)
