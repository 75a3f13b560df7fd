"""Names and overloads that differ between HIP 5.2 and HIP 6.4, ported by ROCm floor (issue 29).

Each class is ported with the real tables (rules/api/*.toml) at the 5.2 and 6.4 floors; the
outputs compile with HIP 5.2 on the host (`hipcc`) and with HIP 6.4 in its root (`rocm64`), a
5.2 floor's output with both.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipport.config import Config
from hipport.passes import port_bytes
from hipport.rules import load
from tests import hip64
from tests.conftest import hipcc_compile, needs_hipcc


def port(src: bytes, rocm: str, **config: object) -> tuple[bytes, list[str]]:
    res = port_bytes("t.cu", "cuda-source", src, Config(wave64=False, rocm=rocm, **config))  # type: ignore[arg-type]
    assert res.error is None, res.error
    return (res.ported if res.ported is not None else src), [f.rule for f in res.findings]


def compile52(tmp_path: Path, text: bytes) -> None:
    path = tmp_path / "unit.hip"
    path.write_bytes(text)
    r = hipcc_compile(path)
    assert r.returncode == 0, r.stderr[-4000:]


def compile64(text: bytes) -> None:
    r = hip64.compile64(text)
    assert r.returncode == 0, hip64.errors(r)


# ---------------------------------------------------------------------------- bf16
# HIP 5.2 has only hip/hip_bfloat16.h's hip_bfloat16; hip/hip_bf16.h's __hip_bfloat16, which the
# CUDA-style intrinsics take, is a bare struct in 5.7-6.1 and a class like CUDA's from 6.2.

BF16_STORAGE = b"""#include <cuda_bf16.h>
__global__ void pack(const float* in, __nv_bfloat16* out, float* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = __nv_bfloat16(in[i]); back[i] = static_cast<float>(out[i]); }
}
"""

BF16_INTRINSICS = b"""#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
__device__ __nv_bfloat162 pair(floatX v, bool high) {
  return high ? __halves2bfloat162(__ushort_as_bfloat16(0), v) : __halves2bfloat162(v, __ushort_as_bfloat16(0));
}
__global__ void k(floatX* x, __nv_bfloat162* y) { y[0] = pair(x[0], x[1] > floatX(0.0f)); }
"""


@pytest.mark.parametrize(("rocm", "type_", "header"), [
    ("5.2", "hip_bfloat16", "hip/hip_bfloat16.h"),
    ("6.1", "hip_bfloat16", "hip/hip_bfloat16.h"),  # 5.7-6.1: __hip_bfloat16 has no conversions
    ("6.2", "__hip_bfloat16", "hip/hip_bf16.h"),
    ("6.4", "__hip_bfloat16", "hip/hip_bf16.h"),
])
def test_bf16_type_and_header_follow_the_floor(rocm: str, type_: str, header: str) -> None:
    out, _ = port(BF16_STORAGE, rocm)
    assert f"#include <{header}>".encode() in out
    assert f"{type_}* out".encode() in out and f"= {type_}(in[i])".encode() in out
    assert load(rocm=rocm).names["__nv_bfloat16"].hip == type_


def test_bf16_header_comes_with_the_type_at_the_floor() -> None:
    """A file that uses __nv_bfloat16 without including cuda_bf16.h (cuBLAS brings it in CUDA)
    gets the header of the type it is ported to."""
    src = b"#include <cuda_runtime.h>\ntypedef __nv_bfloat16 floatX;\n__global__ void k(floatX* p) { p[0] = floatX(1.0f); }\n"
    for rocm, header in (("5.2", b"hip/hip_bfloat16.h"), ("6.4", b"hip/hip_bf16.h")):
        out, _ = port(src, rocm)
        assert b"#include <" + header + b">" in out, rocm


def test_bf16_intrinsics_take_the_floors_type() -> None:
    out, rules = port(BF16_INTRINSICS, "6.4")
    assert b"typedef __hip_bfloat16 floatX;" in out and b"__hip_bfloat162 pair" in out
    assert "HP003" not in rules
    _, rules52 = port(BF16_INTRINSICS, "5.2")
    assert rules52.count("HP003") >= 3  # __nv_bfloat162, __halves2bfloat162, __ushort_as_bfloat16


@needs_hipcc
@pytest.mark.hipcc
def test_bf16_storage_52_compiles_with_hip52(tmp_path: Path) -> None:
    compile52(tmp_path, port(BF16_STORAGE, "5.2")[0])


@pytest.mark.rocm64
@pytest.mark.parametrize("rocm", ["5.2", "6.4"])
def test_bf16_storage_compiles_with_hip64(rocm: str) -> None:
    compile64(port(BF16_STORAGE, rocm)[0])


@pytest.mark.rocm64
def test_bf16_intrinsics_64_compile_with_hip64() -> None:
    compile64(port(BF16_INTRINSICS, "6.4")[0])


@pytest.mark.rocm64
def test_bf16_intrinsics_on_hip_bfloat16_do_not_compile_with_hip64() -> None:
    """What the 6.4 floor's spelling fixes: the intrinsics do not take the old class."""
    old = port(BF16_INTRINSICS, "6.4")[0].replace(b"__hip_bfloat16 floatX", b"hip_bfloat16 floatX")
    r = hip64.compile64(b"#include <hip/hip_bfloat16.h>\n" + old)
    assert r.returncode != 0 and "__halves2bfloat162" in r.stderr


