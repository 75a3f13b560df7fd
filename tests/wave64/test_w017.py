"""W017 vote-wave-wide: votes in 32-lane code."""

import pytest

from tests.wave64.helpers import assert_fix, assert_kept, assert_noop, kernel

RULE = "W017"
LANE = "  const int lane = threadIdx.x & 31;\n"

NOOP = [
    pytest.param(kernel("  out[0] = __any(in[0] > 0) + __all(in[0] > 0) + __lane_id();\n"), id="wave-agnostic-votes"),
    pytest.param(kernel(LANE + "  out[lane] = __syncthreads_or(in[0] > 0);\n"), id="block-vote"),
]

FIX = [
    pytest.param(kernel(LANE + "  out[lane] = __any_sync(0xffffffff, in[0] > 0);\n"),
                 kernel(LANE + "  out[lane] = ((unsigned)(__ballot(in[0] > 0) >> (__lane_id() & 32)) != 0);\n"),
                 "logical32", id="any-over-the-callers-half"),
    pytest.param(kernel(LANE + "  out[lane] = __all(in[0] > 0);\n"),
                 kernel(LANE + "  out[lane] = ((unsigned)(__ballot(!(in[0] > 0)) >> (__lane_id() & 32)) == 0);\n"),
                 "logical32", id="all-is-no-false-lane-in-the-half"),
    pytest.param(kernel(LANE + "  out[lane] = __all_sync(0xffffffff, in[0] > 0);\n"),
                 kernel(LANE + "  out[lane] = __all(in[0] > 0);\n"), "native", id="native-wave-vote"),
    pytest.param(kernel(LANE + "  const bool ok = in[0] > 0;\n  out[lane] = __uni_sync(0xffffffff, ok);\n"),
                 kernel(LANE + "  const bool ok = in[0] > 0;\n  out[lane] = (__all(ok) || !__any(ok));\n"),
                 "native", id="uni-has-no-hip-counterpart"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_plain_vote_is_kept_natively() -> None:
    assert_kept(kernel(LANE + "  out[lane] = __any(in[0] > 0);\n"), RULE, "native")
