"""The emulator's wave-32 CUDA reference agrees with CUDA, one intrinsic family at a time (issue 32).

tests/conformance/ holds one small CUDA program per family (vote, shuffle, match, reduce, bit
ops, lane masks, cooperative-groups tiles, launch APIs); each `NAME.expected` was written by
hand from CUDA's semantics before the emulator ran it. Each program runs on the emulator at
wave 32 the way validate's reference leg runs an original (`hipport emulate --wave 32
--no-wave64`: names ported, nothing else) and must print its expected output; each also
compiles with nvcc, so it is valid CUDA with the same overload resolution (the programs
static_assert CUDA's result types, and vote.cu calls `__ffs(__ballot_sync(...))`). The same
programs run on a GPU in scripts/gpu-check.sh. The HIP side (wave 64) keeps HIP's widths.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hipport.validate import emulator as emu
from hipport.validate import toolchains
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.emulator,
    pytest.mark.skipif(emu.compiler() is None, reason="g++ (the emulator's host compiler) is not installed"),
]

SRC = ROOT / "tests" / "conformance"
PROGRAMS = sorted(p.stem for p in SRC.glob("*.cu"))
FAMILIES = {"vote", "shuffle", "match", "reduce", "bitops", "lanemask", "cg_tiles", "launch"}


def test_one_program_per_family_each_with_expected_output() -> None:
    assert set(PROGRAMS) == FAMILIES
    for name in PROGRAMS:
        assert (SRC / f"{name}.expected").is_file(), name
    assert "__ffs(__ballot_sync(" in (SRC / "vote.cu").read_text()


@pytest.fixture(scope="module")
def wave32_runs() -> dict[str, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def one(name: str) -> tuple[str, subprocess.CompletedProcess[str]]:
        cmd = [sys.executable, "-m", "hipport", "emulate", "--wave", "32", "--no-wave64", "--timeout", "60",
               str(SRC / f"{name}.cu")]
        return name, subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env, timeout=300,
                                    cwd=ROOT, stdin=subprocess.DEVNULL)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, PROGRAMS))


@pytest.mark.parametrize("name", PROGRAMS)
def test_wave32_prints_cuda_expected_output(wave32_runs, name: str) -> None:
    p = wave32_runs[name]
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stderr[-3000:]}"
    assert p.stdout == (SRC / f"{name}.expected").read_text()


def _nvcc() -> str:
    nvcc = toolchains.find_nvcc()
    if nvcc is None:
        if "nvidia" in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail("HIPPORT_REQUIRE_TOOLCHAINS names nvidia, but nvcc is not found")
        pytest.skip("nvcc not found: the conformance programs are not compiled as CUDA here")
    return nvcc


@pytest.mark.nvidia
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_is_valid_cuda(name: str, tmp_path: Path) -> None:
    nvcc = _nvcc()
    p = subprocess.run([nvcc, "-Wno-deprecated-gpu-targets", "-arch=sm_90", "-x", "cu", "-std=c++17", "-c",
                        str(SRC / f"{name}.cu"), "-o", str(tmp_path / f"{name}.o")],
                       capture_output=True, text=True, errors="replace", timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]


# HIP's side: 64-bit ballots and masks, HIP's extra __ffs overloads (so __ffs of a 64-bit ballot is
# ambiguous, as with hipcc); a kernel launched by hipLaunchKernel without a cast, with a
# cast, as a template; a void* kernel address is refused at run time.
HIP_WIDTHS = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <type_traits>
namespace cg = cooperative_groups;
template <class T, class = void> struct ffs_ok : std::false_type {};
template <class T> struct ffs_ok<T, decltype((void)__ffs(T()))> : std::true_type {};
typedef unsigned long long u64;
__global__ void types(int* out) {
  static_assert(std::is_same<decltype(__ballot_sync(~0ull, 1)), u64>::value, "ballot");
  static_assert(std::is_same<decltype(__activemask()), u64>::value, "activemask");
  static_assert(std::is_same<decltype(__lanemask_lt()), u64>::value, "lanemask");
  static_assert(std::is_same<decltype(__match_any_sync(~0ull, 1)), u64>::value, "match");
  static_assert(std::is_same<decltype(cg::tiled_partition<8>(cg::this_thread_block()).ballot(1)), u64>::value, "");
  static_assert(!ffs_ok<u64>::value && ffs_ok<unsigned>::value, "HIP: __ffs(u64) is ambiguous");
  out[threadIdx.x] = __popcll(__ballot_sync(~0ull, threadIdx.x % 4 == 0));
}
template <int K, int M> __global__ void scale(int* p, int n) { p[threadIdx.x] = K * M * n; }
int main(int argc, char** argv) {
  int* d;
  hipMalloc(&d, 64 * sizeof(int));
  int n = 5, h[64];
  void* args[] = {&d, &n};
  if (argc > 1) {  // a kernel address without its type
    const void* fp = reinterpret_cast<const void*>(scale<1, 1>);
    hipLaunchKernel(fp, dim3(1), dim3(4), args, 0, 0);
    return 0;
  }
  hipError_t e1 = hipLaunchKernel(types, dim3(1), dim3(64), args);
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  printf("types %d %d\n", e1 == hipSuccess, h[63]);
  hipError_t e2 = hipLaunchKernel(reinterpret_cast<const void*>(scale<2, 3>), dim3(1), dim3(4), args, 0, 0);
  hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost);
  printf("scale %d %d\n", e2 == hipSuccess, h[3]);
  hipError_t e3 = hipLaunchKernel(HIP_KERNEL_NAME(scale<1, 7>), dim3(1), dim3(2048), args);
  printf("bad block %d %d\n", e3 == hipErrorInvalidConfiguration, hipGetLastError() == e3);
  return 0;
}
"""


