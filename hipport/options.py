"""The command line's options, declared once: their types (choices from the configuration's
tables and the views), the groups commands share (`@shared(PASSES, LIBRARIES, ...)`), and how
given values become configuration overrides. hipport/cli.py wires them to commands."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from hipport import config as configmod
from hipport.report import VIEWS


class Fmt(str, Enum):
    text = "text"
    json = "json"


LintFmt = Enum("LintFmt", {v: v for v in VIEWS}, type=str)  # type: ignore[misc]  # every view of a run
LINT_TEXT = LintFmt("text")


class ValidateFmt(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


class Strategy(str, Enum):
    auto = "auto"
    logical32 = "logical32"
    native = "native"


class Launch(str, Enum):
    chevron = "chevron"
    ggl = "ggl"


class Blas(str, Enum):
    hipblas = "hipblas"
    rocblas = "rocblas"


Sparse = Enum("Sparse", {v: v for v in configmod.LIBRARY_TARGETS["sparse"]}, type=str)  # type: ignore[misc]
Rand = Enum("Rand", {v: v for v in configmod.LIBRARY_TARGETS["rand"]}, type=str)  # type: ignore[misc]
Solver = Enum("Solver", {v: v for v in configmod.LIBRARY_TARGETS["solver"]}, type=str)  # type: ignore[misc]
Fft = Enum("Fft", {v: v for v in configmod.LIBRARY_TARGETS["fft"]}, type=str)  # type: ignore[misc]
Dnn = Enum("Dnn", {v: v for v in configmod.LIBRARY_TARGETS["dnn"]}, type=str)  # type: ignore[misc]


Quotes = Enum("Quotes", {v: v for v in configmod.INCLUDE_QUOTES}, type=str)  # type: ignore[misc]
DataTypes = Enum("DataTypes", {v: v for v in configmod.DATA_TYPES}, type=str)  # type: ignore[misc]


class Layout(str, Enum):
    current = "current"
    flat = "flat"
    hipify = "hipify"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


Paths = Annotated[list[Path], typer.Argument(help="Files or folders (a whole repository works).",
                                             show_default=False)]
Include = Annotated[list[str] | None, typer.Option("--include", help="Only files matching this glob (repeatable).")]
Exclude = Annotated[list[str] | None, typer.Option("--exclude", help="Skip files matching this glob (repeatable).")]
ForceExclude = Annotated[bool, typer.Option("--force-exclude", help="Apply --exclude and config excludes to files named on the command line too (for pre-commit).")]
StrategyOpt = Annotated[Strategy | None, typer.Option("--wave-strategy", help="How wave64 rewrites kernels: auto picks per kernel.")]
Rocm = Annotated[str | None, typer.Option("--rocm", help="Oldest ROCm the output must compile on (default 5.2).")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="Use this .hipport.toml / pyproject.toml.")]
Select = Annotated[list[str] | None, typer.Option("--select", help="Only these rule ids or prefixes.")]
Ignore = Annotated[list[str] | None, typer.Option("--ignore", help="Skip these rule ids or prefixes.")]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", help="Worker processes (default: all cores; never more than the cores this run may use).")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the result cache.")]
CacheDir = Annotated[Path | None, typer.Option("--cache-dir", help="Cache folder (default: one per input tree in the user cache, never in the tree).")]
BlasOpt = Annotated[Blas | None, typer.Option("--blas", help="Port cuBLAS to hipBLAS or rocBLAS.")]
SparseOpt = Annotated[Sparse | None, typer.Option("--sparse", help="Port cuSPARSE to hipSPARSE or rocSPARSE.")]
RandOpt = Annotated[Rand | None, typer.Option("--rand", help="Port cuRAND to hipRAND or rocRAND.")]
SolverOpt = Annotated[Solver | None, typer.Option("--solver", help="Port cuSOLVER to hipSOLVER or rocSOLVER.")]
FftOpt = Annotated[Fft | None, typer.Option("--fft", help="Port cuFFT to hipFFT (the only target so far).")]
DnnOpt = Annotated[Dnn | None, typer.Option("--dnn", help="cuDNN to MIOpen: miopen renames what is the same; miopen-hipify also what HIPIFY renames, with notes.")]
RocOpt = Annotated[bool, typer.Option("--roc", help="Port every library to its roc* library (rocBLAS, rocSPARSE, rocRAND, rocSOLVER) unless chosen by its own option.")]
QuotesOpt = Annotated[Quotes | None, typer.Option("--include-quotes", help='angle: a quoted CUDA library include becomes <...>; keep: stays "..." (as HIPIFY writes it).')]
DataTypesOpt = Annotated[DataTypes | None, typer.Option("--data-types", help="hip: cuComplex, __half, __nv_bfloat16 become HIP's types; rocblas: rocBLAS's in rocBLAS/rocSOLVER files (as HIPIFY's --roc).")]
LayoutOpt = Annotated[Layout | None, typer.Option("--include-layout", help="current: <hipblas/hipblas.h>; flat: <hipblas.h>; hipify: HIPIFY's (flat hipBLAS, <hiprand/hiprand.h>).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print only what was asked for.")]
ShowFixed = Annotated[bool, typer.Option("--show-fixed", help="Also show the notes: sites hipport fixed or kept as right (text and github formats).")]
Statistics = Annotated[bool, typer.Option("--statistics", help="One line per rule (count, id, name, open or done) instead of one per finding.")]
NoBuildFiles = Annotated[bool, typer.Option("--no-build-files", help="Copy CMakeLists.txt, *.cmake and Makefiles as they are (default: port them).")]
OffloadArch = Annotated[list[str] | None, typer.Option("--offload-arch", help="AMD target the port is for: ported build files compile for it, device functions it lacks are reported (HP020) (repeatable; default gfx90a).")]
IncludeDirOpt = Annotated[list[Path] | None, typer.Option("--include-dir", "-I", help="An include folder the project's headers are looked up in, after those beside and above each file (repeatable; added to the configuration's include-paths).")]
DefineOpt = Annotated[list[str] | None, typer.Option("--define", "-D", help="A macro the HIP build defines, NAME or NAME=VALUE (repeatable): #if branches on it are read as the HIP build takes them.")]
PreciseOpt = Annotated[bool, typer.Option("--precise", help="Also parse each source with clang (the libclang package: pip install '.[precise]' in hipport's clone) for the values the default model cannot evaluate: macros built by function-like macros or token pasting, typedef chains, template arguments.")]
CompileCommandsOpt = Annotated[Path | None, typer.Option("--compile-commands", "-p", help="compile_commands.json, or the folder holding it: its include folders are searched too (each value checked first; see docs/security.md).")]


def build_config(paths: list[Path], config_file: Path | None, **overrides: Any) -> configmod.Config:
    clean = {k: (v.value if isinstance(v, Enum) else v) for k, v in overrides.items()}
    for k in ("include", "exclude", "select", "ignore", "offload_arch", "include_paths", "defines"):
        if clean.get(k) is not None:
            clean[k] = tuple(str(v) for v in clean[k])
    if clean.get("compile_commands") is not None:
        clean["compile_commands"] = str(clean["compile_commands"])
    start = paths[0] if paths else Path.cwd()
    return configmod.build(start, clean, config_file)


# Option groups declared once; `@shared(...)` adds a group's options to a command and hands
# their values to it as `given` (a dict by parameter name). `(annotation, default)` each.
Opt = tuple[Any, Any]
FILES: dict[str, Opt] = {"include": (Include, None), "exclude": (Exclude, None)}
SELECTION: dict[str, Opt] = {**FILES, "force_exclude": (ForceExclude, False), "select": (Select, None),
                             "ignore": (Ignore, None)}
PASSES: dict[str, Opt] = {"wave_strategy": (StrategyOpt, None), "rocm": (Rocm, None)}
LIBRARIES: dict[str, Opt] = {"blas": (BlasOpt, None), "sparse": (SparseOpt, None), "rand": (RandOpt, None),
                             "solver": (SolverOpt, None), "fft": (FftOpt, None), "dnn": (DnnOpt, None),
                             "roc": (RocOpt, False)}
BUILD: dict[str, Opt] = {"no_build_files": (NoBuildFiles, False)}
PROJECT: dict[str, Opt] = {"include_paths": (IncludeDirOpt, None), "defines": (DefineOpt, None),
                           "compile_commands": (CompileCommandsOpt, None), "precise": (PreciseOpt, False)}
RUN: dict[str, Opt] = {"jobs": (Jobs, None), "no_cache": (NoCache, False), "cache_dir": (CacheDir, None),
                       "config_file": (ConfigOpt, None)}
# Flags whose "off" means "not given" (the configuration file decides), as configuration keys.
_FLAGS = {"force_exclude": ("force_exclude", True), "roc": ("roc", True), "no_cache": ("cache", False),
          "no_build_files": ("build_files", False), "precise": ("precise", True)}
_NOT_CONFIG = ("cache_dir", "config_file")


def shared(*groups: dict[str, Opt]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Add the options of `groups` to a command, after its own; it receives them as `given`."""
    options = {name: opt for g in groups for name, opt in g.items()}

    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        own = [p for p in inspect.signature(fn).parameters.values() if p.name != "given"]
        extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
                 for name, (annotation, default) in options.items()]

        @functools.wraps(fn)
        def command(**kw: Any) -> None:
            given = {name: kw.pop(name) for name in options}
            fn(**kw, given=given)

        params = [*own, *extra]
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return wrap


def overrides(given: dict[str, Any]) -> dict[str, Any]:
    """The shared options as `_config` overrides (None: not given, the config file decides)."""
    out: dict[str, Any] = {}
    for name, value in given.items():
        if name in _FLAGS:
            key, on = _FLAGS[name]
            out[key] = on if value else None
        elif name not in _NOT_CONFIG:
            out[name] = value
    return out


def cache_dir_of(given: dict[str, Any], paths: list[Path], cfg: configmod.Config) -> Path | None:
    """--cache-dir, else the tree's folder in the user cache; None with caching off."""
    from hipport.cache import default_folder

    return (given["cache_dir"] or default_folder(tuple(paths))) if cfg.cache else None
