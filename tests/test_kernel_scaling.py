"""benchmarks/kernel_scaling.py runs and prints its figures (the timing itself is the
benchmark's business, not a test's: this machine is shared)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_the_benchmark_prints_a_cost_per_kernel_for_each_size() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "kernel_scaling.py"), "--sizes", "20,40",
                        "--repeat", "1"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    rows = [ln.split() for ln in p.stdout.splitlines() if re.match(r"^\s+\d+\s+\d+\s", ln)]
    assert [r[0] for r in rows] == ["20", "40"] and all(float(r[-1]) > 0 for r in rows)
    assert re.search(r"largest / smallest us per kernel \(net CPU\): [\d.]+x", p.stdout)
