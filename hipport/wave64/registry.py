"""The wave64 rules by id and name, each with its module: the W rows of the rule registry
(hipport/registry.py, rules/registry.toml) joined to the modules `wNNN_<name>.py` of
hipport.wave64.rules that hold their code and documentation.

A name describes the hazard pattern (it reads as "allow <name>"), and is valid in suppression
comments: `// hipport: ignore[W004]` and `// hipport: ignore[lane-id-mask-31]` are the same.
`tests/wave64/test_registry.py` checks the modules against the table, and their pages in
`rules/wave64/*.md`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from hipport import registry
from hipport.model import Severity


@dataclass(frozen=True)
class RuleInfo:
    id: str
    name: str
    module: str  # under hipport.wave64.rules: w004_lane_id_mask_31
    summary: str
    severity: Severity  # when the site needs a change; "kept" sites are reported as info

    def load(self) -> ModuleType:
        return _load(self.module)


@cache
def _load(module: str) -> ModuleType:
    return importlib.import_module(f"hipport.wave64.rules.{module}")


_TABLE: tuple[RuleInfo, ...] = tuple(
    RuleInfo(r.id, r.name, f"{r.id.lower()}_{r.name.replace('-', '_')}", r.summary, r.severity)
    for r in registry.rules().values() if r.wave64)

RULES: dict[str, RuleInfo] = {r.id: r for r in _TABLE}  # id -> rule, in id order
BY_ID = RULES
BY_NAME: dict[str, RuleInfo] = {r.name: r for r in _TABLE}


def lookup(key: str) -> RuleInfo | None:
    """A rule by id (`W004`, any case) or by name (`lane-id-mask-31`)."""
    return BY_ID.get(key.upper()) or BY_NAME.get(key.lower())
