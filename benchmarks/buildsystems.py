"""Does the ported tree build with the command that built it for NVIDIA?

Ports each checkout into a temporary folder (`hipport port PATH -o OUT`), then builds, with
no arguments beyond these:

- NVIDIA/cuda-samples: each of twelve samples with `cmake -S SAMPLE -B BUILD && cmake --build BUILD`
- yuhc/gpu-rodinia: each `cuda/NAME/Makefile` with `make -C cuda/NAME`

and prints what built and, for the rest, the first error. The builds run as on a machine
with only Debian's hipcc: every PATH folder holding an `nvcc` is left out and HIP_PLATFORM=amd
(what hipcc picks itself where no nvcc is installed). A build counts only if it made an
executable that links libamdhip64: a build that quietly used an installed nvcc does not.

    python benchmarks/buildsystems.py /path/to/cuda-samples /path/to/gpu-rodinia [-j 2]
        [--hipport "python -m hipport"] [--keep DIR] [--only NAME ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

SAMPLES = ("vectorAdd", "asyncAPI", "clock", "simpleAssert", "simpleAtomicIntrinsics",
           "simpleCallback", "simpleOccupancy", "simpleStreams", "simpleTemplates", "template",
           "simpleMultiCopy", "simpleZeroCopy")
TIMEOUT = 900  # seconds per build
_ERROR = re.compile(r"\berror\b|fatal|No such file|not found|undefined reference|cannot find|"
                    r"No rule to make|command not found", re.I)


@dataclass
class Outcome:
    suite: str
    name: str
    built: bool
    seconds: float
    reason: str  # the first error, or what was built


def build_env() -> dict[str, str]:
    env = dict(os.environ)
    keep = [d for d in env.get("PATH", "").split(os.pathsep)
            if d and not (Path(d) / "nvcc").exists()]
    env["PATH"] = os.pathsep.join(keep)
    env["HIP_PLATFORM"] = "amd"
    for var in ("CUDACXX", "CUDAHOSTCXX", "CMAKE_CUDA_COMPILER", "MAKEFLAGS", "MAKELEVEL"):
        env.pop(var, None)
    return env


def first_error(log: str) -> str:
    """The first line that says what failed (a compiler or CMake error before make's own)."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    noise = ("FileNotFoundError", "Traceback", "rocm_agent_enumerator")  # hipcc probing for a GPU
    for pattern in (r"error:|CMake Error|fatal error|undefined reference|No such file|"
                    r"command not found|not found", _ERROR.pattern):
        for line in lines:
            if re.search(pattern, line, re.I) and not any(n in line for n in noise):
                return line[:200]
    return lines[-1][:200] if lines else "(no output)"


def hip_executables(folder: Path, since: float) -> list[str]:
    """Executables written under `folder` since `since` that link libamdhip64."""
    found = []
    for p in folder.rglob("*"):
        try:
            if "CMakeFiles" in p.parts or not p.is_file() or p.is_symlink() or p.stat().st_mtime < since \
                    or not os.access(p, os.X_OK):
                continue
            with p.open("rb") as f:
                if f.read(4) != b"\x7fELF":
                    continue
        except OSError:
            continue
        if p.suffix in (".so", ".o") or ".so." in p.name:
            continue
        out = subprocess.run(["readelf", "-d", str(p)], capture_output=True, text=True).stdout
        if "libamdhip64" in out:
            found.append(p.name)
    return sorted(found)


def run(cmd: list[str], cwd: Path | None, env: dict[str, str]) -> tuple[int, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                           errors="replace", timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        return 124, f"timed out after {TIMEOUT}s: {' '.join(cmd)} {e.output or ''}"


def build_sample(out: Path, sample: Path, env: dict[str, str]) -> Outcome:
    t0 = time.time()
    b = out / ".build" / sample.name
    rc, log = run(["cmake", "-S", str(sample), "-B", str(b)], None, env)
    if rc == 0:
        rc, log2 = run(["cmake", "--build", str(b)], None, env)
        log += log2
    exes = hip_executables(b, t0) if rc == 0 else []
    built = rc == 0 and bool(exes)
    why = ", ".join(exes) if built else (first_error(log) if rc else "built, but nothing links libamdhip64")
    return Outcome("cuda-samples", sample.name, built, time.time() - t0, why)


def build_rodinia(folder: Path, env: dict[str, str]) -> Outcome:
    t0 = time.time()
    rc, log = run(["make", "-C", str(folder)], None, env)
    exes = hip_executables(folder, t0) if rc == 0 else []
    built = rc == 0 and bool(exes)
    why = ", ".join(exes) if built else (first_error(log) if rc else "built, but nothing links libamdhip64")
    return Outcome("gpu-rodinia", folder.name, built, time.time() - t0, why)


def port(hipport: list[str], src: Path, out: Path) -> None:
    p = subprocess.run([*hipport, "port", str(src), "-o", str(out), "--no-cache", "-q"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"hipport port {src} failed ({p.returncode}):\n{p.stdout}{p.stderr}")


def jobs_for(src: Path, out: Path, only: set[str]) -> list[tuple[str, Path]]:
    """(kind, folder) of every build to try in the ported copy of `src`."""
    todo: list[tuple[str, Path]] = []
    if (src / "Samples").is_dir():
        for name in SAMPLES:
            hits = sorted(p.parent for p in (out / "Samples").glob(f"*/{name}/CMakeLists.txt"))
            if hits and (not only or name in only):
                todo.append(("cmake", hits[0]))
    if (src / "cuda").is_dir() and (src / "common").is_dir():
        for mk in sorted((out / "cuda").glob("*/Makefile")):
            if not only or mk.parent.name in only:
                todo.append(("make", mk.parent))
    if not todo:
        sys.exit(f"{src}: neither a cuda-samples nor a gpu-rodinia checkout (or --only matched nothing)")
    return todo


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2, help="builds at a time (default 2)")
    ap.add_argument("--hipport", default=f"{shlex.quote(sys.executable)} -m hipport")
    ap.add_argument("--keep", type=Path, help="port into this folder and keep it")
    ap.add_argument("--only", nargs="+", action="extend", default=[], help="only these samples/benchmarks (repeatable)")
    ap.add_argument("--json", type=Path, help="also write the outcomes here")
    a = ap.parse_args()
    env = build_env()
    base = a.keep or Path(tempfile.mkdtemp(prefix="hipport-builds-"))
    results: list[Outcome] = []
    try:
        for src in a.paths:
            out = base / src.resolve().name
            if out.exists():
                shutil.rmtree(out)
            t0 = time.time()
            port(shlex.split(a.hipport), src, out)
            print(f"ported {src} -> {out} in {time.time() - t0:.1f}s", flush=True)
            todo = jobs_for(src, out, set(a.only))

            def one(job: tuple[str, Path], out: Path = out) -> Outcome:
                kind, folder = job
                r = build_sample(out, folder, env) if kind == "cmake" else build_rodinia(folder, env)
                print(f"  {'built ' if r.built else 'FAILED'} {r.suite}/{r.name} ({r.seconds:.0f}s): "
                      f"{r.reason}", flush=True)
                return r

            with ThreadPoolExecutor(max(1, a.jobs)) as ex:
                results.extend(ex.map(one, todo))
    finally:
        if a.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    print()
    for suite in dict.fromkeys(r.suite for r in results):
        rows = [r for r in results if r.suite == suite]
        ok = [r.name for r in rows if r.built]
        print(f"{suite}: {len(ok)} of {len(rows)} build")
        for r in rows:
            print(f"  {'ok  ' if r.built else 'FAIL'} {r.name:24} {r.reason}")
    if a.json:
        a.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
