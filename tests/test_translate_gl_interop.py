"""CUDA's OpenGL interop header is ported to HIP's, and the finding says what else the program
needs: OpenGL's own packages (Rodinia's hybridsort fails on GL/glew.h where they are missing)."""

from __future__ import annotations

from hipport.config import Config
from hipport.passes import port_bytes
from hipport.workspace import CUDA_SOURCE


def test_gl_interop_says_opengl_is_needed() -> None:
    text = b"#include <GL/glew.h>\n#include <cuda_gl_interop.h>\n__global__ void k() {}\n"
    r = port_bytes("sort.cu", CUDA_SOURCE, text, Config())
    assert r.ported is not None and b"#include <hip/hip_runtime_api.h>\n" in r.ported
    said = [f.message for f in r.findings if f.rule == "HP014"]
    assert len(said) == 1 and "OpenGL" in said[0] and "libglew-dev" in said[0]
    assert [f.span.line for f in r.findings if f.rule == "HP014"] == [2]


def test_no_interop_no_finding() -> None:
    r = port_bytes("k.cu", CUDA_SOURCE, b"#include <cuda_runtime.h>\n__global__ void k() {}\n", Config())
    assert not [f for f in r.findings if f.rule == "HP014"]
