"""`hipport lint`: report findings (wave64 hazards, unported APIs) and write nothing."""

from __future__ import annotations

import os
from pathlib import Path

from hipport import engine
from hipport.commands.project import with_project
from hipport.config import Config
from hipport.gitdiff import changed_lines
from hipport.model import RunResult, Severity
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
    files = discover(paths, config.include, config.exclude,
                     force_exclude=config.force_exclude)
    config = with_project(config, files, ui.err)
    with ui.progress("linting") as progress:
        result = engine.run(files, config, engine.FINDINGS, cache_dir=cache_dir, progress=progress)
    if diff_base:
        result = engine.narrow(result, changed_lines(diff_base, Path.cwd()),
                               {wf.display: str(wf.path.resolve()) for wf in files})
    ui.report(result, fmt, findings=True, writes=False)
    if fmt == "github":
        _step_summary(result, ui)
    return exit_code(result, config.fail_on)


def _step_summary(result: RunResult, ui: UI) -> None:
    """Append the totals to the job summary GitHub Actions shows, when run there."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    from hipport.report.github import step_summary

    try:
        with open(target, "a", encoding="utf-8") as f:
            f.write(step_summary(result))
    except OSError as e:
        ui.err(f"hipport: note: cannot write the step summary {target}: {e.strerror}")


__all__ = ["lint", "exit_code", "Severity"]
