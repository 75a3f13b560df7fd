"""The run summary as plain data: what every view shows at the end."""

from __future__ import annotations

from typing import Any

from hipport.model import FileStatus, RunResult
from hipport.workspace import PORTED_ROLES


def summary(run: RunResult) -> dict[str, Any]:
    fams = run.families()
    sev: dict[str, int] = {}
    for _, f in run.findings:
        sev[f.severity.value] = sev.get(f.severity.value, 0) + 1
    by = {s.value: 0 for s in FileStatus}
    for r in run.files:
        by[r.status.value] += 1
    return {
        "files_scanned": sum(1 for r in run.files if r.role in PORTED_ROLES),
        "files_total": len(run.files),
        "files_changed": by["ported"],
        "files_failed": by["failed"],
        "files_skipped": by["skipped"],
        "cached": run.cached,
        "seconds": round(run.seconds, 3),
        "references": {
            "found": sum(c.found for c in fams.values()),
            "ported": sum(c.ported for c in fams.values()),
            "unsupported": sum(c.unsupported for c in fams.values()),
        },
        "families": {k: {"found": c.found, "ported": c.ported, "unsupported": c.unsupported}
                     for k, c in fams.items()},
        "findings_by_rule": run.rule_counts(),
        "findings_by_severity": sev,
    }
