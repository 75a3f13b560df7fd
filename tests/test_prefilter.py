"""The prefilter (hipport.prefilter) never changes output: every in-repo tree ported with it and
without it is byte-identical, findings and JSON included; each cue a pass reacts to sends its
file through the passes; a file with none is left as it is without them."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from hipport import prefilter
from hipport import rules as rulesmod
from hipport.config import Config
from hipport.model import FileResult
from hipport.passes import port_bytes
from hipport.source import SourceFile
from hipport.workspace import CUDA_HEADER, CUDA_SOURCE, HOST
from tests.conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "prefilter_identity.py"
# Every tree of C++ and CUDA in the repository.
TREES = [ROOT / t for t in ("examples", "fixtures", "tests/conformance", "tests/wave64", "benchmarks/stubs")]


def _script() -> ModuleType:
    if "prefilter_identity" not in sys.modules:
        spec = importlib.util.spec_from_file_location("prefilter_identity", SCRIPT)
        assert spec is not None and spec.loader is not None
        sys.modules["prefilter_identity"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["prefilter_identity"]


@pytest.mark.parametrize("overrides", [
    pytest.param({}, id="defaults"),
    pytest.param({"launch_syntax": "ggl", "rename_extensions": True, "apply_review_fixes": True},
                 id="ggl-launches-renamed-review-fixes"),
    pytest.param({"rocm": "6.4", "wave64": False, "include_layout": "hipify"}, id="newer-floor-no-wave64"),
])
def test_every_tree_in_the_repository_ports_the_same_with_and_without(overrides: dict[str, object]) -> None:
    got = _script().compare(TREES, replace(Config(), **overrides))  # type: ignore[arg-type]
    assert got.differences == []
    assert got.spared > 0  # the fixtures hold files no pass has work in


def _port(tmp: Path, name: str, text: str, config: Config, enabled: bool) -> FileResult:
    path = tmp / name
    path.write_text(text)
    role = CUDA_SOURCE if name.endswith(".cu") else CUDA_HEADER if name.endswith((".cuh", ".h")) else HOST
    was = prefilter.ENABLED
    prefilter.ENABLED = enabled
    try:
        return port_bytes(str(path), role, path.read_bytes(), config)
    finally:
        prefilter.ENABLED = was


def _reason(tmp: Path, name: str, config: Config) -> str | None:
    from hipport import inputs

    path = tmp / name
    inp = inputs.of_bytes(str(path), HOST, path.read_bytes())
    src = SourceFile(str(path), inp.data, closure=inp.closure)
    return prefilter.reason(src, config, rulesmod.for_config(config))


def _same(a: FileResult, b: FileResult) -> None:
    view = _script()._view
    assert view(replace(a, seconds=0.0)) == view(replace(b, seconds=0.0))


HEADER = {
    "check.h": "#pragma once\n#define CHECK(x) cudaDeviceFlushGPUDirectRDMAWrites(x)\n",  # HP001 in a macro body
    "types.h": "#pragma once\n#include <cuda_bf16.h>\ntypedef __nv_bfloat16 floatX;\n",
}

# (file name, text, headers beside it, config overrides): each needs the passes, which change or
# report something there; the id says which pass reacts and to what.
NEEDS = [
    pytest.param("a.cpp", "int f() { return cudaSuccess; }\n", (), {}, id="a table name"),
    pytest.param("a.cpp", "int f() { return cudaNoSuchThing(); }\n", (), {}, id="a CUDA-looking name"),
    pytest.param("a.cu", "#include <cuda_runtime.h>\nint x;\n", (), {}, id="a CUDA header"),
    pytest.param("a.cu", "#include \"k.cu\"\n", ("k.cu",), {"rename_extensions": True}, id="an included .cu file"),
    pytest.param("a.cpp", '#include <cinttypes>\nconst char* f = "%"PRIu64"\\n";\n', (), {},
                 id="a string glued to a macro"),
    pytest.param("a.cpp", "int f() { return 1; } // hipport: ignore HP001\n", (), {}, id="an unused suppression"),
    pytest.param("a.cpp", "int f( { return ]; }\n", (), {}, id="a parse error"),
    pytest.param("a.cu", "__device__ int f(int x) { return x; }\n", (), {}, id="device code"),
    pytest.param("a.cu", "void g() { f<< <1, 1>> >(); }\n", (), {}, id="a spaced launch"),
    pytest.param("a.cu", "int f(int x) { int y; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(y)); return y; }\n",
                 (), {}, id="inline PTX"),
    pytest.param("a.cu", "float f(float a, float b) { return __fadd_rd(a, b); }\n", (), {}, id="directed rounding"),
    pytest.param("a.cu", "#include \"check.h\"\nvoid f(int i) { CHECK(i); }\n", ("check.h",), {},
                 id="a use of a header's macro with an unported name"),
    pytest.param("a.cu", "#include \"types.h\"\nvoid f(floatX* p, float v) { *p = v; }\n", ("types.h",), {},
                 id="a bfloat16 alias from a header"),
    pytest.param("a.cpp", "#ifdef __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>\n#endif\nint x;\n", (), {},
                 id="code written for HIP"),
]


@pytest.mark.parametrize(("name", "text", "beside", "overrides"), NEEDS)
def test_a_file_with_a_cue_goes_through_the_passes(tmp_path: Path, name: str, text: str, beside: tuple[str, ...],
                                                    overrides: dict[str, object]) -> None:
    for other in beside:
        (tmp_path / other).write_text(HEADER.get(other, "int k;\n"))
    config = replace(Config(), **overrides)  # type: ignore[arg-type]
    (tmp_path / name).write_text(text)
    assert _reason(tmp_path, name, config) is not None
    _same(_port(tmp_path, name, text, config, False), _port(tmp_path, name, text, config, True))


NONE = [
    pytest.param("a.cpp", "#include <vector>\nint add(int a, int b) { return a + b; }\n", id="plain C++"),
    pytest.param("a.cu", 'const char* s = "hello"; // a comment naming nothing\n', id="strings and comments"),
    pytest.param("a.cu", '#include "missing.h"\nint x;\n', id="a header found nowhere (HP021 needs no tree)"),
    pytest.param("a.h", "#include \"check.h\"\nint f(int i) { return i; }\n", id="a header macro never used"),
]


@pytest.mark.parametrize(("name", "text"), NONE)
def test_a_file_with_no_cue_is_left_without_the_passes(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / "check.h").write_text(HEADER["check.h"])
    (tmp_path / name).write_text(text)
    config = Config()
    assert _reason(tmp_path, name, config) is None
    _same(_port(tmp_path, name, text, config, False), _port(tmp_path, name, text, config, True))
