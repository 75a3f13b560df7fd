"""The rule registry (hipport/registry.py, rules/registry.toml) against the code that uses it."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from hipport import registry
from hipport.model import Applicability
from hipport.registry import HP, FixKind, W
from tests.conftest import ROOT


def _constants(cls: type) -> dict[str, str]:
    return {k: v for k, v in vars(cls).items() if k.isupper()}


def test_constants_are_the_table() -> None:
    """HP.UNSUPPORTED_API is "HP001", named after the rule's name: one constant per row."""
    rows = registry.rules()
    for cls, prefix in ((HP, "HP"), (W, "W")):
        consts = _constants(cls)
        assert sorted(consts.values()) == sorted(r for r in rows if re.fullmatch(prefix + r"\d{3}", r))
        for attr, rid in consts.items():
            assert attr == rows[rid].name.upper().replace("-", "_"), (attr, rid)
    kinds = _constants(FixKind)
    assert sorted(kinds.values()) == sorted(registry.translate_fix_kinds())
    for attr, kind in kinds.items():
        assert attr == kind.removeprefix("HP-").upper().replace("-", "_")


def test_rows_are_complete() -> None:
    names = [r.name for r in registry.rules().values()]
    assert len(set(names)) == len(names)
    for r in registry.rules().values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", r.name), r.name
        assert r.summary and r.path is not None, r.id
        assert bool(r.fixes) == bool(r.applicability), f"{r.id}: fixes and applicability go together"
        assert bool(r.report_only) == (r.wave64 and not r.fixes), f"{r.id}: a report-only W rule says why"
    assert registry.find("w006") is registry.rules()["W006"]
    assert registry.find("unsupported-api") is registry.rules()["HP001"]
    assert registry.find("nope") is None


def test_fix_kinds_are_unique() -> None:
    kinds = registry.fix_kinds()
    assert len(set(kinds)) == len(kinds)
    assert W.LANE_ID_MASK_31 in kinds and FixKind.RENAME in kinds and W.HALF_WARP_16 not in kinds


def _literals(path: Path) -> list[tuple[int, str]]:
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.STRING and re.fullmatch(r"""['"](HP\d{3}|W\d{3}|HP-[a-z-]+)['"]""", tok.string):
            out.append((tok.start[0], tok.string))
    return out


def test_no_module_spells_a_rule_id() -> None:
    """Passes and views name rules by the registry's constants, so that an id lives in one place."""
    found = [f"{p.relative_to(ROOT)}:{line}: {s}" for p in sorted((ROOT / "hipport").rglob("*.py"))
             if p.name != "registry.py" for line, s in _literals(p)]
    assert not found, "use hipport.registry's HP, W or FixKind:\n" + "\n".join(found)


@pytest.mark.parametrize("strategy", ["logical32", "native"])
def test_wave64_fixes_carry_the_declared_applicability(strategy: str) -> None:
    from tests.wave64.helpers import FIXTURES, findings

    rows = registry.rules()
    for folder in sorted(p for p in FIXTURES.iterdir() if (p / "input.cu").is_file()):
        for f in findings((folder / "input.cu").read_text(), strategy):
            if f.fix is not None and f.fix.edits:
                assert f.fix.applicability in rows[f.rule].applicability, (folder.name, f.rule)
    assert Applicability.REVIEW in rows[W.LANE_ID_MASK_31].applicability
