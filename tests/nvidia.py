"""Compile a unit on HIP's NVIDIA platform: nvcc with HIP's NVIDIA headers, no GPU needed.

Debian's HIP 5.2 headers predate CUDA 12/13, so they are compiled from a copy that
hipport.validate.hipkit patches for the nvcc at hand (what scripts/gpu-check-prepare.sh makes
for a GPU machine). The copy is made once per content (hipkit.cached_kit): its folder is named
by a digest of HIP's headers and nvcc's version, under the user's cache; a compile's success is
kept by content too, in pytest's cache (tests/compiled.py). Tests that use it are marked
`nvidia`; `require()` skips them where nvcc or the headers are absent and fails them where
HIPPORT_REQUIRE_TOOLCHAINS names nvidia.

nvcc spends most of a small unit's ~1.4 s of CPU on HIP's and CUDA's headers (cudafe++, cicc and
the host compiler each parse them), so `compile_batched` builds units that start with the same
system includes as one unit (tests/batching.py), and a unit alone only when its batch fails.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest

from hipport.validate import hipkit, toolchains
from hipport.validate.compilecache import Answer, CompileCache, read_depfile
from tests import batching

NAME = "nvidia"
ARCH = "sm_90"  # compiled, not run: any architecture CUDA 12/13 supports


def _why_not() -> str:
    if toolchains.find_nvcc() is None:
        return "nvcc not found"
    if toolchains.hip_include_dir() is None:
        return "HIP's NVIDIA headers (hip/nvidia_detail) not found"
    return ""


def require() -> None:
    why = _why_not()
    if why:
        if NAME in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {NAME}, but {why}")
        pytest.skip(f"no HIP NVIDIA platform here: {why}")


@cache
def kit() -> Path:
    """A folder holding hip/: HIP's headers, patched for this nvcc (made once per content)."""
    done = hipkit.cached_kit()
    assert done is not None
    return done


@cache
def _nvcc() -> str:
    """Which nvcc, and what it says it is: part of every cached answer's key."""
    nvcc = toolchains.find_nvcc()
    return f"{nvcc}\n{subprocess.run([str(nvcc), '--version'], capture_output=True, text=True).stdout}"


def compile_nvidia(source: Path, *args: str, cache: Path | None = None,
                   root: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`nvcc -x cu -std=c++17 -c SOURCE` with the patched headers, as validate's NVIDIA leg
    compiles (nvcc called directly, never hipcc). With `cache` (tests/compiled.py's folder), a
    success is kept by content: answered again while every file nvcc read hashes the same
    (paths under `root`, the work folder, are keyed relative to it)."""
    require()
    nvcc = toolchains.find_nvcc()
    assert nvcc
    cuda = toolchains.cuda_path()
    flags = ["-Wno-deprecated-gpu-targets", f"-arch={ARCH}",
             *(["-isystem", str(Path(cuda) / "include")] if cuda else []), "-isystem", str(kit()),
             "-x", "cu", "-std=c++17", *args]
    cc = CompileCache(cache, root or source.parent) if cache is not None else None
    key = cc.key("nvcc", _nvcc(), ARCH, flags, source) if cc is not None else ""
    hit = cc.get(key) if cc is not None else None
    if hit is not None:
        return subprocess.CompletedProcess([nvcc], hit.rc, "", hit.output)
    depfile = source.with_suffix(".d")
    t0 = time.perf_counter()
    p = subprocess.run([nvcc, *flags, "-MD", "-MF", str(depfile), "-c", str(source), "-o", str(source.with_suffix(".o"))],
                       capture_output=True, text=True, errors="replace", timeout=600, stdin=subprocess.DEVNULL)
    if cc is not None and p.returncode == 0 and depfile.is_file():
        deps = read_depfile(depfile.read_text(errors="replace"), source.parent)
        if deps:
            cc.put(key, Answer(p.returncode, p.stderr, time.perf_counter() - t0, True), deps)
    return p


def errors(proc: subprocess.CompletedProcess[str]) -> str:
    return "\n".join(line for line in (proc.stdout + proc.stderr).splitlines() if "error" in line)[:4000]


def compile_batched(units: Sequence[Path], batch: Path, *args: str, cache: Path | None = None,
                    root: Path) -> dict[Path, subprocess.CompletedProcess[str]]:
    """Each unit's `compile_nvidia` answer, from one nvcc for `batch` (tests/batching.py: units
    of one head in one unit, halved down to a unit alone where it fails)."""
    return batching.compile_batched(units, batch, lambda src: compile_nvidia(src, *args, cache=cache, root=root),
                                    lambda p: p.returncode == 0, root)
