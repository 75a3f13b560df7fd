"""The command line: options -> Config -> a command -> exit code. No pipeline logic here.

Exit codes: 0 success; 1 findings at or above --fail-on, a --check that would change files,
or a file that failed; 2 usage or input errors; 3 an internal error (with a short report).
"""



import sys
from enum import Enum, StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from hipport import __version__
from hipport import config as configmod
from hipport.errors import HipportError
from hipport.options import (
    BUILD,
    FILES,
    LIBRARIES,
    LINT_TEXT,
    PASSES,
    PROJECT,
    RUN,
    SELECTION,
    ConfigOpt,
    DataTypesOpt,
    FailOn,
    Fmt,
    Launch,
    LayoutOpt,
    LintFmt,
    OffloadArch,
    Paths,
    Quiet,
    QuotesOpt,
    ShowFixed,
    Statistics,
    StrategyOpt,
    ValidateFmt,
    build_config,
    cache_dir_of,
    overrides,
    shared,
)

# Click's plain help, not rich's: rich's option table folds a choice list mid-word at 80 columns
# and reads help text as markup (`'hipport[precise]'` lost `[precise]`).
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Port CUDA C++ code bases to HIP for AMD Instinct GPUs, wave64-correct.")
rules_app = typer.Typer(no_args_is_help=True, help="Look up API mappings and list rules.")
app.add_typer(rules_app, name="rules")
cache_app = typer.Typer(no_args_is_help=True, help="Show or clear hipport's result cache.")
app.add_typer(cache_app, name="cache")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"hipport {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """hipport: a syntax-aware CUDA -> HIP translator with a wave64 correctness pass."""


def _say(text: str, nl: bool = True) -> int:
    typer.echo(text, nl=nl)
    return 0


def _run(fn: Any) -> None:
    """Map errors to exit codes; a crash prints a short report instead of a traceback wall."""
    try:
        code = fn()
    except HipportError as e:
        from hipport.report.printable import printable

        typer.echo(printable(f"hipport: error: {e}"), err=True)
        raise typer.Exit(e.exit_code) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except typer.Exit:
        raise
    except Exception as e:  # pragma: no cover - the crash report path
        import platform
        import traceback

        typer.echo(f"hipport: internal error: {type(e).__name__}: {e}", err=True)
        typer.echo(f"hipport {__version__}, Python {platform.python_version()}, "
                   f"{platform.platform()}", err=True)
        traceback.print_exc(limit=6)
        raise typer.Exit(3) from None
    raise typer.Exit(code or 0)


@app.command()
@shared(PASSES, LIBRARIES, SELECTION, BUILD, PROJECT, RUN)
def port(
    paths: Paths,
    output: Annotated[str | None, typer.Option("--output", "-o", help="Write a ported mirror of the input here ('-' = stdout for one file).")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Rewrite the files themselves (atomically).")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff; write nothing.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if anything would change.")] = False,
    only_ported: Annotated[bool, typer.Option("--only-ported", help="With -o, do not copy files that are not ported.")] = False,
    rename_extensions: Annotated[bool, typer.Option("--rename-extensions", help="Rename .cu to .hip and update includes.")] = False,
    launch_syntax: Annotated[Launch | None, typer.Option("--launch-syntax", help="Keep <<<...>>> (chevron) or emit hipLaunchKernelGGL (ggl).")] = None,
    apply_review_fixes: Annotated[bool, typer.Option("--apply-review-fixes", help="Also apply wave64 fixes that need review.")] = False,
    no_wave64: Annotated[bool, typer.Option("--no-wave64", help="Rename APIs only; skip the wave64 pass.")] = False,
    offload_arch: OffloadArch = None,
    include_layout: LayoutOpt = None,
    include_quotes: QuotesOpt = None,
    data_types: DataTypesOpt = None,
    fmt: Annotated[Fmt, typer.Option("--format", help="Summary format.")] = Fmt.text,
    report: Annotated[Path | None, typer.Option("--report", help="Also write the HTML porting report here.")] = None,
    quiet: Quiet = False,
    show_fixed: ShowFixed = False,
    statistics: Statistics = False,
    *, given: dict[str, Any],
) -> None:
    """Port CUDA files, folders or a whole repository to HIP."""
    from hipport.commands.port import PortOptions
    from hipport.commands.port import port as do_port
    from hipport.ui import UI

    def go() -> int:
        cfg = build_config(paths, given["config_file"], **overrides(given), launch_syntax=launch_syntax,
                      include_layout=include_layout, include_quotes=include_quotes,
                      data_types=data_types, rename_extensions=rename_extensions or None,
                      apply_review_fixes=apply_review_fixes or None,
                      wave64=False if no_wave64 else None, offload_arch=offload_arch)
        opts = PortOptions(tuple(paths), output, in_place, diff, check, only_ported, fmt.value,
                           given["cache_dir"], report)
        return do_port(opts, cfg, UI(quiet=quiet, show_fixed=show_fixed, statistics=statistics))

    _run(go)


@app.command()
@shared(PASSES, LIBRARIES, SELECTION, BUILD, PROJECT, RUN)
def lint(
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or folders (default: the current folder).",
                                                       show_default=False)] = None,
    fmt: Annotated[LintFmt, typer.Option("--format", help="text, json, sarif (SARIF 2.1.0) or github (workflow annotations).")] = LINT_TEXT,
    fail_on: Annotated[FailOn | None, typer.Option("--fail-on", help="Exit 1 when a finding reaches this severity.")] = None,
    diff_base: Annotated[str | None, typer.Option("--diff-base", help="Only report lines changed since this git revision.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Findings only: no summary, no progress.")] = False,
    show_fixed: ShowFixed = False,
    statistics: Statistics = False,
    offload_arch: OffloadArch = None,
    *, given: dict[str, Any],
) -> None:
    """Report wave64 hazards and CUDA APIs left unported; write nothing."""
    from hipport.commands.lint import lint as do_lint
    from hipport.ui import UI

    paths = paths or [Path(".")]

    def go() -> int:
        cfg = build_config(paths, given["config_file"], **overrides(given), fail_on=fail_on,
                           offload_arch=offload_arch)
        return do_lint(paths, cfg, UI(quiet=quiet, fail_on=cfg.fail_on, show_fixed=show_fixed,
                                      statistics=statistics), fmt.value, diff_base,
                       cache_dir_of(given, paths, cfg))

    _run(go)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                "help_option_names": []}, add_help_option=False)
def hipify(ctx: typer.Context) -> None:
    """Port CUDA files taking hipify-perl's and hipify-clang's options (-o, -inplace, -print-stats, -roc, ...)."""
    from hipport.commands.hipify import run as do_hipify

    argv = list(ctx.args)
    raw = sys.argv[1:]
    if "--" in raw and "--" not in argv:  # the parser takes `--` away; where it stood matters
        tail = raw[raw.index("--") + 1:]
        if tail and argv[len(argv) - len(tail):] == tail:
            argv.insert(len(argv) - len(tail), "--")
    _run(lambda: do_hipify(argv))


@app.command()
def explain(rule: Annotated[str, typer.Argument(help="A rule id (W006, HP001) or name.")]) -> None:
    """Print a rule's documentation."""
    from hipport.commands.info import explain as do_explain

    _run(lambda: _say(do_explain(rule), nl=False))


