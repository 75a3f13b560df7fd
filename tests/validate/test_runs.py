"""Run checks: output comparison, the three emulator legs, `hipport emulate` forwarding."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hipport.validate import runs
from hipport.validate.project import Program
from tests.conftest import hipport

needs_emulator = pytest.mark.emulator


# --- comparison logic (no compiler needed) ---------------------------------------------------

def test_first_diff() -> None:
    assert runs.first_diff("a\nb\n", "a\nb") is None
    d = runs.first_diff("a\nX\nc\n", "a\nb\nc\n")
    assert (d.line, d.expected, d.actual) == (2, "b", "X")
    d = runs.first_diff("a\n", "a\nb\n")
    assert (d.line, d.expected, d.actual) == (2, "b", None)
    assert "line 2: expected 'b', got (end of output)" == d.describe()


def leg(out: str, rc: int = 0) -> runs.Leg:
    return runs.Leg(runs.PASS, exit_code=rc, stdout=out)


def test_judge_port_against_reference_and_expected() -> None:
    ref = runs.judge_reference(leg("1\n2\n"), "1\n2\n")
    assert ref.status == runs.PASS and ref.against == ".expected"
    assert runs.judge(leg("1\n2\n"), ref, "1\n2\n").status == runs.PASS
    bad = runs.judge(leg("1\n3\n"), ref, None)
    assert bad.status == runs.MISMATCH and bad.diff.line == 2 and "ref32" in bad.reason
    assert runs.judge(leg("1\n2\n", rc=1), ref, None).status == runs.MISMATCH  # exit status counts
    info = runs.judge(leg("1\n3\n"), ref, None, informational=True)
    assert info.status == runs.DIFFERS and not info.failed
    assert runs.judge(leg("1\n2\n"), ref, None, informational=True).status == runs.SAME
    # a reference that disagrees with .expected fails itself
    assert runs.judge_reference(leg("1\n"), "2\n").status == runs.MISMATCH


def test_saved_by_wave64() -> None:
    prog = Program("p.cu", Path("p.cu"), [Path("p.cu")])
    r = runs.ProgramResult(prog, {"ref32": leg("a"), "port64": leg("a"), "unfixed64": runs.Leg(runs.DIFFERS)})
    assert r.saved_by_wave64 is True and not r.failed
    r.emulator["unfixed64"] = runs.Leg(runs.BUILD_ERROR)  # e.g. a 32-bit mask rejected at wave 64
    assert r.saved_by_wave64 is True and not r.failed  # informational: never a failure
    r.emulator["unfixed64"] = runs.Leg(runs.SAME)
    assert r.saved_by_wave64 is False
    r.emulator["port64"] = runs.Leg(runs.MISMATCH)
    assert r.saved_by_wave64 is None and r.failed


# --- the emulator, end to end ------------------------------------------------------------------

# Prints per-warp sums: with CUDA's 32-lane warps the shuffle tree covers each warp; at wave 64
# the loop from 16 covers half a wavefront, so the port needs the wave64 pass.
WARP_SUM = b"""#include <cstdio>
#include <cuda_runtime.h>

__global__ void warpSums(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}

int main() {
  int h[64], r[2] = {0, 0};
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d, *o;
  cudaMalloc(&d, sizeof(h));
  cudaMalloc(&o, sizeof(r));
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  warpSums<<<1, 64>>>(d, o);
  cudaMemcpy(r, o, sizeof(r), cudaMemcpyDeviceToHost);
  printf("warp 0: %d\\nwarp 1: %d\\n", r[0], r[1]);
  return 0;
}
"""

HELLO = b"""#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x * 2; }
int main(int argc, char** argv) {
  int* d; int h[4];
  cudaMalloc(&d, sizeof(h));
  k<<<1, 4>>>(d);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 4; ++i) printf("%d\\n", h[i]);
  fprintf(stderr, "args=%d last=%s\\n", argc - 1, argc > 1 ? argv[argc - 1] : "-");
  return argc > 1 ? 3 : 0;
}
"""

WAVE_HIP = b"""#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void w(int* p) { *p = warpSize; }
int main() {
  int* d; int h = 0;
  hipMalloc(&d, sizeof(int));
  w<<<1, 1>>>(d);
  hipMemcpy(&h, d, sizeof(int), hipMemcpyDeviceToHost);
  printf("wave %d\\n", h);
  return 0;
}
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("progs")
    (d / "warp_sum.cu").write_bytes(WARP_SUM)
    (d / "warp_sum.expected").write_text("warp 0: 496\nwarp 1: 1520\n")
    (d / "hello.cu").write_bytes(HELLO)
    (d / "hello.expected").write_text("0\n2\n4\n7\n")  # wrong on purpose: line 4 should be 6
    return d


