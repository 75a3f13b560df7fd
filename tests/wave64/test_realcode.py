"""Reduced fixtures of the patterns real code showed (issue 15; fixtures/wave64/realcode): the
findings each must give, and after the port (both strategies) code that compiles for gfx90a and
gfx1030 and prints on the wave emulator, at 32 and at 64 lanes, what the input prints at 32 lanes
(the CUDA reference)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.validate import emulator as emu
from tests.wave64.helpers import FIXTURES, HIPCC, apply, config, findings, hipcc

REAL = FIXTURES / "realcode"

# (rule, line) under the default strategy (auto); the defines the tree's own build passes
CASES: dict[str, tuple[set[tuple[str, int]], tuple[str, ...]]] = {
    # the AMD branch is the tree's: its vote and the NVIDIA-only one are left alone; only the
    # hard-coded 64 (wrong on RDNA) is reported
    "amd_branch_vote": ({("W019", 5)}, ("USE_AMD_ROCM",)),
    # `int warpSize = ...` on the host is a queried value, not HIP's warpSize
    "host_warpsize_var": (set(), ()),
    # grid from rows * 32 for a kernel that maps rows by warpSize
    "grid_from_n32": ({("W014", 26)}, ()),
    # `% WARP_SIZE`, `/ WARP_SIZE` on thread ids, and the definition once
    "named_lane_id": ({("W008", 4), ("W006", 7), ("W001", 7), ("W007", 12), ("W004", 13), ("W005", 14),
                       ("W005", 15)}, ()),
    # a device function declared through a macro, an extern "C" kernel
    "macro_device_extern_c": ({("W006", 7), ("W007", 12), ("W004", 14), ("W005", 14), ("W005", 18)}, ()),
    # a butterfly over the exponent (offsets 1 << l, l <= 4) with the default width
    "butterfly_exponent": ({("W006", 7), ("W004", 8)}, ()),
    # warp count by float division, a first-warp test
    "float_warp_count": ({("W007", 6), ("W005", 7), ("W006", 9), ("W004", 10), ("W005", 10), ("W005", 12),
                          ("W006", 14)}, ()),
}
NAMES = sorted(CASES)


def source(name: str) -> str:
    return (REAL / f"{name}.cu").read_text()


def ported(name: str, strategy: str) -> str:
    code = source(name)
    return apply(code, findings(code, strategy))


def test_every_fixture_has_a_case() -> None:
    assert sorted(p.stem for p in REAL.glob("*.cu")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_findings(name: str) -> None:
    got = {(f.rule, f.span.line) for f in findings(source(name))}
    assert got == CASES[name][0]
    assert len(got) == len(findings(source(name))), "one report per rule per line"


@pytest.mark.parametrize("name", NAMES)
def test_a_second_port_changes_nothing(name: str) -> None:
    for strategy in ("logical32", "native"):
        once = ported(name, strategy)
        assert apply(once, findings(once, strategy)) == once


@pytest.mark.parametrize("name", ["amd_branch_vote", "host_warpsize_var"])
def test_left_alone(name: str) -> None:
    """Nothing in the AMD branch or the host variable is rewritten (the AMD branch keeps its vote)."""
    out = ported(name, "native")
    assert "__any(big)" in out and "__any_sync(0xffffffff, big)" in out if name == "amd_branch_vote" \
        else out == source(name)


def test_cvt_and_cache_hint_ptx_are_not_wave_hazards() -> None:
    code = ('#include <hip/hip_runtime.h>\n__device__ unsigned short h(float f) {\n  unsigned short r;\n'
            '  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));\n  return r;\n}\n'
            '__device__ unsigned ld(const unsigned* p) {\n  unsigned v;\n'
            '  asm volatile("ld.global.cs.u32 %0, [%1];" : "=r"(v) : "l"(p));\n  return v;\n}\n')
    assert not findings(code)


def test_launch_of_a_kernel_without_warp_operations_is_not_reported() -> None:
    code = ("#include <hip/hip_runtime.h>\n__global__ void k(float* p) { p[blockIdx.x * 32 + threadIdx.x] = 1.f; }\n"
            "void run(float* p, int n) { k<<<n, 32>>>(p); }\n")
    assert not findings(code, "logical32") and not findings(code, "native")


def test_whole_waves_are_not_said_to_idle() -> None:
    warp32 = ("#include <hip/hip_runtime.h>\n__global__ void k(float* p) {\n  float v = p[threadIdx.x];\n"
              "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o, 32);\n  p[threadIdx.x] = v;\n}\n")
    whole = warp32 + "void run(float* p, int n) {\n  dim3 b(32, 4);\n  k<<<n, b>>>(p);\n}\n"
    half = warp32 + "void run(float* p, int n) {\n  dim3 b(32, 3);\n  k<<<n, b>>>(p);\n}\n"
    assert not findings(whole, "logical32", rule="W014")
    (f,) = findings(half, "logical32", rule="W014")
    assert "96 threads" in f.message and f.fix is None


def test_the_w014_host_fix_is_cxx() -> None:
    """The host query replaces uses of HIP's warpSize, never a declarator."""
    code = ("#include <hip/hip_runtime.h>\nint blocks(int n) { return (n + warpSize - 1) / warpSize; }\n"
            "int mine(int n) { int warpSize = 64; return n / warpSize; }\n")
    out = apply(code, findings(code, "native"))
    assert "(n + hipport_warp_size() - 1) / hipport_warp_size()" in out and "int warpSize = 64;" in out


