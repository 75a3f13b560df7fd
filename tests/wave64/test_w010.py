"""W010 warp-sync-builtin: __syncwarp, __activemask, __match_any_sync, __reduce_*_sync."""

import pytest

from hipport.wave64.emit import MATCH_ANY, reduce_helper
from hipport.wave64.rules.w010_warp_sync_builtin import SYNCWARP
from tests.wave64.helpers import HEADER, assert_fix, assert_noop, kernel

RULE = "W010"

NOOP = [
    pytest.param(kernel("  __syncthreads();\n  out[0] = __shfl_xor(in[0], 1);\n"), "5.2", id="block-barrier"),
    pytest.param(HEADER + "__device__ int __reduce_mine(int v) { return v; }\n"
                 "__global__ void k(int* p) { p[0] = __reduce_mine(p[0]) + __shfl_xor(p[0], 1); }\n", "5.2",
                 id="user-function-with-a-similar-name"),
    pytest.param(kernel("  __syncwarp();\n  unsigned long long a = __activemask();\n  out[0] = a;\n"), "7.0",
                 id="rocm-7-has-them"),
]

FIX = [
    pytest.param(kernel("  __syncwarp();\n"), kernel(f"  {SYNCWARP};\n"), "native", "5.2",
                 id="syncwarp-is-a-wave-fence-and-barrier"),
    pytest.param(kernel("  unsigned long long a = __activemask();\n  out[0] = a;\n"),
                 kernel("  unsigned long long a = __ballot(1);\n  out[0] = a;\n"), "native", "5.2",
                 id="activemask-is-the-ballot-of-true"),
    pytest.param(kernel("  unsigned long long m = __match_any_sync(__activemask(), in[0]);\n  out[0] = m;\n"),
                 HEADER + MATCH_ANY + kernel("  unsigned long long m = hipport_match_any(in[0]);\n"
                                             "  out[0] = m;\n")[len(HEADER):], "native", "5.2",
                 id="match-any-helper"),
    pytest.param(kernel("  out[0] = __reduce_add_sync(0xffffffff, in[0]) + (threadIdx.x & 31);\n"),
                 HEADER + reduce_helper("add") + kernel(
                     "  out[0] = hipport_reduce_add(in[0], 32) + (threadIdx.x & 31);\n")[len(HEADER):],
                 "logical32", "5.2", id="reduce-over-32-lanes-under-logical32"),
    pytest.param(kernel("  __syncwarp(0xffffffff);\n"), kernel("  __syncwarp(~0ull);\n"), "native", "7.0",
                 id="rocm-7-needs-a-64-bit-mask"),
]


@pytest.mark.parametrize(("code", "rocm"), NOOP)
def test_noop(code: str, rocm: str) -> None:
    assert_noop(code, RULE, rocm=rocm)


@pytest.mark.parametrize(("before", "after", "strategy", "rocm"), FIX)
def test_fix(before: str, after: str, strategy: str, rocm: str) -> None:
    assert_fix(before, after, RULE, strategy, rocm)
