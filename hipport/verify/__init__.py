"""`hipport verify`: per-kernel differential checks with generated inputs, on the wave emulator.

For each `__global__` kernel of the CUDA files given: its launch shape (hipport.verify.kernels),
cases around the wave boundaries (inputs), a harness built twice (harness: the original with
names translated only, at wave 32, as CUDA runs it; the full port at wave 64), and a comparison
of every buffer (compare). Each kernel is PASS, FAIL (the first differing element) or
UNVERIFIED (why). docs/verify.md."""

from __future__ import annotations

import shutil
import struct
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hipport.config import Config, VerifySpec, find_config_file, workers
from hipport.model import FAIL, PASS, UNVERIFIED, KernelCheck, VerifyResult
from hipport.verify import compare, harness, inputs
from hipport.verify.kernels import Kernel, Launch, Scope, Tree, parse_tree

if TYPE_CHECKING:
    from hipport.validate.flags import Flags

# What the emulator lacks, told apart by the host compiler's message when the original's harness
# does not build: no configuration removes these (docs/verify.md, Limits).
EMULATOR_GAPS = (("Assembler messages", "the emulator lacks inline PTX"),
                 ("hipcub/", "the emulator lacks hipCUB"), ("cub/cub.cuh", "the emulator lacks hipCUB"),
                 # an original written for 64-lane waves (a 64-thread tile) has no wave-32 reference
                 ("no larger than the wave size", "the original assumes a wave wider than 32"))
TIMEOUT = 300.0  # seconds one input kind of one kernel may run


@dataclass
class Options:
    paths: tuple[Path, ...]
    work_dir: Path | None = None
    cache_dir: Path | None = None
    timeout: float = TIMEOUT
    jobs: int = 0
    block: int | None = None  # threads per block for kernels no launch or configuration shapes


@dataclass
class _Project:
    """Files that build together: one parse (their constants, kernels and launches)."""

    folder: Path
    files: list[Path]
    tree: Tree | None = None


def verify(opts: Options, cfg: Config, progress: Callable[[int, int], None] | None = None,
           log: Callable[[str], None] | None = None) -> VerifyResult:
    from hipport.validate import emulator, project
    from hipport.validate.emulate import _repo_root
    from hipport.validate.flags import Checker
    from hipport.validate.tree import PortedTree
    from hipport.workspace import CUDA_HEADER, CUDA_SOURCE, discover

    say = log or (lambda _m: None)
    files = discover(list(opts.paths), cfg.include, cfg.exclude)
    cuda = [wf for wf in files if _role(wf) in (CUDA_SOURCE, CUDA_HEADER)]
    if not cuda:
        return VerifyResult(())
    if emulator.compiler() is None:
        return VerifyResult(tuple(KernelCheck(k.qualified, wf.display, k.line, UNVERIFIED,
                                              "no host C++ compiler (g++) for the wave emulator")
                                  for wf in cuda for k in parse_tree([wf.path]).kernels))
    stop = _repo_root(opts.paths[0])
    display = {wf.path.resolve(): wf.display for wf in files}
    # one parse per project (the nearest folder with a build file): constants do not leak across
    groups: dict[Path, _Project] = {}
    for wf in cuda:
        folder = project.project_dir(wf.path.resolve(), stop) or wf.path.resolve().parent
        groups.setdefault(folder, _Project(folder, [])).files.append(wf.path.resolve())
    for g in groups.values():
        g.tree = parse_tree(g.files)
    work = Path(tempfile.mkdtemp(prefix="hipport-verify-")) if opts.work_dir is None else opts.work_dir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        ref = PortedTree.port(files, replace(cfg, wave64=False, launch_syntax="ggl"), work / "ref", label="ref",
                              cache_dir=opts.cache_dir)
        port = PortedTree.port(files, replace(cfg, launch_syntax="ggl"), work / "port", label="port",
                               cache_dir=opts.cache_dir)
        for t in (ref, port):
            _prepare(t)
        checker = Checker(stop, ())
        programs = project.find_programs([(wf.display, wf.path.resolve()) for wf in files], stop, checker.flags)

        def flags_of(src: Path) -> Flags:  # a file in no program: its project's build files
            return checker.flags(project.project_values(project.project_dir(src.resolve(), stop)))

        jobs = [(g, k) for g in groups.values() for k in (g.tree.kernels if g.tree else [])]
        if progress:
            progress(0, len(jobs))

        # every kernel's plan and harnesses first, so that kernels launched from one file share a build
        setups = [_setup(k, g, display, ref, port, programs, flags_of, _spec(k, cfg), work / f"k{i:03d}",
                         opts.cache_dir, opts.block) for i, (g, k) in enumerate(jobs)]
        harness.share([h for s in setups if isinstance(s, _Setup) for h in (s.ref, s.port)])

        def one(i: int) -> KernelCheck:
            s = setups[i]
            return _check(s, opts.timeout) if isinstance(s, _Setup) else s

        results: list[KernelCheck | None] = [None] * len(jobs)
        with ThreadPoolExecutor(max_workers=max(1, min(workers(opts.jobs), len(jobs) or 1))) as ex:
            futs = {ex.submit(one, i): i for i in range(len(jobs))}
            for done, f in enumerate(as_completed(futs), 1):
                results[futs[f]] = f.result()
                if progress:
                    progress(done, len(jobs))
        if opts.work_dir is not None:
            say(f"harnesses, ported trees and binaries kept in {work}")
        return VerifyResult(tuple(r for r in results if r is not None))
    finally:
        if opts.work_dir is None:
            shutil.rmtree(work, ignore_errors=True)


