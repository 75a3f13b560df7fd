"""Each failed unit is classed: a missing package (named), flagged by hipport, or unexpected.
The include folders a unit reads from outside the inputs are ported with it. Real hipcc."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport.validate.driver import Library
from hipport.validate.errors_map import MISSING, OTHER, Diagnostic
from hipport.validate.unitclass import (
    FLAGGED,
    MISSING_PACKAGE,
    UNEXPECTED,
    classify_unit,
    package_of,
    packages,
)
from tests.conftest import hipport, needs_hipcc


def test_the_package_table_names_a_package_per_header() -> None:
    table = packages()
    assert len(table) > 20 and all(p.name for p in table.values())
    assert package_of("hipblas/hipblas.h").debian is False  # type: ignore[union-attr]
    assert package_of("GL/glut.h").name == "freeglut3-dev"  # type: ignore[union-attr]
    assert package_of("my_project.h") is None
    assert package_of("nvmedia_2d.h").debian is False  # type: ignore[union-attr]  # a pattern
    assert "Windows" in package_of("d3d12.h").name  # type: ignore[union-attr]
    assert package_of("llvm/ADT/StringRef.h").name == "llvm-15-dev"  # type: ignore[union-attr]


def test_a_header_of_a_library_the_toolchain_has_is_not_a_missing_package() -> None:
    """With the HIP 6.4 root hipBLAS is there: a unit stopping on a hipBLAS header that is not
    found is the port's doing (a spelling or layout the library does not have), not an absent
    package; a library the toolchain lacks still is one."""
    flat = Diagnostic("fatal error", "'hipblas.h' file not found", file="a.cu", line=3, category=MISSING)
    has = (Library("hipBLAS", "hipblas/hipblas.h", "6.4.4-1"), Library("hipCUB", "hipcub/hipcub.hpp"))
    assert classify_unit([flat]).kind == MISSING_PACKAGE
    got = classify_unit([flat], has, "hip-6.4")
    assert got.kind == UNEXPECTED and got.why == \
        "a.cu:3: 'hipblas.h' file not found (hip-6.4 has hipBLAS: <hipblas/hipblas.h>)"
    flagged = Diagnostic("fatal error", "'hipblas.h' file not found", file="a.cu", line=3, category=MISSING,
                         rule="HP001")
    assert classify_unit([flagged], has, "hip-6.4").kind == FLAGGED
    fft = Diagnostic("fatal error", "'hipfft/hipfft.h' file not found", file="a.cu", line=3, category=MISSING)
    assert classify_unit([fft], has, "hip-6.4").kind == MISSING_PACKAGE


def test_classes_from_the_first_error() -> None:
    missing = Diagnostic("fatal error", "'hipblas/hipblas.h' file not found", file="a.cu", line=3, category=MISSING)
    assert classify_unit([missing]).kind == MISSING_PACKAGE
    assert "which Debian 12 does not package" in classify_unit([missing]).why
    own = Diagnostic("fatal error", "'mine.h' file not found", file="a.cu", line=3, category=MISSING)
    assert classify_unit([own]).kind == UNEXPECTED  # not a package's: the port lost a header
    flagged = Diagnostic("error", "no member named 'x'", file="a.cu", line=9, category=OTHER, rule="HP001")
    assert classify_unit([flagged, missing]).kind == FLAGGED
    assert classify_unit([flagged]).why == "a.cu:9: HP001 (no member named 'x')"
    assert classify_unit([]).kind == UNEXPECTED


UNIT = b"""#include "helper.h"
__global__ void k(float* a) { a[threadIdx.x] = 2.0f; }
int main() { float* d; CHECK(cudaMalloc(&d, 256)); k<<<1, 64>>>(d); CHECK(cudaFree(d)); return 0; }
"""
HELPER = b"""#pragma once
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) return 1; } while (0)
"""


@pytest.mark.hipcc
@needs_hipcc
def test_classes_in_json_and_text_and_an_include_folder_outside_the_inputs(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "common").mkdir()
    (proj / "common" / "helper.h").write_bytes(HELPER)
    (proj / "src" / "ok.cu").write_bytes(UNIT)
    (proj / "src" / "blas.cu").write_bytes(b"#include <cublas_v2.h>\n" + UNIT)
    (proj / "src" / "odd.cu").write_bytes(UNIT + b"int f(void* p) { return *(char*)(p + 1); }\n")
    args = ("validate", proj / "src", "-I", proj / "common", "--offload-arch", "gfx90a", "--no-cache")
    p = hipport(*args, "--format", "json")
    doc = json.loads(p.stdout)
    got = {Path(u["file"]).name: u["class"] for u in doc["details"]["compile"]}
    # ok.cu compiles only because common/helper.h was ported too (unported it includes cuda_runtime.h)
    assert got == {"ok.cu": None, "blas.cu": MISSING_PACKAGE, "odd.cu": UNEXPECTED}, doc["errors"]
    blas = next(u for u in doc["details"]["compile"] if u["file"].endswith("blas.cu"))
    assert blas["why"].startswith("hipblas/hipblas.h: install hipblas (ROCm)")
    s = doc["summary"]
    assert (s["units_missing_package"], s["units_flagged"], s["units_unexpected"]) == (1, 0, 1)
    text = hipport(*args, "--report", tmp_path / "report")
    out = text.stdout.decode()
    page = (tmp_path / "report" / "index.html").read_text()
    assert "missing-package: hipblas/hipblas.h: install hipblas (ROCm)" in page  # the report's table says why
    assert text.returncode == 1
    assert "failed units: 1 missing a package, 0 flagged by hipport, 1 unexpected" in out
    assert "ported with the units" in text.stderr.decode() + out
