"""benchmarks/kernel_scaling.py runs and prints its figures (the timing itself is the benchmark's
business, never a test's: nothing here compares seconds)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "kernel_scaling.py"
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", re.M)


def run(*args: str) -> str:
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_prints_a_row_per_size_and_the_ratio() -> None:
    out = run("--sizes", "20,40", "--repeat", "1")
    rows = {int(m.group(1)): m for m in ROW.finditer(out)}
    assert sorted(rows) == [20, 40], out
    for n, m in rows.items():
        assert int(m.group(2)) > n * 5, out  # a file of n kernels has several lines each
        # Small sizes can sit inside the fixed cost's noise, so only the signs are checked.
        assert float(m.group(3)) > 0 and float(m.group(6)) >= 0, out
    assert re.search(r"largest / smallest us per kernel \(net CPU\): [\d.]+x \(target <= 1\.5x\)", out), out
    assert "fixed cost" in out  # the process's start-up, measured in the same run and taken off


def test_in_process_mode() -> None:
    out = run("--sizes", "20", "--repeat", "1", "--in-process")
    assert [int(m.group(1)) for m in ROW.finditer(out)] == [20], out
    assert "port_bytes in process" in out


def test_generated_kernels_each_hold_a_warp_hazard() -> None:
    """Every kind of kernel the benchmark cycles through is one the wave64 pass reports."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import kernel_scaling
    finally:
        sys.path.pop(0)
    from hipport.config import Config
    from hipport.passes import port_bytes

    n = len(kernel_scaling.KINDS)
    r = port_bytes("k.cu", "cuda-source", kernel_scaling.kernels_file(n), Config())
    kernels = {f.kernel for f in r.findings if f.rule.startswith("W")}
    assert kernels == {f"k{i}" for i in range(n)}, sorted(kernels)


def test_bad_sizes_are_a_usage_error() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "ten"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert proc.returncode == 2 and "--sizes" in proc.stderr


def test_fail_above_exits_1_when_the_ratio_is_exceeded() -> None:
    """CI's guard against quadratic paths: a bound below any real ratio must fail."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "20,40", "--repeat", "1", "--in-process",
                           "--fail-above", "0.5"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 1 and "FAILED" in proc.stderr
