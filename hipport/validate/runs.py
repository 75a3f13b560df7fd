"""The run check: programs on the wave emulator three ways, and on real GPUs when present.

Emulator legs (all ported with `hipLaunchKernelGGL`, which g++ can compile):

* ``ref32``     - the CUDA original, API names translated only (wave64 off), at wave 32:
                  CUDA's semantics, the reference;
* ``port64``    - the full port (wave64 pass on, safe fixes applied) at wave 64: must print
                  what ``ref32`` prints (and the `.expected` file, when there is one);
* ``unfixed64`` - the port without wave64 fixes at wave 64: shown, never a failure, so the
                  user sees what the pass saved.

GPU legs: ``amd`` (the full port built by hipcc for the GPU's gfx arch) and ``nvidia`` (the
original built by nvcc and the port by HIP's NVIDIA path, both run). A missing GPU or tool
is "not-run" with the reason, never a pass.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipport.config import workers as config_workers
from hipport.model import OccupancyRow
from hipport.validate import errors_map, toolchains
from hipport.validate.compile import Explain, command_flags, map_diagnostics
from hipport.validate.errors_map import Diagnostic
from hipport.validate.project import Program
from hipport.validate.tree import PortedTree

# leg statuses
PASS = "pass"  # ran and printed the reference (for ref32: ran cleanly, and matched .expected)
MISMATCH = "mismatch"  # ran; output or exit code differs from the reference
BUILD_ERROR = "build-error"
RUN_ERROR = "run-error"  # timed out, or could not start
NOT_RUN = "not-run"
SAME = "same"  # unfixed64 only: printed the reference anyway (the pass changed nothing visible)
DIFFERS = "differs"  # unfixed64 only: differs from the reference (what the pass saved)
FAILED = (MISMATCH, BUILD_ERROR, RUN_ERROR)

LEGS = ("ref32", "port64", "unfixed64")
OUTPUT_KEEP = 20000  # characters of stdout/stderr kept per leg


@dataclass
class FirstDiff:
    line: int  # 1-based line of output
    expected: str | None  # None: the output ended early / went on longer
    actual: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "expected": self.expected, "actual": self.actual}

    def describe(self) -> str:
        exp = "(end of output)" if self.expected is None else repr(self.expected)
        act = "(end of output)" if self.actual is None else repr(self.actual)
        return f"line {self.line}: expected {exp}, got {act}"


def first_diff(actual: str, reference: str) -> FirstDiff | None:
    a = actual.splitlines()
    r = reference.splitlines()
    for i in range(max(len(a), len(r))):
        x = a[i] if i < len(a) else None
        y = r[i] if i < len(r) else None
        if x != y:
            return FirstDiff(i + 1, y, x)
    return None


@dataclass
class Leg:
    status: str
    reason: str = ""
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    diff: FirstDiff | None = None
    against: str = ""  # what it was compared with: "ref32", ".expected", "nvcc build"
    diagnostics: list[Diagnostic] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)  # GPU: arch / device / how built

    @property
    def failed(self) -> bool:
        return self.status in FAILED

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason or None, "exit_code": self.exit_code,
                "seconds": round(self.seconds, 3), "against": self.against or None,
                "first_diff": self.diff.to_dict() if self.diff else None,
                "stdout": self.stdout[:OUTPUT_KEEP], "stderr": self.stderr[-OUTPUT_KEEP:],
                "errors": [d.to_dict() for d in self.diagnostics], **self.detail}


@dataclass
class ProgramResult:
    program: Program
    emulator: dict[str, Leg] = field(default_factory=dict)
    gpu: dict[str, Leg] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        legs = [self.emulator.get("ref32"), self.emulator.get("port64"), *self.gpu.values()]
        return any(x is not None and x.failed for x in legs)

    @property
    def saved_by_wave64(self) -> bool | None:
        """True when the port printed the reference and the unfixed port did not."""
        p, u = self.emulator.get("port64"), self.emulator.get("unfixed64")
        if p is None or u is None or p.status != PASS or u.status == NOT_RUN:
            return None
        # Same source but for the wave64 edits: whatever breaks without them, they fixed.
        return u.status in (DIFFERS, *FAILED)

    def to_dict(self, root: Path | None = None) -> dict[str, Any]:
        pr = self.program
        return {"program": pr.name, "sources": [_rel(s, root) for s in pr.sources],
                "args": pr.args, "expected": _rel(pr.expected, root) if pr.expected else None,
                "emulator": {k: v.to_dict() for k, v in self.emulator.items()},
                "saved_by_wave64": self.saved_by_wave64,
                "gpu": {k: v.to_dict() for k, v in self.gpu.items()}}


def _rel(p: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return p.resolve().relative_to(root).as_posix()
        except ValueError:
            pass
    return str(p)


# --- building and running ---------------------------------------------------------------------

@dataclass
class Trees:
    """The ported trees a program's legs are built from (None: that leg cannot run)."""

    ref: PortedTree | None  # originals, names only, GGL launches (ref32 and unfixed64)
    port: PortedTree | None  # full port, GGL launches (port64)
    product: PortedTree | None  # what `hipport port` writes with the user's config (GPU legs)
    originals: bool = True  # the ref tree comes from CUDA originals (else: not run)


