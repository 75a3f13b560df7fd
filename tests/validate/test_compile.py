"""The compile check with the real hipcc: pass, errors mapped to the CUDA line, JSON, exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hipport.validate import toolchains
from tests.conftest import hipport, needs_hipcc

pytestmark = [pytest.mark.hipcc, needs_hipcc]

GOOD = b"""// A small CUDA program that ports cleanly.
#include <cstdio>
#include <cuda_runtime.h>
#include "defs.h"

__global__ void scale(float* a, float s) { a[threadIdx.x] *= s * SCALE; }

int main() {
  float* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  scale<<<1, 64>>>(d, 2.0f);
  cudaDeviceSynchronize();
  cudaFree(d);
  printf("done\\n");
  return 0;
}
"""

# cudaDeviceGetNvSciSyncAttributes has no HIP twin: the port keeps it and hipcc rejects it.
# No runtime include: the port inserts one, so every line after it moves down by one.
BAD = b"""#include <cstdio>

__global__ void fill(int* p) { p[threadIdx.x] = 7; }

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  fill<<<1, 32>>>(d);
  cudaDeviceGetNvSciSyncAttributes(nullptr, 0, 0);
  cudaFree(d);
  return 0;
}
"""
BAD_LINE = 9


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("proj")
    (root / "src").mkdir()
    (root / "include").mkdir()
    (root / "src" / "good.cu").write_bytes(GOOD)
    (root / "src" / "bad.cu").write_bytes(BAD)
    (root / "include" / "defs.h").write_text("#pragma once\n#ifndef SCALE\n#error SCALE must be defined\n#endif\n")
    cmds = [{"directory": str(root), "file": f"src/{n}.cu",
             "command": f"nvcc -Iinclude -DSCALE=3 -std=c++17 -c src/{n}.cu -o {n}.o"} for n in ("good", "bad")]
    (root / "compile_commands.json").write_text(json.dumps(cmds))
    return root


@pytest.fixture(scope="module")
def result(project: Path) -> tuple[subprocess.CompletedProcess[bytes], dict]:
    p = hipport("validate", project / "src", "-p", project, "--offload-arch", "gfx90a", "--format", "json",
                "--no-cache")
    return p, json.loads(p.stdout)


def test_json_shape(result: tuple[subprocess.CompletedProcess[bytes], dict]) -> None:
    p, doc = result
    assert doc["version"] == 1
    assert set(doc) >= {"version", "failed", "archs", "summary", "table", "errors", "details"}
    assert doc["archs"] == ["gfx90a"]
    assert set(doc["details"]) >= {"toolchain", "archs_skipped", "compile", "runs"}
    unit = doc["details"]["compile"][0]
    assert set(unit) == {"file", "ported", "toolchain", "archs", "class", "why"}
    # every result names the toolchain that gave it: the host's HIP unless --toolchain says
    host = toolchains.amd_toolchain()
    assert host is not None and unit["toolchain"] == host.name
    assert [t["name"] for t in doc["toolchains"]] == [host.name] and doc["toolchains"][0]["root"] is None
    assert doc["warnings"] == []  # the floor (5.2) is not above the host's HIP
    assert {rec["where"] for rec in doc["errors"]} == {f"{host.name} gfx90a"}
    assert set(unit["archs"]["gfx90a"]) >= {"status", "seconds", "reason", "errors", "command"}
    for row in doc["table"]:  # a failed unit's row also says why
        assert set(row) - {"failure"} == {"file", "compile gfx90a"}
    assert any(row.get("failure", "").startswith("flagged: ") for row in doc["table"])
    for rec in doc["errors"]:
        assert set(rec) == {"file", "line", "category", "rule", "message", "where"}
    # Every value is plain JSON data (the HTML report renders it as is).
    assert json.loads(json.dumps(doc)) == doc


def test_good_unit_compiles_with_flags_from_compile_commands(result) -> None:  # noqa: ANN001
    _, doc = result
    good = next(u for u in doc["details"]["compile"] if u["file"].endswith("good.cu"))
    assert good["archs"]["gfx90a"]["status"] == "pass", good
    cmd = good["archs"]["gfx90a"]["command"]
    assert "-DSCALE=3" in cmd and "-x" in cmd and cmd[cmd.index("-x") + 1] == "hip"
    assert any(c.startswith("-I") and c.endswith("include") for c in cmd)
    assert "--offload-arch=gfx90a" in cmd


def test_error_maps_back_to_the_original_cuda_line(result, project: Path) -> None:  # noqa: ANN001
    p, doc = result
    assert p.returncode == 1  # something failed
    bad = next(u for u in doc["details"]["compile"] if u["file"].endswith("bad.cu"))
    r = bad["archs"]["gfx90a"]
    assert r["status"] == "fail"
    err = next(e for e in r["errors"] if "cudaDeviceGetNvSciSyncAttributes" in e["message"])
    assert err["file"].endswith("src/bad.cu")
    assert err["line"] == BAD_LINE  # the port added a line above it: this is the original's line
    assert err["ported_line"] == BAD_LINE + 1
    assert err["category"] == "unsupported-api"
    assert err["rule"] == "HP001"
    assert err["source"].startswith("cudaDeviceGetNvSciSyncAttributes(")
    assert doc["summary"]["compile_fail"] == 1 and doc["summary"]["compile_pass"] == 1
    # the unit's failure is one hipport reported when porting: "flagged", with the rule
    assert (bad["class"], doc["summary"]["units_flagged"], doc["summary"]["units_unexpected"]) == ("flagged", 1, 0)
    assert "HP001" in bad["why"] and bad["why"].startswith(err["file"])
    good = next(u for u in doc["details"]["compile"] if u["file"].endswith("good.cu"))
    assert (good["class"], good["why"]) == (None, None)
    assert doc["failed"] is True


def test_text_table_and_exit_code_zero(project: Path) -> None:
    p = hipport("validate", project / "src" / "good.cu", "-I", project / "include", "-D", "SCALE=2",
                "--offload-arch", "gfx90a", "--no-cache")
    out = p.stdout.decode()
    assert p.returncode == 0, out + p.stderr.decode()
    assert "good.cu" in out and "gfx90a" in out and "pass" in out and "OK" in out


def test_ported_tree_maps_through_a_diff(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "ported"
    assert hipport("port", project / "src" / "bad.cu", "-o", out, "--no-cache", "-q").returncode in (0, 1)
    p = hipport("validate", project / "src" / "bad.cu", "--ported", out / "bad.cu", "--offload-arch", "gfx90a",
                "--format", "json")
    doc = json.loads(p.stdout)
    assert p.returncode == 1
    err = next(e for u in doc["details"]["compile"] for e in u["archs"]["gfx90a"]["errors"]
               if "cudaDeviceGetNvSciSyncAttributes" in e["message"])
    assert (err["file"].endswith("bad.cu"), err["line"]) == (True, BAD_LINE)


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert hipport("validate").returncode == 2
    assert hipport("validate", tmp_path / "missing.cu").returncode == 2
    (tmp_path / "compile_commands.json").write_text("{not json")
    (tmp_path / "a.cu").write_text("int main() { return 0; }\n")
    assert hipport("validate", tmp_path / "a.cu", "-p", tmp_path).returncode == 2


def test_ported_tree_honours_include_and_exclude(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "ported"
    assert hipport("port", project / "src", "-o", out, "--no-cache", "-q").returncode in (0, 1)
    base = ("validate", "--ported", out, "-I", project / "include", "-D", "SCALE=2", "--offload-arch", "gfx90a",
            "--format", "json", "--no-cache")
    for opts, names, rc in ((("--exclude", "bad.cu"), ["good.cu"], 0), (("--include", "bad.cu"), ["bad.cu"], 1),
                            ((), ["bad.cu", "good.cu"], 1)):
        p = hipport(*base, *opts)
        doc = json.loads(p.stdout)
        assert sorted(Path(u["file"]).name for u in doc["details"]["compile"]) == names, opts
        assert p.returncode == rc, (opts, doc["errors"])
