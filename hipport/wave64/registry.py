"""The table of wave64 rules, id <-> kebab-case name <-> module, read from the rule modules.

A name describes the hazard pattern (it reads as "allow <name>"), and is valid in suppression
comments: `// hipport: ignore[W004]` and `// hipport: ignore[lane-id-mask-31]` are the same.
`tests/wave64/test_registry.py` checks the modules and their pages in `rules/wave64/*.md`.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
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


@cache
def _load(module: str) -> ModuleType:
    return importlib.import_module(f"hipport.wave64.rules.{module}")


def _discover() -> tuple[RuleInfo, ...]:
    """Every module `wNNN_<name>.py` of hipport.wave64.rules is a rule: its RULE, NAME,
    SUMMARY and SEVERITY say what it is (adding a rule is adding its module)."""
    from hipport.wave64 import rules as package

    found = []
    for m in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not re.fullmatch(r"w\d{3}_\w+", m.name):
            continue
        mod = _load(m.name)
        found.append(RuleInfo(mod.RULE, mod.NAME, m.name, mod.SUMMARY, mod.SEVERITY))
    return tuple(found)


_TABLE: tuple[RuleInfo, ...] = _discover()

RULES: dict[str, RuleInfo] = {r.id: r for r in _TABLE}  # id -> rule, in id order
BY_ID = RULES
BY_NAME: dict[str, RuleInfo] = {r.name: r for r in _TABLE}


def lookup(key: str) -> RuleInfo | None:
    """A rule by id (`W004`, any case) or by name (`lane-id-mask-31`)."""
    return BY_ID.get(key.upper()) or BY_NAME.get(key.lower())
