"""benchmarks/realcode.py compiles a ported checkout with hipport's toolchains (never hipcc),
one column group per `--toolchain`, side by side (issue 29). Real ports, real compiles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hipport.validate import toolchains
from tests.conftest import ROOT, needs_hipcc

SCRIPT = ROOT / "benchmarks" / "realcode.py"
HIP64 = "hip-6.4"


def _tree(tmp: Path) -> Path:
    tree = tmp / "tree"
    tree.mkdir()
    (tree / "blas.cu").write_text("#include <cublas_v2.h>\nint main() {\n  cublasHandle_t h;\n  cublasCreate(&h);\n"
                                  "  return 0;\n}\n")
    (tree / "vec.cu").write_text("inline __host__ __device__ float2 operator/(float2 a, float2 b) {\n"
                                 "  return make_float2(a.x / b.x, a.y / b.y);\n}\n"
                                 "__global__ void k(float2* v) { v[0] = v[0] / v[1]; }\nint main() { return 0; }\n")
    (tree / "bad.cu").write_text("__global__ void k(int* p) {\n  p[0] = undeclared_fn(p);\n}\nint main() { return 0; }\n")
    return tree


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=600)


def _classes(outcomes: list[dict[str, Any]]) -> dict[str, str]:
    return {o["unit"]: "ok" if o["ok"] else o["cls"] for o in outcomes}


@pytest.mark.hipcc
@needs_hipcc
def test_the_hosts_hip_is_the_default_and_an_absent_library_is_env(tmp_path: Path) -> None:
    host = toolchains.amd_toolchain()
    assert host is not None
    r = _run(_tree(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    [row] = json.loads(r.stdout)
    assert row["units"] == 3 and row["rocm"] == "5.2" and list(row["toolchains"]) == [host.name]
    assert _classes(row["toolchains"][host.name]["hipport"]) == {"blas.cu": "env", "vec.cu": "ok",
                                                                 "bad.cu": "unflagged"}


def test_an_unknown_toolchain_is_a_usage_error(tmp_path: Path) -> None:
    r = _run(_tree(tmp_path), "--toolchain", "hip-0.1")
    assert r.returncode == 2 and "no toolchain named 'hip-0.1'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.rocm64
@needs_hipcc
def test_toolchains_side_by_side(tmp_path: Path) -> None:
    if not any(t.name == HIP64 and t.ok for t in toolchains.listing().toolchains):
        if HIP64 in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {HIP64}, but there is no usable {HIP64} toolchain")
        pytest.skip(f"no {HIP64} toolchain (python3 scripts/hip_root.py)")
    host = toolchains.amd_toolchain()
    assert host is not None
    tree = _tree(tmp_path)
    r = _run(tree, "--toolchain", host.name, "--toolchain", HIP64, "--rocm", "6.4", "--json")
    assert r.returncode == 0, r.stderr
    assert f"warning: {host.name} is HIP 5.2, older than the floor (--rocm 6.4)" in r.stderr
    [row] = json.loads(r.stdout)
    got = {tc: _classes(v["hipport"]) for tc, v in row["toolchains"].items()}
    # hipBLAS: absent on the host, there in the root; the project's float2 operator/ is kept only where
    # HIP lacks one (HP011), so both compile it; an error of the project's own fails in both
    assert got == {host.name: {"blas.cu": "env", "vec.cu": "ok", "bad.cu": "unflagged"},
                   HIP64: {"blas.cu": "ok", "vec.cu": "ok", "bad.cu": "unflagged"}}
    [bad] = [o for o in row["toolchains"][HIP64]["hipport"] if o["unit"] == "bad.cu"]
    # the line in the ported file (its include added), named by the tree's path, not the mirror's
    assert bad["where"] == ["bad.cu", 3] and "undeclared_fn" in bad["first"]
    table = _run(tree, "--toolchain", host.name, "--toolchain", HIP64, "--rocm", "6.4").stdout.splitlines()
    assert table[0] == (f"| code base | units | {host.name} hipify-perl | {host.name} compiled | env | flagged | "
                        f"unflagged | {HIP64} hipify-perl | {HIP64} compiled | env | flagged | unflagged |")
    assert table[2] == "| tree (tree) | 3 | - | 1 | 1 | 0 | 1 | - | 2 | 0 | 0 | 1 |"
