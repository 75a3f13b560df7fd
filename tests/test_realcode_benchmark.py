"""benchmarks/realcode.py compiles a ported checkout with hipport's toolchains (never hipcc),
one column group per `--toolchain`, side by side (issue 29). Real ports, real compiles."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hipport.validate import toolchains
from hipport.validate.driver import Library, Toolchain
from tests import nvidia
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


@pytest.mark.hipcc
@pytest.mark.nvidia
@needs_hipcc
def test_the_nvidia_column_builds_what_built_for_gfx90a(tmp_path: Path) -> None:
    """--nvidia (issue 32): a unit that builds for gfx90a is built with nvcc on HIP's NVIDIA path;
    one stopped at an API HIP has only on AMD is flagged there (HP022), not unflagged."""
    nvidia.require()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "ok.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(unsigned* p) {\n"
                                "  p[threadIdx.x] = umin(p[threadIdx.x], 3u);\n}\nint main() { return 0; }\n")
    (tree / "gl.cu").write_text("#include <cuda_runtime.h>\nvoid unmap(cudaGraphicsResource_t r, cudaStream_t s) {\n"
                                "  cudaGraphicsUnmapResources(1, &r, s);\n}\nint main() { return 0; }\n")
    r = _run(tree, "--nvidia", "--json")
    assert r.returncode == 0, r.stderr
    [row] = json.loads(r.stdout)
    assert _classes(next(iter(row["toolchains"].values()))["hipport"]) == {"ok.cu": "ok", "gl.cu": "ok"}
    assert _classes(row["nvidia"]) == {"ok.cu": "ok", "gl.cu": "flagged"}


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


def _realcode() -> ModuleType:
    if "realcode" not in sys.modules:  # its dataclasses look their module up there
        spec = importlib.util.spec_from_file_location("realcode", SCRIPT)
        assert spec is not None and spec.loader is not None
        sys.modules["realcode"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["realcode"]


@pytest.mark.parametrize(("missing", "cls"), [
    ("GL/gl.h", "env"), ("GL/glu.h", "env"), ("EGL/egl.h", "env"), ("X11/Xlib.h", "env"),
    ("GLES3/gl31.h", "env"), ("hipfft/hipfft.h", "env"),
    ("hipblas/hipblas.h", "unflagged"),  # the root has hipBLAS: a port that misses it is the port's
    ("project_helper.h", "unflagged"),  # the checkout's own header, not a package's
])
def test_a_header_of_a_package_the_toolchain_lacks_is_env(tmp_path: Path, missing: str, cls: str) -> None:
    """cuda-samples at hip-6.4 stopped on OpenGL, EGL and X11 headers the root lacks (as it
    lacks every package but ROCm's): env, as an absent ROCm library is; no compiler needed."""
    realcode = _realcode()
    root = Toolchain(HIP64, "/usr/bin/clang++-21", "6.4.43484", "21.1.8", "/usr", root="/opt/hipport/hip-6.4",
                     headers=(Library("hipBLAS", "hipblas/hipblas.h"),))
    (tmp_path / "unit.cu").write_text(f"#include <{missing}>\n")
    o = realcode.Outcome("unit.cu", False, f"unit.cu:1:10: fatal error: '{missing}' file not found", ("unit.cu", 1))
    assert realcode.classify(o, missing, {}, tmp_path, tmp_path, root) == cls


@pytest.mark.rocm64
def test_opengl_egl_and_x11_headers_are_env_in_the_root(tmp_path: Path) -> None:
    if not any(t.name == HIP64 and t.ok for t in toolchains.listing().toolchains):
        if HIP64 in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {HIP64}, but there is no usable {HIP64} toolchain")
        pytest.skip(f"no {HIP64} toolchain (python3 scripts/hip_root.py)")
    tree = tmp_path / "tree"
    tree.mkdir()
    for name, header in (("gl.cu", "GL/gl.h"), ("egl.cu", "EGL/egl.h"), ("x11.cu", "X11/Xlib.h")):
        (tree / name).write_text(f"#include <cuda_gl_interop.h>\n#include <{header}>\n"
                                 "__global__ void k(float* p) { p[threadIdx.x] = 0; }\n")
    r = _run(tree, "--toolchain", HIP64, "--rocm", "6.4", "--json")
    assert r.returncode == 0, r.stderr
    [row] = json.loads(r.stdout)
    assert _classes(row["toolchains"][HIP64]["hipport"]) == {"gl.cu": "env", "egl.cu": "env", "x11.cu": "env"}