# ---- compile and run -------------------------------------------------------------------------

def _write(tmp: Path, name: str, strategy: str) -> Path:
    p = tmp / f"{name}.{strategy}.hip"
    p.write_text(ported(name, strategy))
    return p


@pytest.mark.hipcc
@pytest.mark.skipif(HIPCC is None, reason="hipcc not installed")
@pytest.mark.parametrize("name", NAMES)
def test_port_compiles(name: str, tmp_path: Path) -> None:
    defines = tuple(f"-D{d}" for d in CASES[name][1])
    for strategy in _distinct(name):
        p = _write(tmp_path, name, strategy)
        r = hipcc(p, "gfx90a", (*defines, "--offload-arch=gfx1030"))  # both archs, one host side
        assert r.returncode == 0, f"{name} [{strategy}] gfx90a+gfx1030:\n{r.stderr[-3000:]}"


def _distinct(name: str) -> list[str]:
    """The strategies whose ports differ (one that ports to the same text is checked once)."""
    seen: dict[str, str] = {}
    for strategy in ("logical32", "native"):
        seen.setdefault(ported(name, strategy), strategy)
    return list(seen.values())


def _run(path: Path, out: Path, wave: int, defines: tuple[str, ...]) -> str:
    exe = emu.build([path], out, wave=wave, defines=defines, extra_flags=["-O0", "-w"])
    proc = emu.run(exe, [], timeout=120)
    assert proc.returncode == 0, f"{path.name} at wave {wave}: {proc.stderr[-2000:]}"
    return proc.stdout


@pytest.mark.emulator
@pytest.mark.skipif(emu.compiler() is None, reason="no C++ compiler for the wave emulator (g++)")
@pytest.mark.parametrize("name", NAMES)
def test_port_runs_the_same_at_wave_32_and_64(name: str, tmp_path: Path) -> None:
    defines = CASES[name][1]
    src = tmp_path / f"{name}.cu"
    src.write_text(source(name))
    reference = _run(src, tmp_path / "ref", 32, defines)
    assert reference.strip()
    for strategy in _distinct(name):
        p = _write(tmp_path, name, strategy)
        for wave in (32, 64):
            got = _run(p, tmp_path / f"{strategy}.{wave}", wave, defines)
            assert got == reference, f"{name} [{strategy}] at wave {wave}"


MISMATCH = ("#include <hip/hip_runtime.h>\n"
            "__global__ void rows(const float* x, float* y, int n) {\n"
            "  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;\n"
            "  float v = row < n ? x[row * 32 + threadIdx.x % 32] : 0.f;\n"
            "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);\n"
            "  if (threadIdx.x % 32 == 0 && row < n) y[row] = v;\n}\n"
            "void run(const float* x, float* y, int n) {\n"
            "  hipDeviceProp_t prop;\n  (void)hipGetDeviceProperties(&prop, 0);\n"
            "  const int threads = 4 * prop.warpSize;\n"
            "  hipLaunchKernelGGL(rows, dim3((n + 3) / 4), dim3(threads), 0, 0, x, y, n);\n}\n"
            "void run2(const float* x, float* y, int n) {\n  int ws = 0;\n"
            "  (void)hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0);\n"
            "  rows<<<(n * ws + 127) / 128, 128>>>(x, y, n);\n}\n")


