"""W005 warp-id-shift-5: warp ids and counts from >> 5 and / 32, first-warp guards."""

import pytest

from tests.wave64.helpers import assert_fix, assert_kept, assert_noop, kernel

RULE = "W005"

NOOP = [
    pytest.param(kernel("  unsigned w = in[threadIdx.x] >> 5;\n  int b = (in[0] + 31) / 32;\n"
                        "  out[0] = w + b + __shfl_xor(in[0], 1);\n"), id="data-shifts-and-sizes"),
    pytest.param(kernel("  if (threadIdx.x < 32) out[threadIdx.x] = 0;\n  __syncthreads();\n"
                        "  out[1] = __shfl_xor(in[0], 1);\n"), id="tid-below-32-guard-without-a-collective"),
    pytest.param(kernel("  int w = threadIdx.x / warpSize;\n  out[w] = __shfl_xor(in[0], 1);\n"),
                 id="already-warpSize"),
    pytest.param(kernel("  __shared__ float s[256 / 32];\n  s[threadIdx.x / warpSize] = __shfl_xor(p[0], 1);\n"
                        "  p[0] = s[0];\n", params="float* p"),
                 id="an-array-bound-is-a-constant-expression-for-W007"),
]

FIX = [
    pytest.param(kernel("  int w = threadIdx.x >> 5;\n  out[w] = __shfl_xor(in[0], 1);\n"),
                 kernel("  int w = threadIdx.x / warpSize;\n  out[w] = __shfl_xor(in[0], 1);\n"),
                 "native", id="shift-by-5-becomes-divide-by-warpSize"),
    pytest.param(kernel("  int w = threadIdx.x + blockIdx.x * blockDim.x >> 5;\n  out[w] = __shfl_xor(in[0], 1);\n"),
                 kernel("  int w = (threadIdx.x + blockIdx.x * blockDim.x) / warpSize;\n"
                        "  out[w] = __shfl_xor(in[0], 1);\n"), "native", id="parenthesised-when-precedence-changes"),
    pytest.param(kernel("  int n = (blockDim.x + 31) / 32;\n  out[n] = __shfl_xor(in[0], 1);\n"),
                 kernel("  int n = (blockDim.x + warpSize - 1) / warpSize;\n  out[n] = __shfl_xor(in[0], 1);\n"),
                 "native", id="ceiling-warp-count"),
    pytest.param(kernel("  float v = p[threadIdx.x];\n  if (threadIdx.x < 32) v = __shfl_xor(v, 1);\n  p[0] = v;\n"),
                 kernel("  float v = p[threadIdx.x];\n  if (threadIdx.x < warpSize) v = __shfl_xor(v, 1);\n  p[0] = v;\n"),
                 "native", id="first-warp-guard-around-a-shuffle"),
    pytest.param(kernel("  int w = threadIdx.x / warpSize;\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[w] = v;\n"),
                 kernel("  int w = threadIdx.x / 32;\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[w] = v;\n"),
                 "logical32", id="mixed-kernel-as-logical32-counts-32-lane-warps"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_kept_under_logical32() -> None:
    assert_kept(kernel("  int w = threadIdx.x >> 5;\n  out[w] = __shfl(in[0], 0, 32);\n"), RULE, "logical32")


# A warp count in a constant expression other than an array bound or a template argument
# (`constexpr int nwarps = kNumThreads / 32`, an enumerator): `warpSize` cannot go there on ROCm 7,
# so it is reported for review, without a fix. `kNumThreads`, a template parameter named as the
# block's thread count, makes the division a warp count.
CONSTEXPR_COUNT = (
    "template <int kNumThreads>\n"
    "__global__ void k(float* p) {\n"
    "  constexpr int nwarps = kNumThreads / 32;\n"
    "  float v = __shfl_xor(p[threadIdx.x], 1);\n"
    "  if (threadIdx.x < nwarps) p[threadIdx.x] = v;\n"
    "}\n")


def test_constexpr_warp_count_is_reported_without_a_fix() -> None:
    from tests.wave64.helpers import findings

    got = findings(CONSTEXPR_COUNT, "native", rule=RULE)
    assert [(f.span.line, f.fix) for f in got] == [(3, None)]
    assert got[0].severity.value != "info" and "constant expression" in got[0].message
    assert_kept(CONSTEXPR_COUNT, RULE, "logical32")


def test_block_size_names_only_as_template_parameters() -> None:
    assert_noop("__global__ void k(float* p, int kNumThreads) {\n"
                "  const int n = kNumThreads / 32;\n  p[n] = __shfl_xor(p[0], 1);\n}\n", RULE)


def test_a_count_divided_by_a_named_warp_size_is_a_warp_count() -> None:
    """`MAX_THREADS / WARP_SIZE`, `nworkers / WARP_SIZE`: kept (the constant is W008's); not a
    lane compared with one (`lane < BLOCK / WARP_SIZE`, which stays silent as before)."""
    from tests.wave64.helpers import findings

    code = ("#define WARP_SIZE 32\n#define MAX_THREADS 512\n"
            "__device__ float f(float* p, int nworkers) {\n"
            "  const int total = MAX_THREADS / WARP_SIZE;\n"
            "  const int nw = nworkers / WARP_SIZE;\n"
            "  const int lane = threadIdx.x % WARP_SIZE;\n"
            "  float v = __shfl_xor(p[lane], 1);\n"
            "  return lane < MAX_THREADS / WARP_SIZE ? v + total + nw : 0.f;\n"
            "}\n")
    for strategy in ("logical32", "native"):
        got = findings(code, strategy, rule=RULE)
        assert sorted(f.span.line for f in got) == [4, 5]
        assert all(f.fix is None and f.severity.value == "info" for f in got)
