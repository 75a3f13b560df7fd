"""The headline a team can act on, and severities that mean something: real CLI runs.

A site the port fixed is a note (shown with --show-fixed), never an `error:`; the headline
counts files ready (not compile-checked) and names why the others are not; text, JSON, SARIF
and the report's index give the same figures. W014: a launch the default port leaves wrong at
wave64 is an error, and its kernel is counted as needing a person."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, hipport, needs_hipcc

# examples/ by hand, before the headline existed (every safe fix applies; the one open site is
# `#if defined(__CUDA_ARCH__)` in kernel_library/include/kl/common.cuh, HP001).
EXAMPLES = {"check": "not compile-checked", "files": 13, "ready": 12, "ready_share": "92.3%",
            "need_a_person": 1, "not_verified": 0, "not_parsed": 0, "open_errors": 0, "open_warnings": 1,
            "kernels_need_a_person": [],
            "why": [{"rule": "HP001", "name": "unsupported-api", "sites": 1, "files": 1}],
            "api_coverage": {"found": 331, "ported": 330, "share": "99.7%"},
            "do_not_compile": 0, "not_compiled": 0}


def test_the_demo_port_prints_no_error_for_a_site_it_fixed(tmp_path: Path) -> None:
    p = hipport("port", ROOT / "examples", "-o", tmp_path / "out", "--no-cache")
    text = p.stdout.decode()
    assert p.returncode == 0, p.stderr.decode()
    assert "error:" not in text and "[W001]" not in text  # 11 W001 sites, all fixed
    assert "ready: 12 of 13 files (92.3%), not compile-checked; 1 needs a person" in text
    assert "open: 0 errors, 1 warning: HP001 unsupported-api 1" in text
    assert "API coverage: 330 of 331 CUDA references ported automatically (99.7%)" in text
    assert "notes not shown" in text
    shown = hipport("port", ROOT / "examples", "-o", tmp_path / "out", "--no-cache", "--show-fixed").stdout.decode()
    assert shown.count("note: [W001]") == 11 and "fixed (safe): use `__shfl_xor` and drop the mask" in shown
    assert "error:" not in shown and "notes not shown" not in shown


def test_text_json_sarif_and_the_report_agree(tmp_path: Path) -> None:
    doc = json.loads(hipport("lint", ROOT / "examples", "--format", "json", "--no-cache").stdout)
    assert doc["summary"]["headline"] == EXAMPLES
    w001 = [f for f in doc["findings"] if f["rule"] == "W001"]
    assert len(w001) == 11 and all(f["fixed"] and f["severity"] == "info" for f in w001)
    sarif = json.loads(hipport("lint", ROOT / "examples", "--format", "sarif", "--no-cache").stdout)
    assert sarif["runs"][0]["properties"]["headline"] == EXAMPLES
    assert not [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "W001" and r["level"] != "note"]
    rep = tmp_path / "rep"
    made = hipport("report", ROOT / "examples", "-o", rep, "--no-cache")
    assert made.returncode == 0 and made.stdout.decode().strip().endswith("index.html")
    assert "ready: 12 of 13 files (92.3%), not compile-checked" in " ".join(made.stderr.decode().split())
    index = (rep / "index.html").read_text()
    assert 'id="total-ready"><span class="v">92.3%</span>' in index
    assert "of files ready (not compile-checked)" in index
    assert '<span id="ready-files">12</span> of 13' in index and "HP001 unsupported-api 1" in index
    assert index.count('data-clean="1"') == 12  # "hide files with nothing left to do" hides the ready ones


def test_statistics_one_line_per_rule(tmp_path: Path) -> None:
    p = hipport("lint", ROOT / "examples", "--statistics", "--no-cache")
    rows = p.stdout.decode().split("hipport summary")[0].splitlines()
    assert rows[0].split() == ["14", "W004", "lane-id-mask-31", "14", "notes"]  # largest first: kept
    assert ["11", "W001", "sync-mask-32bit", "11", "fixed"] in [r.split() for r in rows]
    assert ["1", "HP001", "unsupported-api", "1", "open"] in [r.split() for r in rows]
    assert not any(":" in r for r in rows)  # no finding lines
    assert p.returncode == 1  # the HP001 warning is open


def test_a_port_that_does_not_compile_is_not_ready(tmp_path: Path) -> None:
    """exllamav2's head_norm.cu: a kernel that mixes 32 and the wave keeps `__shfl_xor_sync`,
    which the ROCm 5.2 floor's hipcc rejects; every name is ported (100% API coverage)."""
    (tmp_path / "head_norm.cu").write_text(
        "#include <cuda_runtime.h>\n#define WARP_SIZE 32\n"
        "__global__ void head_norm(float* x) {\n"
        "  int warp = threadIdx.x / WARP_SIZE, lane = threadIdx.x % WARP_SIZE;\n"
        "  float v = x[threadIdx.x];\n"
        "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
        "  if (lane == 0) x[warp] = v;\n}\n")
    text = hipport("lint", tmp_path, "--no-cache").stdout.decode()
    assert "ready: 0 of 1 files (0.0%), not compile-checked; 1 needs a person" in text
    assert "HP003 needs-newer-rocm 1" in text and "W001 sync-mask-32bit 1" in text
    assert "(100.0%)" in text.split("API coverage:")[1]


