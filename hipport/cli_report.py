"""`hipport report PATH... -o DIR`: run the pipeline like `lint` (nothing written to the
sources) and write the static HTML porting report. Registers itself on `hipport.cli.app`."""



from pathlib import Path
from typing import Annotated

import typer

from hipport.cli import (
    BlasOpt,
    CacheDir,
    ConfigOpt,
    Exclude,
    Ignore,
    Include,
    Jobs,
    NoBuildFiles,
    NoCache,
    Paths,
    Quiet,
    Rocm,
    Select,
    StrategyOpt,
    _config,
    _run,
    app,
)

DEFAULT_DIR = Path("hipport-report")


def make_report(paths: list[Path], out_dir: Path, config, cache_dir: Path | None, quiet: bool) -> int:
    """Run the passes over `paths` and write the report into `out_dir`; returns the exit code."""
    from hipport import lock
    from hipport.errors import HipportError
    from hipport.pipeline import run as run_pipeline
    from hipport.report import html
    from hipport.ui import UI
    from hipport.workspace import discover

    ui = UI(quiet=quiet)
    out = html.check_folder(out_dir, paths)
    files = discover(paths, config.include, config.exclude, skip=out)
    with lock.hold([out], ui.err):
        with ui.progress("reporting") as progress:
            result = run_pipeline(files, config, cache_dir=cache_dir, progress=progress,
                                  keep_original=True)
        try:
            stats = html.write_report(result, out_dir)
        except html.NotReportFolder as e:  # made meanwhile by someone else
            raise HipportError(str(e)) from None
        except OSError as e:
            raise HipportError(f"cannot write the report: {e.strerror}",
                               e.filename or out_dir) from None
    if not quiet:
        ui.err(f"{len(stats.written)} file pages written, {len(stats.reused)} unchanged, "
               f"{len(stats.removed)} stale pages removed")
    typer.echo(str(stats.index))
    return 0


@app.command("report")
def report(
    paths: Paths,
    output: Annotated[Path, typer.Option("--output", "-o", help="Folder for the HTML report (created; kept up to date incrementally).")] = DEFAULT_DIR,
    wave_strategy: StrategyOpt = None,
    rocm: Rocm = None,
    blas: BlasOpt = None,
    include: Include = None,
    exclude: Exclude = None,
    select: Select = None,
    ignore: Ignore = None,
    no_build_files: NoBuildFiles = False,
    jobs: Jobs = None,
    no_cache: NoCache = False,
    cache_dir: CacheDir = None,
    config_file: ConfigOpt = None,
    quiet: Quiet = False,
) -> None:
    """Write a static HTML porting report (index, a page per file and per rule, effort); write nothing else."""

    def go() -> int:
        cfg = _config(paths, config_file, include=include, exclude=exclude, select=select,
                      ignore=ignore, wave_strategy=wave_strategy, rocm=rocm, blas=blas,
                      jobs=jobs, cache=False if no_cache else None,
                      build_files=False if no_build_files else None)
        from hipport.commands.port import default_cache_dir
        cd = (cache_dir or default_cache_dir(tuple(paths))) if cfg.cache else None
        return make_report(paths, output, cfg, cd, quiet)

    _run(go)
