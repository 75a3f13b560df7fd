"""The one table of wave64 rules: id <-> kebab-case name <-> module.

A name describes the hazard pattern (it reads as "allow <name>"), and is valid in suppression
comments: `// hipport: ignore[W004]` and `// hipport: ignore[lane-id-mask-31]` are the same.
`tests/wave64/test_registry.py` checks this table against `rules/wave64/*.md` and the modules.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from hipport.model import Severity


@dataclass(frozen=True)
class RuleInfo:
    id: str
    name: str
    module: str  # under hipport.wave64.rules
    summary: str
    severity: Severity  # when the site needs a change; "kept" sites are reported as info

    def load(self) -> ModuleType:
        return _load(self.module)


_TABLE: tuple[RuleInfo, ...] = (
    RuleInfo("W001", "sync-mask-32bit", "w001_sync_mask_32bit",
             "32-bit mask in a *_sync warp call, or a *_sync call the ROCm floor lacks", Severity.ERROR),
    RuleInfo("W002", "ballot-stored-32bit", "w002_ballot_stored_32bit",
             "ballot / activemask / match result kept in a 32-bit type", Severity.WARNING),
    RuleInfo("W003", "mask-bitop-32bit", "w003_mask_bitop_32bit",
             "__popc / __ffs / __clz / __brev and 31/32 constants applied to a wave mask", Severity.WARNING),
    RuleInfo("W004", "lane-id-mask-31", "w004_lane_id_mask_31",
             "lane id computed as tid & 31 or tid % 32", Severity.WARNING),
    RuleInfo("W005", "warp-id-shift-5", "w005_warp_id_shift_5",
             "warp id / warp count computed with >> 5 or / 32", Severity.WARNING),
    RuleInfo("W006", "shuffle-loop-from-16", "w006_shuffle_loop_from_16",
             "shuffle reduction or scan sized for 32 lanes with the default width", Severity.WARNING),
    RuleInfo("W007", "shared-array-warp-sized", "w007_shared_array_warp_sized",
             "__shared__ array sized by 32 and indexed per lane or per warp", Severity.WARNING),
    RuleInfo("W008", "warp-size-constant", "w008_warp_size_constant",
             "hard-coded warp size 32, or warpSize where a constant expression is required", Severity.WARNING),
    RuleInfo("W009", "coop-groups-tile-32", "w009_coop_groups_tile_32",
             "cooperative-groups tile of 32 used as the warp; tile members HIP lacks", Severity.WARNING),
    RuleInfo("W010", "warp-sync-builtin", "w010_warp_sync_builtin",
             "__syncwarp / __activemask / __match_*_sync / __reduce_*_sync the ROCm floor lacks", Severity.ERROR),
    RuleInfo("W011", "lane-mask-shift-32bit", "w011_lane_mask_shift_32bit",
             "lane mask built with a 32-bit shift by a lane number", Severity.WARNING),
    RuleInfo("W012", "inline-ptx-warp", "w012_inline_ptx_warp",
             "inline PTX in device code (%laneid, %lanemask_*, activemask, shfl.sync, vote)", Severity.ERROR),
    RuleInfo("W013", "cub-warp-default-width", "w013_cub_warp_default_width",
             "CUB / hipCUB warp primitive with the default logical warp width", Severity.WARNING),
    RuleInfo("W014", "launch-32-thread-warp", "w014_launch_32_thread_warp",
             "launch configuration meaning one 32-thread warp; warpSize in host code", Severity.WARNING),
    RuleInfo("W015", "half-warp-16", "w015_half_warp_16",
             "16-lane half-warp bit tricks on a wave mask", Severity.WARNING),
    RuleInfo("W016", "shuffle-default-width", "w016_shuffle_default_width",
             "broadcast, rotate or last-lane shuffle with the default width in 32-lane code", Severity.WARNING),
    RuleInfo("W017", "vote-wave-wide", "w017_vote_wave_wide",
             "__any / __all / __uni vote in 32-lane code", Severity.WARNING),
    RuleInfo("W018", "warp-synchronous-progress", "w018_warp_synchronous_progress",
             "spin-wait or handshake that needs independent progress inside a wave", Severity.WARNING),
    RuleInfo("W019", "wave-size-64-hardcoded", "w019_wave_size_64_hardcoded",
             "wave size hard-coded to 64 for every AMD GPU (wrong on RDNA)", Severity.WARNING),
    RuleInfo("W020", "amdgcn-wavefront-size-macro", "w020_amdgcn_wavefront_size_macro",
             "__AMDGCN_WAVEFRONT_SIZE, deprecated in ROCm 6.4 and removed in 7.2", Severity.ERROR),
    RuleInfo("W021", "shfl-source-wrap", "w021_shfl_source_wrap",
             "__shfl source lane that can reach the width (HIP before 5.7 does not wrap it)", Severity.WARNING),
)

RULES: dict[str, RuleInfo] = {r.id: r for r in _TABLE}  # id -> rule, in id order
BY_ID = RULES
BY_NAME: dict[str, RuleInfo] = {r.name: r for r in _TABLE}


@cache
def _load(module: str) -> ModuleType:
    return importlib.import_module(f"hipport.wave64.rules.{module}")


def lookup(key: str) -> RuleInfo | None:
    """A rule by id (`W004`, any case) or by name (`lane-id-mask-31`)."""
    return BY_ID.get(key.upper()) or BY_NAME.get(key.lower())
