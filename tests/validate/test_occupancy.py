"""Occupancy per kernel, measured by the wave emulator: lanes running over lane slots, at
wave 32 (the CUDA reference) and wave 64 (the port), checked against hand-computed values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport.validate import emulator as emu
from hipport.validate.runs import fill, occupancy_note, read_occupancy
from tests.conftest import hipport

pytestmark = [pytest.mark.emulator,
              pytest.mark.skipif(emu.compiler() is None, reason="no host C++ compiler for the emulator")]

PROGRAM = b"""#include <cstdio>
#include <cuda_runtime.h>
__global__ void full(float* a) { a[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }
__global__ void small_block(float* a) { a[blockIdx.x * blockDim.x + threadIdx.x] += 2.0f; }
// The first 32 threads reduce with 32-lane shuffles; the other threads only load.
__global__ void first_warp(float* a, float* out) {
  float v = a[threadIdx.x];
  if (threadIdx.x < 32) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o, 32);
    if (threadIdx.x == 0) *out = v;
  }
}
int main() {
  float *d, *r, h;
  cudaMalloc(&d, 1024 * sizeof(float));
  cudaMalloc(&r, sizeof(float));
  cudaMemset(d, 0, 1024 * sizeof(float));
  full<<<4, 256>>>(d);
  small_block<<<8, 32>>>(d);
  first_warp<<<1, 64>>>(d, r);
  cudaMemcpy(&h, r, sizeof(float), cudaMemcpyDeviceToHost);
  printf("sum of the first 32: %g\\n", h);
  return 0;
}
"""

# By hand. full: 256-thread blocks, no divergence: every lane of every wave runs -> 100% at
# both widths. small_block: 32-thread blocks: at wave 64 lanes 32-63 are absent -> 50%.
# first_warp, one 64-thread block: at wave 32, wave 0 runs 6 segments (the start and after each
# of 5 shuffles) with 32 lanes and wave 1 one segment with 32 -> 100%; at wave 64 one wave runs
# 64 lanes to the first shuffle (the upper 32 exit), then 5 segments of 32 lanes ->
# (64 + 5 * 32) / (6 * 64) = 224 / 384 = 58.3%.
EXPECTED = {"full": (100.0, 100.0), "small_block": (100.0, 50.0), "first_warp": (100.0, 58.3)}


def test_the_three_kernels_measure_as_computed_by_hand(tmp_path: Path) -> None:
    (tmp_path / "occ.cu").write_bytes(PROGRAM)
    p = hipport("validate", tmp_path / "occ.cu", "--run", "--no-gpu", "--no-compile", "--no-cache",
                "--format", "json")
    assert p.returncode == 0, p.stdout.decode()[-3000:] + p.stderr.decode()
    rows = {r["kernel"]: r for r in json.loads(p.stdout)["occupancy"]}
    assert {k: (r["lanes busy, wave 32"], r["lanes busy, wave 64"]) for k, r in rows.items()} == EXPECTED
    assert rows["full"]["note"] == ""
    assert "blocks are smaller than a wave" in rows["small_block"]["note"]
    assert "32-lane work inside 64-lane waves" in rows["first_warp"]["note"]
    assert rows["small_block"]["wave 64 / wave 32"] == 0.5
    text = hipport("validate", tmp_path / "occ.cu", "--run", "--no-gpu", "--no-compile", "--no-cache").stdout.decode()
    assert "occupancy" in text and "58%" in text and "upper half-wave idles" in text
    report = tmp_path / "report"
    assert hipport("validate", tmp_path / "occ.cu", "--run", "--no-gpu", "--no-compile", "--no-cache",
                   "--report", report).returncode == 0
    page = (report / "index.html").read_text()
    assert "occupancy" in page and "first_warp" in page and "58.3" in page


def test_counts_file_and_note(tmp_path: Path) -> None:
    f = tmp_path / "occ.txt"
    f.write_text("k<int, 4>\t64\t6\t224\t384\nk<int, 4>\t64\t2\t128\t128\nbad line\n")
    counts = read_occupancy(f)
    assert counts == {"k<int, 4>": [8, 352, 512]}  # a kernel's launches add up
    assert fill(counts["k<int, 4>"], 64) == 352 / 512
    assert read_occupancy(tmp_path / "missing.txt") == {}
    assert occupancy_note(1.0, 0.99) == "" and occupancy_note(None, None) == ""
    assert "blocks are smaller" in occupancy_note(1.0, 0.5, 0.5)


def test_sarif_notes_each_kernel_that_idles_half_a_wave_at_its_definition(tmp_path: Path) -> None:
    import jsonschema

    from tests.test_sarif import _errors, _schema_bytes

    (tmp_path / "occ.cu").write_bytes(PROGRAM)
    p = hipport("validate", tmp_path / "occ.cu", "--run", "--no-gpu", "--no-compile", "--no-cache",
                "--format", "sarif")
    assert p.returncode == 0, p.stdout.decode()[-3000:] + p.stderr.decode()
    doc = json.loads(p.stdout)
    schema = jsonschema.Draft4Validator(json.loads(_schema_bytes()))
    assert _errors(schema, doc) == []
    notes = {r["properties"]["kernel"]: r for r in doc["runs"][0]["results"] if r["ruleId"] == "occupancy"}
    assert set(notes) == {"small_block", "first_warp"}  # `full` keeps its lanes busy
    for kernel, line, why in (("small_block", 4, "blocks are smaller"), ("first_warp", 6, "32-lane work")):
        r = notes[kernel]
        assert r["level"] == "note" and why in r["message"]["text"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("occ.cu") and loc["region"]["startLine"] == line
    assert notes["small_block"]["properties"]["wave64OverWave32"] == 0.5
