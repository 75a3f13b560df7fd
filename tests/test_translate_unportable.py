"""What HIP cannot express is reported at its site, never left silent."""

from __future__ import annotations

from hipport.config import Config
from hipport.passes import port_bytes
from hipport.workspace import CUDA_HEADER, role_of

CDP = b"""#include <cuda_runtime.h>
__global__ void child(int *x) { x[0] = 1; }
__global__ void parent(int *x) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  child<<<1, 1, 0, s>>>(x);
}
void host(int *x) { parent<<<1, 1>>>(x); cudaDeviceSynchronize(); }
"""


def _lines(data: bytes, rule: str) -> list[int]:
    res = port_bytes("t.cu", "cuda-source", data, Config(wave64=False))
    return sorted(f.span.line for f in res.findings if f.rule == rule)


def test_dynamic_parallelism_is_reported_in_device_code_only() -> None:
    assert _lines(CDP, "HP001") == [5, 6]  # the host launch and sync on line 8 are fine


def test_a_version_test_past_the_level_is_reported() -> None:
    src = b"#include <cuda_runtime.h>\n#if CUDART_VERSION >= 12000\nint a;\n#endif\n#if CUDART_VERSION >= 9000\nint b;\n#endif\n"
    res = port_bytes("t.cu", "cuda-source", src, Config(wave64=False))
    assert [f.span.line for f in res.findings if f.rule == "HP001"] == [2]
    assert b"#if defined(HIP_VERSION)\nint b;" in (res.ported or b"")


def test_unsupported_headers_are_reported() -> None:
    src = b"#include <mma.h>\n#include <cuda/pipeline>\n#include <cuda_runtime.h>\n"
    assert _lines(src, "HP008") == [1, 2]
    # NVIDIA libraries and SoC SDKs no ROCm library stands in for
    src = b"#include <npp.h>\n#include <nvjpeg.h>\n#include <cuda_runtime.h>\n#include <nvvm.h>\n#include <cudla.h>\n"
    assert _lines(src, "HP008") == [1, 2, 4, 5]
    # a C++ header that includes only NPP is a CUDA file to port (and report), not plain C++
    assert role_of("images.h", b"#pragma once\n#include <npp.h>\nclass Image {};\n") == CUDA_HEADER


def test_an_occupancy_size_callback_is_left_and_reported() -> None:
    src = (b"#include <cuda.h>\nint f(CUfunction k, CUoccupancyB2DSize cb) { int g, b;\n"
           b"  cuOccupancyMaxPotentialBlockSize(&g, &b, k, cb, 0, 0);\n"
           b"  cuOccupancyMaxPotentialBlockSize(&g, &b, k, nullptr, 0, 0); return b; }\n")
    assert _lines(src, "HP001") == [2, 3]  # the callback's type, then the call that passes one
