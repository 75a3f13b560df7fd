"""`hipport validate`: does the port compile for AMD GPUs, and does it still compute the same?

validate() ports the input (or takes a ported tree), compiles every translation unit per AMD
arch with the clang of each HIP toolchain asked for (`toolchains`: names `hipport toolchains`
lists; none: the host's HIP; compile.py, driver.py; hipcc itself is never run), with
only the tree's values that pass flags.py's checks, and with `run=True` runs every program on
the wave emulator three ways and on any GPU present (runs.py). The result is a frozen `ValidationResult`
(hipport.model; its JSON is documented in docs/validate.md) that `RunResult.validation`
carries to the report views.

Note: the wave emulator's own code lives in hipport/validate/emulator.py and emulator/.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hipport import rules as rulesmod
from hipport.config import Config
from hipport.errors import HipportError
from hipport.floor import RocmFloor, version
from hipport.model import (
    FileStatus,
    RunResult,
    SkippedArch,
    ValidationDetails,
    ValidationNote,
    ValidationProblem,
    ValidationResult,
    ValidationSummary,
    ValidationToolchain,
)
from hipport.registry import HP
from hipport.validate import compile as compilemod
from hipport.validate import errors_map, project, runs, toolchains, unitclass
from hipport.validate import flags as flagsmod
from hipport.validate.driver import Toolchain
from hipport.validate.errors_map import Diagnostic, Explainer
from hipport.validate.tree import Entry, PortedTree
from hipport.workspace import WorkFile, discover

SCHEMA_VERSION = 1

ProgressFactory = Callable[[str], AbstractContextManager[Callable[[int, int], None] | None]]


@dataclass
class Options:
    paths: tuple[Path, ...] = ()  # the CUDA originals (may be empty with `ported`)
    ported: Path | None = None  # an already ported tree
    archs: tuple[str, ...] | None = None  # None: gfx90a (+ gfx942 when known)
    toolchains: tuple[str, ...] = ()  # names from `hipport toolchains`; (): the host's HIP
    compdb: Path | None = None  # -p: compile_commands.json or its folder
    includes: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()
    compile: bool = True
    run: bool = False
    gpu: bool = True  # use GPUs that are present (with run)
    emulate: bool = True  # run on the wave emulator (with run)
    check: bool = False  # emulator: checked builds (AddressSanitizer)
    jobs: int = 0
    timeout: float = 60.0
    work_dir: Path | None = None  # keep the ported trees and binaries here
    cache_dir: Path | None = None
    config_file: Path | None = None  # the configuration file ([[validate.programs]] may be there)
    programs_file: Path | None = None  # a TOML file of [[programs]] (validate --programs)
    strict: bool = False  # treat "not run" as a failure


@dataclass
class Validation:
    doc: ValidationResult
    units: list[compilemod.UnitResult] = field(default_factory=list)
    programs: list[runs.ProgramResult] = field(default_factory=list)
    run: RunResult | None = None  # the port of the product tree (for the report)

    @property
    def failed(self) -> bool:
        return self.doc.summary.failed


def _no_progress(_: str) -> AbstractContextManager[None]:
    return nullcontext(None)


@contextmanager
def _workdir(given: Path | None) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given.resolve()
        return
    d = tempfile.mkdtemp(prefix="hipport-validate-")
    try:
        yield Path(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _explainer(trees: list[PortedTree], config: Config) -> Callable[[Diagnostic, Entry | None], None]:
    """Fill `d.rule` from the port's findings on that original line, else the API tables."""
    try:
        rs = rulesmod.for_config(config)
        lookup = rs.lookup
    except Exception:  # tables missing or broken: explain from findings only
        lookup = None
    try:
        from hipport import registry
        known = set(registry.rules())
    except Exception:
        known = set()
    known_w = {k for k in known if k.startswith("W")}

    def explain(d: Diagnostic, entry: Entry | None) -> None:
        findings: tuple = ()
        if entry is not None and d.line is None and d.category == errors_map.TARGET and entry.result is not None:
            # the backend names no place: what the port said of the target anywhere in the unit
            findings = tuple(f for f in entry.result.findings if f.rule == HP.UNSUPPORTED_ON_TARGET)
        if entry is not None and d.line is not None:
            res = entry.result
            if res is None:
                for t in trees:  # a copied/ported-elsewhere file: any tree's port of it
                    e2 = t.entry_for_original(entry.wf.path) if entry.wf is not None else None
                    if e2 is not None and e2.result is not None:
                        res = e2.result
                        break
            if res is not None:
                lines = (d.line, d.line)
                if d.category == errors_map.TARGET and res.original is not None:  # the whole function
                    from hipport.source import SourceFile, function_lines

                    lines = function_lines(SourceFile(res.path, res.original), d.line) or lines
                findings = tuple(f for f in res.findings if f.span.line <= lines[1] and lines[0] <= f.span.end_line)
        d.rule = errors_map.explain(d, Explainer(findings, lookup, config.floor), known_w or None)

    return explain


