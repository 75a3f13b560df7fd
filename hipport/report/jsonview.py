"""The stable, documented JSON view (version 1). Positions are 1-based; paths as given."""

from __future__ import annotations

import json
from typing import Any

from hipport.model import Finding, RunResult
from hipport.report import ViewOptions
from hipport.report.summary import summary

VERSION = 1


def finding_dict(path: str, f: Finding) -> dict[str, Any]:
    s = f.span
    fix = None
    if f.fix is not None:
        fix = {"title": f.fix.title, "applicability": f.fix.applicability.value, "edits": [
            {"line": e.span.line, "column": e.span.column, "end_line": e.span.end_line,
             "end_column": e.span.end_column, "replacement": e.replacement}
            for e in f.fix.edits if e.span is not None]}
    return {"path": path, "line": s.line, "column": s.column, "end_line": s.end_line,
            "end_column": s.end_column, "rule": f.rule, "severity": f.severity.value,
            "message": f.message, "kernel": f.kernel, "model": f.model, "family": f.family,
            "fix": fix, "fixed": f.fixed}


def document(run: RunResult) -> dict[str, Any]:
    return {"version": VERSION,
            "findings": [finding_dict(r.path, f) for r, f in run.findings],
            "files": [{"path": r.path, "role": r.role, "status": r.status.value,
                       "output": r.output_path, "error": r.error,
                       "references": {k: vars_(c) for k, c in sorted(r.families.items())}}
                      for r in run.files],
            "summary": summary(run)}


def vars_(c: Any) -> dict[str, int]:
    return {"found": c.found, "ported": c.ported, "unsupported": c.unsupported}


def render(run: RunResult, opts: ViewOptions) -> str:
    return json.dumps(document(run), indent=2, sort_keys=False) + "\n"
