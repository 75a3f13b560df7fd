"""The precompiled runtime header speeds the compile check and never changes its answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.validate.pch import eligible
from tests.conftest import needs_hipcc
from tests.validate.switches import outcomes, validate_both_ways


@pytest.mark.parametrize(("head", "ok"), [
    (b"", True),
    (b"// a comment\n/* and\n   another */\n#pragma once\n#include <stdio.h>\n", True),
    (b"#define HIP_ENABLE_WARP_SYNC_BUILTINS\n", False),  # changes what the header declares
    (b'#include "defs.h"\n', False),  # a project header may define anything
    (b"#ifdef _WIN32\n#include <windows.h>\n#endif\n", True),  # a system header in a conditional
    (b"#undef NDEBUG\n", False),  # no names known: no macro may come first
    (b"#pragma pack(push, 1)\n", False),  # changes the layout of HIP's structs
    (b"static const char* name = \"sample\";\n", False),  # code: it may need HIP's declarations
])
def test_eligible_only_when_nothing_before_the_runtime_include_can_change_it(head: bytes, ok: bool) -> None:
    unit = head + b"#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
    assert eligible(unit, ["-I/nowhere"]) is ok
    assert eligible(unit, ["-include", "forced.h"]) is False
    assert eligible(b"__global__ void k() {}\n", []) is False  # no runtime include of its own


def test_project_headers_before_the_runtime_include_are_followed(tmp_path: Path) -> None:
    (tmp_path / "guarded.h").write_text("#ifndef GUARDED_H\n#define GUARDED_H\n#include <stdio.h>\n"
                                        "#include <hip/hip_runtime.h>\n#endif\n")
    (tmp_path / "code.h").write_text("#pragma once\nstatic hipStream_t helper_stream;\n")  # needs HIP's
    (tmp_path / "own.h").write_text("#pragma once\nstatic const char* sample_name = \"hipMalloc\";\n")
    (tmp_path / "macro.h").write_text("#pragma once\n#define SAMPLE_SIZE 64\n#define hipMalloc my_malloc\n")
    names = frozenset({b"hipMalloc", b"hipStream_t"})
    unit = b"#include <hip/hip_runtime.h>\n"
    assert eligible(b'#include "guarded.h"\n__global__ void k() {}\n', [], tmp_path, lambda: names)
    assert not eligible(b'#include "code.h"\n' + unit, [], tmp_path, lambda: names)
    assert eligible(b'#include "own.h"\n' + unit, [], tmp_path, lambda: names)  # its own names only
    assert not eligible(b'#include "own.h"\n' + unit, [], tmp_path, None)  # names unknown
    assert not eligible(b'#include "macro.h"\n' + unit, [], tmp_path, lambda: names)  # hipMalloc: HIP's name
    assert eligible(b"#define SAMPLE_SIZE 64\n" + unit, [], tmp_path, lambda: names)
    assert eligible(b"#ifndef UNIT_H\n#define UNIT_H\n" + unit + b"#endif\n", [], tmp_path, lambda: names)
    assert not eligible(b"#ifdef USE_HIP\n" + unit + b"#endif\n", [], tmp_path, lambda: names)  # maybe not included
    assert not eligible(b'#include <code.h>\n' + unit, [f"-I{tmp_path}"], None, lambda: names)  # a -I folder's


def test_a_project_folder_with_its_own_runtime_header_is_not_eligible(tmp_path: Path) -> None:
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "hip_runtime.h").write_text("#pragma once\n")
    assert eligible(b"#include <hip/hip_runtime.h>\n", [f"-I{tmp_path}"]) is False


UNITS = {
    "good.cu": b"#include <stdio.h>\n#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = 1; }\n"
               b"int main() { float* d; cudaMalloc(&d, 64); k<<<1, 64>>>(d); printf(\"ok\\n\"); return 0; }\n",
    "bad.cu": b"#include <cuda_runtime.h>\n__global__ void k(float* a) { a[threadIdx.x] = undeclared_thing; }\n"
              b"__device__ int f() { return also_missing; }\n",
    "defines.cu": b"#define MY_SCALE 3\n#include <cuda_runtime.h>\n__global__ void k(int* a) { a[0] = MY_SCALE; }\n",
    "prefix.cu": b'#ifndef PREFIX_CU\n#define PREFIX_CU\nstatic const char* sample_name = "prefix";\n'
                 b"#include <cuda_runtime.h>\n__global__ void k(int* a) { a[0] = 1; }\n"
                 b"int main() { return sample_name[0] == 'p' ? 0 : 1; }\n#endif\n",
    "clash.cu": b"#define warpSize 32\n#include <cuda_runtime.h>\n__global__ void k(int* a) { a[0] = warpSize; }\n",
}


@pytest.mark.hipcc
@needs_hipcc
def test_the_answer_is_the_same_with_and_without_it(tmp_path: Path) -> None:
    with_pch, plain = validate_both_ways(tmp_path, UNITS, "HIPPORT_VALIDATE_PCH", "-D", "X=1")
    assert outcomes(plain) == \
        {"good.cu": "pass", "bad.cu": "fail", "defines.cu": "pass", "prefix.cu": "pass", "clash.cu": "fail"}
    key = [(e["file"], e["line"], e["message"]) for e in plain["errors"]]
    assert [(e["file"], e["line"], e["message"]) for e in with_pch["errors"]] == key
    assert {m for _, _, m in key} >= {"use of undeclared identifier 'undeclared_thing'",
                                      "use of undeclared identifier 'also_missing'"}


@pytest.mark.hipcc
@needs_hipcc
def test_the_precompiled_pair_is_built_once_per_language_flags(tmp_path: Path) -> None:
    """The speed-up is real only if the pair is built: a broken build would fall back silently."""
    from hipport.validate.pch import Precompiled
    from hipport.validate.toolchains import amd_toolchain

    tc = amd_toolchain()
    assert tc is not None and tc.ok
    pch = Precompiled(tc, tmp_path)
    pair = pch.pair("gfx90a", ["-I/nowhere", "-std=c++17"])
    assert pair is not None and all(p.is_file() and p.stat().st_size > 1_000_000 for p in pair)
    assert pch.pair("gfx90a", ["-I/elsewhere", "-std=c++17"]) == pair  # include folders do not matter
    other = pch.pair("gfx90a", ["-std=c++17", "-DX=1"])
    assert other is not None and other != pair
