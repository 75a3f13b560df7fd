"""Do real code bases build after `hipport port`? Port a checkout, compile every unit alone.

    python benchmarks/realcode.py PATH... [--rocm 6.4] [--toolchain NAME]... [--hipify-perl PATH]
                                          [--units GLOB] [--limit N] [--nvidia]

For each checkout (cuda-samples, Rodinia, llm.c, or any tree of `.cu` files) this ports the
whole tree into a temporary folder (`hipport port PATH -o OUT`, at the floor `--rocm` gives),
compiles every translation unit on its own for gfx90a with each toolchain `--toolchain` names
(`hipport toolchains` lists them; default: the host's HIP), through hipport's toolchain
description (the toolchain's clang with hipcc's options, inside its root for a root such as
hip-6.4; never hipcc), and prints one row per checkout, with these columns per toolchain:

  units      translation units in scope
  hipify     units that compile after hipify-perl (with --hipify-perl)
  compiled   units that compile after hipport
  env        failures whose first error is a header of a package the toolchain lacks
             (hipBLAS, hipFFT, hipCUB, rocThrust, hipSOLVER, ... with the host's HIP 5.2, which
             the HIP 6.4 root has; OpenGL, OpenMP, MPI, ... that the root lacks; the packages
             rules/validate/packages.toml names): not hipport's to fix
  flagged    failures with a hipport finding (error or warning) within a line of the first
             error, mapped back to the original file
  unflagged  failures with neither: the port left code that does not build and said nothing

`--nvidia` adds a column group for HIP's NVIDIA platform (issue 32: one source for both):
every unit that compiles for gfx90a with the first toolchain is compiled again with nvcc and a
copy of HIP's headers patched for it (hipport.validate.hipkit.cached_kit; no GPU needed),
counted as

  nv compiled   units that build on HIP's NVIDIA path too
  nv flagged    failures at a note that the port uses an API HIP has only on AMD (HP022),
                within a line of the first error
  nv unflagged  failures with neither: the port builds for AMD only and said nothing

`--stub-absent` compiles with declaration stubs of hipBLAS and hipBLASLt (benchmarks/stubs), so
a unit that stops on their include is judged on the rest of its code (compiles only).

`--failures` lists each failing unit with its class and first error, which is how the
failure classes are bucketed. Nothing is written into the checkout; every output lies in a
temporary folder (or `--keep DIR`).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport.linemap import LineMap  # noqa: E402
from hipport.registry import HP  # noqa: E402
from hipport.source import SourceFile, function_lines  # noqa: E402
from hipport.validate import toolchains  # noqa: E402
from hipport.validate.driver import Toolchain  # noqa: E402
from hipport.validate.errors_map import TARGET_MSG  # noqa: E402
from hipport.validate.site import Site  # noqa: E402
from hipport.validate.unitclass import package_of  # noqa: E402

SOURCES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".cpp", ".cc", ".cxx", ".c", ".inl")
# Folders beside a unit that its build puts on the include path, when they exist.
BESIDE = ("inc", "../inc", "include", "util", "kernel", "../common")
# Declarations of packages Debian 12 lacks, for --stub-absent (see stubs/README.md).
STUBS = ROOT / "benchmarks" / "stubs"
# Headers of packages Debian 12 lacks (or platforms this machine lacks): a unit that stops on
# one of these is not hipport's failure.
ABSENT = re.compile(
    r"^(?:hipblas|hipblaslt|hipfft|hipsolver|hipcub|thrust|rocthrust|rccl|rocblas|rocfft|"
    r"rocsolver|miopen|roctracer|roctx|rocwmma|hipblas-common|mpi|omp|GL/glut|GL/freeglut|"
    r"GLFW|GL/glew|vulkan|d3d|dxgi|DirectX|npp|nvjpeg|nvml|cudnn|FreeImage|hipdnn|openacc)\w*(?:[./]|$)",
    re.I)
# On HIP's NVIDIA path a HIP library's header includes its CUDA twin: a missing one is the
# machine's (the CUDA toolkit's libraries), as a missing HIP library is on AMD.
ABSENT_NVIDIA = re.compile(r"^(?:curand|cublas|cufft|cusparse|cusolver|cudnn|nccl|nvrtc|cub/|thrust/)", re.I)
NV_ARCH = "sm_90"  # compiled, not run: any architecture CUDA 12/13 supports
_NVCC_DIAG = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\): (?P<kind>error|warning|remark)(?: #\w+-D)?: ", re.M)
_GCC_MISSING = re.compile(r"fatal error: (?P<h>[^:\s]+): No such file or directory")
_DIAG = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<kind>fatal error|error|note|warning): (?P<msg>.*)$")
_INCLUDED = re.compile(r"^(?:In file included from |\s+from )(?P<file>[^:]+):(?P<line>\d+)")


@dataclass(frozen=True)
class Profile:
    name: str
    marker: str  # a file whose presence names the corpus
    scope: str  # glob of unit paths relative to the checkout
    common: tuple[str, ...] = ()  # include folders relative to the checkout
    not_included: bool = False  # units are only the .cu files no other file #includes


PROFILES = (
    Profile("cuda-samples", "Common/helper_cuda.h", "Samples/[0-6]_*/**/*.cu", ("Common",)),
    Profile("rodinia", "cuda/backprop/backprop.h", "cuda/**/*.cu", (), True),
    Profile("llm.c", "dev/cuda/common.h", "dev/cuda/*.cu", ("dev/cuda", ".")),
)
GENERIC = Profile("tree", "", "**/*.cu", (), True)


@dataclass
class Outcome:
    unit: str
    ok: bool
    first: str = ""  # the first error line
    where: tuple[str, int] | None = None  # (path relative to the tree, line) of the first error
    # Further tree locations clang names for it: the macro it expands, the includes it is under.
    also: list[tuple[str, int]] = field(default_factory=list)
    cls: str = ""  # env | flagged | unflagged


@dataclass
class Row:
    name: str
    units: int
    hipport: dict[str, list[Outcome]] = field(default_factory=dict)  # per toolchain
    hipify: dict[str, list[Outcome]] | None = None
    trees: dict[str, Path] = field(default_factory=dict)
    nvidia: list[Outcome] | None = None  # HIP's NVIDIA path, for the units that built for gfx90a


def profile_for(root: Path) -> Profile:
    for p in PROFILES:
        if (root / p.marker).is_file():
            return p
    return GENERIC


def find_units(root: Path, prof: Profile, pattern: str | None, limit: int | None) -> list[str]:
    cands = sorted(str(p.relative_to(root)) for p in root.glob(prof.scope) if p.is_file())
    if prof.not_included:
        included: set[str] = set()
        for p in root.rglob("*"):
            if p.suffix in SOURCES and p.is_file():
                for m in re.finditer(rb'#\s*include\s*["<]([^">]+\.cu)[">]', p.read_bytes()):
                    target = os.path.normpath(p.parent / m.group(1).decode("utf-8", "replace"))
                    included.add(os.path.relpath(target, root))
        cands = [c for c in cands if os.path.normpath(c) not in included]
    if pattern:
        cands = [c for c in cands if fnmatch.fnmatch(c, pattern)]
    return cands[:limit] if limit else cands


_MAKE_INCLUDE = re.compile(r"(?<![\w$(])-I\s*(\S+)")
_MAKE_VAR = re.compile(r"^\s*(\w+)\s*[:?]?=\s*(.*?)\s*$", re.M)
_MAKE_REF = re.compile(r"\$[({](\w+)[)}]")


def makefile_includes(folder: Path) -> tuple[list[Path], bool]:
    """The `-I` folders a Makefile beside the unit names (read as text, never run), with its
    own simple variables expanded; and whether it also names folders outside the checkout
    (an SDK path from the environment), whose headers are then not hipport's to find."""
    out: list[Path] = []
    external = False
    for name in ("Makefile", "makefile"):
        mk = folder / name
        if not mk.is_file():
            continue
        text = mk.read_text("utf-8", "replace")
        defs = {m[1]: m[2] for m in _MAKE_VAR.finditer(text)}
        for m in _MAKE_INCLUDE.finditer(text):
            value = m[1]
            for _ in range(5):
                value = _MAKE_REF.sub(lambda r, d=defs: d.get(r[1], "\0"), value)
            if "\0" in value or "$" in value or value.startswith("/"):
                external = True
            else:
                out.append(folder / value)
    return out, external


