"""benchmarks/wave64_accuracy.py scores hand-labelled real code per repository and per label
context, each file alone (`--context file`) or with its headers and its repository's include
folders (`--context project`, as `hipport lint` reads it)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "wave64_accuracy.py"

# The header is on the repository's include folder, not beside or above the kernel: only the
# project's include list finds it. On AMD it gives the wave width, so a reduction over it is right.
HEADER = """#pragma once
#if defined(__HIP_PLATFORM_AMD__)
#define WARP_SZ 64
#else
#define WARP_SZ 32
#endif
"""
KERNEL = """#include "warp.cuh"
__global__ void k(float* out, const float* in) {
  float v = in[threadIdx.x];
  for (int o = WARP_SZ / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  int lane = threadIdx.x & 31;
  if (lane == 0) out[threadIdx.x / WARP_SZ] = v;
}
"""
LABELS = """
[repos."repo"]
repository = "example/repo"
commit = "0000000000000000000000000000000000000000"
folder = "repo"
include = ["repo/inc"]
hip_defines = []

[[hazard]]
path = "repo/src/k.cu"
line = 5
rule = "W004"
context = "direct"
why = "lane id by & 31"

[[clean]]
path = "repo/src/k.cu"
line = 4
context = "wave-generic"
why = "WARP_SZ is 64 on AMD (inc/warp.cuh)"

[[clean]]
path = "repo/src/k.cu"
line = 6
context = "wave-generic"
why = "WARP_SZ is 64 on AMD (inc/warp.cuh)"
"""


def _module() -> ModuleType:
    if "wave64_accuracy" not in sys.modules:  # its dataclasses look their module up there
        spec = importlib.util.spec_from_file_location("wave64_accuracy", SCRIPT)
        assert spec is not None and spec.loader is not None
        sys.modules["wave64_accuracy"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["wave64_accuracy"]


def _corpora(tmp_path: Path) -> tuple[Path, Path]:
    base = tmp_path / "c"
    (base / "repo" / "inc").mkdir(parents=True)
    (base / "repo" / "src").mkdir()
    (base / "repo" / "inc" / "warp.cuh").write_text(HEADER)
    (base / "repo" / "src" / "k.cu").write_text(KERNEL)
    (tmp_path / "labels.toml").write_text(LABELS)
    return base, tmp_path / "labels.toml"


def test_project_context_sees_the_include_folders_header(tmp_path: Path) -> None:
    base, labels = _corpora(tmp_path)
    w = _module()
    alone = w.score_real(base, labels, "file")
    project = w.score_real(base, labels, "project")
    # Alone, WARP_SZ is taken for CUDA's 32: both wave-generic lines are false positives.
    assert alone.total["tp"] == 1 and alone.total["fn"] == 0 and alone.total["fp"] >= 2, alone.notes
    assert alone.clean_classes["wave-generic"]["flagged"] == 2
    assert any("repo/src/k.cu:4" in n and "false positive [wave-generic]" in n for n in alone.notes)
    # With the repository's include folder the header says 64 on AMD: nothing to report there.
    assert (project.total["tp"], project.total["fp"], project.total["fn"]) == (1, 0, 0), project.notes
    assert project.per_repo["repo"]["tp"] == 1 and project.hazard_classes["direct"]["tp"] == 1
    # Without the include list the header is not found, as with the file alone.
    (tmp_path / "labels.toml").write_text(LABELS.replace('include = ["repo/inc"]', "include = []"))
    assert w.score_real(base, labels, "project").total["fp"] == alone.total["fp"]


def test_prints_the_tables_per_repository_and_context(tmp_path: Path) -> None:
    base, labels = _corpora(tmp_path)
    proc = subprocess.run([sys.executable, str(SCRIPT), "--real", str(base), "--labels", str(labels),
                           "--context", "file", "--verbose"], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout[proc.stdout.index("real code (labels.toml"):]
    assert "context file" in out and re.search(r"^  repo\s+1\s+[2-9]\s+0\s", out, re.M), out
    assert re.search(r"^  wave-generic\s+2\s+2\s+[2-9]$", out, re.M), out
    assert "repo/src/k.cu:4" in out and "false positive [wave-generic]" in out


def test_bad_labels_are_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("x = [\n")
    for labels in (tmp_path / "bad.toml", tmp_path / "absent.toml"):
        proc = subprocess.run([sys.executable, str(SCRIPT), "--real", str(tmp_path), "--labels", str(labels)],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert proc.returncode == 2 and labels.name in proc.stderr and "Traceback" not in proc.stderr


RECALL_HEADER = "#pragma once\n#define WARP_SZ 32\n"
RECALL_KERNEL = """#include "warp.cuh"
__global__ void k(float* out) {
  int warp = threadIdx.x / WARP_SZ;
  out[warp] = 1.0f;
}
"""
RECALL_LABELS = LABELS.split("[[hazard]]")[0] + """
[[hazard]]
path = "repo/src/k.cu"
line = 3
rule = "W005"
context = "include-constant"
why = "warp id by WARP_SZ, 32 in inc/warp.cuh"
"""


def test_project_context_finds_a_width_only_a_header_defines(tmp_path: Path) -> None:
    base, labels = _corpora(tmp_path)
    (base / "repo" / "inc" / "warp.cuh").write_text(RECALL_HEADER)
    (base / "repo" / "src" / "k.cu").write_text(RECALL_KERNEL)
    labels.write_text(RECALL_LABELS)
    w = _module()
    assert w.score_real(base, labels, "file").total["tp"] == 0  # alone, WARP_SZ could be anything
    assert w.score_real(base, labels, "project").total["tp"] == 1
