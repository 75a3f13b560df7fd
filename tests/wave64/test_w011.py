"""W011 lane-mask-shift-32bit: lane masks built with 32-bit shifts by a lane number."""

import pytest

from tests.wave64.helpers import applicability, assert_fix, assert_kept, assert_noop, kernel

RULE = "W011"

NOOP = [
    pytest.param(kernel("  unsigned b = 1u << (in[0] & 7);\n  out[0] = b + __shfl_xor(in[0], 1);\n"),
                 id="shift-by-data"),
    pytest.param(kernel("  unsigned long long m = 1ull << __lane_id();\n  out[0] = __popcll(m & __ballot(1));\n"),
                 id="already-64-bit"),
    pytest.param(kernel("  unsigned low = (1u << 5) - 1;\n  out[0] = low + __shfl_xor(in[0], 1);\n"),
                 id="constant-shift"),
]

FIX = [
    pytest.param(kernel("  const unsigned lane = __lane_id();\n"
                        "  out[0] = __popcll(__ballot(in[0]) & ((1u << lane) - 1));\n"),
                 kernel("  const unsigned lane = __lane_id();\n"
                        "  out[0] = __popcll(__ballot(in[0]) & ((1ull << lane) - 1));\n"),
                 "native", id="hardware-lane-needs-a-64-bit-shift"),
    pytest.param(kernel("  const int lane = threadIdx.x % 32;\n  unsigned self = 1u << lane;\n"
                        "  out[0] = __shfl_xor((int)self, 1);\n"),
                 kernel("  const int lane = threadIdx.x % 32;\n  unsigned long long self = 1ull << lane;\n"
                        "  out[0] = __shfl_xor((int)self, 1);\n"),
                 "native", id="native-widens-the-mask-variable"),
    pytest.param(kernel("  const int n = threadIdx.x % 32;\n  unsigned first = 0xffffffffu >> (32 - n);\n"
                        "  out[0] = __shfl_xor((int)first, 1);\n"),
                 kernel("  const int n = threadIdx.x % 32;\n  unsigned long long first = ~0ull >> (64 - n);\n"
                        "  out[0] = __shfl_xor((int)first, 1);\n"),
                 "native", id="first-n-lanes-mask"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_logical_lanes_are_0_to_31_under_logical32() -> None:
    assert_kept(kernel("  const int lane = threadIdx.x & 31;\n  out[lane] = __shfl((int)(1u << lane), 0, 32);\n"),
                RULE, "logical32")


def test_safe_in_a_wave_agnostic_kernel() -> None:
    code = kernel("  const unsigned lane = __lane_id();\n  out[0] = __popcll(__ballot(in[0]) & (1u << lane));\n")
    assert applicability(code, RULE) == {"safe"}
