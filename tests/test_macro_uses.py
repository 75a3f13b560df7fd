"""Every failing use of an unported construct carries its finding (issue 33): a `#define` body
is compiled where the macro is used, so each use of a macro whose body holds an unported name
(HP001/HP002/HP003) gets the finding, one per use site, and `lint --diff-base` sees the use a
change adds. The lines hipcc rejects are the lines with findings (real hipcc)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import hipport, needs_hipcc

SRC = """#include <cuda_runtime.h>
int uses_before(int x);
#define CHECK(x) cudaTotallyMadeUpCall(x)
#define LOC cudaMemLocationTypeHost
#ifdef CHECK
// CHECK(3) in a comment
#endif
void h() {
  CHECK(1);
  const char* s = "CHECK(4)";
  CHECK (2);
  int t = LOC;
  (void)s; (void)t;
}
"""


def _findings(path: Path, *extra: str) -> list[tuple[int, str]]:
    p = hipport("lint", path, "--format", "json", "--no-cache", *extra)
    return [(f["line"], f["rule"]) for f in json.loads(p.stdout)["findings"]]


def test_each_use_of_a_macro_with_an_unported_name_carries_the_finding(tmp_path: Path) -> None:
    k = tmp_path / "k.cu"
    k.write_text(SRC)
    got = _findings(k)
    # the definitions (where the fix goes) and each expansion: not the comment, the string, #ifdef
    assert got == [(3, "HP002"), (4, "HP003"), (9, "HP002"), (11, "HP002"), (12, "HP003")]
    p = hipport("lint", k, "--no-cache", "-q")
    assert "k.cu:9:3: warning: [HP002] cudaTotallyMadeUpCall" in p.stdout.decode()
    assert "(through macro CHECK, defined at line 3)" in p.stdout.decode()
    # a suppression on the use line silences that use only
    k.write_text(SRC.replace("  CHECK(1);", "  CHECK(1);  // hipport: ignore[HP002]"))
    assert [ln for ln, _ in _findings(k)] == [3, 4, 11, 12]


def test_a_macro_defined_after_a_line_or_in_a_branch_amd_never_compiles_does_not_reach_it(tmp_path: Path) -> None:
    k = tmp_path / "k.cu"
    k.write_text("#include <cuda_runtime.h>\nint f() { return LATE(1); }\n"
                 "#define LATE(x) cudaTotallyMadeUpCall(x)\n"
                 "#ifdef __HIP_PLATFORM_NVIDIA__\n#define NV(x) cudaTotallyMadeUpCall(x)\n#endif\n"
                 "int g() { return NV(2) + LATE(3); }\n")
    assert [f for f in _findings(k) if f[1].startswith("HP00")] == [(3, "HP002"), (7, "HP002")]


@pytest.mark.hipcc
@needs_hipcc
def test_the_lines_hipcc_rejects_are_the_lines_with_findings(tmp_path: Path) -> None:
    k = tmp_path / "k.cu"
    k.write_text(SRC)
    out = tmp_path / "out"
    assert hipport("port", k, "-o", out, "--no-cache").returncode in (0, 1)
    ported = next(out.rglob("k.*"))
    assert ported.read_text().count("\n") == SRC.count("\n")  # the lines are the original's
    p = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "-c", str(ported),
                        "-o", os.devnull], capture_output=True, text=True,
                       env={**os.environ, "HIP_PLATFORM": "amd"}, timeout=300)
    failing = {int(m.group(1)) for m in re.finditer(r"k\.\w+:(\d+):\d+: error:", p.stderr)}
    assert failing, p.stderr
    flagged = {ln for ln, rule in _findings(k) if rule in ("HP001", "HP002", "HP003")}
    assert failing <= flagged, (failing, flagged)


HEADER = """#pragma once
#ifndef CHECK_CUH
#define CHECK_CUH
#define CHECK(x) cudaTotallyMadeUpCall(x)
#define LOC cudaMemLocationTypeHost
#ifdef __HIP_PLATFORM_NVIDIA__
#define NV(x) cudaOtherMadeUpCall(x)
#endif
#define OK(x) cudaMalloc(x, 4)
#endif
"""
USER = """#include <cuda_runtime.h>
#include "check.cuh"
void h(void** p) {
  CHECK(1);
  int t = LOC;
  NV(2);
  OK(p);
  (void)t;
}
"""


def test_a_macro_of_an_included_header_carries_its_finding_to_each_use(tmp_path: Path) -> None:
    """The header defines it (its include guard is no branch); the .cu uses it: the .cu's lines
    fail to build, so they carry the finding, naming the header's line. A define in a branch
    only the header's own analysis can judge (NVIDIA-only here) is left out."""
    (tmp_path / "check.cuh").write_text(HEADER)
    k = tmp_path / "k.cu"
    k.write_text(USER)
    got = [f for f in json.loads(hipport("lint", k, "--format", "json", "--no-cache").stdout)["findings"]
           if f["rule"].startswith("HP00")]
    assert [(f["line"], f["rule"]) for f in got] == [(4, "HP002"), (5, "HP003")]
    assert got[0]["message"].endswith("(through macro CHECK, defined at check.cuh:4)")
    # the file's own define of the name is the one in effect
    k.write_text(USER.replace('#include "check.cuh"\n', '#include "check.cuh"\n#undef CHECK\n#define CHECK(x) x\n'))
    got = [f for f in json.loads(hipport("lint", k, "--format", "json", "--no-cache").stdout)["findings"]
           if f["rule"].startswith("HP00")]
    assert [(f["line"], f["rule"]) for f in got] == [(7, "HP003")]