def include_flags(tree: Path, unit: str, prof: Profile) -> list[str]:
    folder = (tree / unit).parent
    dirs = [folder] + [folder / b for b in BESIDE] + makefile_includes(folder)[0] \
        + [tree / c for c in prof.common]
    seen: list[str] = []
    for d in dirs:
        if d.is_dir() and str(d.resolve()) not in seen:
            seen.append(str(d.resolve()))
    return [f"-I{d}" for d in seen]


def compile_unit(site: Site, tree: Path, unit: str, prof: Profile, timeout: int,
                 extra: tuple[str, ...] = ()) -> tuple[bool, str]:
    """The toolchain's clang with hipcc's options (driver.py), run where the site says (inside
    a toolchain's root: the tree is mirrored there, and the paths it prints are put back)."""
    args = ["--offload-arch=gfx90a", "-std=c++17", "-w", *include_flags(tree, unit, prof),
            *(f"-I{d}" for d in extra), "-c", str(tree / unit), "-o", "/dev/null"]
    try:
        p = subprocess.run(site.command(args), cwd=(tree / unit).parent, env=site.env, capture_output=True,
                           text=True, errors="replace", timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, f"{unit}:1:1: error: timed out after {timeout} s"
    log = p.stderr + p.stdout
    if site.mirror_prefix:  # a unique folder name: the mirrored files' paths as this machine's
        log = log.replace(site.mirror_prefix + "/", "/")
    return p.returncode == 0, log


def first_error(tree: Path, log: str) -> tuple[str, list[tuple[str, int]], str | None]:
    """The first error line, the tree locations clang gives for it (its own line first, then
    its notes, such as the macro it expands, then its include stack), and the missing header
    when it is a `file not found`."""
    lines = log.splitlines()
    stack: list[tuple[str, int]] = []
    real = str(tree.resolve())
    for i, line in enumerate(lines):
        inc = _INCLUDED.match(line)
        if inc:
            stack.append((inc["file"], int(inc["line"])))
            continue
        m = _DIAG.match(line)
        if not m or m["kind"] not in ("error", "fatal error"):
            if m:
                stack = []
            continue
        missing = re.match(r"'([^']+)' file not found", m["msg"])
        cands = [(m["file"], int(m["line"]))]
        for later in lines[i + 1:i + 40]:
            n = _DIAG.match(later)
            if n and n["kind"] in ("error", "fatal error"):
                break
            if n and n["kind"] == "note":
                cands.append((n["file"], int(n["line"])))
        cands += list(reversed(stack))
        inside = []
        for f, ln in cands:
            rp = os.path.realpath(f if os.path.isabs(f) else tree / f)
            if rp.startswith(real + os.sep):
                inside.append((os.path.relpath(rp, real), ln))
        return line.strip(), inside, missing and missing[1]
    tail = lines[-1].strip() if lines else "failed with no message"
    return tail, [], None


def provided(tc: Toolchain, header: str) -> bool:
    """Does the toolchain have the library a header belongs to (hipBLAS in the 6.4 root)?"""
    pkg = package_of(header)
    return pkg is not None and any(package_of(lib.header) == pkg for lib in tc.headers)


def classify(o: Outcome, missing: str | None, findings: dict[str, list[int]],
             original: Path, tree: Path, tc: Toolchain) -> str:
    absent = ABSENT.match(missing) or package_of(missing) is not None if missing else False
    if missing and (absent and not provided(tc, missing) or not _cuda_header(missing) and
                    makefile_includes((original / o.unit).parent)[1]):
        # a package the toolchain lacks (in a root: GL/gl.h too, which this machine may have),
        # or a header the build takes from outside the checkout
        return "env"
    return classify_found(o, findings, original, tree)


def classify_found(o: Outcome, findings: dict[str, list[int]], original: Path, tree: Path) -> str:
    """flagged: a hipport finding within a line of the first error (or of a place clang names
    for it), mapped back to the original file; else unflagged."""
    for rel, line in ([o.where] if o.where else []) + o.also:
        lines = findings.get(rel)
        if not lines:
            continue
        orig_file, ported_file = original / rel, tree / rel
        if orig_file.is_file() and ported_file.is_file():
            line = LineMap.from_texts(orig_file.read_bytes(), ported_file.read_bytes()).original_location(line).line
        if any(abs(fl - line) <= 1 for fl in lines):
            return "flagged"
        if TARGET_MSG.search(o.first) and orig_file.is_file():  # found in the inlined body
            span = function_lines(SourceFile(rel, orig_file.read_bytes()), line)
            if span and any(span[0] <= fl <= span[1] for fl in lines):
                return "flagged"
    return "unflagged"


def _cuda_header(header: str) -> bool:
    """A header of CUDA itself (which hipport is to port), by its name."""
    return bool(re.match(r"(?:cuda|cu[A-Z]|cooperative_groups|nv|mma\.h|sm_\d|math_constants|"
                         r"vector_types|vector_functions|device_|driver_|texture_|surface_|"
                         r"channel_descriptor|builtin_types|host_defines|crt/|thrust|cub/)",
                         header))


def run_units(tc: Toolchain, tree: Path, original: Path, units: list[str], prof: Profile, jobs: int,
              timeout: int, findings: dict[str, list[int]], extra: tuple[str, ...] = ()) -> list[Outcome]:
    with Site(tc) as site, tempfile.TemporaryDirectory(prefix="hipport-realcode-", dir=site.scratch) as tmp:
        site.tmp = tmp
        for d in (tree, *map(Path, extra)):
            site.place(d)

        def one(unit: str) -> Outcome:
            ok, log = compile_unit(site, tree, unit, prof, timeout, extra)
            o = Outcome(unit, ok)
            if not ok:
                o.first, places, missing = first_error(tree, log)
                o.where, o.also = (places[0] if places else None), places[1:]
                o.cls = classify(o, missing, findings, original, tree, tc)
            return o

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(one, units))


