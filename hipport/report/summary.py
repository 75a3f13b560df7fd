"""The run summary as plain data: what every view shows at the end."""

from __future__ import annotations

from typing import Any

from hipport.model import FileStatus, RunResult, Severity
from hipport.report.headline import headline
from hipport.workspace import PORTED_ROLES


def summary(run: RunResult) -> dict[str, Any]:
    fams = run.families()
    sev: dict[Severity, int] = {}
    rules: dict[str, int] = {}
    by = {s: 0 for s in FileStatus}
    for r in run.files:
        by[r.status] += 1
        for f in r.findings:  # one pass over every finding: a warm lint has 100k of them
            sev[f.severity] = sev.get(f.severity, 0) + 1
            rules[f.rule] = rules.get(f.rule, 0) + 1
    return {
        "headline": headline(run).to_json(),
        "files_scanned": sum(1 for r in run.files if r.role in PORTED_ROLES),
        "files_total": len(run.files),
        "files_changed": by[FileStatus.PORTED],
        "files_failed": by[FileStatus.FAILED],
        "files_skipped": by[FileStatus.SKIPPED],
        "cached": run.cached,
        "seconds": round(run.seconds, 3),
        "references": {
            "found": sum(c.found for c in fams.values()),
            "ported": sum(c.ported for c in fams.values()),
            "unsupported": sum(c.unsupported for c in fams.values()),
        },
        "families": {k: {"found": c.found, "ported": c.ported, "unsupported": c.unsupported}
                     for k, c in fams.items()},
        "findings_by_rule": dict(sorted(rules.items())),
        "findings_by_severity": {k.value: v for k, v in sev.items()},
    }
