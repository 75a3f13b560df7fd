"""tests/batching.py: which units can share a translation unit (the compiles are tested where
they are used: tests/test_nvidia_path.py, tests/test_compile_matrix.py)."""

from __future__ import annotations

from tests import batching


def test_a_unit_starts_with_its_system_includes_and_only_a_plain_body_shares_a_batch() -> None:
    text = "// k.cu\n#include <hip/hip_runtime.h>\n/* a\n   comment */\n#include <cstdio>  // printf\n" \
           "#include <hip/hip_runtime.h>\n#define N 4\n__global__ void k() {}\n"
    assert batching.split_head(text) == (("hip/hip_runtime.h", "cstdio"), 6)
    head = "#include <hip/hip_runtime.h>\n"
    for body in ('#include "k.h"\n', "#undef warpSize\n", "#pragma once\n", "namespace std {\n}\n"):
        assert batching.split_head(head + "int x;\n" + body) is None, body
    assert batching.split_head("#pragma once\n" + head) is None  # the head is the includes only
    assert batching.split_head("#pragma unroll\n") is None  # no system include: nothing to share
    assert batching.split_head(head + "#pragma unroll 4\n") == (("hip/hip_runtime.h",), 1)
