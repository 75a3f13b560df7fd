"""The rule table against the rule modules and the rule docs."""

from __future__ import annotations

import pkgutil
import re

import pytest

from hipport.config import KEYS
from hipport.wave64.registry import BY_NAME, RULES, lookup
from hipport.wave64.ruledoc import HEADINGS, Doc, pages_dir, render

DOCS_DIR = pages_dir()


def test_ids_run_from_w001_in_order_without_gaps() -> None:
    assert len(RULES) >= 21 and list(RULES) == [f"W{i:03d}" for i in range(1, len(RULES) + 1)]


def test_names_are_unique_kebab_case() -> None:
    assert len(BY_NAME) == len(RULES)
    for r in RULES.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", r.name), r.name


@pytest.mark.parametrize("rid", list(RULES))
def test_module_has_check(rid: str) -> None:
    """A rule is its module (code, id and documentation) and its row in the registry."""
    mod = RULES[rid].load()
    assert callable(mod.check)
    assert mod.RULE == rid
    assert RULES[rid].module.startswith(rid.lower() + "_")
    assert RULES[rid].module == rid.lower() + "_" + RULES[rid].name.replace("-", "_")
    assert isinstance(mod.DOC, Doc) and RULES[rid].summary and mod.DOC.before.startswith("#include")


def test_every_rule_module_has_a_registry_row() -> None:
    """A module `wNNN_<name>.py` with no row in rules/registry.toml would never run."""
    from hipport.wave64 import rules as package

    found = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if re.fullmatch(r"w\d{3}_\w+", m.name))
    assert found == [r.module for r in RULES.values()]


def test_lookup_by_id_or_name() -> None:
    assert lookup("w006") is RULES["W006"]
    assert lookup("shuffle-loop-from-16") is RULES["W006"]
    assert lookup("nope") is None


@pytest.mark.parametrize("rid", list(RULES))
def test_doc_has_the_headings_in_order(rid: str) -> None:
    text = (DOCS_DIR / f"{rid}.md").read_text(encoding="utf-8")
    assert text.startswith(f"# {rid}: {RULES[rid].name}\n")
    found = re.findall(r"^## (.+)$", text, re.M)
    assert found == list(HEADINGS)
    example = text.split("## Example", 1)[1].split("## Fix safety", 1)[0]
    assert "```cuda" in example and "logical32" in example and "native" in example


@pytest.mark.parametrize("rid", list(RULES))
def test_doc_options_are_real_config_keys(rid: str) -> None:
    text = (DOCS_DIR / f"{rid}.md").read_text(encoding="utf-8")
    options = text.split("## Options", 1)[1].split("## How to suppress", 1)[0]
    for key in re.findall(r"^- `([a-z-]+)`", options, re.M):
        assert key in KEYS, key


@pytest.mark.parametrize("rid", list(RULES))
def test_doc_examples_are_what_the_pass_emits(rid: str) -> None:
    """The pages are rendered from the rule modules and the pass (`python -m hipport.wave64.pages`):
    they never drift."""
    assert (DOCS_DIR / f"{rid}.md").read_text(encoding="utf-8") == render(rid)


def test_no_stray_docs() -> None:
    assert sorted(p.stem for p in DOCS_DIR.glob("W*.md")) == list(RULES)