@needs_emulator
def test_three_way_run_and_first_differing_line(programs: Path) -> None:
    env = {"HIPPORT_NO_GPU": "1"}
    p = hipport("validate", programs, "--run", "--no-compile", "--format", "json", "--no-cache", env=env)
    doc = json.loads(p.stdout)
    runs_ = {Path(r["program"]).name: r for r in doc["details"]["runs"]}
    assert set(runs_) == {"warp_sum.cu", "hello.cu"}
    ws = runs_["warp_sum.cu"]["emulator"]
    assert ws["ref32"]["status"] == "pass", ws["ref32"]
    assert ws["ref32"]["stdout"] == "warp 0: 496\nwarp 1: 1520\n"
    assert ws["port64"]["status"] == "pass", ws["port64"]  # the wave64 pass fixed the reduction
    assert ws["unfixed64"]["status"] in ("differs", "build-error")  # ...which was broken without it
    assert runs_["warp_sum.cu"]["saved_by_wave64"] is True
    he = runs_["hello.cu"]["emulator"]
    assert he["ref32"]["status"] == "mismatch"
    assert he["ref32"]["first_diff"] == {"line": 4, "expected": "7", "actual": "6"}
    assert "line 4" in he["ref32"]["reason"]
    for r in runs_.values():  # no GPU here: not run, with the reason
        assert {k: v["status"] for k, v in r["gpu"].items()} == {"amd": "not-run", "nvidia": "not-run"}
        assert all(v["reason"] for v in r["gpu"].values())
    assert doc["summary"]["gpu_pass"] == 0 and doc["summary"]["gpu_not_run"] == 4
    assert p.returncode == 1  # hello.cu's reference differs from its .expected
    text = hipport("validate", programs / "warp_sum.cu", "--run", "--no-compile", "--no-cache", env=env)
    assert text.returncode == 0, text.stdout.decode() + text.stderr.decode()
    assert "emu64 port" in text.stdout.decode() and "not run" in text.stdout.decode()


@needs_emulator
def test_strict_counts_not_run_as_failure(programs: Path) -> None:
    p = hipport("validate", programs / "warp_sum.cu", "--run", "--no-compile", "--no-cache", "--strict",
                "--format", "json", env={"HIPPORT_NO_GPU": "1"})
    assert p.returncode == 1 and json.loads(p.stdout)["summary"]["failed"] is True


@needs_emulator
def test_emulate_forwards_stdout_stderr_and_exit_code(programs: Path) -> None:
    p = hipport("emulate", programs / "hello.cu", "--", "a", "b")
    assert p.returncode == 3
    assert p.stdout == b"0\n2\n4\n6\n"
    assert p.stderr == b"args=2 last=b\n"
    q = hipport("emulate", programs / "hello.cu", "--wave", "32")
    assert (q.returncode, q.stdout, q.stderr) == (0, b"0\n2\n4\n6\n", b"args=0 last=-\n")


@needs_emulator
def test_emulate_wave_size_and_hip_input(tmp_path: Path) -> None:
    f = tmp_path / "w.hip"
    f.write_bytes(WAVE_HIP)
    assert hipport("emulate", f, "--wave", "32").stdout == b"wave 32\n"
    assert hipport("emulate", f).stdout == b"wave 64\n"


@needs_emulator
def test_emulate_build_error_names_the_original_line(tmp_path: Path) -> None:
    f = tmp_path / "broken.cu"
    f.write_bytes(b"#include <cstdio>\n__global__ void k() {}\nint main() {\n  k<<<1, 1>>>();\n"
                  b"  undefined_thing();\n  return 0;\n}\n")
    p = hipport("emulate", f, cwd=tmp_path)
    assert p.returncode == 2
    err = p.stderr.decode()
    assert "broken.cu:5:" in err and "undefined_thing" in err, err
    assert p.stdout == b""


