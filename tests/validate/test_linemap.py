"""Ported position -> original position, from the port's edits or from a diff of the texts."""

from __future__ import annotations

from hipport.config import Config
from hipport.linemap import LineMap
from hipport.model import Edit
from hipport.passes import port_bytes

SRC = b"""#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }
int main() {
  float* d;
  cudaMalloc(&d, 64 * sizeof(float));
  k<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
"""


def test_edits_map_lines_and_columns_back() -> None:
    edits = [Edit(0, 0, "#include <hip/hip_runtime.h>\n", "ins"),  # a whole new first line
             Edit(SRC.index(b"cudaMalloc"), SRC.index(b"cudaMalloc") + 10, "hipMalloc", "ren")]
    m = LineMap(SRC, edits)
    assert m.ported.startswith(b"#include <hip/hip_runtime.h>\n#include <cstdio>")
    first = m.original_location(1, 1)
    assert (first.line, first.rewritten) == (1, True)  # the inserted line points at where it went
    assert m.original_location(2, 1).line == 1  # `#include <cstdio>`, shifted down by one
    loc = m.original_location(7, 13)  # `  hipMalloc(&d, ...`: column 13 is `&`
    assert (loc.line, loc.column) == (6, 14)  # `  cudaMalloc(&d, ...`: `&` is one column later
    assert m.original_location(8, 3).line == 7


def test_multi_line_replacement_keeps_line_numbers_when_counts_agree() -> None:
    orig = b"a\nb\nc\nd\n"
    m = LineMap(orig, [Edit(2, 5, "B\nC", "x")])  # "b\nc" -> "B\nC"
    assert [m.original_location(n).line for n in (1, 2, 3, 4)] == [1, 2, 3, 4]
    m2 = LineMap(orig, [Edit(2, 5, "B\nX\nY\nC", "x")])  # grows by two lines
    assert [m2.original_location(n).line for n in (1, 2, 3, 4, 5, 6)] == [1, 2, 2, 2, 2, 4]


def test_real_port_round_trips() -> None:
    r = port_bytes("p.cu", "cuda-source", SRC, Config(launch_syntax="ggl"))
    assert r.ported is not None
    m = LineMap(SRC, r.edits)
    assert m.ported == r.ported
    launch = next(i for i, line in enumerate(r.ported.split(b"\n"), 1) if b"hipLaunchKernelGGL" in line)
    assert m.original_location(launch).line == 7
    assert m.original_line_text(7).strip().startswith("k<<<1, 64>>>")


def test_from_texts_uses_a_line_diff() -> None:
    ported = b"#include <hip/hip_runtime.h>\n" + SRC.replace(b"cudaMalloc", b"hipMalloc")
    m = LineMap.from_texts(SRC, ported)
    assert m.original_location(2).line == 1
    assert m.original_location(7).line == 6
    assert m.original_location(10).line == 9
