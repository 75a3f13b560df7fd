"""Host code that names a scalar type for a CUDA vector type (`#define uint4 uint32_t`, then a
header shared with device code): HIP's runtime header must come before the macro, which
would otherwise rewrite HIP's own declarations of that type (Rodinia's mummergpu)."""

from __future__ import annotations

import pytest

from hipport.config import Config
from hipport.passes import port_bytes
from hipport.workspace import HOST, role_of

RUNTIME = b"#include <hip/hip_runtime.h>\n"


def port(text: bytes) -> tuple[bytes, list[str]]:
    r = port_bytes("gold.cpp", HOST, text, Config())
    return r.ported or text, [f.rule for f in r.findings]


def test_the_file_is_ported_at_all() -> None:
    assert role_of("gold.cpp", b"#include <stdint.h>\n#define uint4 uint32_t\n") == HOST


def test_the_runtime_comes_before_the_stand_in() -> None:
    text = b"#include <stdint.h>\n#define int2 int32_t\n#include \"shared.h\"\nint2 f();\n"
    out, rules = port(text)
    assert out.index(RUNTIME) < out.index(b"#define int2")
    assert out.replace(RUNTIME, b"", 1) == text and "HP011" in rules


def test_a_runtime_include_already_before_it_is_enough() -> None:
    text = b"#include <cuda_runtime.h>\n#define int2 int32_t\n"
    out, rules = port(text)
    assert out == b"#include <hip/hip_runtime.h>\n#define int2 int32_t\n" and "HP011" not in rules


@pytest.mark.parametrize("text", [
    pytest.param(b"#define points2 4\n", id="not-a-vector-type"),
    pytest.param(b"// #define int2 int32_t\n", id="in-a-comment"),
])
def test_noop(text: bytes) -> None:
    out, rules = port(text)
    assert out == text and "HP011" not in rules


def test_a_function_like_macro_is_no_stand_in() -> None:
    assert "HP011" not in port(b"#define int2(x) pair(x)\n")[1]
    assert role_of("gold.cpp", b"#define int2(x) pair(x)\n") != HOST