def _copies(tree: PortedTree, program: Program) -> list[Path] | None:
    out = []
    for s in program.sources:
        e = tree.entry_for_original(s) or tree.entry_for_copy(s)
        if e is None:
            return None
        out.append(e.copy)
    return out


def _run_binary(cmd: Sequence[str], timeout: float, stdin: str | None, cwd: Path | None = None,
                env: dict[str, str] | None = None) -> tuple[int | None, str, str, float, str]:
    t0 = time.perf_counter()
    try:
        p = subprocess.run(list(cmd), input=(stdin or "").encode(), capture_output=True, timeout=timeout,
                           cwd=cwd, env=env)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err = (e.stderr or b"").decode("utf-8", "replace")
        return None, out, err, time.perf_counter() - t0, f"timed out after {timeout:g}s"
    except OSError as e:
        return None, "", "", time.perf_counter() - t0, f"cannot start: {e}"
    return (p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"),
            time.perf_counter() - t0, "")


def emulator_leg(tree: PortedTree, program: Program, wave: int, workdir: Path, timeout: float,
                 explain: Explain | None, check: bool = False) -> Leg:
    """Build one program from `tree` for the wave emulator and run it."""
    try:
        from hipport.validate import emulator
    except ImportError:
        return Leg(NOT_RUN, "the wave emulator is not installed (hipport.validate.emulator)")
    srcs = _copies(tree, program)
    if srcs is None:
        return Leg(NOT_RUN, "a source of this program is not in the validated files")
    if emulator.compiler() is None:
        return Leg(NOT_RUN, "no host C++ compiler (g++) for the wave emulator")
    flags = program.flags
    includes = [tree.copy_of_dir(p) for p in flags.includes + flags.system_includes]
    defines = [d for d in flags.defines if not d.startswith("!")]
    out = workdir / f"{tree.label}-w{wave}"
    if program.shrink:
        from hipport.validate.project import shrunk

        text, missing = shrunk(srcs[0].read_text(encoding="utf-8", errors="surrogateescape"), program.shrink)
        if missing:
            return Leg(BUILD_ERROR, f"shrink: no integer initialiser or #define of {', '.join(missing)} "
                                    f"in {program.main.name}")
        # The shrunk main file lives in the work folder (a --ported tree is the user's); its
        # own folder goes first on the include path, where its quoted includes are.
        small = workdir / f"{tree.label}-{srcs[0].name}"
        small.write_text(text, encoding="utf-8", errors="surrogateescape")
        includes.insert(0, srcs[0].parent)
        srcs = [small, *srcs[1:]]
    t0 = time.perf_counter()
    try:
        binary = emulator.build(srcs, out, wave=wave, include_dirs=includes, defines=defines, check=check,
                                extra_flags=["-x", "c++"])
    except emulator.EmulatorBuildError as e:
        diags = errors_map.parse(e.stderr)
        map_diagnostics(diags, tree, srcs[0].parent, explain, f"g++ (emulator, wave {wave})")
        from hipport.validate.emulate import condense_build_errors
        diags = condense_build_errors(diags)
        tail = "" if diags else " | ".join([x for x in e.stderr.splitlines() if x.strip()][-3:])
        return Leg(BUILD_ERROR, tail or f"{len(diags)} compile error(s)", seconds=time.perf_counter() - t0,
                   diagnostics=diags[:25])
    build_s = time.perf_counter() - t0
    occ = out.with_suffix(".occupancy")
    occ.unlink(missing_ok=True)
    matched: str | None = None
    try:
        env = {"HIPEMU_OCCUPANCY": str(occ)}
        if program.passed_when:
            p, matched = emulator.run_until(binary, list(program.args), timeout, re.compile(program.passed_when),
                                            env=env)
        else:
            p = emulator.run(binary, list(program.args), timeout, env=env)
        rc, so, se, reason = p.returncode, p.stdout, p.stderr, ""
    except subprocess.TimeoutExpired as e:
        rc, reason = None, f"timed out after {timeout:g}s"
        so = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        se = e.stderr.decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    except OSError as e:
        return Leg(RUN_ERROR, f"cannot start: {e}")
    leg = Leg(PASS, reason, rc, so, se, time.perf_counter() - t0)
    leg.detail = {"build_seconds": round(build_s, 3), "wave": wave, "occupancy": read_occupancy(occ)}
    if program.passed_when:
        leg.detail["own_check"] = matched
    if rc is None:
        leg.status = RUN_ERROR
    elif rc == emulator.EXIT_CODE:
        leg.reason = "the emulator stopped the program: " + _last_line(se)
    return leg


