"""W014 launch-32-thread-warp: launches of one 32-thread warp, warpSize in host code."""

import pytest

from hipport.wave64.emit import HOST_WARP_SIZE
from tests.wave64.helpers import HEADER, assert_fix, assert_kept, assert_noop

RULE = "W014"
AGNOSTIC = ("__global__ void k(float* p) {\n  float v = p[threadIdx.x];\n"
            "  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[threadIdx.x] = v;\n}\n")
WARP32 = ("__global__ void k(float* p) {\n  float v = p[threadIdx.x];\n"
          "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  p[threadIdx.x] = v;\n}\n")


def launch(kernel: str, host: str) -> str:
    return HEADER + kernel + f"void run(float* p, int n) {{\n{host}}}\n"


NOOP = [
    pytest.param(launch(AGNOSTIC, "  hipLaunchKernelGGL(k, dim3(n), dim3(256), 0, 0, p);\n"), id="wave-multiple"),
    pytest.param(launch(AGNOSTIC, "  int ws = 64;\n  (void)hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0);\n"
                                  "  hipLaunchKernelGGL(k, dim3(n), dim3(ws), 0, 0, p);\n"), id="queried-wave-size"),
    pytest.param(HEADER + "__global__ void k(float* p) { p[threadIdx.x] = warpSize; }\n", id="warpSize-in-device-code"),
]

FIX = [
    pytest.param(launch(AGNOSTIC, "  hipLaunchKernelGGL(k, dim3(n), dim3(32), 0, 0, p);\n"),
                 HEADER + HOST_WARP_SIZE + launch(
                     AGNOSTIC, "  hipLaunchKernelGGL(k, dim3(n), dim3(hipport_warp_size()), 0, 0, p);\n")[len(HEADER):],
                 "native", id="agnostic-kernel-launches-the-wave-size"),
    pytest.param(launch(AGNOSTIC, "  dim3 block(32, 4);\n  hipLaunchKernelGGL(k, dim3(n), block, 0, 0, p);\n"),
                 HEADER + HOST_WARP_SIZE + launch(
                     AGNOSTIC, "  dim3 block(hipport_warp_size(), 4);\n"
                               "  hipLaunchKernelGGL(k, dim3(n), block, 0, 0, p);\n")[len(HEADER):],
                 "native", id="one-wave-per-row-same-grid"),
    pytest.param(HEADER + "int threads(int w) { return w * warpSize; }\n",
                 HEADER + HOST_WARP_SIZE + "int threads(int w) { return w * hipport_warp_size(); }\n",
                 "logical32", id="warpSize-on-the-host-is-queried"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_one_warp_blocks_are_kept_under_logical32() -> None:
    assert_kept(launch(WARP32, "  hipLaunchKernelGGL(k, dim3(n), dim3(32), 0, 0, p);\n"), RULE, "logical32")


def test_chevron_launch() -> None:
    code = launch(AGNOSTIC, "  k<<<n, 32>>>(p);\n")
    assert_fix(code, HEADER + HOST_WARP_SIZE + launch(AGNOSTIC, "  k<<<n, hipport_warp_size()>>>(p);\n")[len(HEADER):],
               RULE, "native")
