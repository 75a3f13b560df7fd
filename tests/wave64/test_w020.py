"""W020 amdgcn-wavefront-size-macro: __AMDGCN_WAVEFRONT_SIZE is gone in ROCm 7.2."""

import pytest

from hipport.wave64.emit import PRELUDE
from tests.wave64.helpers import HEADER, assert_fix, assert_noop, findings, kernel

RULE = "W020"

NOOP = [
    pytest.param(kernel("  // __AMDGCN_WAVEFRONT_SIZE is gone\n  const char* s = \"__AMDGCN_WAVEFRONT_SIZE\";\n"
                        "  p[0] = s[0];\n"), id="comment-and-string"),
    pytest.param(kernel("  p[0] = warpSize;\n"), id="warpSize"),
]

FIX = [
    pytest.param(kernel("  p[threadIdx.x % __AMDGCN_WAVEFRONT_SIZE] = 0;\n"),
                 HEADER + PRELUDE + kernel("  p[threadIdx.x % HIPPORT_WAVE_SIZE] = 0;\n")[len(HEADER):],
                 "native", id="value-use-becomes-the-arch-constant"),
    pytest.param(HEADER + "#ifdef __AMDGCN_WAVEFRONT_SIZE\nint amd = 1;\n#endif\n",
                 HEADER + "#ifdef __HIP_PLATFORM_AMD__\nint amd = 1;\n#endif\n", "native", id="defined-test-asks-is-this-amd"),
    pytest.param(HEADER + "#if __AMDGCN_WAVEFRONT_SIZE__ == 64\nint wide = 1;\n#endif\n",
                 HEADER + PRELUDE + "#if HIPPORT_WAVE_SIZE == 64\nint wide = 1;\n#endif\n", "native",
                 id="trailing-underscore-spelling-in-if"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_use_before_the_includes_has_no_fix() -> None:
    code = "#if __AMDGCN_WAVEFRONT_SIZE == 64\n#define W 64\n#endif\n" + HEADER
    fs = findings(code, rule=RULE)
    assert len(fs) == 1 and fs[0].fix is None
