"""Every rule id hipport reports, its kebab-case name and its documentation page in rules/."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hipport.rules import rules_dir

# API and tool findings. The wave64 rules come from hipport.wave64's registry (their modules).
API_RULES: dict[str, tuple[str, str]] = {
    "HP001": ("unsupported-api", "a CUDA API with no HIP equivalent"),
    "HP002": ("unknown-cuda-name", "a CUDA-looking name that no mapping table knows"),
    "HP003": ("needs-newer-rocm", "a HIP API newer than the configured ROCm floor"),
    "HP004": ("deprecated-api", "a CUDA API that is deprecated (ported anyway)"),
    "HP005": ("parse-error", "code tree-sitter-cuda cannot parse"),
    "HP006": ("overlapping-rewrites", "two rewrites of the same code disagree"),
    "HP007": ("experimental-api", "a HIP API marked experimental"),
    "HP008": ("unmapped-header", "a CUDA header with no HIP counterpart"),
    "HP009": ("device-system-macro", "a Thrust device-system macro or setting"),
    "HP010": ("unreadable-file", "a file hipport cannot read, decode or analyse"),
    "HP011": ("written-for-hip", "code hipport wrote where HIP lacks a CUDA feature; check it"),
    "HP012": ("nvcc-option", "an nvcc option or CUDA build setting dropped or changed in meaning"),
    "HP013": ("build-not-ported", "a CUDA part of a build file the port does not understand, left as it is"),
    "HP014": ("build-library", "a CUDA library with no HIP counterpart, or one Debian does not package"),
    "HP015": ("build-file-hip", "how a build file now compiles CUDA as HIP (the choice of compiler)"),
    "HP016": ("check-library-arguments", "a name renamed to a roc* library's or MIOpen's whose arguments or behaviour can differ"),
    "HP017": ("already-hip", "code already written for HIP (a compatibility header, a HIP branch), left as it is"),
    "HP018": ("declares-cuda-type", "a file declares a CUDA type itself; its declaration keeps CUDA's name"),
    "HP019": ("vector-operator-clash", "a file's own vector-type operator that HIP defines too, with another meaning"),
    "HP900": ("unused-suppression", "a `hipport: ignore` comment that silences nothing"),
    "HP901": ("unknown-suppression-rule", "a `hipport: ignore` comment naming a rule that does not exist"),
}


@dataclass(frozen=True, slots=True)
class RuleDoc:
    id: str
    name: str
    summary: str
    path: Path | None

    @property
    def text(self) -> str:
        if self.path is None or not self.path.is_file():
            return f"# {self.id}: {self.name}\n\n{self.summary}\n"
        return self.path.read_text(encoding="utf-8")


def _wave_rules() -> dict[str, tuple[str, str]]:
    from hipport.wave64 import registry

    return {r.id: (r.name, r.summary) for r in registry.RULES.values()}


def _first_paragraph(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    m = re.search(r"## What it does\s*\n+(.+?)(?:\n\n|\Z)", text, re.S)
    return " ".join(m.group(1).split()) if m else ""


@cache
def all_rules() -> dict[str, RuleDoc]:
    base = rules_dir()
    out: dict[str, RuleDoc] = {}
    for rid, (name, summary) in {**API_RULES, **_wave_rules()}.items():
        folder = "wave64" if rid.startswith("W") else "docs"
        path = base / folder / f"{rid}.md"
        if path.is_file() and not summary:
            summary = _first_paragraph(path)
        out[rid] = RuleDoc(rid, name, summary, path if path.is_file() else None)
    return dict(sorted(out.items()))


def find(query: str) -> RuleDoc | None:
    rules = all_rules()
    q = query.strip()
    if q.upper() in rules:
        return rules[q.upper()]
    for r in rules.values():
        if r.name == q.lower():
            return r
    return None
