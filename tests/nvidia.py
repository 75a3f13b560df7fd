"""Compile a unit on HIP's NVIDIA platform: nvcc with HIP's NVIDIA headers, no GPU needed.

Debian's HIP 5.2 headers predate CUDA 12/13, so they are compiled from a copy that
hipport.validate.hipkit patches for the nvcc at hand (what scripts/gpu-check-prepare.sh makes
for a GPU machine). The copy is made once per content: its folder is named by a digest of
HIP's headers and nvcc's version, under the user's cache. Tests that use it are marked
`nvidia`; `require()` skips them where nvcc or the headers are absent and fails them where
HIPPORT_REQUIRE_TOOLCHAINS names nvidia.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest

from hipport.validate import hipkit, toolchains

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
    """A folder holding hip/: HIP's headers, patched for this nvcc."""
    nvcc = toolchains.find_nvcc()
    inc = toolchains.hip_include_dir()
    assert nvcc and inc
    h = hashlib.blake2b(digest_size=8)
    h.update(subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.encode())
    h.update(Path(hipkit.__file__).read_bytes())
    for p in sorted(Path(inc, "hip").rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(inc)).encode() + b"\0" + p.read_bytes())
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    done = home / "hipport-tests" / f"nvidia-kit-{h.hexdigest()}"
    if (done / "hip" / "hip_runtime.h").is_file():
        return done
    done.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kit-", dir=done.parent))
    shutil.copytree(Path(inc, "hip"), work / "hip", symlinks=True)
    ok, _ = hipkit.patch_nvidia(work, nvcc, log=lambda m: None)
    assert ok, "HIP's NVIDIA headers do not compile with this nvcc even patched"
    try:
        work.rename(done)  # another process may have made it meanwhile: theirs is as good
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
    return done


def compile_nvidia(source: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`nvcc -x cu -std=c++17 -c SOURCE` with the patched headers, as validate's NVIDIA leg
    compiles (nvcc called directly, never hipcc)."""
    require()
    nvcc = toolchains.find_nvcc()
    assert nvcc
    cuda = toolchains.cuda_path()
    argv = [nvcc, "-Wno-deprecated-gpu-targets", f"-arch={ARCH}",
            *(["-isystem", str(Path(cuda) / "include")] if cuda else []), "-isystem", str(kit()),
            "-x", "cu", "-std=c++17", *args, "-c", str(source), "-o", str(source.with_suffix(".o"))]
    return subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=600,
                          stdin=subprocess.DEVNULL)


def errors(proc: subprocess.CompletedProcess[str]) -> str:
    return "\n".join(line for line in (proc.stdout + proc.stderr).splitlines() if "error" in line)[:4000]
