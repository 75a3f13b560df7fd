"""Compiler output -> diagnostics -> category and explaining rule."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hipport.floor import floor
from hipport.validate import errors_map as em

CLANG = """\
p.hip:6:8: error: use of undeclared identifier '__shfl_down_sync'; did you mean '__shfl_down'?
  v += __shfl_down_sync(0xffffffff, v, 16);
       ^~~~~~~~~~~~~~~~
/usr/include/hip/amd_detail/amd_warp_functions.h:248:14: note: '__shfl_down' declared here
p.hip:2:10: fatal error: 'cub/cub.cuh' file not found
p.hip:16:14: error: use of undeclared identifier 'cudaDeviceGetNvSciSyncAttributes'
p.hip:20:3: warning: unused variable 'x' [-Wunused-variable]
t.h:1:34: error: static assertion failed due to requirement 'sizeof(unsigned int) == 8': mask
t.cpp:2:14: note: in instantiation of function template specialization 'f<unsigned int>' requested here
3 errors generated when compiling for gfx90a.
"""

GCC = """\
t.cpp: In instantiation of 'void f(T) [with T = unsigned int]':
t.cpp:2:15:   required from here
emu/device.h:1:58: error: static assertion failed: hipemu: the mask of a *_sync function must be a 64-bit integer
x.cu: Assembler messages:
x.cu:11: Error: no such instruction: `mov.u32 %r14d,%laneid'
/usr/bin/ld: cannot find -lcublas: No such file or directory
collect2: error: ld returned 1 exit status
"""

NVCC = """\
/k/hip/nvidia_detail/nvidia_hip_runtime_api.h(1268): error: class "cudaDeviceProp" has no member "clockRate"
"""


def test_parse_clang() -> None:
    ds = em.parse(CLANG)
    assert [(d.ported_file, d.ported_line, d.ported_column) for d in ds] == [
        ("p.hip", 6, 8), ("p.hip", 2, 10), ("p.hip", 16, 14), ("t.h", 1, 34)]
    assert ds[0].notes and "declared here" in ds[0].notes[0]
    assert ds[1].severity == "fatal error"
    assert ds[3].chain == [("t.cpp", 2, 14)]  # clang names the instantiation after the error
    assert len(em.parse(CLANG, keep_warnings=True)) == 5


def test_parse_gcc_chain_assembler_and_linker() -> None:
    ds = em.parse(GCC)
    assert ds[0].chain == [("t.cpp", 2, 15)]  # gcc names it before the error
    assert (ds[1].ported_file, ds[1].ported_line) == ("x.cu", 11)
    assert "laneid" in ds[1].message
    assert "cannot find -lcublas" in ds[2].message
    assert len(ds) == 3  # "ld returned 1 exit status" is not an error of its own


def test_parse_nvcc() -> None:
    (d,) = em.parse(NVCC)
    assert (d.ported_line, d.message) == (1268, 'class "cudaDeviceProp" has no member "clockRate"')


@pytest.mark.parametrize(("message", "source", "category"), [
    ("'cub/cub.cuh' file not found", "", em.MISSING),
    ("cannot find -lcublas: No such file or directory", "", em.MISSING),
    ("use of undeclared identifier '__shfl_down_sync'; did you mean '__shfl_down'?", "", em.WARP),
    ("use of undeclared identifier '__ballot_sync'", "", em.WARP),
    ("no member named 'meta_group_rank' in 'cooperative_groups::thread_block_tile<32, void>'", "", em.WARP),
    ("static assertion failed due to requirement 'warpSize == 32': x", "static_assert(warpSize == 32);", em.WARP),
    ("assembler: no such instruction: `mov.u32 %r1,%laneid'", "", em.WARP),
    ("non-constant-expression cannot be narrowed from type 'unsigned long long' to 'unsigned int' in "
     "initializer list", "unsigned m{__ballot(p)};", em.WARP),
    ("use of undeclared identifier 'cudaDeviceGetNvSciSyncAttributes'", "", em.UNSUPPORTED),
    ("unknown type name 'cudaGraphEdgeData'", "", em.UNSUPPORTED),
    ("expected ';' after expression", "x = 1", em.OTHER),
    ("invalid operand for instruction", "asm(\"v_mov_b32 %0, s[99]\" : \"=v\"(r));", em.WARP),
    # an ordinary type error, not an assembler's: e.g. bit operations on a HIP handle pointer
    ("invalid operands to binary expression ('hipTextureObject_t' (aka '__hip_texture *') and 'int')",
     "return t ^ 1;", em.OTHER),
])
def test_classify(message: str, source: str, category: str) -> None:
    assert em.classify(em.Diagnostic("error", message, source=source)) == category


