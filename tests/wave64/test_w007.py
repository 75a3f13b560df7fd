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


# A shared array of 32 slots handed, with a 32-thread tile, to a helper this file cannot see
# (mlx's block_reduce(block, warp, vals, smem, op) in a header): the slots are that tile's.
HANDED = ("#include <hip/hip_cooperative_groups.h>\n"
          "namespace cg = cooperative_groups;\n"
          "template <typename B, typename W> __device__ void block_reduce(B& b, W& w, float* v, float* smem);\n"
          "__global__ void k(float* p) {\n"
          "  auto block = cg::this_thread_block();\n"
          "  auto warp = cg::tiled_partition<32>(block);\n"
          "  float v = warp.shfl_down(p[threadIdx.x], 1);\n"
          "  __shared__ float slots[32];\n"
          "  __shared__ float other[32];\n"
          "  block_reduce(block, warp, &v, slots);\n"
          "  block_reduce(block, block, &v, other);\n"
          "  p[0] = v;\n"
          "}\n")


def test_slots_handed_with_a_32_thread_tile_are_kept() -> None:
    from tests.wave64.helpers import findings

    for strategy in ("logical32", "native"):
        got = findings(HANDED, strategy, rule=RULE)
        assert [(f.span.line, f.fix) for f in got] == [(8, None)], [(f.span.line, f.message) for f in got]
        assert got[0].severity.value == "info"