def test_w014_a_launch_the_default_port_leaves_wrong_is_an_error(tmp_path: Path) -> None:
    """issue 32: rowSum strides by warpSize (64 on CDNA) with 32-thread blocks: the default
    port reads half the columns. It was a warning whose kernel validate showed as DIFFERS."""
    shutil.copy(ROOT / "fixtures/programs/review/launch_32_threads.cu", tmp_path / "k.cu")  # not its config
    p = hipport("port", tmp_path / "k.cu", "--check", "--no-cache")
    text = p.stdout.decode()
    assert "k.cu:34:3: error: [W014] launch of `rowSum`" in text
    assert "kernels wrong at wave64 until a person acts: 1 (" in text and "k.cu: rowSum)" in text
    assert "ready: 0 of 1 files" in text
    assert "[W014] launch of `warpMax`" not in text  # right as 32-lane logical warps: a note
    doc = json.loads(hipport("lint", tmp_path / "k.cu", "--format", "json", "--no-cache").stdout)
    (launch,) = [f for f in doc["findings"] if f["rule"] == "W014" and f["severity"] == "error"]
    assert launch["line"] == 34 and doc["summary"]["headline"]["kernels_need_a_person"][0].endswith(": rowSum")
    fixed = hipport("port", tmp_path / "k.cu", "--check", "--no-cache", "--apply-review-fixes").stdout.decode()
    assert "error:" not in fixed and "kernels wrong" not in fixed and "ready: 1 of 1 files" in fixed