def _role(wf) -> str:  # noqa: ANN001 - a WorkFile
    from hipport.workspace import role_of

    try:
        return role_of(wf.path, wf.path.read_bytes()[:65536])
    except OSError:
        return ""


def _prepare(tree) -> None:  # noqa: ANN001 - a PortedTree
    """The emulator's pre-pass on every copy (it applies it to the sources it is given only,
    and the harness includes the program's files)."""
    from hipport.validate.emulator import prepare_source

    for e in tree.entries:
        try:
            text = e.copy.read_text(encoding="utf-8", errors="surrogateescape")
        except (OSError, IsADirectoryError):
            continue
        new = prepare_source(text)
        if new != text:
            e.copy.write_text(new, encoding="utf-8", errors="surrogateescape")


def _spec(k: Kernel, cfg: Config) -> VerifySpec | None:
    """The kernel's [tool.hipport.verify] entry: the nearest configuration of its file first,
    then the run's."""
    from hipport import config as configmod

    tables = []
    near = find_config_file(k.file)
    if near is not None:
        tables.append(dict(configmod.build(k.file, {}, near).verify))
    tables.append(dict(cfg.verify))
    for t in tables:
        for key in (k.qualified, k.name):
            if key in t:
                return t[key]
    return None


def _launches(k: Kernel, tree: Tree) -> list[Launch]:
    out = []
    for launch in tree.launches:
        base = launch.kernel.split("<")[0].strip()
        if launch.name == k.name and ("::" not in base or k.qualified.endswith(base) or base.endswith(k.qualified)):
            out.append(launch)
    return out


def _plan(k: Kernel, launches: list[Launch], spec: VerifySpec | None, block: int | None,
          instantiation: str | None = None, globals_scope: Scope | None = None) -> inputs.Plan:
    """The plan of the first launch that gives one (or of the configuration alone)."""
    first: inputs.Unverified | None = None
    # a launch whose shape cannot be evaluated falls back to --block, which then says so
    for launch in [*launches, None] if block else launches or [None]:  # type: ignore[list-item]
        try:
            return inputs.plan(k, launch, spec, (block, 1, 1) if block else None, instantiation, globals_scope)
        except inputs.Unverified as e:
            first = first or e
    assert first is not None
    raise first


