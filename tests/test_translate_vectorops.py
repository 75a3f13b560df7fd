"""A project's own vector-type operators that HIP defines too (translate/vectorops.py, issue 29).

HIP's vector types define `+=`, `-=`, `*=`, `/=` between two vectors in every release and `*`,
`/` from 5.6: a file's own definition makes each use ambiguous (cuda-samples' helper_math.h
stopped 12 units with HIP 6.4). Ported with the real tables at the 5.2 and 6.4 floors, then
compiled with HIP 5.2 on the host and with HIP 6.4 in its root: the 5.2 floor's output must
compile with both.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.config import Config
from hipport.passes import port_bytes
from tests import hip64
from tests.conftest import hipcc_compile, needs_hipcc

HEAD = b"#include <cuda_runtime.h>\n"
BINARY = b"#if !defined(__HIP_PLATFORM_AMD__) || (defined(HIP_VERSION) && HIP_VERSION < 50600000)\n"
COMPOUND = b"#if !defined(__HIP_PLATFORM_AMD__)\n"
END = b"#endif\n"


def port(body: bytes, rocm: str = "5.2") -> tuple[bytes, list[str]]:
    res = port_bytes("t.cu", "cuda-source", HEAD + body, Config(wave64=False, rocm=rocm))
    assert res.error is None, res.error
    out = res.ported if res.ported is not None else HEAD + body
    assert out.startswith(b"#include <hip/hip_runtime.h>\n")
    return out[len(b"#include <hip/hip_runtime.h>\n"):], [f.rule for f in res.findings]


F2_DIV = b"inline __host__ __device__ float2 operator/(float2 a, float2 b) {\n  return make_float2(a.x / b.x, a.y / b.y);\n}\n"
F2_DIVEQ = b"inline __host__ __device__ void operator/=(float2 &a, float2 b) {\n  a.x /= b.x;\n  a.y /= b.y;\n}\n"
F4_MUL_REF = (b"inline __host__ __device__ float4 operator*(const float4 &a, const float4 &b) {\n"
              b"  return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);\n}\n")
I2_MUL_BRACES = b"__device__ inline int2 operator*(int2 a, int2 b) { return {a.x * b.x, a.y * b.y}; }\n"
D3_MUL_PARENS = (b"inline __host__ __device__ double3 operator*(double3 p, double3 q)\n{\n"
                 b"    // componentwise\n    return make_double3((p.x * q.x), (p.y * q.y), (p.z * q.z));\n}\n")
F3_ADDEQ_RETURNS = (b"inline __host__ __device__ float3 &operator+=(float3 &a, const float3 &b) {\n"
                    b"  a.z += b.z; a.y += b.y; a.x += b.x;\n  return a;\n}\n")
C2_COMPLEX = (b"inline __host__ __device__ float2 operator*(float2 a, float2 b) {\n"
              b"  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);\n}\n")

NOOP = [
    pytest.param(b"inline __host__ __device__ float2 operator/(float2 a, float b) {\n"
                 b"  return make_float2(a.x / b, a.y / b);\n}\n", id="vector-scalar-hip-has-only-a-template"),
    pytest.param(b"inline __host__ __device__ float2 operator+(float2 a, float2 b) {\n"
                 b"  return make_float2(a.x + b.x, a.y + b.y);\n}\n", id="plus-is-a-template-in-hip"),
    pytest.param(b"inline __host__ __device__ void operator%=(int2 &a, int2 b) {\n  a.x %= b.x;\n  a.y %= b.y;\n}\n",
                 id="remainder-assign-is-a-member-template-in-hip"),
    pytest.param(b"inline __host__ __device__ float2 operator*(float2 a, int2 b) {\n"
                 b"  return make_float2(a.x * b.x, a.y * b.y);\n}\n", id="two-vector-types"),
    pytest.param(b"struct V { float2 v; __device__ V operator*(V o) const { return {v}; } };\n",
                 id="a-member-of-the-files-own-type"),
    pytest.param(b"inline __host__ __device__ void operator/=(float2 a, float2 b) {\n  a.x /= b.x;\n  a.y /= b.y;\n}\n",
                 id="compound-on-a-copy-is-not-hips-member"),
    pytest.param(b"#if !defined(__HIP_PLATFORM_AMD__)\n" + F2_DIV + END, id="already-kept-off-amd"),
    pytest.param(BINARY + F2_DIV + END, id="already-guarded-by-version"),
]


@pytest.mark.parametrize("body", NOOP)
def test_left_as_it_is(body: bytes) -> None:
    out, rules = port(body)
    assert out == body
    assert "HP019" not in rules and "HP011" not in rules


FIX = [
    pytest.param(F2_DIV, BINARY + F2_DIV + END, id="divide-kept-where-hip-is-older-than-5.6"),
    pytest.param(F2_DIVEQ, COMPOUND + F2_DIVEQ + END, id="compound-kept-off-amd"),
    pytest.param(F4_MUL_REF + I2_MUL_BRACES, BINARY + F4_MUL_REF + I2_MUL_BRACES + END,
                 id="a-run-of-definitions-shares-one-guard"),
    pytest.param(F2_DIV + F2_DIVEQ, BINARY + F2_DIV + END + COMPOUND + F2_DIVEQ + END,
                 id="each-kind-its-own-guard"),
    pytest.param(D3_MUL_PARENS, BINARY + D3_MUL_PARENS + END, id="parenthesised-components-and-a-comment"),
    pytest.param(F3_ADDEQ_RETURNS, COMPOUND + F3_ADDEQ_RETURNS + END,
                 id="components-in-any-order-and-a-returned-reference"),
]


@pytest.mark.parametrize(("before", "after"), FIX)
def test_guarded(before: bytes, after: bytes) -> None:
    for rocm in ("5.2", "6.4"):  # what HIP defines is a compile-time question, not a floor's
        out, rules = port(before, rocm)
        assert out == after
        assert "HP011" in rules and "HP019" not in rules
        again, _ = port(out, rocm)
        assert again == out  # a second port changes nothing


REPORT = [
    pytest.param(C2_COMPLEX, id="a-complex-product-is-not-hips"),
    pytest.param(b"inline __host__ __device__ void operator*=(float2 &a, float2 b) {\n"
                 b"  a.x *= b.x;\n  a.y *= b.y;\n  a = clamp(a);\n}\n", id="compound-doing-more"),
    pytest.param(b"inline __host__ __device__ float3 operator/(float3 a, float3 b) {\n"
                 b"  return make_float3(a.x / b.x, a.y / b.y, 1.0f);\n}\n", id="a-component-not-divided"),
]


@pytest.mark.parametrize("body", REPORT)
def test_not_componentwise_is_kept_and_reported(body: bytes) -> None:
    out, rules = port(body)
    assert out == body
    assert rules.count("HP019") == 1 and "HP011" not in rules


# ---------------------------------------------------------------------------- compiles
# A helper_math.h-like unit: every operator HIP defines for two vectors, and the forms it does
# not, each used.

UNIT = HEAD + F2_DIV + F2_DIVEQ + F4_MUL_REF + I2_MUL_BRACES + D3_MUL_PARENS + F3_ADDEQ_RETURNS + (
    b"inline __host__ __device__ float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }\n"
    b"inline __host__ __device__ void operator%=(int2 &a, int2 b) { a.x %= b.x; a.y %= b.y; }\n"
    b"__global__ void k(float2 *f, float4 *g, int2 *i, double3 *d, float3 *e) {\n"
    b"  f[0] = f[1] / f[2];\n  f[1] /= f[2];\n  f[2] = f[0] * 2.0f;\n"
    b"  g[0] = g[1] * g[2];\n  i[0] = i[1] * i[2];\n  i[1] %= i[2];\n"
    b"  d[0] = d[1] * d[2];\n  e[0] += e[1];\n}\n")


def ported(rocm: str) -> bytes:
    res = port_bytes("unit.cu", "cuda-source", UNIT, Config(wave64=False, rocm=rocm))
    assert res.ported is not None and not [f for f in res.findings if f.rule == "HP019"]
    return res.ported


def unguarded(text: bytes) -> bytes:
    return b"".join(line for line in text.splitlines(keepends=True) if line not in (BINARY, COMPOUND, END))


@needs_hipcc
@pytest.mark.hipcc
def test_the_52_floors_output_compiles_with_hip52(tmp_path: Path) -> None:
    path = tmp_path / "unit.hip"
    path.write_bytes(ported("5.2"))
    r = hipcc_compile(path)
    assert r.returncode == 0, r.stderr[-4000:]


@pytest.mark.rocm64
@pytest.mark.parametrize("rocm", ["5.2", "6.4"])
def test_the_output_compiles_with_hip64(rocm: str) -> None:
    r = hip64.compile64(ported(rocm))
    assert r.returncode == 0, hip64.errors(r)


@pytest.mark.rocm64
def test_without_the_guards_hip64_finds_them_ambiguous() -> None:
    """The compile above can fail: the same unit with the guards taken out does not compile."""
    r = hip64.compile64(unguarded(ported("6.4")))
    assert r.returncode != 0
    for op in ("'/'", "'/='", "'*'", "'+='"):
        assert f"use of overloaded operator {op} is ambiguous" in r.stderr, op


HEADER = b"#pragma once\n" + F2_DIV


def ported_header(rocm: str) -> bytes:
    res = port_bytes("helper_math.h", "cuda-header", HEADER, Config(wave64=False, rocm=rocm))
    assert res.ported is not None
    return res.ported


def test_a_header_includes_the_runtime_before_its_guard() -> None:
    """The guard tests HIP_VERSION, which the runtime header defines: the include the port adds
    comes before the guard, not inside it, whatever order the passes made them in."""
    out = ported_header("6.4")
    assert out == b"#pragma once\n#include <hip/hip_runtime.h>\n" + BINARY + F2_DIV + END


@pytest.mark.rocm64
def test_a_header_included_first_compiles_with_hip64() -> None:
    r = hip64.compile64(ported_header("6.4") + b"__global__ void k(float2* v) { v[0] = v[0] / v[1]; }\n")
    assert r.returncode == 0, hip64.errors(r)