def validate(opts: Options, config: Config, *, progress: ProgressFactory | None = None,
             log: Callable[[str], None] | None = None) -> Validation:
    progress = progress or _no_progress
    say = log or (lambda _m: None)
    if not opts.paths and opts.ported is None:
        raise HipportError("give the CUDA files or folders to validate, or --ported DIR")
    if opts.ported is not None and not opts.ported.exists():
        raise HipportError("no such file or directory", opts.ported)
    tcs = chosen_toolchains(opts.toolchains)  # an unknown name stops here, before any work
    originals: list[WorkFile] = discover(list(opts.paths), config.include, config.exclude) if opts.paths else []
    if opts.paths and not originals:
        raise HipportError("no files found to validate", opts.paths[0])
    cache_dir = opts.cache_dir
    if cache_dir is None and config.cache and opts.paths:
        from hipport.cache import default_folder
        cache_dir = default_folder(tuple(opts.paths))
    if cache_dir is None and config.cache and opts.ported is not None:
        from hipport.cache import default_folder
        cache_dir = default_folder((opts.ported,))
    if not config.cache:
        cache_dir = None

    with _workdir(opts.work_dir) as work:
        # The product: what `hipport port` writes (or the tree given with --ported).
        with progress("porting") as bar:
            if opts.ported is not None:
                product = PortedTree.existing(opts.ported, originals or None, label="product",
                                              include=config.include, exclude=config.exclude)
            else:
                headers = include_headers(opts.paths, opts.includes, config)
                for d in sorted({str(h.root) for h in headers}):
                    say(f"note: the headers of include folder {d} are ported with the units (it is outside the inputs)")
                context = context_headers(opts.paths, originals, originals + headers, config)
                if context:
                    say(f"note: {len(context)} header{'s' if len(context) != 1 else ''} the files named alone "
                        f"read ({', '.join(h.display for h in context[:3])}{', ...' if len(context) > 3 else ''}) "
                        f"are ported with them")
                headers += context
                product = PortedTree.port(originals + headers, config, work / "ported", cache_dir=cache_dir,
                                          label="product", progress=bar)
        trees = [product]
        explain = _explainer(trees, config)
        stop = _stop_dir(opts, originals, product)
        product.project = stop

        # flags per unit: compile_commands.json, else the project's build files, then -I/-D;
        # every value from the tree is checked first (flags.py), the command line's are the user's
        db_dir = (opts.compdb if opts.compdb.is_dir() else opts.compdb.parent) if opts.compdb else None
        system = tuple(d for t in tcs if t is not None and t.ok for d in compilemod.system_dirs(t))
        checker = flagsmod.Checker([stop, *([db_dir] if db_dir else [])], system, opts.includes)
        compdb = flagsmod.load_compdb(opts.compdb) if opts.compdb else {}
        # -I, then the project model's include folders (the configuration's, compile_commands.json's,
        # the build files'; hipport.commands.project checked those the tree gave)
        cli = flagsmod.cli_flags(tuple(dict.fromkeys([*opts.includes, *map(Path, config.include_paths)])),
                                 opts.defines)
        project_values: dict[Path | None, list[flagsmod.Value]] = {}

        def flags_of(src: Path) -> flagsmod.Flags:
            values = compdb.get(src.resolve())
            if values is None:
                pdir = project.project_dir(src, stop)
                if pdir not in project_values:
                    project_values[pdir] = project.project_values(pdir)
                values = project_values[pdir]
            f = checker.flags(values).merged(cli)
            return f if f.std else replace(f, std="c++17")

        def unit_flags(e: Entry) -> list[str]:
            src = e.wf.path if e.wf is not None else e.copy
            return compilemod.command_flags(flags_of(src), product)

        # --- compile check
        units = product.units()
        plans: list[tuple[str, toolchains.ArchPlan]] = []
        unit_results: list[compilemod.UnitResult] = []
        if opts.compile:
            requested = opts.archs
            if requested is None and config.origin("offload_arch") != "default":
                requested = tuple(config.offload_arch)
            for tc in tcs:
                plan = arch_plan(tc, requested)
                name = tc.name if tc is not None else ""
                with progress(f"compiling ({name})" if len(tcs) > 1 else "compiling") as bar:
                    unit_results += compilemod.compile_units(
                        product, units, plan.archs, flags_for=unit_flags, jobs=opts.jobs, explain=explain,
                        toolchain=tc, skipped=plan.skipped, progress=bar, cache_dir=cache_dir,
                        use_pch=os.environ.get("HIPPORT_VALIDATE_PCH") != "0")
                plans.append((name, plan))

        # --- run check
        program_results: list[runs.ProgramResult] = []
        programs: list[project.Program] = []
        if opts.run:
            if originals:
                srcs = [(wf.display, wf.path.resolve()) for wf in originals]
            else:
                srcs = [(e.display, e.copy) for e in product.entries]
            configured = project.configured_programs(opts.config_file or _config_file(opts), checker.flags)
            if opts.programs_file is not None:
                if not opts.programs_file.is_file():
                    raise HipportError("no such file", opts.programs_file)
                configured += project.configured_programs(opts.programs_file, checker.flags)
            # A configured entry for a main file (its sizes, its own check) replaces the
            # program found for that file.
            mains = {pr.main.resolve() for pr in configured}
            programs = [pr for pr in project.find_programs(srcs, stop, checker.flags)
                        if pr.main.resolve() not in mains]
            programs += configured
            for pr in programs:
                values = compdb.get(pr.main.resolve())
                pr.flags = (checker.flags(values) if values else pr.flags).merged(cli)
            ref_tree = port_tree = None
            if opts.emulate:
                with progress("porting for the emulator") as bar:
                    if originals:
                        ref_tree = PortedTree.port(originals, replace(config, wave64=False, launch_syntax="ggl"),
                                                   work / "emu-ref", cache_dir=cache_dir, label="ref", progress=bar)
                    if opts.ported is None:
                        port_tree = PortedTree.port(originals, replace(config, launch_syntax="ggl"),
                                                    work / "emu-port", cache_dir=cache_dir, label="port")
                    else:  # the given port, launches made GGL (nothing else changes)
                        port_tree = _ggl_copy(product, work / "emu-port", cache_dir)
                trees += [t for t in (ref_tree, port_tree) if t is not None]
            with progress("running programs") as bar:
                program_results = runs.run_programs(
                    programs, runs.Trees(ref_tree, port_tree, product, bool(originals)), work / "runs",
                    timeout=opts.timeout, jobs=opts.jobs, gpu=opts.gpu, emulate=opts.emulate,
                    check=opts.check, explain=explain, progress=bar)

        if opts.work_dir is not None:
            say(f"ported trees and binaries kept in {work}")
        doc = document(opts, plans, unit_results, program_results, product, stop)
        used = [t for t in tcs if t is not None] if opts.compile else []
        doc = replace(doc, notes=tuple(ValidationNote(d.file, d.line, d.message) for d in checker.dropped),
                      toolchains=tuple(ValidationToolchain(t.name, t.hip_version, t.clang_version, t.root or None,
                                                           tuple(lib.name for lib in t.headers)) for t in used),
                      warnings=tuple(floor_warnings(used, config.floor)))
        return Validation(doc, unit_results, program_results, product.run)


