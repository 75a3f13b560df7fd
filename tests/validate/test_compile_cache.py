"""The compile check reuses an answer only while every file the unit read is unchanged, and
checks inline assembly with the backend (-fsyntax-only never reads it). Real hipcc."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import hipport, needs_hipcc

pytestmark = [pytest.mark.hipcc, needs_hipcc]

MAIN = b"""#include <cuda_runtime.h>
#include "defs.h"
__global__ void k(float* a) { a[threadIdx.x] *= SCALE; }
int main() { float* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); return 0; }
"""
NEEDS = b"""#include <cuda_runtime.h>
#include "later.h"
__global__ void k(float* a) { a[threadIdx.x] = LATER; }
"""


def validate(src: Path, cache: Path, *extra: object) -> dict:
    p = hipport("validate", src, "--offload-arch", "gfx90a", "--format", "json", "--cache-dir", cache, *extra)
    assert p.returncode in (0, 1), p.stderr.decode()
    return json.loads(p.stdout)


def answers(doc: dict) -> dict[str, tuple[str, bool]]:
    return {Path(u["file"]).name: (u["archs"]["gfx90a"]["status"], u["archs"]["gfx90a"]["cached"])
            for u in doc["details"]["compile"]}


def test_unchanged_units_are_answered_from_the_cache_and_a_changed_header_is_not(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.cu").write_bytes(MAIN)
    (src / "other.cu").write_bytes(MAIN.replace(b'#include "defs.h"\n', b"#define SCALE 2\n"))
    (src / "defs.h").write_text("#define SCALE 3\n")
    cache = tmp_path / "cache"
    first = validate(src, cache)
    assert answers(first) == {"main.cu": ("pass", False), "other.cu": ("pass", False)}
    cmd = first["details"]["compile"][0]["archs"]["gfx90a"]["command"]
    assert "-fsyntax-only" in cmd and "-c" not in cmd  # diagnostics only: no code generation
    again = validate(src, cache)
    assert answers(again) == {"main.cu": ("pass", True), "other.cu": ("pass", True)}
    assert again["summary"]["compile_cached"] == 2
    (src / "defs.h").write_text("#define SCALE undeclared_name\n")  # only main.cu reads it
    third = validate(src, cache)
    assert answers(third) == {"main.cu": ("fail", False), "other.cu": ("pass", True)}
    err = third["errors"][0]
    assert err["file"].endswith("main.cu") and "undeclared_name" in err["message"]
    # The reused failure is mapped onto this run's tree like a fresh one.
    fourth = validate(src, cache)
    assert answers(fourth) == {"main.cu": ("fail", True), "other.cu": ("pass", True)}
    assert fourth["errors"] == third["errors"]
    assert validate(src, cache, "--no-cache")["summary"].get("compile_cached", 0) == 0


def test_a_missing_header_that_appears_later_is_compiled_again(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "needs.cu").write_bytes(NEEDS)
    inc = tmp_path / "inc"
    inc.mkdir()
    cache = tmp_path / "cache"
    assert answers(validate(src, cache, "-I", inc)) == {"needs.cu": ("fail", False)}
    assert answers(validate(src, cache, "-I", inc)) == {"needs.cu": ("fail", True)}
    (inc / "later.h").write_text("#define LATER 1.0f\n")
    assert answers(validate(src, cache, "-I", inc)) == {"needs.cu": ("pass", False)}


def test_a_damaged_cache_entry_is_a_miss(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.cu").write_bytes(MAIN.replace(b'#include "defs.h"\n', b"#define SCALE 2\n"))
    cache = tmp_path / "cache"
    validate(src, cache)
    entries = list((cache / "compile").glob("*.json"))
    assert len(entries) == 1
    entries[0].write_text('{"format": 1, "deps": "not a dict"}')
    assert answers(validate(src, cache)) == {"main.cu": ("pass", False)}
    entries[0].write_bytes(b"\x00garbage")
    assert answers(validate(src, cache)) == {"main.cu": ("pass", False)}


def test_inline_assembly_is_checked_by_the_backend(tmp_path: Path) -> None:
    """PTX that the port left (here in a header of the tree) passes a syntax check; the full
    compile rejects it, so the unit fails as it would in the user's build."""
    src = tmp_path / "src"
    src.mkdir()
    # prmt has no HIP builtin of the same value, so the port leaves it (and reports it)
    (src / "rev.h").write_text(
        "__device__ inline unsigned rev(unsigned x) { unsigned r; "
        "asm(\"prmt.b32 %0, %1, 0, 0x0123;\" : \"=r\"(r) : \"r\"(x)); return r; }\n")
    (src / "k.cu").write_bytes(b'#include <cuda_runtime.h>\n#include "rev.h"\n'
                               b"__global__ void k(unsigned* a) { a[threadIdx.x] = rev(a[0]); }\n")
    doc = validate(src, tmp_path / "cache", "--no-cache")
    unit = doc["details"]["compile"][0]["archs"]["gfx90a"]
    assert unit["status"] == "fail", unit
    assert "-c" in unit["command"] and "-fsyntax-only" not in unit["command"]
    assert any("invalid instruction" in e["message"] for e in unit["errors"]), unit["errors"]