def nvidia_log(log: str) -> str:
    """nvcc's diagnostics in clang's form (`file:line:1: error: ...`; a missing header as
    `'h' file not found`), so first_error and classify read both compilers alike."""
    log = _NVCC_DIAG.sub(lambda m: f"{m['file']}:{m['line']}:1: {m['kind']}: ", log)
    return _GCC_MISSING.sub(lambda m: f"fatal error: '{m['h']}' file not found", log)


def run_nvidia(kit: Path, tree: Path, original: Path, units: list[str], prof: Profile, jobs: int,
               timeout: int, findings: dict[str, list[int]], extra: tuple[str, ...] = ()) -> list[Outcome]:
    """Each unit compiled on HIP's NVIDIA path: nvcc (never hipcc) with HIP's headers patched for
    it (`kit`), as validate's NVIDIA leg and tests/nvidia.py compile."""
    nvcc = toolchains.find_nvcc()
    cuda = toolchains.cuda_path()
    assert nvcc is not None
    with tempfile.TemporaryDirectory(prefix="hipport-realcode-nv-") as tmp:

        def one(i_unit: tuple[int, str]) -> Outcome:
            i, unit = i_unit
            argv = [nvcc, "-Wno-deprecated-gpu-targets", f"-arch={NV_ARCH}",
                    *(["-isystem", str(Path(cuda) / "include")] if cuda else []), "-isystem", str(kit),
                    "-x", "cu", "-std=c++17", "-w", *include_flags(tree, unit, prof), *(f"-I{d}" for d in extra),
                    "-c", str(tree / unit), "-o", str(Path(tmp) / f"{i}.o")]
            try:
                p = subprocess.run(argv, cwd=(tree / unit).parent, capture_output=True, text=True, errors="replace",
                                   timeout=timeout, stdin=subprocess.DEVNULL)
                ok, log = p.returncode == 0, nvidia_log(p.stderr + p.stdout)
            except subprocess.TimeoutExpired:
                ok, log = False, f"{unit}:1:1: error: timed out after {timeout} s"
            o = Outcome(unit, ok)
            if not ok:
                o.first, places, missing = first_error(tree, log)
                o.where, o.also = (places[0] if places else None), places[1:]
                o.cls = "env" if missing and ABSENT_NVIDIA.match(missing) else \
                    classify_found(o, findings, original, tree)
            return o

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(one, enumerate(units)))


