"""Which C++ files say CUDA (hipport.workspace.cuda_hint): a header's role comes from its text."""

from __future__ import annotations

import pytest

from hipport.workspace import cuda_hint


@pytest.mark.parametrize(("text", "hint"), [
    (b"cuInit(0);", True), (b"  cuMemAlloc(&p, n);", True), (b"(cuCtxCreate", True),
    (b"xcuInit(0);", False), (b"_cuInit(0);", False), (b"9cuInit", False),  # inside a word
    (b"cub::BlockReduce<int, 64>", True), (b"mycub::f()", False), (b"\ncub::", True),
    (b"cudaMalloc(&p, n);", True), (b"cuda_fp16", True), (b"cudaname", False),
    (b"__global__ void k() {}", True), (b"k<<<1, 64>>>();", True), (b"ncclAllReduce", True),
    (b'#include <cuda_runtime.h>', True), (b'#  include "cublas_v2.h"', True), (b"#include <vector_types.h>", True),
    (b"#define float4 my_float4 \n", True), (b'#include "kernels.cu"\n', True),
    (b"int main() { return 0; }\n", False), (b"#include <vector>\n", False), (b"", False),
])
def test_a_hint_is_a_cuda_name_or_header_as_a_whole_word(text: bytes, hint: bool) -> None:
    assert cuda_hint(text) is hint
