"""Every rule id hipport can report has a documentation page with the required headings."""

from __future__ import annotations

import pytest

from hipport.ruledocs import all_rules
from tests.conftest import hipport

REQUIRED = ("## What it does", "## Why is this bad?", "## Example", "## Fix safety")


@pytest.mark.parametrize("rule", sorted(all_rules()))
def test_rule_has_a_doc_with_required_headings(rule: str) -> None:
    doc = all_rules()[rule]
    assert doc.path is not None, f"{rule} has no page under rules/"
    text = doc.text
    assert text.startswith(f"# {rule}: {doc.name}\n")
    positions = [text.find(h) for h in REQUIRED]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), rule


def test_explain_prints_the_page_by_id_or_name() -> None:
    r = hipport("explain", "HP001")
    assert r.returncode == 0 and b"## What it does" in r.stdout
    assert hipport("explain", "unsupported-api").stdout == r.stdout
    bad = hipport("explain", "W999")
    assert bad.returncode == 2 and b"unknown rule" in bad.stderr
