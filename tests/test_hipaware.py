"""Code already written for HIP (hipport/hipaware.py) is found and left as it is.

Which preprocessor branches count as HIP code is decided by what their condition is in a CUDA
build, where no HIP marker is defined; the golden cases hip_branches_left_alone and
interplay_hip_compat_header_left_alone check whole ports, and the test at the end compiles
the ported file's HIP branch itself.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hipport import hipaware
from hipport import rules as rulesmod
from hipport.config import Config
from hipport.passes import port_bytes
from tests.conftest import ROOT, hipcc_compile, needs_hipcc


def _left(text: str) -> list[int]:
    """1-based lines that hipaware leaves alone in `text`."""
    rules = rulesmod.load()
    data = text.encode()
    found = hipaware.find(data, rules.names, rules.namespaces, rules.hip_names)
    lines = []
    start = 0
    for n, line in enumerate(data.splitlines(keepends=True), 1):
        if line.strip() and found.covers(start, start + len(line.rstrip())):
            lines.append(n)
        start += len(line)
    return lines


@pytest.mark.parametrize("text, left", [
    pytest.param("#ifdef USE_ROCM\na();\n#else\nb();\n#endif\n", [2], id="ifdef-marker"),
    pytest.param("#ifndef __HIP_PLATFORM_AMD__\na();\n#else\nb();\n#endif\n", [4], id="ifndef-else"),
    pytest.param("#if defined(GGML_USE_HIP) && defined(X)\na();\n#endif\n", [2], id="and-with-unknown"),
    pytest.param("#if defined(GGML_USE_HIP) || defined(X)\na();\n#endif\n", [], id="or-may-hold-under-cuda"),
    pytest.param("#if !defined(GGML_USE_HIP) && X >= 2\na();\n#else\nb();\n#endif\n", [],
                 id="else-of-and-unknown"),
    pytest.param("#if X\na();\n#elif defined(AMD_MFMA_AVAILABLE)\nb();\n#elif Y\nc();\n#endif\n", [4],
                 id="elif-marker"),
    pytest.param("#if 0\na();\n#else\nb();\n#endif\n", [], id="if-0-is-not-hip"),
    pytest.param("#if defined(USE_ROCM) && 0\na();\n#endif\n", [], id="false-everywhere"),
    pytest.param("#if HIP_VERSION >= 60200000\na();\n#endif\n", [2], id="version-compare"),
    pytest.param("#if defined(__gfx90a__) \\\n    || defined(__gfx942__)\na();\n#endif\n", [3],
                 id="arch-continued"),
    pytest.param("#ifdef GL_AMD_performance_monitor\na();\n#endif\n#ifdef _M_AMD64\nb();\n#endif\n", [],
                 id="not-markers"),
    pytest.param("#ifdef USE_ROCM\n#if X\na();\n#endif\n#endif\nb();\n", [2, 3, 4], id="nested"),
    pytest.param("/*\n#ifdef USE_ROCM\n*/\na();\n#endif\n", [], id="directive-in-comment"),
    pytest.param("#define cudaMalloc hipMalloc\nnamespace cub = hipcub;\nnamespace cub = cub;\n"
                 "typedef hipStream_t cudaStream_t;\n#define MY_MALLOC cudaMalloc\n",
                 [1, 2, 4], id="compat-definitions"),
])
def test_what_is_left(text: str, left: list[int]) -> None:
    assert _left(text) == left


def test_no_marker_costs_nothing() -> None:
    rules = rulesmod.load()
    assert not hipaware.find(b"#ifdef __CUDACC__\nint x;\n#endif\n", rules.names, rules.namespaces,
                             rules.hip_names)


def test_compat_definitions_not_made_self_referential() -> None:
    src = b"#include <cuda_runtime.h>\n#define cudaStreamCreateWithFlags hipStreamCreateWithFlags\n" \
          b"namespace cub = hipcub;\nvoid f() { cudaDeviceSynchronize(); }\n"
    r = port_bytes("a.cu", "cuda-source", src, Config(wave64=False))
    out = r.ported or src
    assert b"#define cudaStreamCreateWithFlags hipStreamCreateWithFlags\n" in out
    assert b"namespace cub = hipcub;" in out
    assert b"hipDeviceSynchronize()" in out  # the rest is ported
    notes = [f for f in r.findings if f.rule == "HP017"]
    assert len(notes) == 1 and notes[0].span.line == 2


@pytest.mark.hipcc
@needs_hipcc
def test_hip_branch_of_ported_file_still_builds(tmp_path: Path) -> None:
    """The project's own HIP build (its macro defined) compiles the port, compat layer and all."""
    case = ROOT / "fixtures" / "translate" / "hip_branches_left_alone"
    src = (case / "input.cu").read_bytes()
    r = port_bytes("input.cu", "cuda-source", src, Config(wave64=False))
    assert r.ported is not None
    (tmp_path / "k.hip").write_bytes(r.ported)
    shutil.copy(case / "compat.h", tmp_path / "compat.h")
    for extra in ((), ("-DMYLIB_USE_HIP",)):
        p = hipcc_compile(tmp_path / "k.hip", extra=extra)
        assert p.returncode == 0, (extra, p.stderr[-2000:])
