"""Compile a unit with HIP 6.4 inside the root scripts/hip_root.py builds (issue 29).

Small on purpose, so it can give way to hipport's own toolchain module: the root's clang is
called from an argv list (never its hipcc script, never a shell), through `chroot` as root or a
user namespace otherwise, with the unit on standard input (the compiler sees only the root's
files). Tests that use it are marked `rocm64`; `require()` skips them where the root is absent
and fails them where HIPPORT_REQUIRE_TOOLCHAINS names hip-6.4 (as CI sets it).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

NAME = "hip-6.4"
DESCRIPTOR = "hipport-toolchain.json"


def root() -> Path:
    return Path(os.environ.get("HIPPORT_TOOLCHAINS") or "/opt/hipport") / NAME


def require() -> Path:
    """The root, or a skip (a failure where CI requires it) naming what is missing."""
    r = root()
    if not (r / DESCRIPTOR).is_file():
        why = f"{r} is absent: run `python3 scripts/hip_root.py` as root"
        if NAME in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {NAME}, but {why}")
        pytest.skip(why)
    return r


# What hipcc adds for a device build: the backend's checks (image instructions a target lacks)
# show only when the calls are inlined.
DEVICE_CODEGEN = ("--cuda-device-only", "-O3", "-mllvm", "-amdgpu-early-inline-all=true",
                  "-mllvm", "-amdgpu-function-calls=false", "-c", "-o", "/dev/null")


def compile64(unit: str | bytes, *args: str, arch: str = "gfx90a",
              codegen: bool = False) -> subprocess.CompletedProcess[str]:
    """`clang -x hip --offload-arch=ARCH -std=c++17 -fsyntax-only ARGS -` inside the root;
    with `codegen`, the device code is compiled through the backend instead."""
    r = require()
    clang = json.loads((r / DESCRIPTOR).read_text())["clang"]
    inside = ["chroot", str(r)] if os.geteuid() == 0 else ["unshare", "--map-root-user", f"--root={r}"]
    argv = [*inside, clang, "-x", "hip", f"--offload-arch={arch}", "-std=c++17",
            *(DEVICE_CODEGEN if codegen else ("-fsyntax-only",)), *args, "-"]
    text = unit.decode("utf-8") if isinstance(unit, bytes) else unit
    return subprocess.run(argv, input=text, capture_output=True, text=True, timeout=300)


def errors(proc: subprocess.CompletedProcess[str]) -> str:
    return "\n".join(line for line in proc.stderr.splitlines() if "error" in line)[:4000]