def read_occupancy(path: Path) -> dict[str, list[int]]:
    """The emulator's lane counts per kernel, {kernel: [steps, lanes, present]} (see core.h: a
    step is a segment of code a wave runs with some lanes; lanes counts the lanes running in
    each, present the lanes the wave has at all)."""
    out: dict[str, list[int]] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        parts = line.rsplit("\t", 4)
        if len(parts) == 5 and all(p.isdigit() for p in parts[1:]):
            old = out.setdefault(parts[0], [0, 0, 0])
            out[parts[0]] = [old[0] + int(parts[2]), old[1] + int(parts[3]), old[2] + int(parts[4])]
    return out


def fill(counts: list[int], wave: int, which: int = 1) -> float | None:
    """Fraction of lane slots doing work (`which` 1: lanes running; 2: lanes present) over
    steps times the wave width."""
    return counts[which] / (counts[0] * wave) if counts[0] else None


def occupancy_rows(results: list[ProgramResult], root: Path | None = None) -> list[OccupancyRow]:
    """Per kernel: the share of lanes busy at wave 32 (the CUDA reference) and at wave 64 (the
    port), and what the wave-64 port leaves idle of what wave 32 used."""
    rows: list[OccupancyRow] = []
    for r in results:
        ref, port = r.emulator.get("ref32"), r.emulator.get("port64")
        at32 = ref.detail.get("occupancy", {}) if ref is not None and ref.status == PASS else {}
        at64 = port.detail.get("occupancy", {}) if port is not None and port.status == PASS else {}
        for kernel in dict.fromkeys([*at32, *at64]):
            f32 = fill(at32[kernel], 32) if kernel in at32 else None
            f64 = fill(at64[kernel], 64) if kernel in at64 else None
            present = fill(at64[kernel], 64, 2) if kernel in at64 else None
            file, line = kernel_location(r.program.sources, kernel)
            rows.append(OccupancyRow(r.program.name, kernel, _pct(f32), _pct(f64),
                                     round(f64 / f32, 3) if f32 and f64 is not None else None,
                                     occupancy_note(f32, f64, present), file, line))
    return rows