@dataclass
class _Setup:
    """A kernel ready to run: its plan and its two harnesses (built on first need)."""

    base: KernelCheck
    kernel: Kernel
    plan: inputs.Plan
    spec: VerifySpec | None
    ref: harness.Harness
    port: harness.Harness


def _setup(k: Kernel, g: _Project, display: dict[Path, str], ref, port, programs,  # noqa: ANN001
           flags_of: Callable[[Path], Flags], spec: VerifySpec | None, work: Path, cache: Path | None,
           block: int | None) -> KernelCheck | _Setup:
    """The kernel's plan and harnesses, or its result where it gets no further (UNVERIFIED)."""
    shown = display.get(k.file, str(k.file))
    assert g.tree is not None
    base = KernelCheck(k.qualified, shown, k.line, UNVERIFIED, "")
    try:
        launches = _launches(k, g.tree)
        p = _plan(k, launches, spec, block, g.tree.instantiations.get(k.name), g.tree.globals)
    except inputs.Unverified as e:
        return replace(base, reason=str(e))
    launch = p.launch
    where = f"{display.get(launch.file, launch.file)}:{launch.line}" if launch is not None else \
        "configuration" if spec is not None and spec.block is not None else \
        f"--block {block} (no launch in the host code)" if not launches else \
        f"--block {block} (no launch in the host code has a shape hipport can evaluate)"
    if spec is not None and launch is not None:
        where += " and configuration"
    if p.rounded:
        where += f" (grid rounded up to cover {p.size_param}: the host code's grid floors)"
    base = replace(base, launch=where, sized_by=p.sized_by, sizes=tuple(dict.fromkeys(c.size for c in p.cases)))
    host = launch.file if launch is not None else k.file
    work.mkdir(parents=True, exist_ok=True)
    built = {}
    for side, tree, wave in (("ref", ref, 32), ("port", port, 64)):
        entry = tree.entry_for_original(host)
        if entry is None:
            return replace(base, reason=f"{host.name} is not among the ported files")
        # the program the launching file belongs to: its flags, and its other sources (not
        # its main file when that is another: the harness has the one main)
        h = host.resolve()
        prog = next((pr for pr in programs if pr.main.resolve() == h), None) or \
            next((pr for pr in programs if h in {x.resolve() for x in pr.sources}), None)
        others = [] if prog is None else [c for s in prog.sources if s.resolve() not in (h, prog.main.resolve())
                                          and (c := _copy(tree, s)) is not None]
        flags = prog.flags if prog is not None else flags_of(host)
        includes = [tree.copy_of_dir(d) for d in (flags.includes + flags.system_includes)]
        defines = [d for d in flags.defines if not d.startswith("!")]
        built[side] = harness.prepare(harness.source(p, entry.copy), k.name, work, wave=wave, includes=includes,
                                      defines=defines, others=others, root=tree.root,
                                      tree_files=[x.copy for x in tree.entries],
                                      cache=cache / "verify" if cache is not None else None,
                                      plan=p, include=entry.copy)
    return _Setup(base, k, p, spec, built["ref"], built["port"])