def chosen_toolchains(names: Sequence[str]) -> list[Toolchain | None]:
    """The toolchains named (each once, in order); none named: the host's HIP (None when this
    machine has none). A toolchain in a root that cannot run there is kept, with the reason."""
    if not names:
        return [toolchains.amd_toolchain()]
    out: list[Toolchain | None] = []
    for name in dict.fromkeys(names):
        tc = toolchains.find(name)
        if tc.root and tc.ok:  # one cached question: does its clang run inside the root?
            known, why = toolchains.targets(tc)
            if not known:
                tc = replace(tc, error=why or "its clang names no AMD target")
        out.append(tc)
    return out


def arch_plan(tc: Toolchain | None, requested: Sequence[str] | None) -> toolchains.ArchPlan:
    """The archs to compile for with `tc` (each probed with it: toolchains.plan_archs)."""
    if tc is None or not tc.ok:
        return toolchains.ArchPlan(tuple(requested or (toolchains.DEFAULT_ARCH,)))
    return toolchains.plan_archs(requested, probe=lambda a: toolchains.probe_arch(a, tc))


def floor_warnings(used: Sequence[Toolchain], floor: RocmFloor) -> list[str]:
    """A toolchain older than the floor (`--rocm`) cannot show that the port builds there: a
    port for ROCm 6.4 that HIP 5.2 compiles may use what 6.4 changed. Each such toolchain is a
    warning, naming one at or above the floor when there is one."""
    want = floor.version[:2]
    out = []
    for tc in used:
        have = version(tc.hip_version)[:2]
        if not have or have >= want:
            continue
        better = [t.name for t in toolchains.listing().toolchains
                  if t.ok and version(t.hip_version)[:2] >= want]
        hint = f"; {', '.join(better)} {'is' if len(better) == 1 else 'are'} at or above it " \
               f"(--toolchain {better[0]})" if better else ""
        out.append(f"{tc.name} is HIP {'.'.join(map(str, have))}, older than the floor (--rocm {floor}): "
                   f"its answers do not show that the port builds with ROCm {floor}{hint}")
    return out


