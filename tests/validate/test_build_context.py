"""validate in the project's build context (issue 33): a file named alone is compiled with the
headers it reads (beside it, in the build files' include folders); a third-party header found
nowhere is a missing dependency, named; one error many units hit prints once, with a count; every
"not run" cell says why. Real hipcc (HIP_PLATFORM=amd)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport.validate.errors_map import MISSING, Diagnostic
from hipport.validate.unitclass import MISSING_DEPENDENCY, UNEXPECTED, classify_unit
from tests.conftest import hipport, needs_hipcc

NORM_CUH = "#pragma once\n__device__ inline float sq(float x) { return x * x; }\n"
COMMON_H = "#pragma once\n#define BLOCK 64\n"
NORM_CU = """#include <cuda_runtime.h>
#include "head_norm.cuh"
#include "common.h"
__global__ void norm(float* x) { x[threadIdx.x] = sq(x[threadIdx.x]) + BLOCK; }
"""
EXT_CU = """#include <cuda_runtime.h>
#include <ATen/ATen.h>
__global__ void e(float* x) { x[threadIdx.x] = 1; }
"""
JSON_CU = """#include <cuda_runtime.h>
#include "nlohmann/json.hpp"
__global__ void j(float* x) { x[threadIdx.x] = 2; }
"""
CMAKE = ("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
         "include_directories(include)\nadd_executable(hn src/head_norm.cu)\n")


def _tree(root: Path) -> Path:
    for rel, text in {"src/head_norm.cuh": NORM_CUH, "include/common.h": COMMON_H,
                      "src/head_norm.cu": NORM_CU, "src/ext.cu": EXT_CU, "src/js.cu": JSON_CU,
                      "CMakeLists.txt": CMAKE}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_header_found_nowhere_that_is_not_cuda_or_hip_is_a_missing_dependency() -> None:
    def d(header: str) -> Diagnostic:
        return Diagnostic("fatal error", f"'{header}' file not found", file="a.cu", line=2, category=MISSING)

    nowhere = lambda _: False  # noqa: E731
    got = classify_unit([d("ATen/ATen.h")], in_project=nowhere)
    assert got.kind == MISSING_DEPENDENCY and got.why.startswith("ATen/ATen.h: in neither the project")
    assert classify_unit([d("nlohmann/json.hpp")], in_project=nowhere).kind == MISSING_DEPENDENCY
    # the port's own failures stay unexpected: a CUDA or HIP header, a header the project has
    assert classify_unit([d("cuda_fp16.h")], in_project=nowhere).kind == UNEXPECTED
    assert classify_unit([d("hip/hip_cooperative_groups.h")], in_project=nowhere).kind == UNEXPECTED
    assert classify_unit([d("mine.h")], in_project=lambda h: h == "mine.h").kind == UNEXPECTED
    assert classify_unit([d("ATen/ATen.h")]).kind == UNEXPECTED  # nothing known of the project


@pytest.mark.hipcc
@needs_hipcc
def test_a_file_named_alone_is_compiled_with_its_headers(tmp_path: Path) -> None:
    proj = _tree(tmp_path / "proj")
    p = hipport("validate", "src/head_norm.cu", "--offload-arch", "gfx90a", "--no-cache", "--format", "json",
                cwd=proj, env={"HIP_PLATFORM": "amd"})
    doc = json.loads(p.stdout)
    assert p.returncode == 0, doc["errors"]
    assert [u["file"] for u in doc["details"]["compile"]] == ["src/head_norm.cu"]  # headers are no units
    assert doc["summary"]["compile_pass"] == 1
    assert "src/head_norm.cuh" in p.stderr.decode() and "include/common.h" in p.stderr.decode()


@pytest.mark.hipcc
@needs_hipcc
def test_third_party_headers_are_missing_dependencies_named(tmp_path: Path) -> None:
    proj = _tree(tmp_path / "proj")
    args = ("validate", "src/ext.cu", "src/js.cu", "--offload-arch", "gfx90a", "--no-cache")
    p = hipport(*args, "--format", "json", cwd=proj, env={"HIP_PLATFORM": "amd"})
    doc = json.loads(p.stdout)
    got = {u["file"]: (u["class"], u["why"].split(":")[0]) for u in doc["details"]["compile"]}
    assert got == {"src/ext.cu": (MISSING_DEPENDENCY, "ATen/ATen.h"),
                   "src/js.cu": (MISSING_DEPENDENCY, "nlohmann/json.hpp")}
    assert doc["summary"]["units_missing_dependency"] == 2 and doc["summary"]["units_unexpected"] == 0
    out = hipport(*args, cwd=proj, env={"HIP_PLATFORM": "amd"}).stdout.decode()
    assert "failed units: 0 missing a package, 2 missing a dependency, 0 flagged by hipport, 0 unexpected" in out


SHARED = "#pragma once\n__device__ inline float f(float x) { return undefined_thing(x); }\n"


@pytest.mark.hipcc
@needs_hipcc
def test_one_error_in_a_shared_header_prints_once_and_not_run_says_why(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "shared.cuh").write_text(SHARED)
    for i in range(4):
        (src / f"u{i}.cu").write_text(f'#include "shared.cuh"\n__global__ void k{i}(float* x) {{ x[0] = f(x[0]); }}\n')
    # gfx90a compiles; an arch no toolchain here knows is not run, with its reason
    args = ("validate", "src", "--offload-arch", "gfx90a", "--offload-arch", "gfx9999",
            "--no-cache")
    out = hipport(*args, cwd=tmp_path, env={"HIP_PLATFORM": "amd"}).stdout.decode()
    assert out.count("use of undeclared identifier") == 2, out  # the error, the class line
    assert "(in 4 units: src/u0.cu, src/u1.cu, src/u2.cu, ...)" in out
    assert "unexpected: 4 units (src/u0.cu, src/u1.cu, src/u2.cu, ...): src/shared.cuh:2:" in out
    rows = [ln for ln in out.splitlines() if "src/u" in ln and "│" in ln]
    assert len(rows) == 4 and all("not run [1]" in r for r in rows), out
    assert "[1] not run (4x): gfx9999: not compiled for (" in out
    doc = json.loads(hipport(*args, "--format", "json", cwd=tmp_path, env={"HIP_PLATFORM": "amd"}).stdout)
    assert all(r["compile gfx9999"].startswith("not run: ") for r in doc["table"])
