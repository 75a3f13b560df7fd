"""Every repository path the documentation names exists (docs/report.md cited a SARIF schema file
that never was in the repository)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_PATH = re.compile(r"(?<![\w./-])((?:tests|hipport|rules|scripts|benchmarks|docs|examples|fixtures)/[\w./-]*[\w/])")
_LINK = re.compile(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)")
# Paths that are not this repository's: HIPIFY's test folder, a value in an example config.
_ELSEWHERE = {"tests/unit_tests", "tests/saxpy.out"}


def _docs() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "rules").rglob("*.md"))]


def test_the_paths_the_docs_name_exist() -> None:
    missing = []
    for md in _docs():
        text = md.read_text(encoding="utf-8")
        for m in _PATH.finditer(text):
            p = m.group(1).rstrip(".")
            if "NNN" in p or p in _ELSEWHERE:  # a placeholder (`tests/wave64/test_wNNN.py`)
                continue
            if not (ROOT / p).exists():
                missing.append(f"{md.relative_to(ROOT)}: {p}")
        missing += [f"{md.relative_to(ROOT)}: ({t})" for t in _LINK.findall(text) if not (md.parent / t).exists()]
    assert not missing, "\n".join(missing)


def test_no_instruction_installs_hipport_from_a_package_index() -> None:
    """hipport is not published: `pip install hipport` (or 'hipport[precise]') fails for a new
    user. The docs, the messages and the help say how to install from a clone."""
    index_install = re.compile(r"pip install ['\"]?hipport\b(?!\s*@)")
    places = [*_docs(), *sorted((ROOT / "hipport").rglob("*.py")), *sorted((ROOT / "scripts").glob("*"))]
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in places if p.is_file()
             for m in index_install.finditer(p.read_text(encoding="utf-8", errors="replace"))]
    assert not found, found
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python3 -m pip install .  " in readme and "bash scripts/setup.sh && bash scripts/demo.sh" in readme