def kernel_location(sources: Sequence[Path], kernel: str) -> tuple[str | None, int | None]:
    """Where `kernel` (a name the emulator recorded, maybe with template arguments) is defined
    in a program's sources: (absolute path, 1-based line), or (None, None)."""
    name = re.escape(kernel.split("<", 1)[0].strip())
    pattern = re.compile(rf"__global__[^;{{}}]*?\b({name})\s*\(")
    for src in sources:
        try:
            text = src.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        m = pattern.search(text)
        if m:
            return str(src), text.count("\n", 0, m.start(1)) + 1
    return None, None


def occupancy_note(f32: float | None, f64: float | None, present: float | None = None) -> str:
    """What a porting team should know: the idle share, and what the idle lanes are."""
    if f64 is None or f32 is not None and f64 >= 0.85 * f32:
        return ""
    idle = f"{100 * (1 - f64):.0f}% of wave-64 lane slots do nothing"
    if present is not None and present <= 0.75:
        return (f"upper half-wave idles ({idle}): its blocks are smaller than a wave; launch "
                "blocks of 64 threads or more")
    if f64 <= 0.625:
        return (f"upper half-wave idles ({idle}): 32-lane work inside 64-lane waves; the native "
                "wave64 strategy (--wave-strategy native) spreads it where the kernel allows")
    return f"{idle}, {100 * (1 - f64 / f32):.0f}% fewer busy than at wave 32" if f32 else idle


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100 * x, 1)


def _last_line(s: str) -> str:
    lines = [x for x in s.splitlines() if x.strip()]
    return lines[-1].strip()[:300] if lines else ""


def judge(leg: Leg, reference: Leg | None, expected: str | None, *, informational: bool = False,
          ref_name: str = "ref32") -> Leg:
    """Compare a leg that ran with the reference run and/or the expected output."""
    if leg.status not in (PASS,):
        if informational and leg.status in FAILED:
            leg.detail["informational"] = True
        return leg
    if "own_check" in leg.detail:
        return _own_check(leg, informational)
    diffs: list[tuple[str, FirstDiff]] = []
    exit_diff = ""
    if reference is not None and reference.status == PASS:
        d = first_diff(leg.stdout, reference.stdout)
        if d:
            diffs.append((ref_name, d))
        if leg.exit_code != reference.exit_code:
            exit_diff = f"exit code {leg.exit_code}, {ref_name} exited {reference.exit_code}"
    if expected is not None:
        d = first_diff(leg.stdout, expected)
        if d:
            diffs.append((".expected", d))
    if (reference is None or reference.status != PASS) and expected is None:
        if informational:
            leg.status = NOT_RUN
            leg.reason = "no reference to compare with"
            return leg
        if leg.exit_code not in (0, None):
            exit_diff = f"exit code {leg.exit_code}"
        leg.against = "nothing (no reference ran, no .expected file)"
    else:
        leg.against = " and ".join(x for x in ((ref_name if reference is not None and reference.status == PASS else ""),
                                                (".expected" if expected is not None else "")) if x)
    if diffs or exit_diff:
        leg.status = DIFFERS if informational else MISMATCH
        if diffs:
            src, d = diffs[0]
            leg.diff = d
            leg.reason = f"output differs from {src} at {d.describe()}"
            if exit_diff:
                leg.reason += f"; {exit_diff}"
        else:
            leg.reason = exit_diff
    elif informational:
        leg.status = SAME
    return leg


def judge_reference(leg: Leg, expected: str | None, what: str = "the CUDA reference (wave 32)") -> Leg:
    """A reference run (ref32, or the nvcc-built original): it must run cleanly, and print the
    .expected file if any."""
    if leg.status != PASS:
        return leg
    if "own_check" in leg.detail:
        return _own_check(leg, False, what)
    if expected is not None:
        d = first_diff(leg.stdout, expected)
        leg.against = ".expected"
        if d:
            leg.status, leg.diff = MISMATCH, d
            leg.reason = f"{what} differs from .expected at {d.describe()}"
            return leg
    if leg.exit_code != 0:
        leg.status = MISMATCH
        leg.reason = leg.reason or f"{what} exited {leg.exit_code}"
    return leg


