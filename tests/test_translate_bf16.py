"""HP-bf16: float values stored into bfloat16 below a 6.2 floor become conversions, through
aliases defined in the file or in a header of its include closure (llm.c's floatX)."""

from __future__ import annotations

from pathlib import Path

from hipport import rules as rulesmod
from hipport import translate
from hipport.closure import Closure
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.source import SourceFile

KERNEL = b"""#include "common.h"
__global__ void k(const float* in, floatX* out) {
  float r = in[threadIdx.x];
  out[threadIdx.x] = r * 2.0f;
}
"""


def port(data: bytes, rocm: str, header: bytes | None, tmp: Path) -> bytes:
    found = {str(tmp / "common.h"): header} if header is not None else {}
    src = SourceFile(str(tmp / "k.cu"), data, closure=Closure(str(tmp / "k.cu"), found))
    ctx = translate.run(src, Config(wave64=False, rocm=rocm), rulesmod.load(rocm=rocm))
    kept, _ = resolve(ctx.edits)
    return apply_edits(data, kept)


def test_an_alias_from_a_header_is_bfloat16(tmp_path: Path) -> None:
    out = port(KERNEL, "5.2", b"#include <cuda_bf16.h>\ntypedef __nv_bfloat16 floatX;\n", tmp_path)
    assert b"out[threadIdx.x] = floatX(r * 2.0f);" in out


def test_nothing_without_the_header_or_from_6_2(tmp_path: Path) -> None:
    assert b"floatX(" not in port(KERNEL, "5.2", None, tmp_path)  # floatX could be anything
    header = b"#include <cuda_bf16.h>\nusing floatX = nv_bfloat16;\n"
    assert b"floatX(" in port(KERNEL, "5.2", header, tmp_path)
    assert b"floatX(" not in port(KERNEL, "6.2", header, tmp_path)  # __hip_bfloat16 converts itself


def test_strings_comments_and_bfloat16_values_are_left_alone(tmp_path: Path) -> None:
    src = (b"#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16* o, const __nv_bfloat16* i) {\n"
           b"  // o[0] = 1.0f;\n  o[1] = i[0];\n  __nv_bfloat16 t = i[1];\n  o[2] = t;\n}\n")
    assert port(src, "5.2", None, tmp_path).count(b"__nv_bfloat16(") == 0


def test_pointers_and_shadowed_names_are_not_bfloat16_stores(tmp_path: Path) -> None:
    """llm.c: `residual += C * idx` moves a floatX pointer; a local `x128 wte` shadows a floatX*
    parameter: neither is a store of a bfloat16 value."""
    src = (b"#include <cuda_bf16.h>\ntypedef __nv_bfloat16 floatX;\nstruct x128 { float v[4]; };\n"
           b"__device__ x128 load(const floatX* p);\n"
           b"__global__ void k(floatX* residual, const floatX* wte, int C) {\n"
           b"  residual += C * threadIdx.x;\n  x128 wte = load(residual);\n  floatX* p = residual;\n"
           b"  p = residual + 1;\n  *p = wte.v[0];\n}\n")
    out = port(src, "5.2", None, tmp_path)
    assert b"residual += C * threadIdx.x;" in out and b"x128 wte = load(residual);" in out
    assert b"p = residual + 1;" in out and b"*p = floatX(wte.v[0]);" in out
