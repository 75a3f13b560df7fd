"""Golden test over fixtures/wave64: findings against the hand-checked labels, and the rewritten
output per strategy against expected.<strategy>.hip (regenerate with `python -m tests.wave64.regen`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.wave64.helpers import FIXTURES
from tests.wave64.regen import STRATEGIES, findings_for, meta, output_for

FOLDERS = sorted(p for p in FIXTURES.iterdir() if (p / "input.cu").is_file())
CORPUS = sorted(p for p in (FIXTURES / "corpus").iterdir() if p.suffix in (".cu", ".cuh"))


def key(x: dict) -> tuple[str, int, str]:
    return x["rule"], x["line"], x["model"]


def test_every_rule_has_positive_and_lookalike_fixtures() -> None:
    from hipport.wave64.registry import RULES
    names = {p.name for p in FOLDERS}
    for rid in RULES:
        stem = rid.lower()
        assert any(n.startswith(stem + "_") and "lookalike" not in n for n in names), f"no positive fixture for {rid}"
        assert f"{stem}_lookalike" in names, f"no lookalike fixture for {rid}"


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_findings_match_labels(folder: Path) -> None:
    m = meta(folder)
    for strategy in STRATEGIES:
        # a label with "strategy" holds under that strategy only (a launch is rewritten only once
        # its kernel is made wave-agnostic)
        labelled = sorted(key(x) for x in m.get("findings", []) if x.get("strategy", strategy) == strategy)
        spurious = sorted(key(x) for x in m.get("spurious", []) if x.get("strategy", strategy) == strategy)
        missed = {key(x) for x in m.get("missed", []) if x.get("strategy", strategy) == strategy}
        got = sorted((f.rule, f.span.line, f.model) for f in findings_for(folder, strategy))
        assert got == sorted(labelled + spurious), f"{folder.name} [{strategy}]"
        assert not missed & set(got), "a 'missed' label is found now: move it to findings"


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_output_matches(folder: Path, strategy: str) -> None:
    expected = (folder / f"expected.{strategy}.hip").read_text()
    assert output_for(folder, strategy) == expected


@pytest.mark.parametrize("folder", [p for p in FOLDERS if "lookalike" in p.name],
                         ids=[p.name for p in FOLDERS if "lookalike" in p.name])
def test_lookalikes_are_not_reported_for_their_rule(folder: Path) -> None:
    rule = folder.name.split("_")[0].upper()
    for strategy in STRATEGIES:
        assert not [f for f in findings_for(folder, strategy) if f.rule == rule]


def test_every_finding_names_its_function_and_model() -> None:
    for folder in FOLDERS:
        for f in findings_for(folder, "logical32"):
            assert f.model in ("warp32", "agnostic", "mixed"), (folder.name, f)
            assert f.message and f.rule.startswith("W")


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_held_out_corpus_matches_its_hand_labels(path: Path) -> None:
    from hipport.config import Config
    from hipport.source import SourceFile
    from hipport.wave64 import run
    m = json.loads(path.with_name(path.name + ".json").read_text())
    got = sorted((f.rule, f.span.line, f.model) for f in run(SourceFile(str(path), path.read_bytes()), Config()))
    auto = [x for x in m["findings"] + m["spurious"] if "strategy" not in x]  # the default strategy is auto
    assert got == sorted(map(key, auto))
    assert not set(map(key, m["missed"])) & set(got)


def test_labels_are_well_formed() -> None:
    for folder in FOLDERS:
        m = json.loads((folder / "expected.json").read_text())
        assert set(m) <= {"config", "compile", "findings", "missed", "spurious"}, folder.name
        for x in m["findings"] + m.get("missed", []) + m.get("spurious", []):
            assert {"rule", "line", "model"} <= set(x) <= {"rule", "line", "model", "strategy", "why"}, (folder.name, x)
            assert x.get("strategy", "logical32") in STRATEGIES, (folder.name, x)
