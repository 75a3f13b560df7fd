"""Every rule id hipport can report has a documentation page with the required headings."""

from __future__ import annotations

import pytest

from hipport import registry
from tests.conftest import hipport

REQUIRED = ("## What it does", "## Why is this bad?", "## Example", "## Fix safety")


@pytest.mark.parametrize("rule", sorted(registry.rules()))
def test_rule_has_a_doc_with_required_headings(rule: str) -> None:
    doc = registry.rules()[rule]
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


def test_hp_pages_are_rendered_from_their_data() -> None:
    """rules/docs/HPNNN.md are what rules/docs/hp.toml gives (`python -m hipport.pages`)."""
    from hipport import pages

    assert pages.stale() == []
    on_disk = sorted(p.stem for p in pages.pages_dir().glob("HP*.md"))
    assert on_disk == pages.hp_ids(), "a page with no row in rules/registry.toml, or a row with no page"