def hipport_port(src: Path, out: Path, extra: list[str]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Port the checkout; the findings (error or warning) by path relative to it, and the notes
    that the port uses an API HIP has only on AMD (HP022), likewise."""
    cmd = [sys.executable, "-m", "hipport", "port", str(src), "-o", str(out), "--format", "json",
           "--no-cache", "-q", "-j2", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"hipport port {src} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    doc = json.loads(p.stdout)
    found: dict[str, list[int]] = {}
    amd_only: dict[str, list[int]] = {}
    for f in doc["findings"]:
        rel = os.path.relpath(f["path"], src) if os.path.isabs(f["path"]) else f["path"]
        if f["severity"] in ("error", "warning"):
            found.setdefault(rel, []).append(f["line"])
        if f["rule"] == HP.AMD_ONLY_API:
            amd_only.setdefault(rel, []).append(f["line"])
    return found, amd_only


def hipify_perl(src: Path, out: Path, script: Path) -> None:
    shutil.copytree(src, out, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    files = [str(p) for p in out.rglob("*") if p.suffix in SOURCES and p.is_file() and not p.is_symlink()]
    for i in range(0, len(files), 200):
        subprocess.run(["perl", str(script), "-inplace", "-quiet-warnings", *files[i:i + 200]],
                       capture_output=True)


def measure(src: Path, args: argparse.Namespace, work: Path, tcs: list[Toolchain]) -> Row:
    prof = profile_for(src)
    units = find_units(src, prof, args.units, args.limit)
    name = f"{prof.name} ({src.name})"
    row = Row(name, len(units))
    out = work / f"{src.name}-hipport"
    row.trees["hipport"] = out
    findings, amd_only = hipport_port(src, out, [*(["--rocm", args.rocm] if args.rocm else []),
                                                 *(args.hipport_arg or [])])
    extra = (str(STUBS),) if args.stub_absent else ()
    for tc in tcs:
        row.hipport[tc.name] = run_units(tc, out, src, units, prof, args.jobs, args.timeout, findings, extra)
    if args.nvidia:
        from hipport.validate.hipkit import cached_kit

        kit = cached_kit()
        assert kit is not None  # checked in main
        built = [o.unit for o in row.hipport[tcs[0].name] if o.ok]
        row.nvidia = run_nvidia(kit, out, src, built, prof, args.jobs, args.timeout, amd_only, extra)
    if args.hipify_perl:
        hout = work / f"{src.name}-hipify"
        hipify_perl(src, hout, Path(args.hipify_perl))
        row.hipify = {tc.name: run_units(tc, hout, src, units, prof, args.jobs, args.timeout, {}, extra)
                      for tc in tcs}
    return row


def render(rows: list[Row], show_failures: bool, names: list[str]) -> str:
    """The table: per toolchain (side by side) the units compiled and the failures by class."""
    out = []
    if show_failures:
        for r in rows:
            for tc in names:
                for o in r.hipport[tc]:
                    if not o.ok:
                        first = o.first.replace(str(r.trees.get("hipport", "")) + os.sep, "")
                        out.append(f"{tc:8} {o.cls:9} {o.unit}: {first}")
                for o in r.nvidia or []:
                    if not o.ok:
                        first = o.first.replace(str(r.trees.get("hipport", "")) + os.sep, "")
                        out.append(f"{'nvidia':8} {o.cls:9} {o.unit}: {first}")
        out.append("")
    head = ["code base", "units"]
    for tc in names:
        head += [f"{tc} hipify-perl", f"{tc} compiled", "env", "flagged", "unflagged"]
    nv = any(r.nvidia is not None for r in rows)
    if nv:
        head += [f"nvidia ({names[0]}-built)", "nv compiled", "nv env", "nv flagged", "nv unflagged"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        cells = [r.name, str(r.units)]
        for tc in names:
            got = r.hipport[tc]
            cls = Counter(o.cls for o in got if not o.ok)
            hip = "-" if r.hipify is None else str(sum(o.ok for o in r.hipify[tc]))
            cells += [hip, str(sum(o.ok for o in got)), str(cls["env"]), str(cls["flagged"]), str(cls["unflagged"])]
        if nv:
            got = r.nvidia or []
            cls = Counter(o.cls for o in got if not o.ok)
            cells += [str(len(got)), str(sum(o.ok for o in got)), str(cls["env"]), str(cls["flagged"]),
                      str(cls["unflagged"])]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path, help="checkouts to port and build")
    ap.add_argument("--hipify-perl", help="path to hipify-perl, for the baseline column")
    ap.add_argument("--units", help="only units whose path (relative to the checkout) matches this glob")
    ap.add_argument("--limit", type=int, help="at most this many units per checkout")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per compile")
    ap.add_argument("--failures", action="store_true", help="list each failure and its first error")
    ap.add_argument("--keep", type=Path, help="keep the ported trees in this (new) folder")
    ap.add_argument("--hipport-arg", action="append", help="an extra option for hipport port")
    ap.add_argument("--rocm", help="the floor the port is written for (hipport port --rocm); default 5.2")
    ap.add_argument("--toolchain", action="append",
                    help="compile with this toolchain (a name `hipport toolchains` lists; repeatable; "
                         "default: the host's HIP)")
    ap.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    ap.add_argument("--stub-absent", action="store_true",
                    help="compile with benchmarks/stubs on the include path (hipBLAS and hipBLASLt "
                         "declarations), to judge units past an absent package's include")
    ap.add_argument("--nvidia", action="store_true",
                    help="also build each unit that compiles for gfx90a on HIP's NVIDIA path (nvcc with "
                         "HIP's headers, patched for it; no GPU needed)")
    args = ap.parse_args(argv)
    tcs = chosen(ap, args.toolchain or [])
    if args.nvidia:
        if toolchains.find_nvcc() is None or toolchains.hip_include_dir() is None:
            ap.error("--nvidia needs nvcc and HIP's NVIDIA headers (hip/nvidia_detail)")
    from hipport.floor import floor
    from hipport.validate import floor_warnings

    for w in floor_warnings(tcs, floor(args.rocm or "5.2")):
        print(f"warning: {w}", file=sys.stderr)
    for p in args.paths:
        if not p.is_dir():
            ap.error(f"{p}: not a folder")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=False)
        work = args.keep
        rows = [measure(p.resolve(), args, work, tcs) for p in args.paths]
    else:
        with tempfile.TemporaryDirectory(prefix="hipport-realcode-") as tmp:
            rows = [measure(p.resolve(), args, Path(tmp), tcs) for p in args.paths]
    names = [tc.name for tc in tcs]
    if args.json:
        print(json.dumps([{"name": r.name, "units": r.units, "rocm": args.rocm or "5.2",
                           "toolchains": {tc: {"hipport": [vars(o) for o in r.hipport[tc]],
                                               "hipify": None if r.hipify is None else
                                               [vars(o) for o in r.hipify[tc]]} for tc in names},
                           "nvidia": None if r.nvidia is None else [vars(o) for o in r.nvidia]}
                          for r in rows], indent=1))
    else:
        print(render(rows, args.failures, names))
    return 0


def chosen(ap: argparse.ArgumentParser, names: list[str]) -> list[Toolchain]:
    """The toolchains named (default: the host's HIP), each able to compile."""
    from hipport.errors import HipportError

    if not names:
        host = toolchains.amd_toolchain()
        if host is None:
            ap.error("no HIP found (no hipcc on PATH, in /opt/rocm or /usr); `hipport toolchains` lists what is")
        names = [host.name]
    out = []
    for n in dict.fromkeys(names):
        try:
            tc = toolchains.find(n)
        except HipportError as e:
            ap.error(str(e))
        if tc.ok and tc.root and not toolchains.targets(tc)[0]:
            ap.error(f"{n} cannot run: {toolchains.targets(tc)[1]}")
        if not tc.ok:
            ap.error(f"{n} cannot compile: {tc.error}")
        out.append(tc)
    return out


if __name__ == "__main__":
    sys.exit(main())
