"""W018 warp-synchronous-progress: spin-waits that need independent progress inside a wave."""

import pytest

from tests.wave64.helpers import HEADER, assert_noop, findings, kernel

RULE = "W018"

NOOP = [
    pytest.param(HEADER + "__device__ float amax(float* a, float v) {\n  int* p = (int*)a;\n  int old = *p, assumed;\n"
                 "  do {\n    assumed = old;\n    old = atomicCAS(p, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed))));\n"
                 "  } while (assumed != old);\n  return __int_as_float(old);\n}\n", id="lock-free-cas-retry-loop"),
    pytest.param(kernel("  int i = threadIdx.x;\n  while (i < 100) { p[i] = 0; i += blockDim.x; }\n"),
                 id="grid-stride-loop"),
    pytest.param(kernel("  __shared__ float s[64];\n  s[threadIdx.x] = p[0];\n  __syncthreads();\n"
                        "  if (threadIdx.x < 32) {\n    volatile float* vs = s;\n    vs[threadIdx.x] += vs[threadIdx.x + 32];\n  }\n"),
                 id="volatile-last-warp-reduction"),
    pytest.param(kernel("  __shared__ int flag;\n  while (flag == 0) { __syncthreads(); }\n"),
                 id="wait-with-a-block-barrier"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize("code", [
    pytest.param(HEADER + "__device__ int lock;\n__global__ void k(int* c) {\n"
                 "  while (atomicCAS(&lock, 0, 1) != 0) {}\n  *c += 1;\n  atomicExch(&lock, 0);\n}\n", id="cas-spin-lock"),
    pytest.param(HEADER + "__device__ int lock;\n__global__ void k(int* c) {\n"
                 "  while (atomicExch(&lock, 1)) {}\n  *c += 1;\n  atomicExch(&lock, 0);\n}\n", id="exchange-spin-lock"),
    pytest.param(kernel("  __shared__ volatile int ready;\n  if (threadIdx.x >> 5 == 0) ready = 1;\n"
                        "  else while (ready == 0) {}\n"), id="handoff-between-warps"),
])
def test_reported_for_review_without_a_fix(code: str) -> None:
    fs = findings(code, rule=RULE)
    assert len(fs) == 1 and fs[0].fix is None and fs[0].severity.value == "warning"
    assert "__ffsll(__ballot(1)) - 1" in fs[0].message