def test_host_and_device_disagree_on_the_warp_size() -> None:
    """The host sizes the launch by the queried wave size (64 on CDNA), the kernel by 32 lanes."""
    fs = findings(MISMATCH, "logical32", rule="W014")
    assert [f.span.line for f in fs] == [12, 17]
    assert all("disagree" in f.message and f.fix is None for f in fs)
    assert not findings(MISMATCH, "native", rule="W014"), "natively the kernel follows the queried size"


def test_launch_of_a_kernel_whose_warp_model_is_elsewhere_is_not_rewritten() -> None:
    """A kernel whose only warp code is a helper from another file has no model here: its
    `dim3(WARP_SIZE, 4)` launch is neither reported nor made the wave size."""
    code = ("#include <hip/hip_runtime.h>\n#define WARP_SIZE 32\nfloat __device__ warp_reduce_sum(float);\n"
            "__global__ void k(float* p) { p[threadIdx.x] = warp_reduce_sum(p[threadIdx.x]); }\n"
            "void run(float* p, int n) { k<<<n, dim3(WARP_SIZE, 4)>>>(p); }\n")
    assert not findings(code, "native", rule="W014") and not findings(code, "logical32", rule="W014")


def test_a_tree_that_maps_the_sync_builtins_itself_is_left_alone(tmp_path: Path) -> None:
    """ggml's vendors/hip.h #defines `__shfl_xor_sync` for its HIP build: the file using it,
    through an include, needs no W001 rewrite (and gets none)."""
    (tmp_path / "vendors").mkdir()
    (tmp_path / "vendors" / "hip.h").write_text(
        "#define __shfl_xor_sync(mask, var, laneMask, width) __shfl_xor(var, laneMask, width)\n")
    (tmp_path / "common.cuh").write_text("#pragma once\n#if defined(USE_HIP)\n#include \"vendors/hip.h\"\n#endif\n")
    code = ('#include <hip/hip_runtime.h>\n#include "common.cuh"\n__device__ float sum(float v) {\n'
            "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o, 32);\n  return v;\n}\n")
    from hipport import closure
    from hipport.source import SourceFile
    from hipport.wave64 import run
    path = tmp_path / "k.cu"
    path.write_text(code)
    headers = closure.read(str(path), code.encode())  # as hipport.inputs reads them for the passes
    got = {f.rule for f in run(SourceFile(str(path), code.encode(), closure=headers), config())}
    assert "W001" not in got
    assert "W001" in {f.rule for f in findings(code)}, "without the header the builtin is missing on ROCm 5.2"


def test_a_feature_test_with_an_amd_fallback_is_correct() -> None:
    """`#if defined(__AMDGCN_WAVEFRONT_SIZE)` followed by `#elif defined(__GFX9__)` still gives
    AMD its branch on ROCm 7.2; a bare `#ifdef` with a hard-coded 32 after it does not."""
    code = ("#include <hip/hip_runtime.h>\n#if defined(__AMDGCN_WAVEFRONT_SIZE)\n#define WS __AMDGCN_WAVEFRONT_SIZE\n"
            "#elif defined(__GFX8__) || defined(__GFX9__)\n#define WS 64\n#else\n#define WS 32\n#endif\n"
            "#ifdef __AMDGCN_WAVEFRONT_SIZE\n#define WS2 __AMDGCN_WAVEFRONT_SIZE\n#else\n#define WS2 32\n#endif\n"
            "#if ROCM_VERSION_MAJOR < 7\n#define WS3 __AMDGCN_WAVEFRONT_SIZE\n#endif\n"
            "__global__ void k(int* p) { p[threadIdx.x] = WS + WS2; }\n")
    assert sorted(f.span.line for f in findings(code, rule="W020")) == [9, 10]
