"""benchmarks/wave64_cost.py runs and prints both figures. The CPU-time targets are the
benchmark's (they used to be asserts here and failed on a loaded machine)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^(host-only|warp-heavy)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x\s+<= ([\d.]+)x$", re.M)


def test_prints_the_pass_cost_beside_the_parse() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wave64_cost.py"), "--repeat", "1"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {m.group(1): m for m in ROW.finditer(proc.stdout)}
    assert sorted(rows) == ["host-only", "warp-heavy"], proc.stdout
    assert int(rows["warp-heavy"].group(2)) > 40  # the fixtures, four times over
    assert all(float(m.group(3)) > 0 for m in rows.values()), proc.stdout


def test_bad_repeat_is_a_usage_error() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wave64_cost.py"), "--repeat", "0"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 2 and "--repeat" in proc.stderr
