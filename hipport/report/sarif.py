"""SARIF 2.1.0 as GitHub code scanning accepts it: rules with help, results with fingerprints."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hipport import __version__
from hipport.model import RunResult, Severity
from hipport.report import ViewOptions
from hipport.ruledocs import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
HELP_BASE = "https://github.com/hipport/hipport/blob/main/rules/"


def _rules() -> list[dict[str, Any]]:
    out = []
    for r in all_rules().values():
        out.append({
            "id": r.id, "name": r.name,
            "shortDescription": {"text": r.summary or r.name},
            "fullDescription": {"text": r.summary or r.name},
            "help": {"text": r.text, "markdown": r.text},
            "helpUri": f"{HELP_BASE}{'wave64' if r.id.startswith('W') else 'docs'}/{r.id}.md",
            "properties": {"tags": ["wave64" if r.id.startswith("W") else "hip-port"]},
        })
    return out


def _fingerprint(path: str, rule: str, line_text: str, n: int) -> str:
    h = hashlib.sha256(f"{path}\0{rule}\0{line_text.strip()}\0{n}".encode()).hexdigest()
    return h[:32]


def render(run: RunResult, opts: ViewOptions) -> str:
    rules = _rules()
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    seen: dict[tuple[str, str, str], int] = {}
    for r, f in run.findings:
        s = f.span
        line_text = ""
        if r.original is not None:
            lines = r.original.split(b"\n")
            if 0 < s.line <= len(lines):
                line_text = lines[s.line - 1].decode("utf-8", "replace")
        k = (r.path, f.rule, line_text.strip())
        seen[k] = seen.get(k, 0) + 1
        res: dict[str, Any] = {
            "ruleId": f.rule,
            "level": LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": r.path.replace("\\", "/")},
                "region": {"startLine": s.line, "startColumn": s.column,
                           "endLine": s.end_line, "endColumn": max(s.end_column, s.column)}}}],
            "partialFingerprints": {"primaryLocationLineHash/v1":
                                    _fingerprint(r.path, f.rule, line_text, seen[k])},
        }
        if f.rule in index:
            res["ruleIndex"] = index[f.rule]
        if f.kernel or f.model:
            res["properties"] = {"kernel": f.kernel, "model": f.model}
        results.append(res)
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hipport", "version": __version__,
                                "informationUri": "https://github.com/hipport/hipport",
                                "rules": rules}},
            "results": results,
            "columnKind": "utf16CodeUnits",
        }],
    }
    return json.dumps(doc, indent=2) + "\n"
