"""`hipport report`: run the pipeline like `lint` (nothing written to the sources) and
write the static HTML porting report into a folder it owns. Exit 1 when a file could not be
analysed (the report lists it among the failed files)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hipport.commands.project import with_project
from hipport.config import Config
from hipport.model import FileStatus, RunResult

if TYPE_CHECKING:
    from hipport.ui import UI


def make_report(paths: list[Path], out_dir: Path, config: Config, cache_dir: Path | None, quiet: bool) -> int:
    """Run the passes over `paths` and write the report into `out_dir`; returns the exit code."""
    from hipport import engine, lock
    from hipport.errors import HipportError
    from hipport.report import html
    from hipport.ui import UI
    from hipport.workspace import discover

    ui = UI(quiet=quiet)
    out = html.check_folder(out_dir, paths)
    files = discover(paths, config.include, config.exclude, skip=out,
                     force_exclude=config.force_exclude)
    config = with_project(config, files, ui.err)
    with lock.hold([out], ui.err):
        with ui.progress("reporting") as progress:
            result = engine.run(files, config, engine.EVERYTHING, cache_dir=cache_dir, progress=progress)
        try:
            with ui.progress("writing pages") as progress:
                stats = html.write_report(result, out_dir, progress)
        except html.NotReportFolder as e:  # made meanwhile by someone else
            raise HipportError(str(e)) from None
        except OSError as e:
            raise HipportError(f"cannot write the report: {e.strerror}",
                               e.filename or out_dir) from None
    if not quiet:
        ui.err(f"{len(stats.written)} file pages written, {len(stats.reused)} unchanged, "
               f"{len(stats.removed)} stale pages removed")
        from hipport.report.headline import headline

        for line in headline(result).lines():  # as the index's first card says it
            ui.err(line)
    failed = [r for r in result.files if r.status == FileStatus.FAILED]
    for r in failed:  # the index lists them too; a script reading the exit status learns it here
        ui.err(f"{r.path}: error: {r.error}")
    # The index's path for scripts, as the file system names it (a folder name need not be UTF-8).
    sys.stdout.buffer.write(os.fsencode(stats.index) + b"\n")
    sys.stdout.flush()
    return 1 if failed else 0


def write_run_report(run: RunResult, out: Path, ui: UI) -> None:
    """Write the report of a result another command made (validate --report, verify
    --report) into `out`, a folder the report owns."""
    from hipport.errors import HipportError
    from hipport.report import html

    html.check_folder(out, [])
    try:
        index = html.write(run, out)
    except html.NotReportFolder as e:
        raise HipportError(str(e)) from None
    except OSError as e:
        raise HipportError(f"cannot write the report: {e.strerror}", e.filename or out) from None
    ui.err(f"report: {index}")
