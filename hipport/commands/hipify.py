"""`hipport hipify`: a front door that takes hipify-perl's and hipify-clang's options.

Scripts written for HIPIFY (`hipconvertinplace.sh`, `hipexamine-perl.sh`, build rules that run
`hipify-perl -o=out.hip in.cu`) work with `hipport hipify` in the tool's place. Options are
read as LLVM's and Perl's parsers read them: one dash or two, a value after `=` or as the
next word. What hipport does differently on purpose is in docs/hipify.md.

Exit status: 0 when every input was ported (names left unconverted are reported, as HIPIFY
reports them, and do not fail the run); 1 when an input cannot be read, written or ported;
2 for a bad command line, which includes a file named like an option (`-o=k.cu` from a glob)
and an output that would replace an input.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipport import __version__
from hipport import config as configmod
from hipport.errors import HipportError
from hipport.model import FileStatus
from hipport.workspace import CUDA_SOURCE, WorkFile

# Options that take a value (`-o=FILE`, `-o FILE`), by name without dashes.
VALUED = {"o", "o-dir", "o-stats", "rocm", "cuda-path", "clang-resource-directory", "p",
          "o-hipify-perl-dir", "exclude-dirs", "exclude-files", "whitelist", "doc-format",
          "doc-roc", "temp-dir", "config"}
FLAGS = {"inplace", "no-backup", "print-stats", "print-stats-csv", "examine", "no-output", "roc",
         "miopen", "hip-kernel-execution-syntax", "cuda-kernel-execution-syntax", "experimental",
         "quiet-warnings", "no-wave64", "help", "h", "version", "amap",
         "skip-excluded-preprocessor-conditional-blocks", "default-preprocessor",
         "use-hip-data-types", "save-temps", "perl", "python", "md", "csv", "hipify-perl"}
# Accepted for compatibility; they change nothing in hipport (the note says why).
IGNORED = {
    "cuda-path": "hipport reads no CUDA headers",
    "clang-resource-directory": "hipport runs no clang",
    "amap": "hipport ports every name it maps",
    "experimental": "hipport ports experimentally supported APIs too, with an HP007 note",
    "skip-excluded-preprocessor-conditional-blocks": "hipport ports every preprocessor branch",
    "default-preprocessor": "hipport ports every preprocessor branch",
    "use-hip-data-types": "hipport writes hipDataType where the ROCm floor has it",
    "save-temps": "hipport writes no temporary files",
    "temp-dir": "hipport writes no temporary files",
    "o-hipify-perl-dir": "hipport generates no hipify-perl script",
    "perl": "hipport generates no hipify-perl script",
    "python": "hipport generates no hipify-python script",
    "md": "hipport generates no documentation tables (see `hipport rules lookup`)",
    "csv": "hipport generates no documentation tables (see `hipport rules lookup`)",
    "doc-format": "hipport generates no documentation tables (see `hipport rules lookup`)",
    "doc-roc": "hipport generates no documentation tables (see `hipport rules lookup`)",
    "hipify-perl": "hipport generates no hipify-perl script",
    "whitelist": "hipport never renames a name its tables do not map",
    "exclude-dirs": "name the files to port instead",
    "exclude-files": "name the files to port instead",
}

# HIPIFY's own spellings are this door's defaults (a configuration file or an option still
# chooses): the ROCm HIPIFY writes for (6.x: hipBLAS's `_v2` names), its flat library headers
# ("hipblas.h"), quoted includes kept quoted, and under -roc rocBLAS's data types
# (rocblas_float_complex). `hipport port` keeps hipport's (docs/hipify.md says why).
DROPIN: dict[str, Any] = {"rocm": "6.4", "include_layout": "hipify", "include_quotes": "keep"}
DROPIN_ROC: dict[str, Any] = {"data_types": "rocblas"}

USAGE = """\
USAGE: hipport hipify [options] <source files> [-- <clang options>]

