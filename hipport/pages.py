"""Write or check the rule pages: rules/docs/HPNNN.md from rules/docs/hp.toml, and the wave64
pages rules/wave64/WNNN.md from the rule modules (hipport.wave64.pages).

    python -m hipport.pages           # write them
    python -m hipport.pages --check   # exit 1 if a page is not what the data gives
"""

from __future__ import annotations

import sys
import tomllib
from functools import cache
from pathlib import Path

from hipport.paths import rules_dir
from hipport.registry import rules

# hp.toml's section keys -> the page's headings, in page order ("references" is optional).
SECTIONS = {"what": "What it does", "why": "Why is this bad?", "example": "Example", "safety": "Fix safety",
            "options": "Options", "references": "References", "suppress": "How to suppress"}


def pages_dir() -> Path:
    return rules_dir() / "docs"


@cache
def _sections() -> dict[str, dict[str, str]]:
    with (pages_dir() / "hp.toml").open("rb") as f:
        return tomllib.load(f)


def hp_ids() -> list[str]:
    return [rid for rid in rules() if rid.startswith("HP")]


def render(rule_id: str) -> str:
    """An HP rule's page: its registry name, then its sections from hp.toml."""
    body = _sections()[rule_id]
    unknown = set(body) - set(SECTIONS)
    if unknown:
        raise ValueError(f"{rule_id}: unknown sections in hp.toml: {sorted(unknown)}")
    return (f"# {rule_id}: {rules()[rule_id].name}\n\n"
            + "\n\n".join(f"## {heading}\n\n{body[key]}" for key, heading in SECTIONS.items() if key in body)
            + "\n")


def stale() -> list[str]:
    """The HP pages that are not what hp.toml gives."""
    out = []
    for rid in hp_ids():
        page = pages_dir() / f"{rid}.md"
        if not page.is_file() or page.read_text(encoding="utf-8") != render(rid):
            out.append(page.name)
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--check" in args:
        bad = stale()
        if bad:
            print("stale rule pages (python -m hipport.pages): " + ", ".join(bad), file=sys.stderr)
    else:
        bad = []
        for rid in hp_ids():
            (pages_dir() / f"{rid}.md").write_text(render(rid), encoding="utf-8")
    from hipport.wave64 import pages as wave64_pages

    return max(1 if bad else 0, wave64_pages.main(args))


if __name__ == "__main__":
    sys.exit(main())
