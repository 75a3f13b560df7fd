"""W004 lane-id-mask-31: lane ids from tid & 31 / tid % 32, lane-strided loops."""

import pytest

from tests.wave64.helpers import HEADER, assert_fix, assert_kept, assert_noop, kernel

RULE = "W004"

NOOP = [
    pytest.param(kernel("  __shared__ float tile[32][33];\n  tile[threadIdx.x / 32][threadIdx.x % 32] = p[0];\n"
                        "  __syncthreads();\n  p[threadIdx.x] = tile[threadIdx.x % 32][threadIdx.x / 32];\n"),
                 id="transpose-tile-without-warp-operations"),
    pytest.param(kernel("  int x = in[threadIdx.x];\n  out[0] = (x & 31) + (x % 32) + __shfl_xor(x, 1);\n"),
                 id="low-bits-of-data"),
    pytest.param(kernel("  out[0] = __lane_id() + __shfl_xor(in[0], 1);\n"), id="hardware-lane-in-agnostic-code"),
    pytest.param(kernel("  for (int i = 0; i < 64; i += 32) out[i] = __shfl_xor(in[i], 1);\n"),
                 id="stride-from-zero-is-not-lane-strided"),
]

FIX = [
    pytest.param(kernel("  int lane = threadIdx.x & 31;\n  p[0] = __shfl_xor(p[0], 16) + lane;\n"),
                 kernel("  int lane = threadIdx.x & (warpSize - 1);\n  p[0] = __shfl_xor(p[0], 16) + lane;\n"),
                 "native", id="mask-31-becomes-warpSize-minus-1"),
    pytest.param(kernel("  int lane = (blockIdx.x * blockDim.x + threadIdx.x) % 32;\n  p[0] = __shfl(p[0], lane);\n"),
                 kernel("  int lane = (blockIdx.x * blockDim.x + threadIdx.x) % warpSize;\n"
                        "  p[0] = __shfl(p[0], lane);\n"), "native", id="global-thread-id-modulo-32"),
    pytest.param(kernel("  float s = 0.f;\n  for (int c = threadIdx.x; c < 100; c += 32) s += p[c];\n"
                        "  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor(s, o);\n  p[0] = s;\n"),
                 kernel("  float s = 0.f;\n  for (int c = threadIdx.x; c < 100; c += warpSize) s += p[c];\n"
                        "  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor(s, o);\n  p[0] = s;\n"),
                 "native", id="lane-strided-loop-steps-by-the-wave"),
    pytest.param(kernel("  int lane = threadIdx.x % warpSize;\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[lane] = v;\n"),
                 kernel("  int lane = threadIdx.x % 32;\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[lane] = v;\n"),
                 "logical32", id="mixed-kernel-as-logical32-uses-32-lane-ids"),
    pytest.param(kernel("  int lane = __lane_id();\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[lane] = v;\n"),
                 kernel("  int lane = (__lane_id() & 31);\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[lane] = v;\n"),
                 "logical32", id="mixed-kernel-as-logical32-narrows-lane-id"),
    pytest.param(kernel("  const int lane = threadIdx.x & 31;\n  float v = p[0];\n"
                        "  for (int i = lane; i < 64; i += warpSize) v += p[i];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);\n  p[lane] = v;\n"),
                 kernel("  const int lane = threadIdx.x & 31;\n  float v = p[0];\n"
                        "  for (int i = lane; i < 64; i += 32) v += p[i];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);\n  p[lane] = v;\n"),
                 "logical32", id="mixed-kernel-as-logical32-strides-by-32"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_kept_under_logical32() -> None:
    assert_kept(kernel("  int lane = threadIdx.x & 31;\n  p[0] = __shfl(p[0], 0, 32) + lane;\n"), RULE, "logical32")


def test_lane_id_from_a_helper_function_is_followed() -> None:
    code = (HEADER + "__device__ int lane_of(int t) { return t & 31; }\n"
            "__global__ void k(float* p) {\n  p[lane_of(threadIdx.x)] = __shfl_xor(p[0], 1);\n}\n")
    assert_fix(code, code.replace("t & 31", "t & (warpSize - 1)"), RULE, "native")