def test_emulate_usage_errors(tmp_path: Path) -> None:
    assert hipport("emulate", tmp_path / "nope.cu").returncode == 2
    assert hipport("emulate", tmp_path / "nope.cu", "--wave", "48").returncode == 2


def test_no_gpu_env_keeps_real_gpus_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport.validate import toolchains
    monkeypatch.setenv("HIPPORT_NO_GPU", "1")
    toolchains.amd_gpus.cache_clear()
    toolchains.nvidia_gpus.cache_clear()
    try:
        assert not toolchains.amd_gpus().present and not toolchains.nvidia_gpus().present
    finally:
        toolchains.amd_gpus.cache_clear()
        toolchains.nvidia_gpus.cache_clear()
    assert os.environ["HIPPORT_NO_GPU"] == "1"


@needs_emulator
def test_programs_file_names_sources_args_and_expected(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "echo.cu").write_bytes(
        b"#include <cstdio>\n#include <cuda_runtime.h>\n__global__ void k(int* p) { *p = 41; }\n"
        b"int main(int argc, char** argv) {\n  int* d; int h = 0;\n  cudaMalloc(&d, sizeof(int));\n"
        b"  k<<<1, 1>>>(d);\n  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
        b"  printf(\"%s %d\\n\", argc > 1 ? argv[1] : \"none\", h + 1);\n  return 0;\n}\n")
    (tmp_path / "out.txt").write_text("hello 42\n")
    (tmp_path / "progs.toml").write_text('[[programs]]\nname = "echo"\nsources = ["app/echo.cu"]\n'
                                         'args = ["hello"]\nexpected = "out.txt"\n')
    p = hipport("validate", tmp_path / "app", "--programs", tmp_path / "progs.toml", "--run",
                "--no-compile", "--no-cache", "--format", "json", env={"HIPPORT_NO_GPU": "1"})
    doc = json.loads(p.stdout)
    (r,) = [r for r in doc["details"]["runs"] if r["program"] == "echo"]
    assert r["args"] == ["hello"] and r["expected"].endswith("out.txt")
    assert r["emulator"]["ref32"]["stdout"] == "hello 42\n"
    assert r["emulator"]["port64"]["status"] == "pass", r["emulator"]["port64"]
    assert p.returncode == 0, p.stderr.decode()


# --- programs that check themselves ------------------------------------------------------------

SELF_CHECK = (b"#include <cstdio>\n#include <cstdlib>\n#include <cuda_runtime.h>\n"
              b"__global__ void sq(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
              b" if (i < n) x[i] = x[i] * x[i]; }\n"
              b"int main() {\n  int N = 1 << 30;  // far too big for an emulator\n"
              b"  const int reps = 1000000;\n  float* h = (float*)malloc(N * sizeof(float));\n"
              b"  for (int i = 0; i < N; i++) h[i] = i % 7;\n  float* d; cudaMalloc(&d, N * sizeof(float));\n"
              b"  cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice);\n"
              b"  sq<<<(N + 63) / 64, 64>>>(d, N);\n"
              b"  float* o = (float*)malloc(N * sizeof(float));\n"
              b"  cudaMemcpy(o, d, N * sizeof(float), cudaMemcpyDeviceToHost);\n"
              b"  for (int i = 0; i < N; i++) if (o[i] != h[i] * h[i]) { printf(\"wrong at %d\\n\", i); return 1; }\n"
              b"  printf(\"All results match.\\n\");\n  fflush(stdout);\n"
              b"  for (int r = 0; r < reps; r++) sq<<<(N + 63) / 64, 64>>>(d, N);  // the benchmark\n"
              b"  printf(\"time %d\\n\", reps);\n  return 0;\n}\n")


