"""W003 mask-bitop-32bit: 32-bit bit operations on wave masks."""

import pytest

from tests.wave64.helpers import applicability, assert_fix, assert_kept, assert_noop, kernel

RULE = "W003"

NOOP = [
    pytest.param(kernel("  unsigned x = in[0];\n  out[0] = __popc(x) + __ffs(x) + (31 - __clz(x));\n"),
                 id="bits-of-data"),
    pytest.param(kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = __popcll(m) + __ffsll(m);\n"),
                 id="already-64-bit"),
    pytest.param(kernel("  int b = 0;\n  for (int i = 0; i < 32; ++i) b += (in[0] >> i) & 1;\n  out[0] = b;\n"),
                 id="bit-loop-over-data"),
]

FIX = [
    pytest.param(kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = __popc(m) + __ffs(m);\n"),
                 kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = __popcll(m) + __ffsll(m);\n"),
                 "native", id="popc-and-ffs-become-64-bit"),
    pytest.param(kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = 31 - __clz(m);\n"),
                 kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = 63 - __clzll(m);\n"),
                 "native", id="highest-lane-counts-from-bit-63"),
    pytest.param(kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = m == 0xffffffff;\n"),
                 kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = m == (~0ull >> (64 - warpSize));\n"),
                 "native", id="all-lanes-is-the-full-wave-not-a-32-bit-constant"),
    pytest.param(kernel("  const int lane = threadIdx.x & 31;\n  out[lane] = __popc(__ballot(in[0]));\n"),
                 kernel("  const int lane = threadIdx.x & 31;\n"
                        "  out[lane] = __popc((unsigned)(__ballot(in[0]) >> (__lane_id() & 32)));\n"),
                 "logical32", id="logical32-counts-the-callers-half"),
    pytest.param(kernel("  unsigned long long m = __ballot(in[0]);\n  int b = 0;\n"
                        "  for (int i = 0; i < 32; ++i) b += (m >> i) & 1;\n  out[0] = b;\n"),
                 kernel("  unsigned long long m = __ballot(in[0]);\n  int b = 0;\n"
                        "  for (int i = 0; i < warpSize; ++i) b += (m >> i) & 1;\n  out[0] = b;\n"),
                 "native", id="bit-loop-over-a-mask-runs-to-warpSize"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_popc_of_a_half_is_kept_under_logical32() -> None:
    code = kernel("  const int lane = threadIdx.x & 31;\n"
                  "  unsigned m = (unsigned)(__ballot(in[0]) >> (__lane_id() & 32));\n  out[lane] = __popc(m);\n")
    assert_kept(code, RULE, "logical32")


def test_a_bare_clz_is_a_review() -> None:
    code = kernel("  unsigned long long m = __ballot(in[0]);\n  out[0] = __clz(m);\n")
    assert applicability(code, RULE, "native") == {"review"}