@rules_app.command("lookup")
@shared({k: LIBRARIES[k] for k in ("blas", "sparse", "rand", "solver", "roc")})
def rules_lookup(
    name: Annotated[str, typer.Argument(help="A CUDA (or HIP) name, header or namespace.")],
    fmt: Annotated[Fmt, typer.Option("--format")] = Fmt.text,
    *, given: dict[str, Any],
) -> None:
    """Show how hipport ports NAME: HIP name, status, family, ROCm version, notes."""
    from hipport.commands.info import lookup
    from hipport.rules import libraries_key

    def go() -> int:
        chosen = {k: (v.value if isinstance(v, Enum) else v) for k, v in overrides(given).items()}
        text, code = lookup(name, libraries_key(configmod.build(None, chosen)), fmt.value)
        typer.echo(text, nl=False)
        return code

    _run(go)


@rules_app.command("list")
def rules_list() -> None:
    """List every rule id with its name."""
    from hipport.commands.info import rules_list as do_list

    _run(lambda: _say(do_list(), nl=False))


CachePath = Annotated[Path, typer.Argument(help="A file or folder of the tree.")]
CacheAll = Annotated[bool, typer.Option("--all", help="All of hipport's user cache, every tree.")]


@cache_app.command("dir")
def cache_dir_cmd(path: CachePath = Path("."), everything: CacheAll = False) -> None:
    """Print the folder where results for PATH's tree are cached."""
    from hipport.commands.cache import folder

    _run(lambda: _say(str(folder(path, everything))))


@cache_app.command("clear")
def cache_clear_cmd(path: CachePath = Path("."), everything: CacheAll = False) -> None:
    """Remove the cached results for PATH's tree (or, with --all, every tree's)."""
    from hipport.commands.cache import clear

    _run(lambda: _say(clear(path, everything), nl=False))


