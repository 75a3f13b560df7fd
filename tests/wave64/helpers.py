"""Shared helpers for the wave64 tests: run the pass on a snippet, apply fixes, compile with hipcc."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from hipport import portable
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.model import Applicability, Finding
from hipport.source import SourceFile
from hipport.wave64 import run

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "wave64"
HIPCC = shutil.which("hipcc")
HEADER = "#include <hip/hip_runtime.h>\n"


def config(strategy: str = "auto", rocm: str = "5.2", **kw: object) -> Config:
    return replace(Config(), wave_strategy=strategy, rocm=rocm, **kw)  # type: ignore[arg-type]


def findings(code: str, strategy: str = "auto", rocm: str = "5.2", rule: str | None = None) -> list[Finding]:
    src = SourceFile("t.cu", code.encode())
    out = run(src, config(strategy, rocm))
    return [f for f in out if rule is None or f.rule == rule]


def apply(code: str, fs: Iterable[Finding], review: bool = True) -> str:
    edits = []
    for f in fs:
        if f.fix is None:
            continue
        if f.fix.applicability == Applicability.SAFE or (review and f.fix.applicability == Applicability.REVIEW):
            edits.extend(f.fix.edits)
    accepted, conflicts = resolve(edits)
    assert not conflicts, f"conflicting edits: {conflicts}"
    return apply_edits(code.encode(), accepted).decode()


def port(code: str, strategy: str = "auto", rocm: str = "5.2", rule: str | None = None,
         review: bool = True) -> str:
    """The code with the fixes applied (only `rule`'s when given; SAFE, plus REVIEW when `review`)."""
    return apply(code, findings(code, strategy, rocm, rule), review)


def rules_of(code: str, strategy: str = "auto", rocm: str = "5.2") -> list[tuple[str, int]]:
    return [(f.rule, f.span.line) for f in findings(code, strategy, rocm)]


def hipcc(path: Path, arch: str = "gfx90a", extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """`HIP_PLATFORM=amd hipcc --offload-arch=ARCH -c -o /dev/null -x hip FILE`."""
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    return subprocess.run(["hipcc", f"--offload-arch={arch}", "-c", "-o", os.devnull, "-x", "hip", *extra,
                           str(path)], capture_output=True, text=True, env=env, timeout=300)


def kernel(body: str, head: str = "", params: str = "float* p, const int* in, int* out") -> str:
    """A snippet: the HIP include, optional file-scope lines, and `__global__ void k(...) { body }`."""
    return f"{HEADER}{head}__global__ void k({params}) {{\n{body}}}\n"


def assert_noop(code: str, rule: str, strategies: tuple[str, ...] = ("logical32", "native"),
                rocm: str = "5.2") -> None:
    """A lookalike: the rule reports nothing under any strategy, so nothing changes."""
    for s in strategies:
        got = findings(code, s, rocm, rule)
        assert not got, f"{rule} reported a lookalike ({s}): {[(f.span.line, f.message) for f in got]}"


def assert_fix(before: str, after: str, rule: str, strategy: str, rocm: str = "5.2") -> None:
    """The rule's own fixes (safe and review) turn `before` into `after`. The NVIDIA shims that
    come with a rewrite using an AMD builtin are left out of `after` (tests/test_nvidia_path.py)."""
    assert findings(before, strategy, rocm, rule), f"{rule} found nothing"
    got = port(before, strategy, rocm, rule)
    assert got.replace(portable.NVIDIA_SHIMS, "") == after
    assert portable.NVIDIA_SHIMS not in got or portable.needs_shims(after)


def assert_kept(code: str, rule: str, strategy: str, rocm: str = "5.2") -> None:
    """The site is reported (a warp-size assumption) but already right for the strategy: info, no fix."""
    got = findings(code, strategy, rocm, rule)
    assert got, f"{rule} found nothing"
    assert all(f.fix is None and f.severity.value == "info" for f in got), [(f.message, f.fix) for f in got]


def applicability(code: str, rule: str, strategy: str = "auto", rocm: str = "5.2") -> set[str]:
    return {f.fix.applicability.value for f in findings(code, strategy, rocm, rule) if f.fix is not None}
