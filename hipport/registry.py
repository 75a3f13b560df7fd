"""The rule registry: every rule hipport reports (HP and W) and every kind of fix it emits.

One table, as data in rules/registry.toml: id, name, default severity, how the rule's fixes are
applied, summary, and the fix kinds (Edit.rule) its findings carry; the translate pass's own
edits are fix kinds too. Code names rules by the typed constants below (`HP.UNSUPPORTED_API`,
`W.LANE_ID_MASK_31`, `FixKind.RENAME`), never by a string: tests/test_registry.py checks the
constants against the table and that no other module spells an id. The pages are
rules/docs/HPNNN.md (rendered from rules/docs/hp.toml by hipport.pages) and rules/wave64/WNNN.md
(rendered from the rule modules by hipport.wave64.pages).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from hipport.model import Applicability, Severity
from hipport.paths import rules_dir


class HP:
    """HP rule ids: API, build and tool findings."""

    UNSUPPORTED_API: Final = "HP001"
    UNKNOWN_CUDA_NAME: Final = "HP002"
    NEEDS_NEWER_ROCM: Final = "HP003"
    DEPRECATED_API: Final = "HP004"
    PARSE_ERROR: Final = "HP005"
    OVERLAPPING_REWRITES: Final = "HP006"
    EXPERIMENTAL_API: Final = "HP007"
    UNMAPPED_HEADER: Final = "HP008"
    DEVICE_SYSTEM_MACRO: Final = "HP009"
    UNREADABLE_FILE: Final = "HP010"
    WRITTEN_FOR_HIP: Final = "HP011"
    NVCC_OPTION: Final = "HP012"
    BUILD_NOT_PORTED: Final = "HP013"
    BUILD_LIBRARY: Final = "HP014"
    BUILD_FILE_HIP: Final = "HP015"
    CHECK_LIBRARY_ARGUMENTS: Final = "HP016"
    ALREADY_HIP: Final = "HP017"
    DECLARES_CUDA_TYPE: Final = "HP018"
    VECTOR_OPERATOR_CLASH: Final = "HP019"
    UNSUPPORTED_ON_TARGET: Final = "HP020"
    INCLUDE_NOT_FOUND: Final = "HP021"
    AMD_ONLY_API: Final = "HP022"
    UNUSED_SUPPRESSION: Final = "HP900"
    UNKNOWN_SUPPRESSION_RULE: Final = "HP901"


class W:
    """W rule ids: the wave64 rules (one module each under hipport/wave64/rules)."""

    SYNC_MASK_32BIT: Final = "W001"
    BALLOT_STORED_32BIT: Final = "W002"
    MASK_BITOP_32BIT: Final = "W003"
    LANE_ID_MASK_31: Final = "W004"
    WARP_ID_SHIFT_5: Final = "W005"
    SHUFFLE_LOOP_FROM_16: Final = "W006"
    SHARED_ARRAY_WARP_SIZED: Final = "W007"
    WARP_SIZE_CONSTANT: Final = "W008"
    COOP_GROUPS_TILE_32: Final = "W009"
    WARP_SYNC_BUILTIN: Final = "W010"
    LANE_MASK_SHIFT_32BIT: Final = "W011"
    INLINE_PTX_WARP: Final = "W012"
    CUB_WARP_DEFAULT_WIDTH: Final = "W013"
    LAUNCH_32_THREAD_WARP: Final = "W014"
    HALF_WARP_16: Final = "W015"
    SHUFFLE_DEFAULT_WIDTH: Final = "W016"
    VOTE_WAVE_WIDE: Final = "W017"
    WARP_SYNCHRONOUS_PROGRESS: Final = "W018"
    WAVE_SIZE_64_HARDCODED: Final = "W019"
    AMDGCN_WAVEFRONT_SIZE_MACRO: Final = "W020"
    SHFL_SOURCE_WRAP: Final = "W021"


class FixKind:
    """The translate pass's own edit kinds (Edit.rule); wave64 fixes are kinds named by their rule."""

    RENAME: Final = "HP-rename"
    INCLUDE: Final = "HP-include"
    LAUNCH: Final = "HP-launch"
    ARGS: Final = "HP-args"
    ARGS_ORDER: Final = "HP-args-order"
    ATOMICS: Final = "HP-atomics"
    DEVICEPTR: Final = "HP-deviceptr"
    LITERAL: Final = "HP-literal"
    PTX: Final = "HP-ptx"
    PORTABLE: Final = "HP-portable"
    ROUNDING: Final = "HP-rounding"
    TEXFETCH: Final = "HP-texfetch"
    BF16: Final = "HP-bf16"
    TILESHFL: Final = "HP-tileshfl"


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str  # kebab-case, valid in `// hipport: ignore[NAME]`
    summary: str
    path: Path | None = None  # the documentation page
    severity: Severity = Severity.WARNING  # the default
    applicability: tuple[Applicability, ...] = ()  # of the fixes its findings carry; () = reports only
    fixes: tuple[str, ...] = ()  # fix kinds (Edit.rule) its findings carry
    report_only: str = ""  # why a rule never fixes

    @property
    def wave64(self) -> bool:
        return self.id.startswith("W")

    @property
    def text(self) -> str:
        """The documentation page (a line of summary when there is none)."""
        if self.path is None or not self.path.is_file():
            return f"# {self.id}: {self.name}\n\n{self.summary}\n"
        return self.path.read_text(encoding="utf-8")


def _table() -> dict:
    with (rules_dir() / "registry.toml").open("rb") as f:
        return tomllib.load(f)


@cache
def rules() -> dict[str, Rule]:
    """id -> rule, in id order (HP before W)."""
    base = rules_dir()
    out: dict[str, Rule] = {}
    for rid, row in _table()["rules"].items():
        page = base / ("wave64" if rid.startswith("W") else "docs") / f"{rid}.md"
        out[rid] = Rule(rid, row["name"], row["summary"], page if page.is_file() else None,
                        Severity(row["severity"]), tuple(Applicability(a) for a in row["applicability"]),
                        tuple(row["fixes"]), row.get("report_only", ""))
    return dict(sorted(out.items()))


@cache
def translate_fix_kinds() -> dict[str, str]:
    """The translate pass's edit kinds -> what each writes."""
    return dict(_table()["fix-kinds"])


def fix_kinds() -> tuple[str, ...]:
    """Every kind of fix hipport emits: the rules' (in id order), then the translate pass's."""
    return (*(k for r in rules().values() for k in r.fixes), *translate_fix_kinds())


@cache
def names() -> dict[str, str]:
    """kebab-case name -> id, for every rule."""
    return {r.name: rid for rid, r in rules().items()}


def find(query: str) -> Rule | None:
    """A rule by id (`W004`, any case) or by name (`lane-id-mask-31`)."""
    q = query.strip()
    table = rules()
    rid = q.upper() if q.upper() in table else names().get(q.lower())
    return table[rid] if rid is not None else None
