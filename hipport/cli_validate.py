"""`hipport validate` and `hipport emulate`. Registers itself on `hipport.cli.app`.

Exit codes: validate: 0 nothing failed ("not run" is not a failure unless --strict), 1
something failed, 2 usage or input errors. emulate: the program's own exit status; 2 when it
could not be built (the errors are printed at the original CUDA lines).
"""



import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from hipport.cli import (
    BlasOpt,
    CacheDir,
    ConfigOpt,
    Exclude,
    Fmt,
    Include,
    Jobs,
    Launch,
    NoCache,
    Quiet,
    Rocm,
    StrategyOpt,
    _config,
    _run,
    app,
)


class Wave(StrEnum):
    w32 = "32"
    w64 = "64"


OptPaths = Annotated[list[Path] | None, typer.Argument(help="CUDA files or folders (the originals).",
                                                       show_default=False)]
IncludeDir = Annotated[list[Path] | None, typer.Option("--include-dir", "-I", help="Add an include folder (repeatable).")]
Define = Annotated[list[str] | None, typer.Option("--define", "-D", help="Define a macro, NAME or NAME=VALUE (repeatable).")]


@app.command()
def validate(
    paths: OptPaths = None,
    ported: Annotated[Path | None, typer.Option("--ported", help="Validate this already ported tree (PATHs, if given, are its CUDA originals).")] = None,
    offload_arch: Annotated[list[str] | None, typer.Option("--offload-arch", help="AMD target (repeatable). Default: gfx90a, plus gfx942 when the installed clang knows it.")] = None,
    compile_commands: Annotated[Path | None, typer.Option("--compile-commands", "-p", help="compile_commands.json, or the folder holding it, for include paths and defines.")] = None,
    include_dir: IncludeDir = None,
    define: Define = None,
    run: Annotated[bool, typer.Option("--run", help="Also run every program: on the wave emulator (wave 32 CUDA reference, wave 64 port, wave 64 port without wave64 fixes) and on GPUs present.")] = False,
    programs: Annotated[Path | None, typer.Option("--programs", help="A TOML file of [[programs]] to run (name, sources, args, expected, include, defines).")] = None,
    no_compile: Annotated[bool, typer.Option("--no-compile", help="Skip the hipcc compile check.")] = False,
    no_gpu: Annotated[bool, typer.Option("--no-gpu", help="With --run: do not use GPUs even when present.")] = False,
    no_emulator: Annotated[bool, typer.Option("--no-emulator", help="With --run: do not run on the wave emulator.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Emulator runs with AddressSanitizer (slower; catches out-of-bounds accesses).")] = False,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds each program run may take.")] = 60.0,
    strict: Annotated[bool, typer.Option("--strict", help="Count checks that could not run (no hipcc, no GPU) as failures.")] = False,
    work_dir: Annotated[Path | None, typer.Option("--work-dir", help="Keep the ported trees and binaries here (default: a temporary folder).")] = None,
    fmt: Annotated[Fmt, typer.Option("--format", help="text (a table) or json.")] = Fmt.text,
    report: Annotated[Path | None, typer.Option("--report", help="Also write the HTML porting report, with the validation results, here.")] = None,
    launch_syntax: Annotated[Launch | None, typer.Option("--launch-syntax", help="Launch syntax of the port that is compiled.")] = None,
    wave_strategy: StrategyOpt = None,
    rocm: Rocm = None,
    apply_review_fixes: Annotated[bool, typer.Option("--apply-review-fixes", help="Also apply wave64 fixes that need review.")] = False,
    blas: BlasOpt = None,
    include: Include = None,
    exclude: Exclude = None,
    jobs: Jobs = None,
    no_cache: NoCache = False,
    cache_dir: CacheDir = None,
    config_file: ConfigOpt = None,
    quiet: Quiet = False,
) -> None:
    """Compile the port with hipcc for AMD GPUs; with --run, check it computes what the CUDA code did."""
    from hipport.ui import UI
    from hipport.validate import Options
    from hipport.validate import validate as do_validate
    from hipport.validate.views import render_json, render_text

    def go() -> int:
        plist = list(paths or [])
        cfg = _config(plist or ([ported] if ported else []), config_file, include=include, exclude=exclude,
                      wave_strategy=wave_strategy, rocm=rocm, launch_syntax=launch_syntax, blas=blas,
                      apply_review_fixes=apply_review_fixes or None, offload_arch=offload_arch,
                      jobs=jobs, cache=False if no_cache else None)
        ui = UI(quiet=quiet)
        opts = Options(paths=tuple(plist), ported=ported, archs=tuple(offload_arch) if offload_arch else None,
                       compdb=compile_commands, includes=tuple(include_dir or ()), defines=tuple(define or ()),
                       compile=not no_compile, run=run, gpu=not no_gpu, emulate=not no_emulator, check=check,
                       jobs=jobs or 0, timeout=timeout, work_dir=work_dir, cache_dir=cache_dir,
                       config_file=config_file, programs_file=programs, strict=strict)
        result = do_validate(opts, cfg, progress=ui.progress, log=None if quiet else ui.err)
        if fmt == Fmt.json:
            sys.stdout.write(render_json(result.doc))
        elif not quiet or result.failed:
            sys.stdout.write(render_text(result.doc, color=ui.color))
        sys.stdout.flush()
        if report is not None:
            _write_report(result, report, ui)
        return 1 if result.failed else 0

    _run(go)