def _check(s: _Setup, timeout: float) -> KernelCheck:
    """Run the kernel's cases on both harnesses and compare every buffer."""
    base, k, p, spec = s.base, s.kernel, s.plan, s.spec
    built = {"ref": s.ref, "port": s.port}
    sizes = [struct.calcsize(x.code) for x in p.buffers]
    # outputs the configuration declares laid out per wave by design: run, not compared
    excluded = tuple(b.param for b in p.buffers if spec is not None and b.param in spec.wave_dependent)
    compared = 0
    skipped: list[str] = []
    skip_reason = ""
    reductions: set[str] = set()
    for kind in inputs.KINDS:
        cases = [c for c in p.cases if c.kind == kind]
        data = inputs.case_file(p, cases, k.qualified)
        r = harness.run(built["ref"], data, len(cases), sizes, f"ref-{kind}", timeout)
        if r.unbuilt:
            gap = next((why for pat, why in EMULATOR_GAPS if pat in r.error), None)
            return replace(base, reason=(f"{gap}: " if gap else "") +
                           f"the harness of the original does not build (wave 32): {r.error}")
        if r.buffers is None:
            skipped.append(kind)
            if "timed out" in r.error:
                return replace(base, reason=f"the original timed out on {kind} inputs")
            skip_reason = r.error
            continue
        q = harness.run(built["port"], data, len(cases), sizes, f"port-{kind}", timeout)
        if q.unbuilt:
            return replace(base, status=FAIL, reason=f"the harness of the port does not build (wave 64): {q.error}")
        if q.buffers is None:
            return replace(base, status=FAIL, kind=kind, reason=f"the port stops on {kind} inputs where the "
                                                                 f"original runs: {q.error}")
        for case, rb, qb in zip(cases, r.buffers, q.buffers, strict=True):
            ins = list(zip(p.buffers, rb, strict=True))
            count = case.size if p.size_counts_data else None
            reductions.update(compare.reduction_outputs(p.buffers, rb, count))
            for buf, x, y in zip(p.buffers, rb, qb, strict=True):
                if buf.param in excluded:
                    continue
                d = compare.compare(buf, x, y, ins, count)
                if d is not None:
                    how = f"within n·ε·Σ|x| of {d.basis}" if d.reduction else \
                        ("within 2 ULP" if buf.code in inputs.FLOAT_CODES else "bit for bit")
                    return replace(base, status=FAIL, param=d.param, index=d.index, size=case.size, kind=kind,
                                   expected=d.expected, actual=d.actual, cases=compared,
                                   skipped=tuple(skipped), reductions=tuple(sorted(reductions)),
                                   reason=f"{d.param}[{d.index}] differs at size {case.size} ({kind} inputs): "
                                          f"the original (wave 32) wrote {d.expected}, the port (wave 64) "
                                          f"{d.actual} (compared {how}){_by_design(k, d.param)}")
            compared += 1
    if not compared:
        if any(w in skip_reason for w in ("invalid memory access", "out-of-bounds", "AddressSanitizer")):
            return replace(base, skipped=tuple(skipped), reason=(
                f"a pointer it cannot size: the original reads or writes past the lengths given to its "
                f"buffers ({p.sized_by}) on every input kind; give lengths in [tool.hipport.verify.{k.name}]"
                f" ({skip_reason})"))
        return replace(base, skipped=tuple(skipped),
                       reason=f"the original stops on every input kind: {skip_reason}")
    note = f"{compared} cases, sizes {min(base.sizes)}..{max(base.sizes)}"
    if excluded:
        note += (f"; not compared: {', '.join(excluded)} (wave_dependent in [tool.hipport.verify.{k.name}]: "
                 "laid out per wave by design)")
    if skipped:
        note += f"; skipped {', '.join(skipped)} inputs (the original itself stops on them)"
    return replace(base, status=PASS, cases=compared, skipped=tuple(skipped),
                   reductions=tuple(sorted(reductions)), reason=note)


def _by_design(k: Kernel, param: str) -> str:
    """What a FAIL adds when the differing output follows the wave size by design (one element
    per wave, a whole-wave mask): still a FAIL, as verify cannot tell an intended wave-native
    layout from a bug, but said so, with the key that excludes the output once it is intended."""
    store = k.wave_indexed(param)
    if store is None:
        return ""
    return (f"; {param} follows the wave size by design (`{store}`), so it differs at wave 64; if that "
            f"layout is intended, name it in [tool.hipport.verify.{k.name}] wave_dependent")


def _copy(tree, src: Path) -> Path | None:  # noqa: ANN001
    e = tree.entry_for_original(src)
    return e.copy if e is not None else None
