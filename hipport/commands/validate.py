"""`hipport validate`: compile the port for AMD targets and, with --run, compare what it
computes with the CUDA original; the text or JSON table, and the report when asked."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from hipport.commands.project import with_project
from hipport.config import Config
from hipport.ui import UI
from hipport.validate import Options, Validation
from hipport.validate import validate as do_validate
from hipport.validate.views import render_json, render_sarif, render_text


def validate(opts: Options, cfg: Config, ui: UI, fmt: str, quiet: bool, report: Path | None) -> int:
    from hipport.workspace import discover

    # The port is analysed with the project's include folders, as lint and port analyse it.
    roots = list(opts.paths) or ([opts.ported] if opts.ported else [])
    # (validate notes the values it leaves out itself, once)
    cfg = with_project(cfg, discover(roots, cfg.include, cfg.exclude) if roots else [], lambda _: None)
    result = do_validate(opts, cfg, progress=ui.progress, log=None if quiet else ui.err)
    if fmt == "json":
        sys.stdout.write(render_json(result.doc))
    elif fmt == "sarif":
        sys.stdout.write(render_sarif(result.doc))
    elif not quiet or result.failed:
        sys.stdout.write(render_text(result.doc, color=ui.color))
    sys.stdout.flush()
    if report is not None:
        _write_report(result, report, ui)
    return 1 if result.failed else 0


def _write_report(result: Validation, out: Path, ui: UI) -> None:
    from hipport.commands.report import write_run_report
    from hipport.model import RunResult

    write_run_report(replace(result.run if result.run is not None else RunResult(()), validation=result.doc), out, ui)