Ports CUDA sources to HIP with hipport, taking hipify-perl's and hipify-clang's options.

  -o=<file>                     Output file (one input)
  -o-dir=<dir>                  Output folder (the inputs' names)
  -inplace                      Rewrite the inputs, keeping each original as <file>.prehip
  -no-backup                    With -inplace, keep no .prehip copy
  -no-output                    Write no ported code
  -print-stats                  Print statistics (to stderr)
  -print-stats-csv              Write statistics to <input>.csv (or -o-stats=<file>)
  -examine                      -no-output and -print-stats
  -roc                          Port to roc* libraries where possible (rocBLAS, rocSPARSE, ...)
  -miopen                       Rename cuDNN calls to MIOpen as HIPIFY does (--dnn miopen-hipify)
  -hip-kernel-execution-syntax  Write hipLaunchKernelGGL(...) for <<<...>>> launches
  -cuda-kernel-execution-syntax Keep <<<...>>> launches (the default)
  -quiet-warnings               Print no findings
  -rocm=<version>               Oldest ROCm the output must compile on (hipport's option; here 6.4)
  -no-wave64                    Rename APIs only (hipport's option; HIPIFY does no wave64 work)
  -I<dir>, -D<macro>, -- ...    Accepted and ignored: hipport reads tokens, not a preprocessed file
  -version, -help
Defaults are HIPIFY's spellings, not `hipport port`'s: ROCm 6.4 (hipBLAS's _v2 names),
HIPIFY's include layout ("hipblas.h", "hiprand/hiprand.h"), quoted includes kept quoted, and
under -roc rocBLAS's data types (rocblas_float_complex). A .hipport.toml (rocm, include-layout,
include-quotes, data-types) or -rocm= chooses otherwise. Where hipport still writes something
else on purpose: docs/hipify.md, "Intentional differences".
Exit status: 0 ported, 1 an input failed, 2 bad options.
"""


@dataclass
class HipifyOptions:
    inputs: list[Path] = field(default_factory=list)
    output: Path | None = None
    out_dir: Path | None = None
    stats_file: Path | None = None
    inplace: bool = False
    backup: bool = True
    write: bool = True
    stats: bool = False
    stats_csv: bool = False
    quiet_warnings: bool = False
    overrides: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    show: str | None = None  # "help" or "version": print and stop


def parse(argv: list[str]) -> HipifyOptions:
    o = HipifyOptions()
    ignored: dict[str, str] = {}
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--":
            if argv[i:]:
                o.notes.append(f"clang options ignored ({' '.join(argv[i:])}): hipport runs no clang")
            break
        if not word.startswith("-") or word == "-":
            o.inputs.append(Path(word))
            continue
        if os.path.lexists(word):  # `hipify *.cu` over a tree holding a file named `-o=k.cu`
            raise HipportError(f"{word!r} reads as an option but names a file here (a glob such "
                               f"as *.cu passes such names as they are); to port it, write ./{word}")
        if word[:2] in ("-I", "-D", "-U") and word[1:2] != "-":
            value = word[2:] or (argv[i] if i < len(argv) else "")
            if not word[2:]:
                i += 1
            if word[:2] == "-U":
                ignored["-U"] = "hipport reads every preprocessor branch; -D names what the HIP build defines"
            elif word[:2] == "-I" and not os.path.isdir(value):  # clang skips it too
                o.notes.append(f"-I {value} ignored: no such folder")
            else:  # the project model reads headers from the folders and branches on the macros
                key = "include_paths" if word[:2] == "-I" else "defines"
                o.overrides[key] = (*o.overrides.get(key, ()), value)
            continue
        name, eq, value = word.lstrip("-").partition("=")
        if name in VALUED:
            if not eq:
                if i >= len(argv):
                    raise HipportError(f"option -{name} needs a value (-{name}=VALUE)")
                value = argv[i]
                i += 1
            _valued(o, name, value, ignored)
        elif name in FLAGS:
            if eq:
                raise HipportError(f"option -{name} takes no value")
            _flag(o, name, ignored)
        else:
            raise HipportError(f"unknown option {word!r} (hipport hipify -help lists them)")
    for name, why in sorted(ignored.items()):
        o.notes.append(f"-{name.lstrip('-')} ignored: {why}")
    if o.show:
        return o
    if not o.inputs:
        raise HipportError("no input files (hipport hipify [options] <source files>)")
    if o.output is not None and len(o.inputs) > 1:
        raise HipportError("-o names one output file; with several inputs use -o-dir or -inplace")
    if sum((o.output is not None, o.out_dir is not None, o.inplace)) > 1:
        raise HipportError("choose one of -o, -o-dir and -inplace")
    _check_outputs(o)
    return o


def _written_at(p: Path) -> str:
    """The folder entry a write to `p` replaces (a write renames over the name; it never
    follows a link there)."""
    return os.path.join(os.path.realpath(p.parent), p.name)


def _check_outputs(o: HipifyOptions) -> None:
    """Refuse a command line whose outputs (ports, statistics) would replace an input, or
    one another: hipify has no backup outside -inplace."""
    inputs = {f for p in o.inputs for f in (_written_at(p), os.path.realpath(p))}
    outputs: list[tuple[Path, str]] = []
    if o.write and o.output is not None:
        outputs.append((o.output, "-o"))
    if o.write and o.out_dir is not None:
        outputs += [(o.out_dir / p.name, "-o-dir") for p in o.inputs]
    if o.stats_csv:
        outputs.append((o.stats_file or (Path(f"{o.inputs[0]}.csv") if len(o.inputs) == 1
                                         else Path("sum_stat.csv")), "the statistics file"))
    seen: dict[str, str] = {}
    for out, what in outputs:
        at = _written_at(out)
        if at in inputs:
            raise HipportError(f"{what} would write {out} over an input; choose another output "
                               "(or -inplace, which keeps a .prehip backup)")
        if at in seen:
            raise HipportError(f"two inputs named {out.name} would both be written to {out}; port "
                               "them separately" if what == seen[at] == "-o-dir" else
                               f"{seen[at]} and {what} would both write {out}")
        seen[at] = what


def _valued(o: HipifyOptions, name: str, value: str, ignored: dict[str, str]) -> None:
    if name == "o":
        o.output = Path(value)
    elif name == "o-dir":
        o.out_dir = Path(value)
    elif name == "o-stats":
        o.stats_file = Path(value)
        o.stats_csv = True
    elif name == "rocm":
        o.overrides["rocm"] = value
    elif name == "config":
        o.overrides["_config"] = Path(value)
    elif name == "p":
        o.overrides["compile_commands"] = value
    else:
        ignored[name] = IGNORED[name]


def _flag(o: HipifyOptions, name: str, ignored: dict[str, str]) -> None:
    if name in ("help", "h"):
        o.show = "help"
    elif name == "version":
        o.show = "version"
    elif name == "inplace":
        o.inplace = True
    elif name == "no-backup":
        o.backup = False
    elif name == "no-output":
        o.write = False
    elif name == "print-stats":
        o.stats = True
    elif name == "print-stats-csv":
        o.stats_csv = True
    elif name == "examine":
        o.write, o.stats = False, True
    elif name == "miopen":
        o.overrides["dnn"] = "miopen-hipify"
    elif name == "roc":
        o.overrides["roc"] = True
    elif name == "hip-kernel-execution-syntax":
        o.overrides["launch_syntax"] = "ggl"
    elif name == "cuda-kernel-execution-syntax":
        o.overrides.setdefault("launch_syntax", "chevron")  # the HIP syntax overrides it
    elif name == "quiet-warnings":
        o.quiet_warnings = True
    elif name == "no-wave64":
        o.overrides["wave64"] = False
    else:
        ignored[name] = IGNORED[name]


def run(argv: list[str]) -> int:
    o = parse(argv)
    if o.show == "help":
        sys.stdout.write(USAGE)
        return 0
    if o.show == "version":
        sys.stdout.write(f"hipport hipify {__version__} (hipport's port behind HIPIFY's options)\n")
        return 0
    for note in o.notes:
        print(f"hipport: note: {note}", file=sys.stderr)
    from hipport import engine
    from hipport.commands.project import with_project
    from hipport.report.hipify_stats import Stats, render_csv, render_stats, stats_of
    from hipport.rules import for_config

    overrides = dict(o.overrides)
    config_file = overrides.pop("_config", None)
    config = configmod.build(o.inputs[0], overrides, config_file, DROPIN)
    if config.roc and config.origin("data_types") in ("default", "hipify default"):
        config = configmod.build(o.inputs[0], overrides, config_file, {**DROPIN, **DROPIN_ROC})
    titles = for_config(config).families
    # Every input, in order and as named (twice if named twice), ported as CUDA whatever its
    # name says; HIPIFY keeps no cache, nor does this door.
    files = [_work_file(p) for p in o.inputs]
    config = with_project(config, files, lambda m: print(f"hipport: {m}", file=sys.stderr))
    result = engine.run(files, config, engine.EVERYTHING)
    total = Stats()
    failed = 0
    for path, res in zip(o.inputs, result.files, strict=True):
        if res.error:
            print(f"hipport: error: {path}: {res.error}", file=sys.stderr)
            failed += 1
            continue
        data = res.original or b""
        out = res.ported if res.status == FileStatus.PORTED and res.ported is not None else data
        if not o.quiet_warnings:
            for f in res.findings:
                print(f"{path}:{f.span.line}:{f.span.column}: {f.severity.value}: [{f.rule}] {f.message}",
                      file=sys.stderr)
        try:
            _write(o, path, data, out)
        except OSError as e:
            print(f"hipport: error: {path}: cannot write: {e.strerror or e}", file=sys.stderr)
            failed += 1
            continue
        s = stats_of(res, data, titles, res.seconds)
        total.add(s)
        if o.stats:
            sys.stderr.write(render_stats(f"file '{path}'", s))
        if o.stats_csv and len(o.inputs) == 1 and \
                not _write_stats(o.stats_file or Path(f"{path}.csv"), render_csv(f"file '{path}'", s)):
            failed += 1
    if len(o.inputs) > 1:
        if o.stats:
            sys.stderr.write(render_stats("TOTAL", total))
        if o.stats_csv and not _write_stats(o.stats_file or Path("sum_stat.csv"), render_csv("TOTAL", total)):
            failed += 1
    return 1 if failed else 0


def _work_file(p: Path) -> WorkFile:
    """An input as named: its bytes read by the engine (a missing or unreadable one fails
    there, and the others still go ahead)."""
    try:
        st: os.stat_result | None = os.stat(p)
    except OSError:
        st = None
    return WorkFile(os.path.realpath(p), p.name, str(p), p.parent, st, fallback=CUDA_SOURCE)


def _write_stats(target: Path, text: str) -> bool:
    from hipport.workspace import write_atomic

    try:
        write_atomic(target, text.encode("utf-8", "surrogateescape"))  # a name's own bytes
    except OSError as e:
        print(f"hipport: error: {target}: cannot write: {e.strerror or e}", file=sys.stderr)
        return False
    return True


def _write(o: HipifyOptions, path: Path, data: bytes, out: bytes) -> None:
    from hipport.workspace import write_atomic

    if not o.write:
        return
    if o.inplace:
        if out == data:
            return
        backup = Path(f"{path}.prehip")
        if o.backup and not backup.exists():  # the first run's original is the one to keep
            write_atomic(backup, data)
        write_atomic(path, out, mode=os.stat(path).st_mode & 0o7777)
    elif o.output is not None:
        write_atomic(o.output, out)
    elif o.out_dir is not None:
        o.out_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(o.out_dir / path.name, out)
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(out)
        sys.stdout.buffer.flush()