@app.command("config")
def showbuild_config(
    path: Annotated[Path, typer.Argument(help="Where to look for configuration.")] = Path("."),
    fmt: Annotated[Fmt, typer.Option("--format")] = Fmt.text,
    config_file: ConfigOpt = None,
) -> None:
    """Print the effective configuration and where each value came from."""
    from hipport.commands.info import show_config as do_show

    _run(lambda: _say(do_show(build_config([path], config_file), fmt.value), nl=False))


@app.command("toolchains")
def toolchains_cmd(fmt: Annotated[Fmt, typer.Option("--format", help="text, or json for scripts.")] = Fmt.text) -> None:
    """List the HIP toolchains validate can compile with: the host's HIP, ROCm installations and the roots scripts/hip_root.py builds (HIP and clang versions, targets, library headers)."""
    from hipport.commands.toolchains import toolchains

    def go() -> int:
        text, code = toolchains(fmt.value)
        typer.echo(text, nl=False)
        return code

    _run(go)


DEFAULT_REPORT_DIR = Path("hipport-report")


@app.command("report")
@shared(PASSES, LIBRARIES, SELECTION, BUILD, PROJECT, RUN)
def report(
    paths: Paths,
    output: Annotated[Path, typer.Option("--output", "-o", help="Folder for the HTML report (created; kept up to date incrementally).")] = DEFAULT_REPORT_DIR,
    quiet: Quiet = False,
    *, given: dict[str, Any],
) -> None:
    """Write a static HTML porting report (index, a page per file and per rule, effort); write nothing else."""

    def go() -> int:
        from hipport.commands.report import make_report

        cfg = build_config(paths, given["config_file"], **overrides(given))
        return make_report(paths, output, cfg, cache_dir_of(given, paths, cfg), quiet)

    _run(go)


class Wave(StrEnum):
    w32 = "32"
    w64 = "64"


OptPaths = Annotated[list[Path] | None, typer.Argument(help="CUDA files or folders (the originals).",
                                                       show_default=False)]
IncludeDir = Annotated[list[Path] | None, typer.Option("--include-dir", "-I", help="Add an include folder (repeatable).")]
Define = Annotated[list[str] | None, typer.Option("--define", "-D", help="Define a macro, NAME or NAME=VALUE (repeatable).")]


@app.command()
@shared(PASSES, LIBRARIES, FILES, PROJECT, RUN)
def validate(
    paths: OptPaths = None,
    ported: Annotated[Path | None, typer.Option("--ported", help="Validate this already ported tree (PATHs, if given, are its CUDA originals).")] = None,
    offload_arch: Annotated[list[str] | None, typer.Option("--offload-arch", help="AMD target (repeatable). Default: gfx90a, plus gfx942 when the installed clang knows it.")] = None,
    toolchain: Annotated[list[str] | None, typer.Option("--toolchain", help="Compile with this toolchain (a name `hipport toolchains` lists, e.g. hip-6.4; repeatable). Default: the host's HIP.")] = None,
    run: Annotated[bool, typer.Option("--run", help="Also run every program: on the wave emulator (wave 32 CUDA reference, wave 64 port, wave 64 port without wave64 fixes) and on GPUs present.")] = False,
    programs: Annotated[Path | None, typer.Option("--programs", help="A TOML file of [[programs]] to run (name, sources, args, expected, include, defines).")] = None,
    no_compile: Annotated[bool, typer.Option("--no-compile", help="Skip the compile check (HIP's clang with hipcc's options).")] = False,
    no_gpu: Annotated[bool, typer.Option("--no-gpu", help="With --run: do not use GPUs even when present.")] = False,
    no_emulator: Annotated[bool, typer.Option("--no-emulator", help="With --run: do not run on the wave emulator.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Emulator runs with AddressSanitizer (slower; catches out-of-bounds accesses).")] = False,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds each program run may take.")] = 60.0,
    strict: Annotated[bool, typer.Option("--strict", help="Count checks that could not run (no HIP, no GPU) as failures.")] = False,
    work_dir: Annotated[Path | None, typer.Option("--work-dir", help="Keep the ported trees and binaries here (default: a temporary folder).")] = None,
    fmt: Annotated[ValidateFmt, typer.Option("--format", help="text (a table), json, or sarif (SARIF 2.1.0: failures, notes for tree values left out, and occupancy notes for kernels that idle half a wave).")] = ValidateFmt.text,
    report: Annotated[Path | None, typer.Option("--report", help="Also write the HTML porting report, with the validation results, here.")] = None,
    launch_syntax: Annotated[Launch | None, typer.Option("--launch-syntax", help="Launch syntax of the port that is compiled.")] = None,
    apply_review_fixes: Annotated[bool, typer.Option("--apply-review-fixes", help="Also apply wave64 fixes that need review.")] = False,
    quiet: Quiet = False,
    *, given: dict[str, Any],
) -> None:
    """Compile the port for AMD GPUs (HIP's clang with hipcc's options; never hipcc or a shell); with --run, check it computes what the CUDA code did."""
    from hipport.ui import UI
    from hipport.validate import Options

    def go() -> int:
        plist = list(paths or [])
        jobs, cache_dir, config_file = given["jobs"], given["cache_dir"], given["config_file"]
        cfg = build_config(plist or ([ported] if ported else []), config_file, **overrides(given),
                      launch_syntax=launch_syntax, apply_review_fixes=apply_review_fixes or None,
                      offload_arch=offload_arch)
        ui = UI(quiet=quiet)
        opts = Options(paths=tuple(plist), ported=ported, archs=tuple(offload_arch) if offload_arch else None,
                       toolchains=tuple(toolchain or ()),
                       compdb=given["compile_commands"], includes=tuple(given["include_paths"] or ()),
                       defines=tuple(given["defines"] or ()),
                       compile=not no_compile, run=run, gpu=not no_gpu, emulate=not no_emulator, check=check,
                       jobs=jobs or 0, timeout=timeout, work_dir=work_dir, cache_dir=cache_dir,
                       config_file=config_file, programs_file=programs, strict=strict)
        from hipport.commands.validate import validate as do_validate

        return do_validate(opts, cfg, ui, fmt.value, quiet, report)
    _run(go)


