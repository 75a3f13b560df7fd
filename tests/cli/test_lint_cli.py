"""`hipport lint` on real git repositories: --diff-base, --fail-on, formats, colours."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import hipport

OLD = b"""#include <hip/hip_runtime.h>
__global__ void old_sum(float* out, float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;
}
"""
NEW = b"""
__global__ void new_sum(float* out, float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);
  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;
}
"""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
                        "HOME": str(cwd), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "k.cu").write_bytes(OLD)
    git(r, "add", "k.cu")
    git(r, "commit", "-q", "-m", "legacy")
    return r


def lines(doc: dict) -> set[int]:
    return {f["line"] for f in doc["findings"]}


def test_diff_base_reports_only_what_the_change_adds(repo: Path) -> None:
    first = hipport("lint", ".", "--format", "json", "--no-cache", cwd=repo)
    assert first.stdout, first.stderr.decode()
    full = json.loads(first.stdout)
    assert lines(full) and max(lines(full)) <= 4
    (repo / "k.cu").write_bytes(OLD + NEW)
    (repo / "added.cu").write_bytes(OLD)
    r = hipport("lint", ".", "--format", "json", "--no-cache", "--diff-base", "HEAD", cwd=repo)
    doc = json.loads(r.stdout)
    in_k = {f["line"] for f in doc["findings"] if f["path"].endswith("k.cu")}
    assert in_k and min(in_k) >= 6  # the legacy lines 1-5 are not reported
    assert any(f["path"].endswith("added.cu") for f in doc["findings"])  # a new file is all new
    bad = hipport("lint", ".", "--diff-base", "no-such-rev", cwd=repo)
    assert bad.returncode == 2 and b"no-such-rev" in bad.stderr


def test_diff_base_head_before_the_first_commit_makes_every_staged_line_new(tmp_path: Path) -> None:
    """The pre-commit hook's `--diff-base HEAD` in a repository with no commit yet: the empty
    tree is the base (the first commit is checked whole); another revision that does not
    resolve is still an error."""
    r = tmp_path / "fresh"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "k.cu").write_bytes(OLD)
    git(r, "add", "k.cu")
    full = json.loads(hipport("lint", ".", "--format", "json", "--no-cache", cwd=r).stdout)
    doc = json.loads(hipport("lint", ".", "--format", "json", "--no-cache", "--diff-base", "HEAD", cwd=r).stdout)
    assert lines(doc) == lines(full) and lines(doc)
    bad = hipport("lint", ".", "--diff-base", "main", cwd=r)
    assert bad.returncode == 2 and b"--diff-base main" in bad.stderr


def test_fail_on_sets_the_exit_code(repo: Path) -> None:
    # Every site of k.cu is one the port fixes (W006 passes width 32): notes, below the bar.
    assert hipport("lint", "k.cu", "--no-cache", cwd=repo).returncode == 0  # warnings by default
    assert hipport("lint", "k.cu", "--no-cache", "--fail-on", "info", cwd=repo).returncode == 1
    (repo / "k.cu").write_bytes(OLD + b"void host(float* d) { cudaFooBar(d); }\n")  # HP002: open
    assert hipport("lint", "k.cu", "--no-cache", cwd=repo).returncode == 1
    assert hipport("lint", "k.cu", "--no-cache", "--fail-on", "error", cwd=repo).returncode == 0
    assert hipport("lint", "k.cu", "--no-cache", "--fail-on", "never", cwd=repo).returncode == 0
    assert hipport("lint", "k.cu", "--no-cache", "--select", "W", cwd=repo).returncode == 0


def test_text_and_github_formats(repo: Path) -> None:
    text = hipport("lint", "k.cu", "--no-cache", cwd=repo).stdout.decode()
    assert "k.cu:3:" not in text and "notes not shown" in text  # fixed by the port: done
    assert "ready: 1 of 1 files (100.0%), not compile-checked" in text
    text = hipport("lint", "k.cu", "--no-cache", "--show-fixed", cwd=repo).stdout.decode()
    assert "k.cu:3:16: note: [W006]" in text and "fixed (safe): pass `width = 32`" in text
    assert "\x1b[" not in text and "notes not shown" not in text
    assert hipport("lint", "k.cu", "--no-cache", "--format", "github", cwd=repo).stdout == b""
    gh = hipport("lint", "k.cu", "--no-cache", "--format", "github", "--show-fixed", cwd=repo).stdout.decode()
    assert gh.startswith("::notice file=k.cu,line=3,")


def test_no_color_turns_colours_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport.ui import UI

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert UI().color
    monkeypatch.setenv("NO_COLOR", "1")
    assert not UI().color


def test_lint_defaults_to_the_current_folder_and_quiet_drops_the_summary(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_bytes(OLD)
    full = hipport("lint", "--no-cache", "--show-fixed", "--fail-on", "info", cwd=tmp_path)
    assert full.returncode == 1 and b"k.cu:3:" in full.stdout and b"files scanned" in full.stdout
    quiet = hipport("lint", "-q", "--no-cache", "--show-fixed", "--fail-on", "info", cwd=tmp_path)
    assert quiet.returncode == 1 and b"k.cu:3:" in quiet.stdout
    assert b"files scanned" not in quiet.stdout and b"hipport summary" not in quiet.stdout
    assert quiet.stdout == full.stdout[:len(quiet.stdout)]  # the same findings, nothing else


def test_one_file_learns_the_helpers_its_headers_define(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "deep.h").write_text("inline void cudaDoThing() {}\n")
    (tmp_path / "common.h").write_text('#pragma once\n#include "inc/deep.h"\n'
                                       "#define cudaCheck(e) (void)(e)\n")
    (tmp_path / "k.cu").write_text('#include <cuda_runtime.h>\n#include "common.h"\n'
                                   "int main() { void* p; cudaCheck(cudaMalloc(&p, 4)); cudaDoThing();"
                                   " cudaNotDefinedAnywhere(); }\n")
    p = hipport("lint", "k.cu", "-q", "--no-cache", cwd=tmp_path)
    out = p.stdout.decode()
    assert "[HP002] cudaNotDefinedAnywhere" in out  # a truly unknown name is still reported
    assert "[HP002] cudaCheck" not in out and "[HP002] cudaDoThing" not in out
