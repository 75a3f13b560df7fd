"""hipport.parseview: the project's declaration macros are blanked for tree-sitter (same offsets),
so functions after `BEGIN_NS` or declared by `DEVICE` parse and are analysed."""

from __future__ import annotations

from hipport import parseview
from hipport.closure import Closure
from hipport.config import Config
from hipport.source import SourceFile
from hipport.wave64 import run

HEADER = b"""#pragma once
#define BEGIN_NS namespace mgpu {
#define END_NS }
#define DEV __device__ __forceinline__
#define KERNEL __attribute__((visibility("hidden"))) __global__
#define HOST_DEVICE
#define WIDTH 32
"""
SOURCE = b"""#include "meta.h"
BEGIN_NS
struct scan_t {
  DEV int find(int tid) const {
    unsigned mask = __activemask();   // BEGIN_NS in a comment stays
    return __popc(mask);
  }
};
END_NS
KERNEL void k(int* out) { out[threadIdx.x] = __shfl_xor(out[0], 16); }
"""


def test_blanks_uses_not_definitions_comments_or_other_macros() -> None:
    v = parseview.view(SOURCE, [HEADER])
    assert v is not None and len(v) == len(SOURCE)
    assert b"BEGIN_NS" not in v.split(b"//")[0] and b"// BEGIN_NS in a comment" in v
    assert b"DEV int" not in v and b"KERNEL" not in v and b"#include" in v
    assert parseview.view(b"#define WIDTH 32\nint a = WIDTH;\n") is None  # a value: kept
    # a name defined both ways (another branch) is left alone, and so are CUDA's own keywords
    assert parseview.view(b"#define X __device__\n#define X 1\nX int f();\n") is None
    assert parseview.view(b"#define __device__\n__device__ int f();\n") is None


def test_functions_behind_header_macros_parse_and_are_analysed(tmp_path) -> None:
    meta = str(tmp_path / "meta.h")
    src = SourceFile(str(tmp_path / "k.cu"), SOURCE, closure=Closure(str(tmp_path / "k.cu"), {meta: HEADER}))
    assert not src.root.has_error
    rules = {(f.rule, f.span.line) for f in run(src, Config())}
    assert {("W002", 5), ("W010", 5), ("W003", 6), ("W006", 10)} <= rules, rules
    alone = SourceFile(str(tmp_path / "k.cu"), SOURCE)  # no header: the macros are unknown
    assert alone.root.has_error