@pytest.mark.parametrize("wave, defines", [(64, ()), (32, ("HIPEMU_CUDA_WIDTHS=0",))])
def test_hip_mode_keeps_hip_widths_and_launches(tmp_path: Path, wave: int, defines: tuple[str, ...]) -> None:
    src = tmp_path / "hip_widths.hip"
    src.write_text(HIP_WIDTHS)
    exe = emu.build([src], tmp_path / "hip_widths", wave=wave, defines=defines)
    p = emu.run(exe, [], timeout=60)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout == f"types 1 {wave // 4}\nscale 1 30\nbad block 1 1\n"
    err = emu.run(exe, ["void"], timeout=60)
    assert err.returncode == emu.EXIT_CODE
    assert "unsupported construct: a launch of 'fp' through a `const void*` kernel address" in err.stderr


def test_emulate_runs_hip_input_at_wave32_with_hip_widths(tmp_path: Path) -> None:
    """`hipport emulate FILE.hip --wave 32` is HIP on a wave32 target: a 64-bit ballot, as
    HIP's headers declare it (the CUDA widths are for CUDA input only)."""
    src = tmp_path / "w.hip"
    src.write_text("#include <hip/hip_runtime.h>\n#include <cstdio>\n"
                   "__global__ void k(int* o) { if (threadIdx.x == 0) *o = (int)sizeof(__ballot(1)); }\n"
                   "int main() { int* d; hipMalloc(&d, 4); hipLaunchKernelGGL(k, dim3(1), dim3(32), 0, 0, d);\n"
                   "  int h = 0; hipMemcpy(&h, d, 4, hipMemcpyDeviceToHost); printf(\"%d\\n\", h); }\n")
    cuda = tmp_path / "w.cu"
    cuda.write_text(src.read_text().replace("hip/hip_runtime.h", "cuda_runtime.h").replace("hipMalloc", "cudaMalloc")
                    .replace("hipMemcpyDeviceToHost", "cudaMemcpyDeviceToHost").replace("hipMemcpy", "cudaMemcpy")
                    .replace("hipLaunchKernelGGL(k, dim3(1), dim3(32), 0, 0, d)", "k<<<1, 32>>>(d)")
                    .replace("__ballot(1)", "__ballot_sync(0xffffffffu, 1)"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for path, width in ((src, "8"), (cuda, "4")):
        p = subprocess.run([sys.executable, "-m", "hipport", "emulate", "--wave", "32", "--no-wave64", str(path)],
                           capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
        assert p.returncode == 0 and p.stdout.split() == [width], (path.name, p.stdout, p.stderr[-2000:])


def test_cuda_widths_need_wave32(tmp_path: Path) -> None:
    src = tmp_path / "p.cpp"
    src.write_text("#include <hip/hip_runtime.h>\nint main() { return 0; }\n")
    with pytest.raises(emu.EmulatorBuildError, match="HIPEMU_CUDA_WIDTHS"):
        emu.build([src], tmp_path / "p", wave=64, defines=["HIPEMU_CUDA_WIDTHS=1"])


def test_prepare_source_uncasts_launched_kernels() -> None:
    text = ("e = hipLaunchKernel(reinterpret_cast<const void*>(\n  k<float, 4>), g, b, a, 0, s);\n"
            "hipLaunchCooperativeKernel((void *)&k2, g, b, a);\nhipLaunchKernel(fp, g, b, a);\n")
    out = emu.prepare_source(text)
    assert out == ("e = hipLaunchKernel(HIP_KERNEL_NAME(k<float, 4>)\n, g, b, a, 0, s);\n"
                   "hipLaunchCooperativeKernel(HIP_KERNEL_NAME(&k2), g, b, a);\nhipLaunchKernel(fp, g, b, a);\n")
    assert out.count("\n") == text.count("\n")


# scripts/gpu-check.sh's table (hipport.validate.gpucompare), from a validate result as written on
# a GPU machine: rows are same, DIFFERS or not compared, and any difference fails the run.
def _leg(status: str, stdout: str = "", exit_code: int | None = 0, **extra: object) -> dict[str, object]:
    return {"status": status, "reason": extra.pop("reason", None), "exit_code": exit_code, "stdout": stdout, **extra}


def test_gpu_table_compares_wave32_with_each_gpu_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from hipport.validate import gpucompare as gc

    occ = {"occupancy": {"k2": [1, 32, 32], "k1": [1, 32, 32]}}
    runs = [
        {"program": "same.cu", "emulator": {"ref32": _leg("pass", "a\nb\n", **occ)},
         "gpu": {"nvidia": _leg("pass", device="NVIDIA H200", original=_leg("pass", "a\nb\n")),
                 "amd": _leg("not-run", exit_code=None, reason="no AMD GPU")}},
        {"program": "differs.cu", "emulator": {"ref32": _leg("pass", "a\nb\n")},
         "gpu": {"nvidia": _leg("mismatch", device="NVIDIA H200", original=_leg("pass", "a\nc\n")),
                 "amd": _leg("pass", "a\nb\n", device="gfx942")}},
        {"program": "exit.cu", "emulator": {"ref32": _leg("mismatch", "a\n", 0)},
         "gpu": {"nvidia": _leg("pass", original=_leg("mismatch", "a\n", 1))}},
        {"program": "broken.cu", "emulator": {"ref32": _leg("build-error", exit_code=None, reason="2 compile error(s)")},
         "gpu": {"nvidia": _leg("pass", original=_leg("pass", "x\n"))}},
        {"program": "nogpu.cu", "emulator": {"ref32": _leg("pass", "x\n")},
         "gpu": {"nvidia": _leg("not-run", exit_code=None, reason="no NVIDIA GPU: nvidia-smi not found")}},
        {"program": "own.cu", "emulator": {"ref32": _leg("pass", "check\nPASSED\n", own_check="PASSED")},
         "gpu": {"nvidia": _leg("pass", original=_leg("pass", "check\nPASSED\ntime 3 ms\n"))}},
    ]
    rows = gc.rows_from_validate({"details": {"runs": runs}})
    got = [(r.program, r.gpu_kind.split()[0], r.verdict) for r in rows]
    assert got == [("same.cu", "NVIDIA", "same"), ("differs.cu", "NVIDIA", "DIFFERS"), ("differs.cu", "AMD", "same"),
                   ("exit.cu", "NVIDIA", "DIFFERS"), ("broken.cu", "NVIDIA", "not compared"),
                   ("nogpu.cu", "NVIDIA", "not compared"), ("own.cu", "NVIDIA", "same")]
    assert rows[0].kernels == ["k1", "k2"]
    assert gc.compare(rows[1].emulator, rows[1].gpu)[1] == "line 2: GPU 'c', emulator 'b'"
    assert gc.compare(rows[3].emulator, rows[3].gpu)[1] == "exit status: GPU 1, emulator 0"
    assert "emulator: build-error: 2 compile error(s)" in gc.compare(rows[4].emulator, rows[4].gpu)[1]
    table = gc.render(rows)
    assert "k1, k2" in table and "NVIDIA (nvcc original): exit 0 (NVIDIA H200)" in table
    assert table.endswith("7 row(s): 3 same, 2 differ, 2 not compared\n")

    doc = tmp_path / "validate.json"
    doc.write_text(json.dumps({"details": {"runs": runs[:1]}}))
    out = tmp_path / "rows.json"
    assert gc.main(["--validate-json", str(doc), "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["result"] == "same"
    doc.write_text(json.dumps({"details": {"runs": runs}}))
    assert gc.main(["--validate-json", str(doc)]) == 1
    doc.write_text("not json")
    assert gc.main(["--validate-json", str(doc)]) == 2
    assert "validate.json:1: error: not a validate JSON result" in capsys.readouterr().err


def test_gpu_table_emulator_half_runs_a_conformance_program(tmp_path: Path) -> None:
    from hipport.validate import gpucompare as gc

    [row] = gc.rows_from_programs([SRC / "vote.cu"], tmp_path, 60, gpu=False)
    assert row.kernels == ["vote"]
    assert row.emulator.status() == "exit 0 (.expected: same)"
    assert row.verdict == gc.NOT_COMPARED and "--no-gpu" in row.gpu.why
