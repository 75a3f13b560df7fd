"""Handles that are integers in CUDA and pointers in HIP (CUdeviceptr, texture and surface
objects): integer uses are reported where the tree declares the value with the CUDA type, and
rewritten only in the forms the golden fixtures compile (handle_integer_fixes,
texture_object_integer_ops, cudeviceptr_arithmetic). A file declaring a CUDA type itself keeps
its declaration (HP018; declares_cuda_type)."""

from __future__ import annotations

import pytest

from hipport.config import Config
from hipport.passes import port_bytes
from hipport.workspace import CUDA_SOURCE

HEAD = b"#include <cuda.h>\n#include <cuda_runtime.h>\n"


def port(body: bytes, name: str = "k.cu") -> tuple[bytes, list[tuple[str, int]]]:
    r = port_bytes(name, CUDA_SOURCE, HEAD + body, Config(wave64=False))
    out = (r.ported or HEAD + body).split(b"\n", 2)[-1]
    return out, [(f.rule, f.span.line - 2) for f in r.findings]


@pytest.mark.parametrize("body", [
    pytest.param(b"bool f(CUdeviceptr p, CUdeviceptr q) { return p < q; }\n", id="two-pointers-compare"),
    pytest.param(b"bool f(cudaSurfaceObject_t s) { return s == 0 || s != 0x0; }\n", id="null-compare"),
    pytest.param(b"size_t f(CUdeviceptr p) { return (size_t)p; }\n", id="cast-to-64-bits-compiles"),
    pytest.param(b"void f(CUdeviceptr p);\nint g(int p) { return p + 1; }\n", id="same-name-elsewhere"),
    pytest.param(b"struct A { CUdeviceptr ptr; };\nstruct B { int ptr; };\nint g(B b) { return b.ptr + 1; }\n",
                 id="same-member-name-of-an-int"),
    pytest.param(b"CUdeviceptr *g(CUdeviceptr *pp) { return pp + 1; }\n", id="pointer-to-handles"),
    pytest.param(b"void f() { cudaSurfaceObject_t s[2] = {0}; (void)s; }\n", id="zero-initialised-array"),
])
def test_noop(body: bytes) -> None:
    _, found = port(body)
    assert not [r for r, _ in found if r in ("HP001", "HP011")], found


@pytest.mark.parametrize(("body", "line"), [
    pytest.param(b"void f(CUdeviceptr p) { p += 4; }\n", 1, id="compound-assignment"),
    pytest.param(b"bool f(CUdeviceptr *p) { return *p % 256 == 0; }\n", 1, id="deref-modulo"),
    pytest.param(b"bool f(CUtexObject t) { return t > 7; }\n", 1, id="ordered-with-integer"),
    pytest.param(b"bool f(cudaSurfaceObject_t s) { return s == 1; }\n", 1, id="equal-to-nonzero"),
    pytest.param(b"void f() {\n  cudaTextureObject_t t = 5;\n}\n", 2, id="initialised-with-nonzero"),
    pytest.param(b"struct R { CUdeviceptr base; };\nbool f(R r) { return r.base & 1; }\n", 2, id="member"),
])
def test_reported(body: bytes, line: int) -> None:
    out, found = port(body)
    assert ("HP001", line) in found
    assert b"(uintptr_t)" not in out and b"char *" not in out  # reported, not rewritten


@pytest.mark.parametrize(("body", "want"), [
    pytest.param(b"unsigned f(CUtexObject t) { return (unsigned)t; }\n",
                 b"(unsigned)(uintptr_t)(t)", id="narrow-cast"),
    pytest.param(b"int f(cudaTextureObject_t t) { return static_cast<int>(t); }\n",
                 b"static_cast<int>((uintptr_t)(t))", id="static-cast"),
    pytest.param(b"uint f(cudaTextureObject_t t) { return (uint)(t >> 32); }\n",
                 b"(uint)((uintptr_t)(t) >> 32)", id="shift-under-cast"),
    pytest.param(b"cudaTextureObject_t f(uint2 v) { return (cudaTextureObject_t)v.x | 1; }\n",
                 b"return (hipTextureObject_t)((uintptr_t)("
                 b"(hipTextureObject_t)v.x) | 1);", id="returned-as-handle"),
    pytest.param(b"void f(CUdeviceptr *d, size_t n) { cuMemMap(*d + n, n, 0, 0, 0); }\n",
                 b"hipMemMap((hipDeviceptr_t)((char *)*d + n), n", id="deref-sum-in-bytes"),
])
def test_rewritten(body: bytes, want: bytes) -> None:
    out, found = port(body)
    assert want in out, out
    assert "HP011" in [r for r, _ in found] and "HP001" not in [r for r, _ in found]


def test_c_gets_no_reinterpret_cast() -> None:
    out, found = port(b"unsigned f(CUtexObject t) { return (unsigned)t; }\n", "k.c")
    assert b"reinterpret_cast" not in out and ("HP001", 1) in found


def test_own_declarations_keep_cuda_names() -> None:
    body = (b"typedef unsigned long long CUdeviceptr;\n"
            b"typedef enum CUctx_flags_enum { CU_CTX_SCHED_AUTO = 0 } CUctx_flags;\n"
            b"typedef CUresult tcuInit(unsigned int);\n"
            b"extern tcuInit *cuInit;\n"
            b"void f(CUdeviceptr p, CUctx_flags g) { (void)p; (void)g; cuInit(CU_CTX_SCHED_AUTO); }\n")
    out, found = port(body, "dyn.h")
    # kept out of HIP's NVIDIA build, whose headers bring CUDA's own declarations
    guard = b"#ifndef __HIP_PLATFORM_NVIDIA__  // hipport: CUDA's headers declare it there"
    assert out.splitlines()[:9] == [
        guard,
        b"typedef unsigned long long CUdeviceptr;",
        b"typedef enum CUctx_flags_enum { CU_CTX_SCHED_AUTO = 0 } CUctx_flags;",
        b"#endif",
        b"typedef hipError_t tcuInit(unsigned int);",
        guard,
        b"extern tcuInit *cuInit;",
        b"#endif",
        b"void f(hipDeviceptr_t p, CUctx_flags g) { (void)p; (void)g; hipInit(hipDeviceScheduleAuto); }"]
    assert b"hipDeviceptr_t p" in out and b"hipInit(hipDeviceScheduleAuto)" in out
    assert sorted(line for r, line in found if r == "HP018") == [1, 2, 4]