# ---------------------------------------------------------------------------- surfaces
# From ROCm 5.3 HIP's surface functions take no boundary mode (5.2's took one and ignored it;
# surf1Dread keeps it): cuda-samples' simpleSurfaceWrite stopped at HIP 6.4 with no finding.

SURFACES = b"""#include <cuda_runtime.h>
__global__ void k(const float* in, cudaSurfaceObject_t s, int width) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  surf2Dwrite(in[y * width + x], s, x * 4, y, cudaBoundaryModeTrap);
  surf2Dwrite(in[0], s, x * 4, y);
  float v;
  surf2Dread(&v, s, x * 4, y, cudaBoundaryModeZero);
  surf1Dwrite(v, s, x * 4, cudaBoundaryModeClamp);
  surf1Dread(&v, s, x * 4, cudaBoundaryModeZero);
  surf3Dwrite(v, s, x * 4, y, 0, cudaBoundaryModeTrap);
  surf2DLayeredwrite(v, s, x * 4, y, 1, cudaBoundaryModeTrap);
}
"""
SURFACES_HIP = b"""#include <hip/hip_runtime.h>
__global__ void k(const float* in, hipSurfaceObject_t s, int width) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  surf2Dwrite(in[y * width + x], s, x * 4, y);
  surf2Dwrite(in[0], s, x * 4, y);
  float v;
  surf2Dread(&v, s, x * 4, y);
  surf1Dwrite(v, s, x * 4);
  surf1Dread(&v, s, x * 4, hipBoundaryModeZero);
  surf3Dwrite(v, s, x * 4, y, 0);
  surf2DLayeredwrite(v, s, x * 4, y, 1);
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.4"])
def test_surface_boundary_modes_are_dropped_at_every_floor(rocm: str) -> None:
    out, rules = port(SURFACES, rocm)
    assert out == SURFACES_HIP
    assert rules.count("HP011") == 2  # Zero and Clamp: not CUDA's default, the trap
    assert "HP006" not in rules
    assert port(out, rocm)[0] == out


def test_a_surface_read_returning_its_value_is_reported() -> None:
    src = b"#include <cuda_runtime.h>\n__global__ void k(cudaSurfaceObject_t s, unsigned* o) {\n" \
          b"  o[0] = surf2Dread<unsigned int>(s, 4, 0);\n}\n"
    out, rules = port(src, "6.4")
    assert b"surf2Dread<unsigned int>(s, 4, 0)" in out and rules.count("HP001") == 1


@needs_hipcc
@pytest.mark.hipcc
def test_surfaces_52_compile_with_hip52(tmp_path: Path) -> None:
    compile52(tmp_path, port(SURFACES, "5.2")[0])


@pytest.mark.rocm64
def test_surfaces_compile_with_hip64() -> None:
    compile64(port(SURFACES, "6.4")[0])
    r = hip64.compile64(SURFACES_HIP.replace(b"x * 4, y);\n  surf2Dwrite(in[0]", b"x * 4, y, hipBoundaryModeTrap);\n  surf2Dwrite(in[0]"))
    assert r.returncode != 0 and "no matching function for call to 'surf2Dwrite'" in r.stderr


# ---------------------------------------------------------------------------- *_sync
# HIP 6.2-6.4 declare the *_sync warp functions only with HIP_ENABLE_WARP_SYNC_BUILTINS (7.0 by
# default), each static-asserting a 64-bit mask. Below a 7.0 floor the wave64 pass writes the
# non-sync forms and hipport_* helpers: nothing it writes may clash with what HIP 6.4 declares,
# with the macro or without. At 7.0 the calls stay with 64-bit masks, which HIP 6.4's own
# static_assert checks (with the macro).

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "wave64"
SYNC_FIXTURES = sorted(d for d in FIXTURES.iterdir() if (d / "input.cu").is_file()
                       and re.search(r"_sync\s*\(|__activemask|__syncwarp", (d / "input.cu").read_text())
                       and '"rocm": "7' not in (d / "expected.json").read_text())
BATCH_HEAD = ("#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n"
              "#include <algorithm>\n#include <cmath>\n#include <cstdio>\n#include <cstdint>\n")


def batch(paths: list[Path]) -> str:
    """One translation unit: each file in its own namespace (its includes hoisted), its macros
    undefined after it."""
    parts = [BATCH_HEAD]
    for i, p in enumerate(paths):
        text = p.read_text()
        parts.append(f"namespace hipport_fixture_{i} {{\n")
        parts.append(re.sub(r"^\s*#\s*include\b[^\n]*$", "", text, flags=re.M))
        parts.append("}\n")
        parts += [f"#undef {m}\n" for m in sorted(set(re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M)))]
    return "".join(parts)


def test_the_sync_fixtures_are_there() -> None:
    names = {d.name for d in SYNC_FIXTURES}
    assert {"w001_sync_mask", "w002_ballot_u32", "w010_sync_builtins", "w017_votes"} <= names
    assert len(SYNC_FIXTURES) >= 12


@pytest.mark.rocm64
@pytest.mark.parametrize("define", [(), ("-DHIP_ENABLE_WARP_SYNC_BUILTINS",)], ids=["default", "warp-sync-builtins"])
def test_below_7_the_wave64_outputs_compile_with_hip64(define: tuple[str, ...]) -> None:
    files = [d / f"expected.{s}.hip" for d in SYNC_FIXTURES for s in ("logical32", "native")]
    r = hip64.compile64(batch(files), *define)
    assert r.returncode == 0, hip64.errors(r)


SYNC_70 = b"""#include <cuda_runtime.h>
__global__ void k(const int* in, int* out, unsigned* bits) {
  int v = in[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  unsigned b = __ballot_sync(0xffffffff, v > 0);
  int any = __any_sync(__activemask(), v > 3);
  out[threadIdx.x] = v + any + __shfl_sync(0xffffffff, v, 0);
  bits[threadIdx.x] = b;
}
"""


def port_wave(src: bytes, rocm: str) -> bytes:
    res = port_bytes("t.cu", "cuda-source", src, Config(rocm=rocm, wave_strategy="native"))
    assert res.ported is not None
    return res.ported


def test_at_7_the_sync_calls_stay_with_64_bit_masks() -> None:
    out = port_wave(SYNC_70, "7.0")
    assert out.count(b"_sync(~0ull,") == 3 and b"0xffffffff" not in out
    assert b"__shfl_xor(" in port_wave(SYNC_70, "6.4")  # below 7.0: the non-sync forms


@pytest.mark.rocm64
def test_at_7_the_masks_pass_hip64s_static_assert() -> None:
    define = "-DHIP_ENABLE_WARP_SYNC_BUILTINS"
    r = hip64.compile64(port_wave(SYNC_70, "7.0"), define)
    assert r.returncode == 0, hip64.errors(r)
    bad = hip64.compile64(port(SYNC_70, "7.0")[0], define)  # the translator alone keeps 0xffffffff
    assert bad.returncode != 0 and "The mask must be a 64-bit integer" in bad.stderr


def test_without_the_wave64_pass_sync_calls_below_7_are_reported() -> None:
    """The translator alone keeps the calls; below a 7.0 floor HIP 6.2-6.4 lack them by default."""
    for rocm in ("5.2", "6.4"):
        _, rules = port(SYNC_70, rocm)
        assert rules.count("HP003") == 5, rocm  # 3 shuffles/ballot, __any_sync, __activemask
    assert "HP003" not in port(SYNC_70, "7.0")[1]


# ---------------------------------------------------------------------------- 16-bit atomicAdd
# CUDA's atomicAdd takes __half, __half2, __nv_bfloat16 and __nv_bfloat162 pointers; HIP's takes
# none of them (llm.c's layernorm_backward stopped at HIP 6.4 with no finding): reported.

ATOMICS = b"""#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__device__ void add_bf16(__nv_bfloat16* addr, __nv_bfloat16 val) {
  __nv_bfloat162* word = reinterpret_cast<__nv_bfloat162*>(reinterpret_cast<uintptr_t>(addr) & ~uintptr_t(3));
  atomicAdd(word, __halves2bfloat162(val, __ushort_as_bfloat16(0)));
}
__global__ void k(__half* h, float* f, half2* h2, int* n) {
  atomicAdd(&h[threadIdx.x], __float2half(1.0f));
  atomicAdd(h2 + 1, __float2half2_rn(1.0f));
  atomicAdd(f, 1.0f);
  atomicAdd(&n[1], 1);
}
__device__ __half total[4];
__global__ void g(float* h, const __half* in) {
  atomicAdd(h, 1.0f);
  atomicAdd(&total[0], in[0]);
}
"""


def test_16_bit_float_atomic_adds_are_reported() -> None:
    res = port_bytes("t.cu", "cuda-source", ATOMICS, Config(wave64=False, rocm="6.4"))
    lines = sorted(f.span.line for f in res.findings if f.rule == "HP001" and f.subject == "atomicAdd")
    assert lines == [6, 9, 10, 17]  # not the float and int ones, nor the float `h` of g


@pytest.mark.rocm64
def test_hip64_has_no_16_bit_atomic_add_but_the_unsafe_one() -> None:
    """What the finding says, checked against HIP 6.4."""
    head = "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n#include <hip/hip_bf16.h>\n"
    for t in ("__half", "__half2", "__hip_bfloat16", "__hip_bfloat162"):
        r = hip64.compile64(f"{head}__global__ void k({t}* p, {t} v) {{ atomicAdd(p, v); }}\n")
        assert r.returncode != 0 and "no matching function for call to 'atomicAdd'" in r.stderr, t
    compile64(f"{head}__global__ void k(__half2* p, __half2 v, __hip_bfloat162* q, __hip_bfloat162 w) "
              "{ unsafeAtomicAdd(p, v); unsafeAtomicAdd(q, w); }\n".encode())


# ---------------------------------------------------------------------------- GL interop
# HIP declares GL interop in hip_runtime_api.h up to 5.7 and only in hip/hip_gl_interop.h (5.6+)
# from 6.0 (cuda-samples' particles): below 5.6 the port includes the newer header too where
# the HIP it is compiled with has it.

GL = b"""#include <cuda_gl_interop.h>
void attach(GLuint buffer, cudaGraphicsResource** res) {
  cudaGraphicsGLRegisterBuffer(res, buffer, cudaGraphicsMapFlagsNone);
}
"""
GL_BELOW_56 = (b"#include <hip/hip_runtime_api.h>\n#if __has_include(<hip/hip_gl_interop.h>)\n"
               b"#include <hip/hip_gl_interop.h>\n#endif\n")


GL_FIRST = b"""#include <cstdio>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>
void attach(GLuint buffer, cudaGraphicsResource** res) {
  cudaGraphicsGLRegisterBuffer(res, buffer, cudaGraphicsMapFlagsNone);
}
"""


def test_gl_interop_header_follows_the_floor() -> None:
    low, _ = port(GL, "5.2")
    assert low.startswith(GL_BELOW_56) and port(low, "5.2")[0] == low
    high, _ = port(GL, "6.4")
    assert b"#include <hip/hip_gl_interop.h>\n" in high and b"__has_include" not in high


@needs_hipcc
@pytest.mark.hipcc
def test_gl_interop_52_compiles_with_hip52(tmp_path: Path) -> None:
    compile52(tmp_path, port(GL, "5.2")[0])


@pytest.mark.rocm64
@pytest.mark.parametrize("rocm", ["5.2", "6.4"])
def test_gl_interop_compiles_with_hip64(rocm: str) -> None:
    compile64(port(GL, rocm)[0])
    compile64(port(GL_FIRST, rocm)[0])  # before the runtime (cuda-samples' particles)
    r = hip64.compile64(port(GL, "5.2")[0].replace(GL_BELOW_56, b"#include <hip/hip_runtime_api.h>\n"))
    assert r.returncode != 0 and "hipGraphicsGLRegisterBuffer" in r.stderr  # what the guard adds


# ---------------------------------------------------------------------------- cooperative groups
# coalesced_group::ballot and the other votes: not in HIP 5.2, in 6.2-6.4 only with
# HIP_ENABLE_WARP_SYNC_BUILTINS (cuda-samples' cdpAdvancedQuicksort); W009 reports them below 7.0.

@pytest.mark.rocm64
def test_coalesced_group_votes_need_the_warp_sync_macro_in_hip64() -> None:
    unit = ("#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n"
            "namespace cg = cooperative_groups;\n__global__ void k(const int* in, unsigned long long* out) {\n"
            "  cg::coalesced_group g = cg::coalesced_threads();\n  out[0] = g.ballot(in[0] > 0) + g.any(in[1]);\n}\n")
    r = hip64.compile64(unit)
    assert r.returncode != 0 and "no member named 'ballot'" in r.stderr
    compile64(unit.encode().replace(b"#include <hip/hip_runtime.h>",
                                    b"#define HIP_ENABLE_WARP_SYNC_BUILTINS\n#include <hip/hip_runtime.h>"))


# ---------------------------------------------------------------------------- cooperative-group members
# CUDA 12's num_threads() / num_blocks() / block_rank() / dim_threads(): neither HIP 5.2 nor 6.4
# has them. Where the group's type is known they are written for it (the compile matrix
# compiles fixtures/libraries/cooperative_groups/new_member_spellings in all three columns);
# elsewhere they stay and are reported.

CG_MEMBERS = b"""#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct Pool { unsigned num_threads() const { return 4; } };
template <class G> __device__ unsigned long long count(const G& g) { return g.num_threads(); }
__global__ void k(unsigned long long* out, Pool p) {
  auto grid = cg::this_grid();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  out[0] = grid.num_threads() + grid.num_blocks() + tile.num_threads() + p.num_threads();
  out[1] = count(tile);
}
"""


def test_group_members_are_written_for_the_groups_type() -> None:
    out, rules = port(CG_MEMBERS, "5.2")
    assert b"((unsigned long long)grid.size()) + ((unsigned long long)gridDim.x * gridDim.y * gridDim.z)" \
           b" + tile.size() + p.num_threads()" in out
    assert b"return g.num_threads();" in out  # a template's group: unknown, so kept and reported
    assert rules.count("HP011") == 3 and "HP001" not in rules  # num_blocks was HP001


def test_group_members_hip_has_stay_at_its_floor() -> None:
    out, _ = port(CG_MEMBERS, "7.1")
    assert b"grid.num_threads() + ((unsigned long long)gridDim.x * gridDim.y * gridDim.z) + tile.num_threads()" in out


# ---------------------------------------------------------------------------- rocThrust values
# rocThrust 6.4's reduce, scans, inner_product and sequence deduce their value type from the
# argument: a thrust::device_reference (`v.front()`, `v[0]`) fails there, where CUDA's Thrust
# converts it. The port casts it to the vector's element type.

THRUST_VALUES = b"""#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/inner_product.h>
#include <thrust/scan.h>
#include <thrust/count.h>
#include <vector>
float f(thrust::device_vector<float>& v, const thrust::device_vector<float> &w, std::vector<float> h) {
  float a = thrust::reduce(thrust::device, v.begin(), v.end(), v.front());
  float b = thrust::inner_product(v.begin(), v.end(), w.begin(), w[0]);
  thrust::exclusive_scan(v.begin(), v.end(), v.begin(), h[0]);
  auto n = thrust::count(v.begin(), v.end(), v.back());
  return a + b + thrust::reduce(v.begin(), v.end(), static_cast<float>(v.back())) + n;
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.4"])
def test_thrust_values_from_device_vectors_are_cast(rocm: str) -> None:
    out, _ = port(THRUST_VALUES, rocm)
    assert b"v.end(), static_cast<float>(v.front()));" in out
    assert b"w.begin(), static_cast<float>(w[0]));" in out
    assert b"v.begin(), h[0]);" in out  # a std::vector's element is a float already
    assert b"thrust::count(v.begin(), v.end(), v.back());" in out  # count takes a reference
    assert b"static_cast<float>(v.back()))" in out and b"static_cast<float>(static_cast" not in out
    assert port(out, rocm)[0] == out


@pytest.mark.rocm64
def test_thrust_values_compile_with_hip64() -> None:
    compile64(port(THRUST_VALUES, "5.2")[0])


# ---------------------------------------------------------------------------- hipBLAS Ex functions
# Below ROCm 6.0 hipBLAS's Ex functions take hipblasDatatype_t (HIPBLAS_R_*), in 6.x too without
# HIPBLAS_V2; the port passes hipDataType (HIP_R_*), which their _v2 forms (6.0+) take. Below a 6.0
# floor the call is reported (llm.c's attention_forward.cu was an unflagged failure with HIP 6.4).

GEMM_EX = b"""#include <cublas_v2.h>
void f(cublasHandle_t h, const float* a, const float* b, float* c, const float* one) {
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, one, a, CUDA_R_32F, 4, b, CUDA_R_32F, 4, one, c,
               CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
"""


def test_hipblas_ex_functions_need_a_6_0_floor() -> None:
    res = port_bytes("t.cu", "cuda-source", GEMM_EX, Config(wave64=False, rocm="5.2"))
    assert any(f.rule == "HP003" and "hipblasGemmEx needs ROCm 6.0" in f.message for f in res.findings)
    out, rules = port(GEMM_EX, "6.0")
    assert b"hipblasGemmEx_v2(" in out and "HP003" not in rules


@pytest.mark.rocm64
def test_hipblas_ex_functions_at_6_4_compile_with_hip64() -> None:
    compile64(port(GEMM_EX, "6.4")[0])