HEADER_SUFFIXES = frozenset({".h", ".hh", ".hpp", ".hxx", ".inl", ".cuh", ".ipp", ".tpp"})


def include_headers(paths: Sequence[Path], includes: Sequence[Path], config: Config) -> list[WorkFile]:
    """The headers of -I folders outside the inputs that belong to the project (a sibling
    `Common/` of helper headers): a unit reads them, so they must be the ported headers; a
    CUDA helper header compiled as it is fails every unit on its CUDA guards. A toolkit's or
    the system's include folder (under /usr or /opt, CUDA_HOME, or one holding CUDA's own
    runtime headers) is left as it is. Nothing from these folders is compiled as a unit."""
    inputs = [p.resolve() for p in paths]
    dirs = []
    for d in dict.fromkeys(p.resolve() for p in includes):
        if not d.is_dir() or any(d == i or i in d.parents for i in inputs):
            continue
        if _toolkit(d):
            continue
        dirs.append(d)
    if not dirs:
        return []
    return [wf for wf in discover(dirs, config.include, config.exclude)
            if os.path.splitext(wf.rel)[1].lower() in HEADER_SUFFIXES]


def _toolkit(d: Path) -> bool:
    """A toolkit's or the system's include folder (under /usr or /opt, CUDA_HOME, or one
    holding CUDA's own runtime headers): its headers are not the project's to port."""
    toolkit = [Path(x).resolve() for x in ("/usr", "/opt", os.environ.get("CUDA_HOME", ""),
                                             os.environ.get("CUDA_PATH", "")) if x]
    return any(d == t or t in d.parents for t in toolkit) or (d / "cuda_runtime_api.h").exists()


