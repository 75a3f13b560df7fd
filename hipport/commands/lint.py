"""`hipport lint`: report findings (wave64 hazards, unported APIs) and write nothing."""

from __future__ import annotations

from pathlib import Path

from hipport.config import Config
from hipport.gitdiff import changed_lines
from hipport.model import RunResult, Severity
from hipport.pipeline import run as run_pipeline
from hipport.ui import UI
from hipport.workspace import discover

FAIL_RANK = {"info": 0, "warning": 1, "error": 2, "never": 99}


def exit_code(result: RunResult, fail_on: str) -> int:
    bar = FAIL_RANK[fail_on]
    if any(f.severity.rank >= bar for _, f in result.findings):
        return 1
    return 1 if any(r.status.value == "failed" for r in result.files) else 0


def lint(paths: list[Path], config: Config, ui: UI, fmt: str, diff_base: str | None,
         cache_dir: Path | None) -> int:
    files = discover(paths, config.include, config.exclude)
    with ui.progress("linting") as progress:
        result = run_pipeline(files, config, cache_dir=cache_dir, progress=progress,
                              keep_original=True, findings_only=True)
    if diff_base:
        changed = changed_lines(diff_base, Path.cwd())
        by_display = {wf.display: str(wf.path.resolve()) for wf in files}
        for r in result.files:
            path = by_display.get(r.path, "")
            if path in changed and changed[path] is None:
                continue  # a new file: every line is new
            keep = changed.get(path) or set()
            r.findings = [f for f in r.findings if f.span.line in keep]
    ui.report(result, fmt)
    return exit_code(result, config.fail_on)


__all__ = ["lint", "exit_code", "Severity"]