def test_shrunk_rewrites_integer_initialisers_and_defines() -> None:
    from hipport.validate.project import shrunk

    text = ("int main() {\n    int B = 8;\n    const long num_parameters = 1048576; // 1M\n"
            "    int64_t V = 50257, X = 3;\n#define N 1024 // rows\n    int Bx = 9;\n    float B2 = 1;\n}\n")
    out, missing = shrunk(text, (("B", "2"), ("num_parameters", "4096"), ("V", "257"), ("N", "16"),
                                 ("Q", "1"), ("B2", "3")))
    assert "int B = 2;" in out and "const long num_parameters = 4096; // 1M" in out
    assert "int64_t V = 257, X = 3;" in out and "#define N 16 // rows" in out
    assert "int Bx = 9;" in out and "float B2 = 1;" in out  # other names, and non-integers, kept
    assert missing == ["Q", "B2"]


def test_programs_file_rejects_bad_passed_when_and_shrink(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("int main() { return 0; }\n")
    for bad, what in (('passed_when = "("', "regular expression"), ('shrink = { B = "two" }', "NAME = integer"),
                      ("shrink = { B = true }", "NAME = integer")):
        (tmp_path / "p.toml").write_text(f'[[programs]]\nsources = ["a.cu"]\n{bad}\n')
        p = hipport("validate", tmp_path / "a.cu", "--programs", tmp_path / "p.toml", "--run", "--no-compile",
                    "--no-cache", env={"HIPPORT_NO_GPU": "1"})
        assert p.returncode == 2 and what in p.stderr.decode(), p.stderr.decode()


def test_run_until_stops_a_real_process_at_the_line(tmp_path: Path) -> None:
    import re
    import sys
    import time

    from hipport.validate import emulator

    script = tmp_path / "slow.py"
    script.write_text("import sys, time\nprint('checking', flush=True)\nprint('All results match.', flush=True)\n"
                      "time.sleep(60)\nprint('never')\n")
    launcher = tmp_path / "slow"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(0o755)
    t0 = time.monotonic()
    p, line = emulator.run_until(launcher, [], 30, re.compile("All results match"))
    assert time.monotonic() - t0 < 10 and p.returncode == 0 and line == "All results match."
    assert p.stdout == "checking\nAll results match.\n"
    script.write_text("print('wrong at 3', flush=True)\nraise SystemExit(1)\n")
    p, line = emulator.run_until(launcher, [], 30, re.compile("All results match"))
    assert line is None and p.returncode == 1 and "wrong at 3" in p.stdout


@needs_emulator
def test_program_passes_by_its_own_check_at_the_sizes_given(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "selfcheck.cu").write_bytes(SELF_CHECK)
    before = (tmp_path / "app" / "selfcheck.cu").read_bytes()
    (tmp_path / "progs.toml").write_text('[[programs]]\nname = "selfcheck"\nsources = ["app/selfcheck.cu"]\n'
                                         'passed_when = "All results match"\nshrink = { N = 1000 }\n')
    p = hipport("validate", tmp_path / "app", "--programs", tmp_path / "progs.toml", "--run", "--no-compile",
                "--no-cache", "--format", "json", "--timeout", "60", env={"HIPPORT_NO_GPU": "1"})
    doc = json.loads(p.stdout)
    (r,) = doc["details"]["runs"]  # the configured entry replaced the program found for the file
    for leg in ("ref32", "port64"):
        assert r["emulator"][leg]["status"] == "pass", r["emulator"][leg]
        assert r["emulator"][leg]["against"] == "its own check"
        assert "time" not in r["emulator"][leg]["stdout"]  # stopped before the benchmark
    assert (tmp_path / "app" / "selfcheck.cu").read_bytes() == before  # shrunk in a copy
    assert p.returncode == 0, p.stderr.decode()
    # a name the file does not initialise is a build error that says so
    (tmp_path / "progs.toml").write_text('[[programs]]\nname = "selfcheck"\nsources = ["app/selfcheck.cu"]\n'
                                         'passed_when = "All results match"\nshrink = { M = 1 }\n')
    p = hipport("validate", tmp_path / "app", "--programs", tmp_path / "progs.toml", "--run", "--no-compile",
                "--no-cache", "--format", "json", "--timeout", "60", env={"HIPPORT_NO_GPU": "1"})
    (r,) = json.loads(p.stdout)["details"]["runs"]
    assert "shrink: no integer initialiser or #define of M" in r["emulator"]["port64"]["reason"]
    assert p.returncode == 1