def context_headers(paths: Sequence[Path], originals: Sequence[WorkFile], known: Sequence[WorkFile],
                    config: Config) -> list[WorkFile]:
    """The headers a file named alone reads, as a build finds them (beside it, in a folder above
    it, in the project model's include folders: hipport.closure, the files the analysis reads):
    they are ported with it, so its quoted includes resolve in the ported copy as in the tree
    (`validate src/k.cu` beside `k.cuh`). Headers in `known`, and a toolkit's, are left out."""
    from hipport import closure

    named = {p.resolve() for p in paths if p.is_file()}
    have = {wf.path.resolve() for wf in known}
    dirs = tuple(os.path.abspath(d) for d in config.include_paths)
    unique = dict(config.unique_headers)
    memo: dict = {}
    out: dict[Path, WorkFile] = {}
    for wf in originals:
        if wf.path.resolve() not in named:
            continue
        try:
            data = wf.path.read_bytes()
        except OSError:
            continue
        for h in closure.read(str(wf.path), data, memo, dirs, unique).found:
            hp = Path(h).resolve()
            if hp in have or hp in out or hp.suffix.lower() not in HEADER_SUFFIXES or _toolkit(hp.parent):
                continue
            out[hp] = WorkFile(str(hp), hp.name, os.path.relpath(hp) if hp.is_relative_to(Path.cwd()) else str(hp),
                               hp.parent)
    return list(out.values())


def _ggl_copy(tree: PortedTree, out: Path, cache_dir: Path | None) -> PortedTree:
    """A copy of a ported tree with `<<<>>>` launches rewritten as hipLaunchKernelGGL."""
    files = [WorkFile(str(e.copy), e.copy.relative_to(tree.root).as_posix() if e.copy.is_relative_to(tree.root)
                      else e.copy.name, e.display, tree.root) for e in tree.entries]
    t = PortedTree.port(files, Config(wave64=False, launch_syntax="ggl", cache=False), out, label="port")
    # Keep the mapping to the originals: results name the original files.
    by_copy = {os.path.normpath(str(e.copy)): e for e in tree.entries}
    for e in t.entries:
        src = by_copy.get(os.path.normpath(str(e.wf.path))) if e.wf else None
        if src is not None:
            e.display = src.display
            e.wf = src.wf or e.wf
            e.result = None  # map back through a diff against the original
            e.original_bytes = None
    t.base = tree.base
    t.__post_init__()
    return t


def _config_file(opts: Options) -> Path | None:
    from hipport.config import find_config_file
    start = opts.paths[0] if opts.paths else (opts.ported or Path.cwd())
    return find_config_file(start)


def _stop_dir(opts: Options, originals: list[WorkFile], product: PortedTree) -> Path:
    """How far up project folders (with CMakeLists.txt/Makefile) are searched for."""
    from hipport.validate.tree import common_base
    base = common_base(originals) if originals else product.root
    assert base is not None
    d = base
    for cand in [base, *base.parents]:  # a single file or a sub-folder: up to the repository root
        if (cand / ".git").exists():
            d = cand
            break
    else:
        d = base
    return d


# --- the result document -------------------------------------------------------------------------

