"""W019 wave-size-64-hardcoded: the CDNA wave size hard-coded for every AMD GPU."""

import pytest

from hipport.wave64.emit import PRELUDE
from tests.wave64.helpers import HEADER, applicability, assert_fix, assert_noop, kernel

RULE = "W019"
AMD64 = "#if defined(__HIP_PLATFORM_AMD__)\n#define WARP_SIZE 64\n#else\n#define WARP_SIZE 32\n#endif\n"
USE = "  p[threadIdx.x % WARP_SIZE] = __shfl_xor(p[0], 1);\n"

NOOP = [
    pytest.param(kernel("  __shared__ float s[BLOCK];\n  s[0] = __shfl_xor(p[0], 1);\n  p[0] = s[1];\n",
                        head="#define BLOCK 64\n"), id="sixty-four-that-is-no-wave-size"),
    pytest.param(kernel(USE, head="#if defined(__GFX8__) || defined(__GFX9__)\n#define WARP_SIZE 64\n#else\n"
                                  "#define WARP_SIZE 32\n#endif\n"), id="selected-by-architecture"),
]

FIX = [
    pytest.param(kernel(USE, head=AMD64),
                 HEADER + PRELUDE + kernel(USE, head=AMD64.replace("WARP_SIZE 64", "WARP_SIZE HIPPORT_WAVE_SIZE"))[len(HEADER):],
                 "native", id="platform-macro-is-not-the-architecture"),
    pytest.param(kernel("  p[0] = __shfl_xor(p[0], 1, 64);\n"), kernel("  p[0] = __shfl_xor(p[0], 1, warpSize);\n"),
                 "native", id="shuffle-width-64"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_safe_because_the_value_is_right_on_every_gpu() -> None:
    assert applicability(kernel(USE, head=AMD64), RULE) == {"safe"}