def _own_check(leg: Leg, informational: bool, what: str = "the program") -> Leg:
    """A program that checks itself passes when its own check printed the pass line; its
    output beyond that (timings) is not compared."""
    leg.against = "its own check"
    if leg.detail.get("own_check") is not None:
        leg.reason = f"its own check passed: {leg.detail['own_check'].strip()[:200]}"
        if informational:
            leg.status = SAME
        return leg
    leg.status = DIFFERS if informational else MISMATCH
    tail = _last_line(leg.stdout) or _last_line(leg.stderr)
    leg.reason = f"{what} ended (exit {leg.exit_code}) before its own check passed" + (f": {tail}" if tail else "")
    return leg


def run_emulator(program: Program, trees: Trees, workdir: Path, timeout: float,
                 explain: Explain | None, check: bool = False) -> dict[str, Leg]:
    expected = _read(program.expected)
    legs: dict[str, Leg] = {}
    if trees.ref is not None and trees.originals:
        legs["ref32"] = judge_reference(emulator_leg(trees.ref, program, 32, workdir, timeout, explain, check),
                                        expected)
    else:
        legs["ref32"] = Leg(NOT_RUN, "no CUDA original given (validate ORIGINAL --ported DIR runs it)")
    ref = legs["ref32"] if legs["ref32"].status == PASS else None
    if trees.port is not None:
        legs["port64"] = judge(emulator_leg(trees.port, program, 64, workdir, timeout, explain, check),
                               ref, expected)
    else:
        legs["port64"] = Leg(NOT_RUN, "no ported tree")
    if trees.ref is not None and trees.originals:
        legs["unfixed64"] = judge(emulator_leg(trees.ref, program, 64, workdir, timeout, explain, check),
                                  ref, expected, informational=True)
    else:
        legs["unfixed64"] = Leg(NOT_RUN, "no CUDA original given")
    return legs


def _read(p: Path | None) -> str | None:
    if p is None:
        return None
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


# --- GPUs ----------------------------------------------------------------------------------------

