"""W009 coop-groups-tile-32: 32-thread tiles as the warp, tile members HIP 5.x lacks."""

import pytest

from hipport.wave64.emit import PRELUDE
from tests.wave64.helpers import HEADER, assert_fix, assert_kept, assert_noop, findings

RULE = "W009"
CG = HEADER + "#include <hip/hip_cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"


def tile(body: str, size: str = "32") -> str:
    return (CG + "__global__ void k(float* p, int* out) {\n"
            f"  auto t = cg::tiled_partition<{size}>(cg::this_thread_block());\n{body}}}\n")


NOOP = [
    pytest.param(tile("  p[0] = t.shfl_xor(p[0], 1);\n", "16"), id="sixteen-lane-tile"),
    pytest.param(tile("  p[0] = t.shfl_xor(p[0], 1);\n", "HIPPORT_WAVE_SIZE"), id="tile-of-the-wave"),
]

FIX = [
    pytest.param(tile("  unsigned b = t.ballot(p[0] > 0.f);\n  out[0] = b;\n"),
                 tile("  unsigned b = (unsigned)(__ballot(p[0] > 0.f) >> (__lane_id() & 32));\n  out[0] = b;\n"),
                 "logical32", id="tile-ballot-is-the-callers-half"),
    pytest.param(tile("  out[0] = t.any(p[0] > 0.f) + t.all(p[0] > 1.f);\n"),
                 tile("  out[0] = ((unsigned)(__ballot(p[0] > 0.f) >> (__lane_id() & 32)) != 0)"
                      " + ((unsigned)(__ballot(!(p[0] > 1.f)) >> (__lane_id() & 32)) == 0);\n"),
                 "logical32", id="tile-votes-on-the-callers-half"),
    pytest.param(tile("  p[0] = t.shfl_down(p[0], 1);\n"),
                 tile("  p[0] = t.shfl_down(p[0], 1);\n", "HIPPORT_WAVE_SIZE").replace(
                     "groups.h>\n", "groups.h>\n" + PRELUDE),
                 "native", id="native-tiles-the-wave"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_tile_of_32_is_kept_under_logical32() -> None:
    assert_kept(tile("  p[0] = t.shfl_down(p[0], 1);\n"), RULE, "logical32")


def test_tile_members_exist_with_a_7_0_floor() -> None:
    assert_kept(tile("  out[0] = t.any(p[0] > 0.f);\n"), RULE, "logical32", rocm="7.0")


def coalesced(body: str) -> str:
    return (CG + "__global__ void k(float* p, int* out) {\n"
            f"  cg::coalesced_group g = cg::coalesced_threads();\n{body}}}\n")


@pytest.mark.parametrize("member", ["ballot", "any", "all", "match_any"])
def test_coalesced_group_votes_are_reported_below_7_0(member: str) -> None:
    """HIP 5.x has none of them and HIP 6.2-6.4 only with HIP_ENABLE_WARP_SYNC_BUILTINS; the
    group's ballot packs its members by rank, so no plain wave operation is written."""
    code = coalesced(f"  out[0] = (int)g.{member}(p[0] > 0.f);\n")
    for rocm in ("5.2", "6.4"):
        got = findings(code, "logical32", rocm, RULE)
        assert len(got) == 1 and got[0].fix is None and f"coalesced_group::{member}" in got[0].message
    assert not findings(code, "logical32", "7.0", RULE)


def test_coalesced_group_shuffles_and_size_are_not_votes() -> None:
    assert_noop(coalesced("  p[0] = g.shfl(p[0], 0) + g.size() + g.thread_rank();\n"), RULE)
