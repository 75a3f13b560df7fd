"""benchmarks/hipify_tests.py on a small HIPIFY-like layout written here (tests/unit_tests with
lit RUN and CHECK lines): the scoring, the option mapping and the error report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "hipify_tests.py"
sys.path.insert(0, str(ROOT / "benchmarks"))

import hipify_tests  # noqa: E402

RUNTIME = """\
// RUN: %run_test hipify "%s" "%t" %hipify_args %clang_args
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>
int main() {
  float *p;
  // CHECK: hipMalloc(&p, 4);
  // CHECK-NEXT: hipFree(p);
  cudaMalloc(&p, 4);   // a comment the harness blanks
  cudaFree(p);
  // CHECK-NOT: cudaFree
  // CHECK: hipDeviceSynchronize();
  cudaThreadSynchronize();
  // CHECK: notWhatHipportWrites();
  return 0;
}
"""

LAUNCH = """\
// RUN: %run_test hipify "%s" "%t" %hipify_args 2 --skip-excluded-preprocessor-conditional-blocks --hip-kernel-execution-syntax %clang_args
__global__ void k(int x) {}
int main() {
  // CHECK: hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, 3);
  k<<<1, 2>>>(3);
  // CHECK: hipLaunch{{(KernelGGL)?}}(k, dim3(1), dim3(2), 0, 0, 4);
  k<<<1, 2>>>(4);
}
"""


def layout(tmp: Path) -> Path:
    base = tmp / "HIPIFY" / "tests" / "unit_tests"
    (base / "runtime").mkdir(parents=True)
    (base / "runtime" / "rt.cu").write_text(RUNTIME)
    (base / "launch.cu").write_text(LAUNCH)
    (base / "helper.h").write_text("// no RUN line: not a test\nint helper();\n")
    return tmp / "HIPIFY"


def test_run_line_options() -> None:
    line = ' %run_test hipify "%s" "%t" %hipify_args 3 --amap --roc --hip-kernel-execution-syntax %clang_args -DX'
    opts = hipify_tests.parse_run(line)
    assert opts == ["--amap", "--roc", "--hip-kernel-execution-syntax"]
    mapped, unmapped = hipify_tests.map_options(opts)
    assert ("--launch-syntax", "ggl") == mapped[mapped.index("--launch-syntax"):][:2]
    assert "--roc" in mapped and unmapped == ["--amap"]


def test_scores_whole_lines_in_order(tmp_path: Path) -> None:
    root = layout(tmp_path)
    proc = subprocess.run([sys.executable, str(SCRIPT), str(root), "-v"], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # rt.cu: 5 expected lines (CHECK-NOT is not counted), the made-up one missed;
    # launch.cu: 2, both met (the second through its {{regex}}).
    assert "hipport: 6/7 expected lines (85.7%) in 2 files; 0 files errored" in out, out
    assert "runtime/rt.cu" in out and "4/5" in out, out
    assert "notWhatHipportWrites();" in out  # -v lists the missed line
    assert "launch.cu" not in out.split("\n", 1)[1]  # a file with nothing missed is not listed


def test_a_whole_line_is_needed(tmp_path: Path) -> None:
    test = hipify_tests.Test(tmp_path / "t.cu", "t.cu", [], [
        hipify_tests.Expect("", "hipFree(p);", 1), hipify_tests.Expect("-NEXT", "hipFree(q);", 2)])
    s = hipify_tests.score(test, "  hipFree(p); hipFree(q);\nx\n")
    assert (s.hits, s.total) == (0, 2)
    s = hipify_tests.score(test, "hipFree(p);   // gone\nhipFree(q); x\n")
    assert (s.hits, s.total) == (1, 2)  # `// gone` becomes `// `, as the harness's sed does
    s = hipify_tests.score(test, "hipFree(p);\nhipFree(q);\n")
    assert (s.hits, s.total) == (2, 2)
    # What follows the code is not part of the line: a block comment, a continuation.
    s = hipify_tests.score(test, "hipFree(p); /* a */ /* b */\nhipFree(q);   \\\n")
    assert (s.hits, s.total) == (2, 2)
    s = hipify_tests.score(test, "hipFree(p); /* a */ x\nhipFree(q);\n")
    assert (s.hits, s.total) == (1, 2)  # code after the comment: not p's line


def test_not_a_checkout(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert proc.returncode != 0 and "not a HIPIFY checkout" in proc.stderr