@app.command("verify")
@shared(PASSES, FILES, RUN)
def verify_cmd(
    paths: Paths,
    fmt: Annotated[ValidateFmt, typer.Option("--format", help="text (a table), json, or sarif (SARIF 2.1.0: a FAIL is an error at the kernel, an UNVERIFIED kernel a note).")] = ValidateFmt.text,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds one input kind of one kernel may run.")] = 300.0,
    work_dir: Annotated[Path | None, typer.Option("--work-dir", help="Keep the ported trees, harnesses and binaries here (default: a temporary folder).")] = None,
    report: Annotated[Path | None, typer.Option("--report", help="Also write the HTML report, with the kernel table, here.")] = None,
    block: Annotated[int | None, typer.Option("--block", min=1, max=1024, help="Threads per block for kernels that no launch in the host code (or none hipport can evaluate) and no [tool.hipport.verify] entry shapes (otherwise UNVERIFIED); the grid then covers the size parameter, and a template kernel's block-size parameters take it.")] = None,
    quiet: Quiet = False,
    *, given: dict[str, Any],
) -> None:
    """Check each kernel's port against its original on generated inputs (sizes around the wave boundaries; random, sparse, special and mixed-sign data) on the wave emulator: wave 32 original, wave 64 port. Exit 1 when a kernel differs."""
    from hipport.ui import UI
    from hipport.verify import Options as VerifyOptions

    def go() -> int:
        from hipport.commands.verify import verify as do_verify

        cfg = build_config(paths, given["config_file"], **overrides(given))
        opts = VerifyOptions(tuple(paths), work_dir, cache_dir_of(given, paths, cfg), timeout, given["jobs"] or 0,
                             block)
        return do_verify(opts, cfg, UI(quiet=quiet), fmt.value, quiet, report)

    _run(go)


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
        cfg = build_config([file], config_file, wave_strategy=wave_strategy,
                      apply_review_fixes=apply_review_fixes or None)
        o = EmulateOptions(file, list(args or []), int(wave.value), not no_wave64, tuple(include_dir or ()),
                           tuple(define or ()), check, timeout, keep, quiet)
        return do_emulate(o, cfg)

    _run(go)


def main() -> None:
    from hipport import interrupt

    interrupt.install()
    # A run builds many small long-lived objects (results, findings) and few cycles: the
    # default thresholds collect dozens of times over them for nothing (mypy does the same).
    import gc

    gc.set_threshold(200_000, 50, 100)
    code: int | str | None = 0
    try:
        app(prog_name="hipport")
    except SystemExit as e:
        code = e.code
    interrupt.finishing()
    if interrupt.received is not None:  # stopped by a signal: it unwound; now it ends
        interrupt.leave(code if isinstance(code, int) else 1)
    sys.exit(code)
