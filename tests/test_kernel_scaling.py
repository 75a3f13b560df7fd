"""benchmarks/kernel_scaling.py runs and prints its figures (the timing itself is the benchmark's
business, never a test's: nothing here compares seconds), and its shapes are what it says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "kernel_scaling.py"
NUM = r"(-?[\d.]+|-)"
# shape, bytes, lines, net CPU s, wall s, ns/byte, x small, RSS MB, parse MB, x parse
ROW = re.compile(rf"^\s*(kernels|expr|line|deep)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+x|-)"
                 rf"\s+{NUM}\s+{NUM}\s+(-|[\d.]+x)\s*$", re.M)


def run(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == code, proc.stderr[-2000:]
    return proc


def kernel_scaling():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import kernel_scaling
    finally:
        sys.path.pop(0)
    return kernel_scaling


def test_a_row_per_shape_and_size_with_both_memories() -> None:
    """Process mode: the CPU cost net of the fixed cost, and the peak memory of the hipport
    process beside that of a bare parse, both measured in this run."""
    out = run("--shapes", "kernels", "--sizes", "1k,128k,256k", "--repeat", "1").stdout
    rows = [m.groups() for m in ROW.finditer(out)]
    assert [(r[0], round(int(r[1]) / 1024, -1)) for r in rows] == [
        ("kernels", 0), ("kernels", 130), ("kernels", 260)], out
    # 1k is within the fixed cost's noise: no ratio; the larger ones are compared.
    assert rows[0][6] == "-" and rows[1][6] == "1.00x" and rows[2][6] != "-", out
    for r in rows:
        # A small size can sit inside the fixed cost's noise: only the signs are checked.
        assert int(r[2]) > 10 and float(r[3]) >= 0 and float(r[5]) >= 0, out
        assert r[7] != "-" and r[8] != "-", out  # both memories measured
    assert "fixed cost" in out and "bare tree-sitter parse" in out
    assert re.search(r"kernels: largest / smallest CPU per byte: [\d.]+x \(target <= 1\.5x\)", out), out
    assert re.search(r"largest hipport / parse memory growth: .* \(target <= 2x", out), out


def test_in_process_mode_every_shape() -> None:
    out = run("--sizes", "1k", "--repeat", "1", "--in-process").stdout
    rows = [m.groups() for m in ROW.finditer(out)]
    assert [r[0] for r in rows] == ["kernels", "expr", "line", "deep"], out
    assert all(r[7] == "-" for r in rows), out  # no memory without --memory
    assert "port_bytes in process" in out


def test_shapes_are_what_they_say() -> None:
    """Sizes near the asked ones; the sum is n terms on n lines or on one, nested left-deep n
    levels (a real parse); the deep kernels nest #if, if blocks and parentheses DEEPEST deep."""
    from hipport.source import SourceFile

    ks = kernel_scaling()
    for shape in ks.SHAPES:
        data = ks.shape_file(shape, 64 << 10)
        assert 0.8 < len(data) / (64 << 10) < 1.25, (shape, len(data))
    expr = ks.shape_file("expr", 64 << 10)
    terms = expr.count(b"p[threadIdx.x]") - 1  # one more before the sum
    assert expr.count(b"\n    + p[threadIdx.x]") == terms - 1
    assert ks.shape_file("line", 64 << 10).count(b"\n") < 20
    assert _depth(SourceFile("e.cu", expr).root) >= terms, terms
    deep = ks.shape_file("deep", 1 << 20)
    assert deep.count(b"#if !defined(SKIP_0_") == ks.DEEPEST
    assert b"(" * ks.DEEPEST + b"v" in deep and b"if (i > %d) {" % (ks.DEEPEST - 1) in deep
    assert not SourceFile("d.cu", deep).root.has_error


def _depth(root) -> int:  # type: ignore[no-untyped-def]
    """The depth of the deepest node below `root`."""
    cursor, deepest = root.walk(), 0
    while True:
        deepest = max(deepest, cursor.depth)
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return deepest


def test_generated_kernels_each_hold_a_warp_hazard() -> None:
    """Every kind of kernel the benchmark cycles through is one the wave64 pass reports."""
    from hipport.config import Config
    from hipport.passes import port_bytes

    ks = kernel_scaling()
    n = len(ks.KINDS)
    r = port_bytes("k.cu", "cuda-source", ks.kernels_file(n), Config())
    kernels = {f.kernel for f in r.findings if f.rule.startswith("W")}
    assert kernels == {f"k{i}" for i in range(n)}, sorted(kernels)


def test_bad_options_are_a_usage_error() -> None:
    for args in (["--sizes", "ten"], ["--shapes", "kernels,loops"], ["--sizes", "0"]):
        proc = run(*args, code=2)
        assert args[0] in proc.stderr, proc.stderr


def test_fail_above_exits_1_when_a_ratio_is_exceeded() -> None:
    """CI's guard against quadratic paths: a bound below any real ratio must fail."""
    proc = run("--shapes", "expr", "--sizes", "1k,8k", "--repeat", "1", "--in-process", "--fail-above", "0.01",
               code=1)
    assert "FAILED: expr:" in proc.stderr


def test_fail_memory_above_exits_1_when_the_memory_ratio_is_exceeded() -> None:
    """A file large enough for the parse to grow past the floor, and a bound below any real
    ratio: the memory check fails (and the figure it judged is printed)."""
    proc = run("--shapes", "expr", "--sizes", "1m", "--repeat", "1", "--in-process", "--memory",
               "--fail-memory-above", "0.5", code=1)
    assert "FAILED: memory" in proc.stderr
    assert re.search(r"largest hipport / parse memory growth: [\d.]+x", proc.stdout), proc.stdout
