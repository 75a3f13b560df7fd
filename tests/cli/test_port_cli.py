"""The `port` command on real files: output modes, exit codes, bad input, bytes on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import ROOT, hipport

KERNEL = b"""#include <cuda_runtime.h>
__global__ void scale(float* a, float s) { a[threadIdx.x] *= s; }
int main() {
  float* d;
  cudaMalloc(&d, 64 * sizeof(float));  // cudaMalloc stays in this comment
  scale<<<1, 64>>>(d, 2.0f);
  cudaDeviceSynchronize();
  cudaFree(d);
  puts("cudaFree");
}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "proj"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "scale.cu").write_bytes(KERNEL)
    (src / "README.md").write_text("not code\n")
    (src / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\n")
    return src


def test_output_mirror_ports_and_copies(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = hipport("port", tree, "-o", out)
    assert r.returncode == 0, r.stderr
    ported = (out / "kernels" / "scale.cu").read_bytes()
    assert b"hipMalloc(&d" in ported and b"hipFree(d)" in ported
    assert b"// cudaMalloc stays in this comment" in ported
    assert b'puts("cudaFree")' in ported
    assert b"#include <hip/hip_runtime.h>" in ported and b"cuda_runtime.h" not in ported
    assert (out / "README.md").read_text() == "not code\n"
    assert (out / "CMakeLists.txt").exists()
    assert (tree / "kernels" / "scale.cu").read_bytes() == KERNEL  # input untouched


def test_only_ported_skips_other_files(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert hipport("port", tree, "-o", out, "--only-ported").returncode == 0
    assert (out / "kernels" / "scale.cu").exists()
    assert not (out / "README.md").exists()


def test_stdout_for_one_file(tree: Path) -> None:
    r = hipport("port", tree / "kernels" / "scale.cu", "-o", "-", "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"#include <hip/hip_runtime.h>")
    assert b"hipDeviceSynchronize()" in r.stdout


def test_stdout_needs_one_file(tree: Path) -> None:
    r = hipport("port", tree, "-o", "-")
    assert r.returncode == 2
    assert b"exactly one input file" in r.stderr


def test_in_place_rewrites_atomically_and_is_idempotent(tree: Path) -> None:
    f = tree / "kernels" / "scale.cu"
    os.chmod(f, 0o640)
    assert hipport("port", tree, "--in-place").returncode == 0
    once = f.read_bytes()
    assert b"hipMalloc" in once
    assert oct(f.stat().st_mode & 0o777) == "0o640"
    assert not list(tree.rglob("*.hipport-tmp"))
    assert hipport("port", tree, "--in-place", "--no-cache").returncode == 0
    assert f.read_bytes() == once
    assert hipport("port", tree, "--check", "--no-cache").returncode == 0


def test_diff_writes_nothing(tree: Path) -> None:
    r = hipport("port", tree, "--diff")
    assert r.returncode == 0
    assert b"-  cudaMalloc(&d" in r.stdout and b"+  hipMalloc(&d" in r.stdout
    assert (tree / "kernels" / "scale.cu").read_bytes() == KERNEL


def test_check_exits_1_when_something_would_change(tree: Path) -> None:
    r = hipport("port", tree, "--check")
    assert r.returncode == 1
    assert b"scale.cu: would be changed" in r.stderr
    assert (tree / "kernels" / "scale.cu").read_bytes() == KERNEL


@pytest.mark.parametrize("args", [[], ["--diff", "--check"], ["--in-place", "-o", "x"]])
def test_exactly_one_output_mode(tree: Path, args: list[str]) -> None:
    r = hipport("port", tree, *args)
    assert r.returncode == 2
    assert b"exactly one output mode" in r.stderr


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    r = hipport("port", tmp_path / "nope", "--check")
    assert r.returncode == 2
    assert b"nope: no such file or directory" in r.stderr


def test_output_inside_input_is_refused(tree: Path) -> None:
    r = hipport("port", tree, "-o", tree / "hip")
    assert r.returncode == 2
    assert b"inside the input folder" in r.stderr
    assert not (tree / "hip").exists()


def test_binary_files_and_dangling_links_are_reported_and_left_alone(tree: Path, tmp_path: Path) -> None:
    blob = b"\x7fELF\x00\x00cudaMalloc\x00" * 10
    (tree / "kernels" / "blob.cu").write_bytes(blob)
    (tree / "kernels" / "gone.cu").symlink_to(tree / "kernels" / "missing.cu")
    r = hipport("port", tree, "--in-place", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    status = {f["path"].rsplit("/", 1)[-1]: f for f in doc["files"]}
    assert status["blob.cu"]["status"] == "skipped" and "binary" in status["blob.cu"]["error"]
    assert status["gone.cu"]["status"] == "skipped" and "left alone" in status["gone.cu"]["error"]
    assert os.readlink(tree / "kernels" / "gone.cu") == str(tree / "kernels" / "missing.cu")
    assert (tree / "kernels" / "blob.cu").read_bytes() == blob
    assert (tree / "kernels" / "scale.cu").read_bytes() != KERNEL  # the rest was ported


def test_gitignore_include_exclude_and_symlinks(tree: Path, tmp_path: Path) -> None:
    (tree / ".gitignore").write_text("build/\n*.gen.cu\n")
    (tree / "build").mkdir()
    (tree / "build" / "x.cu").write_bytes(KERNEL)
    (tree / "a.gen.cu").write_bytes(KERNEL)
    (tree / "skipme.cu").write_bytes(KERNEL)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.cu").write_bytes(KERNEL)
    (tree / "link").symlink_to(outside)
    r = hipport("port", tree, "--check", "--format", "json", "--exclude", "skipme.cu")
    names = {f["path"] for f in json.loads(r.stdout)["files"]}
    assert any(n.endswith("kernels/scale.cu") for n in names)
    assert not any("build/" in n or "gen.cu" in n or "skipme" in n or "secret" in n for n in names)


def test_rename_extensions_updates_includes(tmp_path: Path) -> None:
    src = tmp_path / "p"
    src.mkdir()
    (src / "main.cu").write_bytes(b'#include "impl.cu"\n#include "util.cuh"\nint main(){}\n')
    (src / "impl.cu").write_bytes(b"__global__ void k() {}\n")
    (src / "util.cuh").write_bytes(b"#pragma once\n__device__ int f();\n")
    out = tmp_path / "o"
    assert hipport("port", src, "-o", out, "--rename-extensions").returncode == 0
    assert (out / "main.hip").exists() and (out / "impl.hip").exists() and (out / "util.cuh").exists()
    assert b'#include "impl.hip"' in (out / "main.hip").read_bytes()
    assert b'#include "util.cuh"' in (out / "main.hip").read_bytes()


def test_json_summary_counts_families(tree: Path) -> None:
    r = hipport("port", tree, "--check", "--format", "json")
    doc = json.loads(r.stdout)
    s = doc["summary"]
    assert s["files_scanned"] == 2 and s["files_changed"] == 2  # the .cu and its CMakeLists.txt
    assert s["families"]["runtime"] == {"found": 3, "ported": 3, "unsupported": 0}
    assert s["families"]["headers"]["ported"] == 1
    assert doc["version"] == 1


def test_warm_run_uses_the_cache(tree: Path) -> None:
    hipport("port", tree, "--check", "--format", "json")
    r = hipport("port", tree, "--check", "--format", "json")
    assert json.loads(r.stdout)["summary"]["cached"] == 2  # scale.cu and CMakeLists.txt
    assert not (tree / ".hipport-cache").exists()  # the cache lives in the user cache folder


def test_version_and_help() -> None:
    r = hipport("--version")
    assert r.returncode == 0 and r.stdout.startswith(b"hipport ")
    h = hipport("port", "--help")
    assert h.returncode == 0
    for opt in (b"--output", b"--in-place", b"--diff", b"--check", b"--rename-extensions",
                b"--launch-syntax", b"--wave-strategy"):
        assert opt in h.stdout


def test_warm_mirror_run_rewrites_nothing_and_repairs_a_touched_output(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert hipport("port", tree, "-o", out).returncode == 0
    target = out / "kernels" / "scale.cu"
    first = target.read_bytes()
    before = target.stat().st_mtime_ns
    r = hipport("port", tree, "-o", out, "--format", "json")
    assert json.loads(r.stdout)["summary"]["cached"] == 2  # scale.cu and CMakeLists.txt
    assert target.stat().st_mtime_ns == before  # up to date: not rewritten
    target.write_bytes(b"edited by hand\n")
    assert hipport("port", tree, "-o", out).returncode == 0
    assert target.read_bytes() == first  # a changed output is written again
    src = tree / "kernels" / "scale.cu"
    src.write_bytes(KERNEL.replace(b"cudaFree(d);", b"cudaFree(d); cudaFree(d);"))
    assert hipport("port", tree, "-o", out).returncode == 0
    assert target.read_bytes().count(b"hipFree(d)") == 2  # an edited source is ported again


SUPPRESSED = b"""#include <hip/hip_runtime.h>
__global__ void k(float* out, float v) {
  // hipport: ignore[W006]
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}
"""


def test_a_suppressed_finding_is_neither_reported_nor_fixed(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_bytes(SUPPRESSED)
    assert hipport("port", f, "--check", "--no-cache").returncode == 0  # nothing to change
    unsuppressed = tmp_path / "u.cu"
    unsuppressed.write_bytes(SUPPRESSED.replace(b"  // hipport: ignore[W006]\n", b""))
    r = hipport("port", unsuppressed, "-o", "-", "--no-cache")
    assert b"__shfl_down(v, o, 32)" in r.stdout  # the same loop is fixed when not suppressed
    lint = hipport("lint", f, "--format", "json", "--no-cache")
    assert "W006" not in {x["rule"] for x in json.loads(lint.stdout)["findings"]}


def test_a_symlink_loop_inside_the_root_is_walked_once(tree: Path) -> None:
    (tree / "kernels" / "loop").symlink_to(tree)
    r = hipport("port", tree, "--check", "--format", "json")
    names = [f["path"] for f in json.loads(r.stdout)["files"]]
    assert sum(n.endswith("scale.cu") for n in names) <= 2


def test_a_warm_run_reports_exactly_what_the_cold_run_did(tmp_path: Path) -> None:
    """The second run is answered from the run snapshot; its findings come from the cache."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    runs = [json.loads(hipport("port", ROOT / "examples", "-o", out, "--cache-dir", cache,
                               "--format", "json").stdout) for _ in range(2)]
    for doc in runs:
        doc["summary"].pop("seconds")
    assert runs[0]["summary"].pop("cached") == 0 and runs[1]["summary"].pop("cached") > 0
    assert runs[0]["findings"] and runs[0] == runs[1]
