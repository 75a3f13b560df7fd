"""W001 sync-mask-32bit: 32-bit masks in *_sync calls, and *_sync calls below a 7.0 floor."""

import pytest

from tests.wave64.helpers import applicability, assert_fix, assert_noop, kernel

RULE = "W001"

NOOP = [
    pytest.param(kernel("  p[0] = __shfl_xor(p[0], 1) + __shfl_down(p[0], 2, 8);\n"), "5.2",
                 id="non-sync-shuffles-exist-on-every-rocm"),
    pytest.param(kernel("  p[0] = __shfl_xor_sync(~0ull, p[0], 1);\n"), "7.0",
                 id="64-bit-mask-with-a-7.0-floor"),
    pytest.param(kernel("  unsigned long long m = __activemask();\n  p[0] = __shfl_sync(m, p[0], 0);\n"), "7.0",
                 id="activemask-variable-is-64-bit"),
    pytest.param(kernel("  out[0] = 0xffffffffu & in[threadIdx.x];\n  p[0] = __shfl_xor(p[0], 1);\n"), "5.2",
                 id="full-mask-literal-that-is-not-a-sync-mask"),
    pytest.param(kernel("  p[0] = __syncthreads_or(in[0] > 0);\n"), "5.2", id="block-level-sync-is-not-a-warp-sync"),
]

FIX = [
    pytest.param(kernel("  p[0] = __shfl_xor_sync(0xffffffff, p[0], 1);\n"),
                 kernel("  p[0] = __shfl_xor(p[0], 1);\n"), "native", "5.2",
                 id="below-7.0-drop-the-mask-and-call-the-plain-form"),
    pytest.param(kernel("  p[0] = __shfl_down_sync(0xffffffffu, p[0], 1, 8);\n"),
                 kernel("  p[0] = __shfl_down(p[0], 1, 8);\n"), "logical32", "5.2",
                 id="explicit-width-is-kept"),
    pytest.param(kernel("  const unsigned m = 0x0000ffff;\n  out[0] = __ballot_sync(m, in[0] > 0) != 0;\n"),
                 kernel("  const unsigned m = 0x0000ffff;\n  out[0] = ((m) & __ballot(in[0] > 0)) != 0;\n"),
                 "native", "5.2", id="partial-ballot-mask-is-anded-in"),
    pytest.param(kernel("  p[0] = __shfl_xor_sync(0xffffffff, p[0], 1);\n"),
                 kernel("  p[0] = __shfl_xor_sync(~0ull, p[0], 1);\n"), "native", "7.0",
                 id="7.0-floor-full-mask-becomes-all-64-lanes"),
    pytest.param(kernel("  int lane = threadIdx.x & 31;\n  p[0] = __shfl_xor_sync(0xffffffff, p[0], 1) + lane;\n"),
                 kernel("  int lane = threadIdx.x & 31;\n"
                        "  p[0] = __shfl_xor_sync((0xffffffffull << (__lane_id() & 32)), p[0], 1) + lane;\n"),
                 "logical32", "7.0", id="7.0-floor-logical32-gives-each-half-its-own-mask"),
    pytest.param("#include <hip/hip_runtime.h>\n#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)\n",
                 "#include <hip/hip_runtime.h>\n#define SHFL_DOWN(v, o) __shfl_down(v, o)\n", "logical32", "5.2",
                 id="wrapper-macro-body-is-fixed-once"),
]


@pytest.mark.parametrize(("code", "rocm"), NOOP)
def test_noop(code: str, rocm: str) -> None:
    assert_noop(code, RULE, rocm=rocm)


@pytest.mark.parametrize(("before", "after", "strategy", "rocm"), FIX)
def test_fix(before: str, after: str, strategy: str, rocm: str) -> None:
    assert_fix(before, after, RULE, strategy, rocm)


def test_widening_a_variable_mask_is_a_review_with_a_7_0_floor() -> None:
    code = kernel("  const unsigned m = in[0];\n  p[0] = __shfl_xor_sync(m, p[0], 1);\n")
    assert applicability(code, RULE, "native", "7.0") == {"review"}
