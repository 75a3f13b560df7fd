"""`hipport rules lookup`: a mapping, a HIP name, a name with no HIP twin, an unknown name."""

from __future__ import annotations

import json

from tests.conftest import hipport


def test_lookup_a_cuda_name() -> None:
    r = hipport("rules", "lookup", "cudaMemcpyToSymbol")
    assert r.returncode == 0
    out = r.stdout.decode()
    assert out.startswith("cudaMemcpyToSymbol -> hipMemcpyToSymbol\n")
    assert "family:  runtime" in out and "since:   ROCm" in out and "args:    hip_symbol:0" in out


def test_lookup_a_hip_name_shows_what_ports_to_it() -> None:
    out = hipport("rules", "lookup", "hipMalloc").stdout.decode()
    assert out.startswith("cudaMalloc -> hipMalloc\n") and "cuMemAlloc" in out


def test_lookup_no_hip_equivalent_names_the_alternative() -> None:
    r = hipport("rules", "lookup", "cudaDeviceFlushGPUDirectRDMAWrites", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0
    assert doc["status"] == "unsupported" and doc["hip"] is None and doc["alt"] == "hipDeviceSynchronize"
    text = hipport("rules", "lookup", "cudaDeviceFlushGPUDirectRDMAWrites").stdout.decode()
    assert "-> no HIP equivalent" in text and "instead: hipDeviceSynchronize" in text


def test_lookup_shows_the_hipsolver_spelling_of_a_cublas_enum() -> None:
    text = hipport("rules", "lookup", "CUBLAS_FILL_MODE_LOWER").stdout.decode()
    assert text.startswith("CUBLAS_FILL_MODE_LOWER -> HIPBLAS_FILL_MODE_LOWER\n")
    assert "hipsolver: HIPSOLVER_FILL_MODE_LOWER (where cuSOLVER takes it" in text
    doc = json.loads(hipport("rules", "lookup", "cublasFillMode_t", "--format", "json").stdout)
    assert doc["hipsolver"] == "hipsolverFillMode_t"


def test_lookup_unknown_suggests_and_exits_1() -> None:
    r = hipport("rules", "lookup", "cudaMallocc")
    assert r.returncode == 1
    assert b"no mapping known to hipport; similar: cudaMalloc" in r.stdout


def test_lookup_rocblas_target() -> None:
    doc = json.loads(hipport("rules", "lookup", "cublasSgemm", "--blas", "rocblas", "--format", "json").stdout)
    assert doc["hip"] == "rocblas_sgemm" and doc["family"] == "rocblas"


def test_lookup_a_header() -> None:
    out = hipport("rules", "lookup", "cuda_runtime.h").stdout.decode()
    assert "<cuda_runtime.h> -> <hip/hip_runtime.h>" in out


def test_lookup_shows_the_rocblas_spelling_of_a_datatype() -> None:
    text = hipport("rules", "lookup", "CUDA_R_16F", "--blas", "rocblas").stdout.decode()
    assert text.startswith("CUDA_R_16F -> HIP_R_16F\n")
    assert "in a rocblas file: rocblas_datatype_f16_r (unless it also uses" in text
    assert "in a rocblas file" not in hipport("rules", "lookup", "CUDA_R_16F").stdout.decode()
