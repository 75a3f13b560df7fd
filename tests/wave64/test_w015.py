"""W015 half-warp-16: 16-lane half-warp bit tricks on wave masks."""

import pytest

from tests.wave64.helpers import assert_kept, assert_noop, findings, kernel

RULE = "W015"

NOOP = [
    pytest.param(kernel("  unsigned x = in[0];\n  out[0] = (x >> 16) + (x & 0xffff) + __shfl_xor(in[0], 1);\n"),
                 id="half-words-of-data"),
    pytest.param(kernel("  p[0] = __shfl_xor(p[0], 8, 16);\n"), id="width-16-shuffle-is-sub-wave-everywhere"),
]

HALVES = ("  const int lane = threadIdx.x & 31;\n  const unsigned b = __ballot(in[0] > 0);\n"
          "  out[lane] = lane < 16 ? __popc(b & 0xffff) : __popc(b >> 16);\n")


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


def test_kept_under_logical32_where_the_mask_is_the_callers_half() -> None:
    assert_kept(kernel(HALVES), RULE, "logical32")


def test_reported_for_review_natively() -> None:
    fs = findings(kernel(HALVES), "native", rule=RULE)
    # both halves sit on one line: one report per rule per line names them both
    assert len(fs) == 1 and all(f.fix is None and f.severity.value == "warning" for f in fs)
    assert "__lane_id() & ~15" in fs[0].message and "; also " in fs[0].message


def test_partial_sync_mask() -> None:
    fs = findings(kernel("  out[0] = __ballot_sync(0x0000ffff, in[0] > 0) != 0;\n"), "native", rule=RULE)
    assert [f.span.line for f in fs] == [3]