def _write_report(result, out: Path, ui) -> None:  # noqa: ANN001
    from hipport.model import RunResult
    try:
        from hipport.report import html
    except ImportError:
        ui.err("hipport: the HTML report is not available in this installation")
        return
    run = result.run if result.run is not None else RunResult([])
    run.validation = result.doc
    index = html.write(run, out)
    ui.err(f"report: {index}")


@app.command(context_settings={"allow_interspersed_args": True})
def emulate(
    file: Annotated[Path, typer.Argument(help="A CUDA (.cu) or HIP program with main().", show_default=False)],
    args: Annotated[list[str] | None, typer.Argument(help="Arguments for the program (after --).", show_default=False)] = None,
    wave: Annotated[Wave, typer.Option("--wave", help="Lanes per wavefront: 32 (CUDA's warp) or 64 (AMD Instinct).")] = Wave.w64,
    no_wave64: Annotated[bool, typer.Option("--no-wave64", help="Port CUDA without the wave64 pass (to see what it fixes).")] = False,
    include_dir: IncludeDir = None,
    define: Define = None,
    check: Annotated[bool, typer.Option("--check", help="Build with AddressSanitizer (slower; catches out-of-bounds accesses).")] = False,
    timeout: Annotated[float | None, typer.Option("--timeout", help="Stop the program after this many seconds.")] = None,
    keep: Annotated[Path | None, typer.Option("--keep", help="Keep the ported sources and the binary in this folder.")] = None,
    wave_strategy: StrategyOpt = None,
    apply_review_fixes: Annotated[bool, typer.Option("--apply-review-fixes", help="Also apply wave64 fixes that need review.")] = False,
    config_file: ConfigOpt = None,
    quiet: Quiet = False,
) -> None:
    """Build FILE against hipport's CPU wave emulator and run it (CUDA is ported first).

    The program's stdout, stderr and exit status are passed through:
    `hipport emulate prog.cu --wave 32 -- ARGS...`
    """
    from hipport.validate.emulate import EmulateOptions
    from hipport.validate.emulate import emulate as do_emulate

    def go() -> int:
        cfg = _config([file], config_file, wave_strategy=wave_strategy,
                      apply_review_fixes=apply_review_fixes or None)
        o = EmulateOptions(file, list(args or []), int(wave.value), not no_wave64, tuple(include_dir or ()),
                           tuple(define or ()), check, timeout, keep, quiet)
        return do_emulate(o, cfg)

    _run(go)