def finding(rule: str, message: str = "") -> SimpleNamespace:
    """A finding as the translator makes it: API findings name their subject as data."""
    subject = message.split(" ", 1)[0] if rule in ("HP001", "HP002", "HP003") else None
    return SimpleNamespace(rule=rule, message=message, subject=subject)


def test_explain_prefers_the_ports_own_finding_on_that_line() -> None:
    d = em.Diagnostic("error", "use of undeclared identifier '__ballot_sync'", category=em.WARP)
    ex = em.Explainer((finding("HP003", "__ballot_sync needs ROCm 6.2"), finding("W002", "mask")))
    assert em.explain(d, ex) == "W002"
    d2 = em.Diagnostic("error", "use of undeclared identifier 'cudaFoo'", category=em.UNSUPPORTED)
    ex2 = em.Explainer((finding("HP002", "cudaBar ..."), finding("HP001", "cudaFoo has no HIP equivalent")))
    assert em.explain(d2, ex2) == "HP001"


def test_explain_falls_back_to_the_tables_and_defaults() -> None:
    tables = {"cudaNoTwin": SimpleNamespace(status="unsupported", since="5.2"),
              "cudaNewer": SimpleNamespace(status="supported", since="6.3")}
    ex = em.Explainer((), tables.get, floor("5.2"))

    def rule(name: str, category: str = em.UNSUPPORTED) -> str | None:
        return em.explain(em.Diagnostic("error", f"use of undeclared identifier '{name}'", category=category), ex)

    assert rule("cudaNoTwin") == "HP001"
    assert rule("cudaNewer") == "HP003"  # exists in HIP, but after the ROCm floor
    assert rule("cudaUnknownThing") == "HP002"
    assert rule("__ballot_sync", em.WARP) == "W002"
    assert em.explain(em.Diagnostic("error", "'x.h' file not found", category=em.MISSING), ex) is None


def test_merge_archs() -> None:
    a = em.Diagnostic("error", "boom", "f.hip", 3, 1, file="f.cu", line=2, column=1)
    b = em.Diagnostic("error", "boom", "f.hip", 3, 1, file="f.cu", line=2, column=1)
    c = em.Diagnostic("error", "only here", "f.hip", 9, 1, file="f.cu", line=8, column=1)
    merged = em.merge_archs({"gfx90a": [a], "gfx942": [b, c]})
    assert [(d.message, d.archs) for d in merged] == [("boom", ["gfx90a", "gfx942"]), ("only here", ["gfx942"])]


def test_include_stack_and_repeat_errors_in_the_same_header() -> None:
    out = """In file included from /w/ported/cg.cu:3:
In file included from /usr/include/hip/hip_cooperative_groups.h:38:
/usr/include/hip/amd_detail/helper.h:117:22: error: use of undeclared identifier 'hipBlockDim_z'
/usr/include/hip/amd_detail/helper.h:118:22: error: use of undeclared identifier 'hipBlockDim_x'
"""
    a, b = em.parse(out)
    assert a.chain == [("/w/ported/cg.cu", 3, None), ("/usr/include/hip/hip_cooperative_groups.h", 38, None)]
    assert b.chain == a.chain  # clang prints the include stack once per header
