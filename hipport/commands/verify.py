"""`hipport verify`: each kernel's port checked against its original on generated inputs, on
the wave emulator (hipport.verify); the text table, JSON or SARIF. Exit 1 when a kernel FAILs."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from hipport.config import Config
from hipport.model import RunResult
from hipport.ui import UI
from hipport.verify import Options
from hipport.verify import verify as do_verify
from hipport.verify.views import render_json, render_sarif, render_text


def verify(opts: Options, cfg: Config, ui: UI, fmt: str, quiet: bool, report: Path | None = None) -> int:
    with ui.progress("verifying kernels") as bar:
        result = do_verify(opts, cfg, progress=bar, log=None if quiet else ui.err)
    run = replace(RunResult(()), verification=result)  # the run's result; the views render it
    assert run.verification is not None
    if fmt == "json":
        sys.stdout.write(render_json(run.verification))
    elif fmt == "sarif":
        sys.stdout.write(render_sarif(run.verification))
    elif not quiet or run.verification.failed:
        sys.stdout.write(render_text(run.verification, color=ui.color))
    sys.stdout.flush()
    if report is not None:
        from hipport.commands.report import write_run_report

        write_run_report(run, report, ui)
    return 1 if run.verification.failed else 0