def _build(cmd: list[str], env: dict[str, str] | None, cwd: Path, tree: PortedTree | None,
           explain: Explain | None, tool: str, timeout: float = 900) -> tuple[bool, list[Diagnostic], str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, [], f"{tool}: timed out after {timeout:g}s"
    except OSError as e:
        return False, [], f"{tool}: cannot run: {e}"
    if p.returncode == 0:
        return True, [], ""
    out = p.stdout.decode("utf-8", "replace")
    diags = errors_map.parse(out)
    if tree is not None:
        map_diagnostics(diags, tree, cwd, explain, tool)
    lines = [x.strip() for x in out.splitlines() if x.strip()]
    errs = [x for x in lines if "error" in x.lower()]
    tail = " | ".join((errs or lines)[-3:])
    return False, diags[:25], tail


def _is_gpu_source(path: Path) -> bool:
    """Compiled as GPU code: .cu/.hip, or a C++ file that uses the GPU API (launches, kernels)."""
    if path.suffix.lower() in (".cu", ".hip"):
        return True
    try:
        head = path.read_bytes()[:65536]
    except OSError:
        return False
    return re.search(rb"__global__|<<<|hipLaunchKernelGGL|__device__", head) is not None


def build_program(compiler: Callable[[list[str]], list[str]], env: dict[str, str] | None, sources: Sequence[Path],
                  gpu_lang: Sequence[str], flags: Sequence[str], out: Path, tree: PortedTree | None,
                  explain: Explain | None, tool: str, link: Sequence[str] = ()) -> tuple[bool, list[Diagnostic], str]:
    """Compile each source to an object (GPU sources with `gpu_lang`, e.g. `-x hip`; others as
    the compiler takes them by their name, as the project's own build would), then link.
    `compiler` turns compiler arguments into the argv to run (a toolchain's clang with
    hipcc's options, or nvcc with its own); nothing goes through a shell."""
    objs: list[str] = []
    for i, src in enumerate(sources):
        obj = out.parent / f"{out.name}.{i}.{src.stem}.o"
        lang = list(gpu_lang) if gpu_lang and _is_gpu_source(src) else []
        ok, diags, tail = _build(compiler([*lang, *flags, "-c", str(src), "-o", str(obj)]), env, src.parent,
                                 tree, explain, tool)
        if not ok:
            return ok, diags, tail
        objs.append(str(obj))
    return _build(compiler([*objs, *link, "-o", str(out)]), env, out.parent, tree, explain, f"{tool} link")


def amd_gpu_leg(program: Program, tree: PortedTree | None, workdir: Path, timeout: float,
                reference: Leg | None, expected: str | None, explain: Explain | None) -> Leg:
    gpus = toolchains.amd_gpus()
    if not gpus.present:
        return Leg(NOT_RUN, gpus.reason)
    tc = toolchains.amd_toolchain()
    if tc is None or not tc.ok:
        return Leg(NOT_RUN, "AMD GPU present but HIP for AMD " + ("not found" if tc is None else f"fails: {tc.error}"))
    if tree is None or (srcs := _copies(tree, program)) is None:
        return Leg(NOT_RUN, "no ported sources for this program")
    arch = gpus.names[0]
    binary = workdir / f"amd-{arch}"
    t0 = time.perf_counter()
    ok, diags, tail = build_program(lambda args: tc.command([f"--offload-arch={arch}", *args]),
                                    toolchains.amd_env(), srcs, ["-x", "hip"], command_flags(_std(program), tree),
                                    binary, tree, explain, f"hipcc {arch} (GPU)")
    if not ok:
        return Leg(BUILD_ERROR, tail if not diags else f"{len(diags)} compile error(s)",
                   diagnostics=diags, detail={"device": arch})
    rc, so, se, secs, why = _run_binary([str(binary), *program.args], timeout, program.stdin, srcs[0].parent)
    leg = Leg(PASS if rc is not None else RUN_ERROR, why, rc, so, se, time.perf_counter() - t0,
              detail={"device": arch})
    return judge(leg, reference, expected)


def nvidia_gpu_leg(program: Program, tree: PortedTree | None, workdir: Path, timeout: float,
                   expected: str | None, explain: Explain | None, originals: bool) -> Leg:
    gpus = toolchains.nvidia_gpus()
    if not gpus.present:
        return Leg(NOT_RUN, gpus.reason)
    nvcc = toolchains.find_nvcc()
    if nvcc is None:
        return Leg(NOT_RUN, "NVIDIA GPU present but nvcc not found")
    if tree is None or (srcs := _copies(tree, program)) is None:
        return Leg(NOT_RUN, "no ported sources for this program")
    device = gpus.names[0]
    detail: dict[str, Any] = {"device": device}
    t0 = time.perf_counter()
    orig_leg: Leg | None = None
    arch = _nvcc_arch(nvcc)
    if originals:  # the CUDA original, built the way its own build would (nvcc picks by extension)
        ob = workdir / "nvidia-original"
        ok, _, tail = build_program(lambda args: [nvcc, *arch, *args], None, program.sources, [],
                                    command_flags(_std(program), _Identity()),  # type: ignore[arg-type]
                                    ob, None, None, "nvcc")
        if not ok:
            orig_leg = Leg(BUILD_ERROR, f"nvcc could not build the CUDA original: {tail}")
        else:
            rc, so, se, secs, why = _run_binary([str(ob), *program.args], timeout, program.stdin,
                                                program.main.parent)
            orig_leg = Leg(PASS if rc is not None else RUN_ERROR, why, rc, so, se, secs)
            orig_leg = judge_reference(orig_leg, expected, "the CUDA original (nvcc, on the GPU)")
        detail["original"] = {k: v for k, v in orig_leg.to_dict().items() if k != "errors"}
    hip = toolchains.nvidia_hip()
    if not hip.ok:
        leg = Leg(NOT_RUN, f"cannot build HIP for NVIDIA: {hip.error}", detail=detail)
        if orig_leg is not None and orig_leg.failed:
            leg.status, leg.reason = orig_leg.status, orig_leg.reason
        return leg
    detail["hip_via"] = hip.how
    pb = workdir / "nvidia-port"
    ok, diags, tail = build_program(lambda args: [*hip.prefix, *arch, *args], hip.env, srcs, ["-x", "cu"],
                                    command_flags(_std(program), tree), pb, tree, explain,
                                    f"{hip.how} (HIP on NVIDIA)", link=hip.link)
    if not ok:
        return Leg(BUILD_ERROR, tail if not diags else f"{len(diags)} compile error(s)", diagnostics=diags,
                   detail=detail)
    rc, so, se, secs, why = _run_binary([str(pb), *program.args], timeout, program.stdin, srcs[0].parent)
    leg = Leg(PASS if rc is not None else RUN_ERROR, why, rc, so, se, time.perf_counter() - t0, detail=detail)
    leg = judge(leg, orig_leg if orig_leg is not None and orig_leg.status == PASS else None, expected,
                ref_name="the nvcc-built original")
    if leg.status == PASS and orig_leg is not None and orig_leg.failed:
        leg.status, leg.reason = orig_leg.status, orig_leg.reason
    return leg


class _Identity:
    """command_flags for the originals: folders stay where they are."""

    def copy_of_dir(self, d: Path) -> Path:
        return d

    def entry_for_original(self, p: Path) -> None:
        return None


def _std(program: Program):  # -> Flags with a default language standard
    from dataclasses import replace
    return program.flags if program.flags.std else replace(program.flags, std="c++17")


_ARCH_CACHE: dict[str, list[str]] = {}


def _nvcc_arch(nvcc: str) -> list[str]:
    """`-arch=native` when this nvcc knows it (11.6+), else nvcc's default target."""
    if nvcc not in _ARCH_CACHE:
        rc, out = toolchains._run([nvcc, "--help"], None, 60)
        _ARCH_CACHE[nvcc] = ["-arch=native"] if "native" in out else []
    return _ARCH_CACHE[nvcc]


# --- all programs ----------------------------------------------------------------------------------

def run_programs(programs: list[Program], trees: Trees, workdir: Path, *, timeout: float = 60.0,
                 jobs: int = 0, gpu: bool = True, emulate: bool = True, check: bool = False,
                 explain: Explain | None = None,
                 progress: Callable[[int, int], None] | None = None) -> list[ProgramResult]:
    results = [ProgramResult(p) for p in programs]
    total = len(programs)
    done = 0
    if progress:
        progress(0, total)

    def one(i: int) -> None:
        pr = programs[i]
        wd = workdir / f"p{i:03d}-{pr.main.stem}"
        wd.mkdir(parents=True, exist_ok=True)
        if emulate:
            results[i].emulator = run_emulator(pr, trees, wd, timeout, explain, check)
        else:
            results[i].emulator = {k: Leg(NOT_RUN, "emulator runs not asked for") for k in LEGS}

    workers = max(1, min(config_workers(jobs), total or 1))
    with ThreadPoolExecutor(max_workers=workers) as ex:
        futs = [ex.submit(one, i) for i in range(total)]
        for f in as_completed(futs):
            f.result()
            done += 1
            if progress:
                progress(done, total)
    # GPU legs run one program at a time: the programs share the device.
    for i, pr in enumerate(programs):
        if not gpu:
            results[i].gpu = {"amd": Leg(NOT_RUN, "GPU runs not asked for (--no-gpu)"),
                              "nvidia": Leg(NOT_RUN, "GPU runs not asked for (--no-gpu)")}
            continue
        wd = workdir / f"p{i:03d}-{pr.main.stem}"
        wd.mkdir(parents=True, exist_ok=True)
        expected = _read(pr.expected)
        ref = results[i].emulator.get("ref32")
        ref = ref if ref is not None and ref.status == PASS else None
        results[i].gpu["amd"] = amd_gpu_leg(pr, trees.product, wd, timeout, ref, expected, explain)
        results[i].gpu["nvidia"] = nvidia_gpu_leg(pr, trees.product, wd, timeout, expected, explain,
                                                  trees.originals)
    return results
