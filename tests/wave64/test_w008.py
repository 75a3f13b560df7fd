"""W008 warp-size-constant: constants of 32, and warpSize in constant expressions."""

import pytest

from hipport.wave64.emit import PRELUDE
from tests.wave64.helpers import HEADER, assert_fix, assert_kept, assert_noop, kernel

RULE = "W008"
USE = "  const int lane = threadIdx.x % WARP_SIZE;\n  p[lane] = __shfl_xor(p[0], 1);\n"

NOOP = [
    pytest.param(kernel("  p[0] = TILE_DIM * NUM_WARPS * kBankCount + __shfl_xor(p[0], 1);\n",
                        head="#define TILE_DIM 32\n#define NUM_WARPS 32\nconstexpr int kBankCount = 32;\n"),
                 id="thirty-two-that-is-no-warp-size"),
    pytest.param(kernel("  for (int i = threadIdx.x % warpSize; i < 64; i += warpSize) p[i] = __shfl_xor(p[i], 1);\n"),
                 id="run-time-warpSize-is-fine"),
    pytest.param(kernel("  p[0] = WAVE + __shfl_xor(p[0], 1);\n",
                        head="#if defined(__GFX8__) || defined(__GFX9__)\n#define WAVE 64\n#else\n#define WAVE 32\n#endif\n"),
                 id="per-architecture-constant"),
    pytest.param(kernel("  p[0] = __shfl_xor(p[0], 1);\n",
                        head="#ifdef __HIP_PLATFORM_NVIDIA__\n#define WARP_SIZE 32\n#endif\n"),
                 id="defined-only-for-hip-on-nvidia"),
]

FIX = [
    pytest.param(kernel(USE, head="#define WARP_SIZE 32\n"),
                 HEADER + PRELUDE + kernel(USE, head="#define WARP_SIZE HIPPORT_WAVE_SIZE\n")[len(HEADER):],
                 "native", id="native-uses-the-per-architecture-constant"),
    pytest.param(kernel("  __shared__ float s[warpSize];\n  s[0] = __shfl_xor(p[0], 1);\n  p[0] = s[1];\n"),
                 HEADER + PRELUDE + kernel("  __shared__ float s[HIPPORT_WAVE_SIZE];\n"
                                           "  s[0] = __shfl_xor(p[0], 1);\n  p[0] = s[1];\n")[len(HEADER):],
                 "native", id="warpSize-as-an-array-bound-fails-on-rocm-7"),
    pytest.param(HEADER + "__device__ constexpr int ws() { return warpSize; }\n",
                 HEADER + PRELUDE + "__device__ constexpr int ws() { return HIPPORT_WAVE_SIZE; }\n",
                 "native", id="constexpr-function-returning-warpSize"),
    pytest.param(kernel("  const int lane = threadIdx.x & 31;\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);\n  p[lane] = v / warpSize;\n"),
                 kernel("  const int lane = threadIdx.x & 31;\n  float v = p[0];\n"
                        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);\n  p[lane] = v / 32;\n"),
                 "logical32", id="mixed-kernel-as-logical32-turns-warpSize-into-32"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


@pytest.mark.parametrize("head", ["#define WARP_SIZE 32\n", "constexpr int WARP_SIZE = 32;\n",
                                  "enum { WARP_SIZE = 32 };\n"])
def test_logical_warp_size_is_kept_under_logical32(head: str) -> None:
    assert_kept(kernel(USE, head=head), RULE, "logical32")


def test_cudacc_guards_the_gpu_code_of_a_cuda_source() -> None:
    """`#ifdef __CUDACC__` in CUDA means "compiled for the GPU": ported, that code is HIP code."""
    code = kernel(USE, head="#ifdef __CUDACC__\n#define WARP_SIZE 32\n#endif\n")
    assert_kept(code, RULE, "logical32")


def test_a_constexpr_warp_size_function_of_a_header_sizes_its_callers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`constexpr int warp_size() { return 32; }` in an included header is a warp-size constant:
    its calls are, a variable of the same name is not."""
    from hipport.closure import Closure
    from hipport.config import Config
    from hipport.source import SourceFile
    from hipport.wave64 import run

    header = str(tmp_path / "cfg.cuh")
    code = ("#include <hip/hip_runtime.h>\n#include \"cfg.cuh\"\n"
            "__global__ void k(float* p, int warp_size) {\n"
            "  __shared__ float s[256 / cfg::warp_size()];\n"
            "  const int w = threadIdx.x / cfg::warp_size();\n"
            "  float v = __shfl_xor(p[threadIdx.x], 1);\n"
            "  s[w] = v;\n"
            "  p[threadIdx.x] = s[threadIdx.x / warp_size];\n"
            "}\n")
    src = SourceFile(str(tmp_path / "k.cu"), code.encode(), closure=Closure(str(tmp_path / "k.cu"), {
        header: b"namespace cfg {\n__device__ constexpr int warp_size() noexcept { return 32; }\n}\n"}))
    got = {(f.rule, f.span.line) for f in run(src, Config())}
    assert {("W007", 4), ("W005", 5)} <= got
    assert not any(line == 8 for _r, line in got)
