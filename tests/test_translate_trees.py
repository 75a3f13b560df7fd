"""Porting behaviour that depends on the files around a file: a quoted include that the
project's own header shadows, and headers that only include CUDA's headers. Each ported tree
is compiled with hipcc."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import hipcc_compile, hipport, needs_hipcc


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    # The project's own "cuda.h" (a C helper), included under C linkage as old C code does.
    (src / "cuda.h").write_text("#include <stdio.h>\nint pick_device(int want);\n")
    (src / "device.cu").write_text(
        '#ifdef __cplusplus\nextern "C" {\n#endif\n'
        '#include "cuda.h"\n'
        "int pick_device(int want) {\n  cudaSetDevice(want);\n  return want;\n}\n"
        "#ifdef __cplusplus\n}\n#endif\n")
    # A plain C++ header that needs only CUDA's vector types.
    (src / "shapes.h").write_text("#include <vector_types.h>\nstruct Box { float3 lo, hi; };\n")
    (src / "use.cu").write_text('#include "shapes.h"\n__global__ void k(Box *b) { b->lo.x = 0; }\n')
    return src


def test_own_header_is_kept_and_runtime_comes_first(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    r = hipport("port", src, "-o", tmp_path / "out", "--no-cache")
    assert r.returncode == 0, r.stderr.decode()
    out = (tmp_path / "out" / "device.cu").read_text()
    assert '#include "cuda.h"' in out  # the project's file, not CUDA's
    assert out.startswith("#include <hip/hip_runtime.h>\n")  # outside extern "C"
    assert "hipSetDevice(want)" in out
    shapes = (tmp_path / "out" / "shapes.h").read_text()
    assert "#include <hip/hip_vector_types.h>\n" in shapes and "<vector_types.h>" not in shapes


@pytest.mark.hipcc
@needs_hipcc
@pytest.mark.parametrize("unit", ["device.cu", "use.cu"])
def test_ported_tree_compiles(tmp_path: Path, unit: str) -> None:
    src = _tree(tmp_path)
    assert hipport("port", src, "-o", tmp_path / "out", "--no-cache").returncode == 0
    r = hipcc_compile(tmp_path / "out" / unit)
    assert r.returncode == 0, r.stderr[-3000:]