def _count(statuses: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in statuses:
        out[s] = out.get(s, 0) + 1
    return dict(sorted(out.items()))


def document(opts: Options, plans: Sequence[tuple[str, toolchains.ArchPlan]], units: list[compilemod.UnitResult],
             programs: list[runs.ProgramResult], product: PortedTree, stop: Path) -> ValidationResult:
    """The result: flat `summary`, `table` and `errors` first (what the HTML report shows as
    they are), the full records under `details`. `plans`: each toolchain's name and archs, in
    order; `units`: a record per unit and toolchain."""
    comp = [a.status for u in units for a in u.archs.values()]
    emu = [leg.status for p in programs for k, leg in p.emulator.items() if k != "unfixed64"]
    gpu = [leg.status for p in programs for leg in p.gpu.values()]
    # A file the port could not analyse was copied as it is: what compiled is not its port.
    not_ported = [r for r in product.run.files if r.status == FileStatus.FAILED] if product.run else []
    failed = any(u.failed for u in units) or any(p.failed for p in programs) or bool(not_ported)
    not_run = comp.count(compilemod.NOT_RUN) + emu.count(runs.NOT_RUN) + gpu.count(runs.NOT_RUN)
    if opts.strict and not_run:
        failed = True
    saved = [p.program.name for p in programs if p.saved_by_wave64]
    archs = list(dict.fromkeys(a for _, plan in plans for a in [*plan.archs, *(a for a, _ in plan.skipped)]))
    compile_d = [u.to_dict() for u in units]
    runs_d = [p.to_dict(stop) for p in programs]

    def bad(xs: list[str]) -> int:
        return sum(1 for x in xs if x in ("fail", *runs.FAILED))

    classes = {k: sum(1 for u in compile_d if u["class"] == k) for k in unitclass.KINDS}
    summary = ValidationSummary(
        failed=failed,
        units=len(dict.fromkeys(u.file for u in units)),
        programs=len(programs),
        compile_pass=comp.count(compilemod.PASS),
        compile_fail=comp.count(compilemod.FAIL),
        compile_not_run=comp.count(compilemod.NOT_RUN),
        compile_cached=sum(1 for u in units for a in u.archs.values() if a.cached),
        units_missing_package=classes[unitclass.MISSING_PACKAGE],
        units_flagged=classes[unitclass.FLAGGED],
        units_unexpected=classes[unitclass.UNEXPECTED],
        emulator_pass=emu.count(runs.PASS),
        emulator_fail=bad(emu),
        emulator_not_run=emu.count(runs.NOT_RUN),
        fixed_by_wave64=len(saved),
        gpu_pass=gpu.count(runs.PASS),
        gpu_fail=bad(gpu),
        gpu_not_run=gpu.count(runs.NOT_RUN),
        not_run=not_run,
        not_ported=len(not_ported),
        units_missing_dependency=classes[unitclass.MISSING_DEPENDENCY],
    )
    port_errors = [ValidationProblem(r.path, None, "port", HP.UNREADABLE_FILE, r.error or "failed", "hipport port")
                   for r in not_ported]
    compiled_headline = _headline(product, plans, units)
    return ValidationResult(
        version=SCHEMA_VERSION,
        failed=failed,
        archs=tuple(archs),
        summary=summary,
        table=tuple(table_rows(archs, compile_d, runs_d, port_errors, len(plans) > 1)),
        errors=tuple(port_errors + flat_errors(compile_d, runs_d)),
        occupancy=tuple(runs.occupancy_rows(programs)),
        details=ValidationDetails(
            toolchain=toolchains.summary(),
            archs_skipped=tuple(SkippedArch(a, r, name) for name, plan in plans for a, r in plan.skipped),
            ported_root=str(product.root) if opts.work_dir or opts.ported else None,
            fixed_by_wave64=tuple(saved),
            compile=tuple(compile_d),
            runs=tuple(runs_d),
        ),
        headline=compiled_headline,
    )


def _headline(product: PortedTree, plans: Sequence[tuple[str, toolchains.ArchPlan]],
              units: list[compilemod.UnitResult]) -> dict[str, Any] | None:
    """The compiled headline: the port's, with each unit counted by what the floor's toolchain
    (else the first that compiled) made of it."""
    from hipport.report.headline import BUILT_FAIL, BUILT_NOT_RUN, BUILT_PASS, headline

    if product.run is None or not plans:
        return None
    floor = product.run.settings.get("ROCm floor", "")
    names = [name for name, _ in plans]
    chosen = f"hip-{floor}" if f"hip-{floor}" in names else names[0]
    archs = next(plan.archs for name, plan in plans if name == chosen)
    built: dict[str, str] = {}
    for u in units:
        if (u.toolchain or chosen) != chosen:
            continue
        got = [a.status for a in u.archs.values()]
        built[u.file] = BUILT_FAIL if compilemod.FAIL in got else \
            BUILT_PASS if compilemod.PASS in got else BUILT_NOT_RUN
    check = f"compile-checked with {chosen}" + (f" for {', '.join(archs)}" if archs else "") + \
        ("" if chosen == f"hip-{floor}" else f" (the ROCm floor is {floor})")
    return headline(product.run, built, check).to_json()


_WORD = {"mismatch": "fail", "build-error": "fail", "run-error": "fail", "not-run": "not run"}
_UNFIXED = {"differs": "differs", "build-error": "build error", "run-error": "run error", "not-run": "not run"}


def table_rows(archs: list[str], compile_d: list[dict[str, Any]], runs_d: list[dict[str, Any]],
               not_ported: Sequence[ValidationProblem] = (), by_toolchain: bool = False) -> list[dict[str, Any]]:
    """One row per file: compile per arch (`compile gfx90a`; with more than one toolchain per
    toolchain and arch: `compile hip-6.4 gfx90a`), emulator legs, GPU (the terminal table's
    columns); a file the port could not analyse says so beside it."""
    cols: dict[str, None] = {}  # the compile columns, in order
    for u in compile_d:
        for a in archs:
            if not by_toolchain:
                cols[f"compile {a}"] = None
            elif a in u["archs"]:
                cols[f"compile {u.get('toolchain') or ''} {a}"] = None
    rows: dict[str, dict[str, Any]] = {}
    for u in compile_d:
        row = rows.setdefault(u["file"], {"file": u["file"], **{c: "" for c in cols}})
        tc = u.get("toolchain") or ""
        for a in archs:
            r = u["archs"].get(a)
            if r is not None:
                row[f"compile {tc} {a}" if by_toolchain else f"compile {a}"] = _word(r)
        if u.get("class"):  # why it failed, so the report's table says it beside the unit
            why = f"{tc}: {u['class']}: {u['why']}" if by_toolchain else f"{u['class']}: {u['why']}"
            row["failure"] = f"{row['failure']}; {why}" if "failure" in row else why
    if not compile_d:
        cols = {f"compile {a}": None for a in archs}
    for r in runs_d:
        row = rows.setdefault(r["program"], {"file": r["program"]})
        for c in cols:
            row.setdefault(c, "")
        e = r["emulator"]
        for key, leg in (("emulator w32 (CUDA)", "ref32"), ("emulator w64 (port)", "port64"),
                         ("emulator w64 (no wave64)", "unfixed64")):
            st = e.get(leg, {}).get("status", "")
            if leg == "unfixed64":  # informational: what the port would do without the wave64 pass
                row[key] = _UNFIXED.get(st, st) + (" (fixed by wave64)" if r.get("saved_by_wave64") else "")
            else:
                row[key] = _word(e.get(leg, {"status": ""}))
        ran = [f"{k} {_WORD.get(v['status'], v['status'])}" for k, v in r["gpu"].items() if v["status"] != "not-run"]
        why = "; ".join(dict.fromkeys(f"{k}: {v['reason']}" for k, v in r["gpu"].items() if v.get("reason")))
        row["gpu"] = ", ".join(ran) or (f"not run: {why}" if why else "not run")
    for p in not_ported:  # compiled as it was written: the port's failure is what to say
        row = rows.setdefault(p.file or "", {"file": p.file, **{c: "" for c in cols}})
        row["failure"] = f"not ported: {p.message}"
    return list(rows.values())


def _word(r: dict[str, Any]) -> str:
    """A table cell: the status in a word; "not run" says why."""
    word = _WORD.get(r["status"], r["status"])
    return f"{word}: {r['reason']}" if r["status"] == "not-run" and r.get("reason") else word


def flat_errors(compile_d: list[dict[str, Any]], runs_d: list[dict[str, Any]]) -> list[ValidationProblem]:
    """Every compile error once (archs merged) and every run failure, one flat record each."""
    out: list[ValidationProblem] = []
    seen: dict[tuple, int] = {}  # error -> its index in out (its `where` grows by arch)
    for u in compile_d:
        for arch, r in u["archs"].items():
            for e in r["errors"]:
                key = (u.get("toolchain"), e["file"], e["line"], e["column"], e["message"])
                if key in seen:
                    first = out[seen[key]]
                    out[seen[key]] = replace(first, where=f"{first.where}, {arch}")
                    continue
                seen[key] = len(out)
                out.append(ValidationProblem(e["file"] or e["ported_file"], e["line"], e["category"],
                                             e["rule"], e["message"], f"{u.get('toolchain') or 'hip'} {arch}"))
    for r in runs_d:
        for leg, x in list(r["emulator"].items()) + [(f"gpu {k}", v) for k, v in r["gpu"].items()]:
            if x["status"] not in runs.FAILED or leg == "unfixed64":  # unfixed64 only informs
                continue
            for e in x.get("errors", [])[:10]:
                out.append(ValidationProblem(e["file"] or e["ported_file"], e["line"], e["category"],
                                             e["rule"], e["message"], leg))
            if not x.get("errors"):
                out.append(ValidationProblem(r["program"], None, "run", None,
                                             x.get("reason") or x["status"], leg))
    return out
