"""Function summaries of the included headers (hipport/wave64/facts/summaries.py, issue 31):
what a header's device function does with lanes comes from its code, never from its name."""

from __future__ import annotations

from pathlib import Path

from hipport import closure
from hipport.source import SourceFile
from hipport.wave64.facts import LANEHW, LANEN, MASK, Facts
from tests.wave64.helpers import config

KERNEL = '#include <hip/hip_runtime.h>\n#include "w.cuh"\n__global__ void k(int* out) { out[0] = __shfl(out[1], 0); }\n'


def facts(tmp: Path, header: str, kernel: str = KERNEL, strategy: str = "auto") -> Facts:
    (tmp / "w.cuh").write_text(header)
    path = tmp / "k.cu"
    path.write_text(kernel)
    data = path.read_bytes()
    return Facts(SourceFile(str(path), data, closure=closure.read(str(path), data)), config(strategy))


def test_lane_ids_by_their_source(tmp_path: Path) -> None:
    fx = facts(tmp_path, "__device__ int hw() { return __lane_id(); }\n"
                         "__device__ int ptx() { int r; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
                         "__device__ int lane_id() { return threadIdx.x / 4; }\n")
    s = fx.header_funcs()
    assert s["hw"].ret & LANEHW and s["hw"].lane_port == 64 and s["hw"].collective
    assert s["ptx"].ret & LANEN and s["ptx"].collective
    assert not s["lane_id"].ret and not s["lane_id"].collective  # named like one, but it is not


def test_ballot_bitop_and_reduction(tmp_path: Path) -> None:
    fx = facts(tmp_path, "__device__ unsigned vote(int p) { return (unsigned)__ballot(p); }\n"
                         "__device__ int count(unsigned x) { return __popc(x); }\n"
                         "__device__ unsigned low(unsigned x, int n) { return x & ((1u << n) - 1); }\n"
                         "__device__ float red(float v) { for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);"
                         " return v; }\n"
                         "__device__ float red2(float v) { return red(v); }\n")
    s = fx.header_funcs()
    assert s["vote"].ret & MASK and s["vote"].ret_bits == 32
    assert s["count"].bitop == "__popc" and s["low"].ret_arg == 0
    assert s["red"].reduce == 32 and s["red2"].reduce == 32 and s["red2"].collective


def test_a_narrower_template_width_is_no_32_lane_reduction(tmp_path: Path) -> None:
    fx = facts(tmp_path, "template <int W> __device__ float red(float v) {\n"
                         "  if (W >= 32) v += __shfl_xor(v, 16);\n  v += __shfl_xor(v, 8); return v; }\n"
                         "template <int W = 16> __device__ float red16(float v) { return red<W>(v); }\n"
                         "template <int W = 32> __device__ float red32(float v) { return red<W>(v); }\n"
                         "__device__ float fixed(float v) { return red<8>(v); }\n")
    s = fx.header_funcs()
    assert s["red"].reduce == 32 and s["red32"].reduce == 32
    assert not s["red16"].reduce and not s["fixed"].reduce


def test_the_file_own_definition_wins(tmp_path: Path) -> None:
    kernel = KERNEL + "__device__ int hw() { return 0; }\n"
    fx = facts(tmp_path, "__device__ int hw() { return __lane_id(); }\n", kernel)
    assert fx.header_func("hw") is None and "hw" in fx.header_funcs()


def test_strided_macro(tmp_path: Path) -> None:
    fx = facts(tmp_path, "#define COPY(L, N, D, S) \\\n  for (int i = (L); i < (N); i += 32 * 2) (D)[i] = (S)[i]\n"
                         "#define FILL(L, N, D) for (int i = (L); i < (N); i += 16) (D)[i] = 0\n")
    s = fx.header_funcs()
    assert s["COPY"].stride_arg == 0 and s["COPY"].stride == 32 and "FILL" not in s


def test_an_include_cycle_ends(tmp_path: Path) -> None:
    (tmp_path / "b.cuh").write_text('#include "w.cuh"\n__device__ int hw2() { return hw(); }\n')
    fx = facts(tmp_path, '#include "b.cuh"\n__device__ int hw() { return __lane_id(); }\n')
    assert fx.header_funcs()["hw"].ret & LANEHW


def test_a_wrapper_lane_gets_the_32_lane_form_under_logical32(tmp_path: Path) -> None:
    from hipport.wave64 import run
    from tests.wave64.helpers import apply
    (tmp_path / "w.cuh").write_text("__device__ int hw() { return __lane_id(); }\n")
    code = ('#include <hip/hip_runtime.h>\n#include "w.cuh"\n__global__ void k(float* out) {\n'
            '  int lane = hw();\n  if (lane == 0) out[threadIdx.x / 32] = __shfl_down(out[0], 1);\n}\n')
    path = tmp_path / "k.cu"
    path.write_text(code)
    src = SourceFile(str(path), code.encode(), closure=closure.read(str(path), code.encode()))
    got = [f for f in run(src, config("logical32")) if f.rule == "W004"]
    assert got and "(hw() & 31)" in apply(code, got)


def test_a_strided_macro_of_the_file_itself() -> None:
    from tests.wave64.helpers import findings
    code = ('#include <hip/hip_runtime.h>\n#define COPY(L, N, D, S) for (int i = (L); i < (N); i += 32) (D)[i] = (S)[i]\n'
            '__global__ void k(float* out, const float* in, int n) {\n  COPY(__lane_id(), n, out, in);\n'
            '  out[0] = __shfl(out[0], 0);\n}\n')
    got = [f for f in findings(code, "native", rule="W004") if f.span.line == 4]
    assert got and got[0].fix is None and "t.cu:2" in got[0].message


def test_a_thread_index_from_a_header_is_one_at_the_call(tmp_path: Path) -> None:
    from hipport.wave64 import run
    (tmp_path / "w.cuh").write_text("__device__ int gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }\n")
    code = ('#include <hip/hip_runtime.h>\n#include "w.cuh"\n__global__ void k(float* out) {\n'
            '  int lane = gtid() & 31;\n  out[lane] = __shfl_down(out[0], 1);\n}\n')
    path = tmp_path / "k.cu"
    path.write_text(code)
    src = SourceFile(str(path), code.encode(), closure=closure.read(str(path), code.encode()))
    assert [f.span.line for f in run(src, config("logical32")) if f.rule == "W004"] == [4]