def test_severities_say_whether_the_port_builds(tmp_path: Path) -> None:
    """error: the port will not build (an API HIP lacks, one above the ROCm floor, a header with
    no counterpart, inline PTX); warning: a person must look (a macro the port compiles)."""
    (tmp_path / "k.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "void f(cudaGraphExec_t e, unsigned long long* fl) {\n"
        "  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, 0);\n"
        "  cudaGraphExecGetFlags(e, fl);\n}\n"
        "__global__ void k(int* o) {\n"
        "#if defined(__CUDA_ARCH__)\n  o[0] = 1;\n#endif\n"
        "  unsigned v; asm volatile(\"mov.u32 %0, %%clock;\" : \"=r\"(v)); o[1] = v;\n}\n")
    doc = json.loads(hipport("lint", tmp_path, "--format", "json", "--no-cache").stdout)
    sev = {(f["rule"], f["line"]): f["severity"] for f in doc["findings"]}
    assert sev[("HP001", 3)] == "error"  # cudaDeviceFlushGPUDirectRDMAWrites stays: no build
    assert sev[("HP003", 4)] == "error"  # hipGraphExecGetFlags is not in ROCm 5.2
    assert sev[("HP001", 7)] == "warning"  # __CUDA_ARCH__ compiles; which branch is a person's call
    assert sev[("HP001", 10)] == "error"  # inline PTX
    e = hipport("lint", tmp_path, "--no-cache", "--fail-on", "error", "--select", "HP001", "--ignore", "HP003")
    assert e.returncode == 1


def test_wmma_every_use_is_reported_and_counted(tmp_path: Path) -> None:
    """tiny-cuda-nn: 60 nvcuda::wmma uses were uncounted, only <mma.h> flagged."""
    (tmp_path / "k.cu").write_text(
        "#include <mma.h>\nusing namespace nvcuda;\n// wmma::fragment in a comment is no use\n"
        "__global__ void k(const half* a, float* c) {\n"
        "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;\n"
        "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;\n"
        "  nvcuda::wmma::load_matrix_sync(fa, a, 16);\n"
        "  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);\n}\n")
    doc = json.loads(hipport("lint", tmp_path, "--format", "json", "--no-cache").stdout)
    uses = [f for f in doc["findings"] if f["family"] == "wmma"]
    assert [(f["line"], f["rule"], f["severity"]) for f in uses][:2] == [(5, "HP001", "error")] * 2
    assert len(uses) == 8 and not [f for f in uses if f["line"] == 3]
    assert doc["summary"]["families"]["wmma"] == {"found": 8, "ported": 0, "unsupported": 8}
    h = doc["summary"]["headline"]
    assert h["ready"] == 0 and h["why"][0] == {"rule": "HP001", "name": "unsupported-api", "sites": 8, "files": 1}
    own = tmp_path / "own"
    own.mkdir()  # a project's own namespace called wmma: not WMMA
    (own / "m.cu").write_text("namespace wmma { int f(); }\n__global__ void k(int* o) { o[0] = wmma::f(); }\n")
    assert not json.loads(hipport("lint", own, "--format", "json", "--no-cache").stdout)["findings"]


@pytest.mark.emulator
def test_validate_says_what_the_pass_saved_in_one_line() -> None:
    """validate printed each compile error of the deliberately unfixed variant (8 here, ~40 on
    examples/) as `error: static assertion failed`, with hipport's emulator header path."""
    p = hipport("validate", ROOT / "examples/warp_primitives", "--run", "--no-compile", "--no-cache",
                env={"HIPPORT_NO_GPU": "1"})
    out = p.stdout.decode()
    assert p.returncode == 0, out + p.stderr.decode()
    assert "static assertion" not in out and "hipemu" not in out and "error:" not in out
    flat = " ".join(out.split())  # the console wraps long lines
    assert "the wave64 pass fixed this; without it 8 sites would not build (W006 3, W016 2, W017 2, W002 1" in flat


def test_a_library_left_in_the_build_is_an_error(tmp_path: Path) -> None:
    """`-lnppc` stays in the ported Makefile: the link fails (it was a warning)."""
    (tmp_path / "Makefile").write_text("app: main.cu\n\tnvcc -o app main.cu -lnppc -lcublas\n")
    (tmp_path / "main.cu").write_text("#include <cuda_runtime.h>\nint main() { cudaDeviceSynchronize(); }\n")
    p = hipport("lint", tmp_path, "--no-cache", "--fail-on", "error")
    text = p.stdout.decode()
    assert p.returncode == 1 and "Makefile:2:22: error: [HP014] -lnppc: NPP has no ROCm counterpart" in text
    assert "ready: 1 of 2 files (50.0%)" in text and "HP014 build-library 1" in text


@needs_hipcc
def test_validate_gives_the_compiled_headline(tmp_path: Path) -> None:
    """validate counts each unit by its compile at the floor's toolchain: examples/ as the port
    says it, now compile-checked; a unit that does not compile is not ready, whatever its
    findings, and the headline says so (text and JSON agree)."""
    p = hipport("validate", ROOT / "examples", "--offload-arch", "gfx90a", "--format", "json")
    doc = json.loads(p.stdout)
    assert doc["headline"] == {**EXAMPLES, "check": "compile-checked with hip-5.2 for gfx90a"}
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "ok.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(float* p) { p[0] = 1.f; }\n")
    (tree / "bad.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(float* p) { p[0] = undeclared_name; }\n")
    p = hipport("validate", tree, "--offload-arch", "gfx90a")
    text = p.stdout.decode()
    assert p.returncode == 1
    assert "ready: 1 of 2 files (50.0%), compile-checked with hip-5.2 for gfx90a; 1 does not compile" in text, text
    doc = json.loads(hipport("validate", tree, "--offload-arch", "gfx90a", "--format", "json").stdout)
    assert (doc["headline"]["ready"], doc["headline"]["do_not_compile"]) == (1, 1)


def test_a_kernel_verify_failed_keeps_its_file_from_ready() -> None:
    from hipport.model import FileResult, FileStatus, KernelCheck, RunResult, VerifyResult
    from hipport.report.headline import headline

    files = [FileResult(path="a.cu", role="cuda-source", status=FileStatus.PORTED),
             FileResult(path="b.cu", role="cuda-source", status=FileStatus.PORTED)]
    checks = (KernelCheck("sum", "a.cu", 3, "FAIL", "out[0] differs"), KernelCheck("ok", "b.cu", 1, "PASS", ""))
    h = headline(RunResult(files, verification=VerifyResult(checks)))
    assert (h.ready, h.person, h.kernels) == (1, 1, ("a.cu: sum (verify FAIL)",))
    assert headline(RunResult(files)).ready == 2
