"""A cached result answers only for what it was made from: the file's bytes, the headers it
read (a changed `#define WARP_SZ` in an included header changes the findings, on every cache
path), and it names its file as this run would, whatever folder made it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import hipport

KERNEL = b"""#include <cuda_runtime.h>
#include "warp.h"
__global__ void k(float* d, int n) {
  int lane = threadIdx.x % WARP_SZ;
  int warp = threadIdx.x / WARP_SZ;
  __shared__ float part[256 / WARP_SZ];
  float v = d[threadIdx.x];
  v += __shfl_xor_sync(0xffffffff, v, 16);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  d[threadIdx.x] = part[warp] + lane;
}
"""
OTHER = b"__global__ void other(float* d) { d[threadIdx.x] = 0.0f; }\n"
AT_32 = {"W004", "W005", "W007"}  # what WARP_SZ 32 adds (the lane and warp ids, the per-warp array)


def _tree(root: Path) -> Path:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "main.cu").write_bytes(KERNEL)
    (root / "src" / "other.cu").write_bytes(OTHER)
    (root / "src" / "deep" / "below.cu").write_bytes(KERNEL)  # finds warp.h a folder up
    _header(root, 32)
    return root


def _header(root: Path, size: int) -> None:
    """Rewrite the header in place (same inode, new size and mtime), as an editor may."""
    with open(root / "src" / "warp.h", "wb") as f:
        f.write(b"#pragma once\n#define WARP_SZ %d\n" % size)


def _run(*args: str | Path, cwd: Path | None = None) -> tuple[int, object]:
    """(exit code, findings and file statuses) of a JSON run, timings left out."""
    p = hipport(*args, "--format", "json", cwd=cwd)
    assert p.stdout, p.stderr.decode()
    data = json.loads(p.stdout)
    assert "Traceback" not in p.stderr.decode()
    return p.returncode, (sorted((f["path"], f["line"], f["rule"]) for f in data["findings"]),
                          sorted((f["path"], f["status"]) for f in data["files"]))


def _rules(shown: tuple[int, object], path: str) -> set[str]:
    return {rule for p, _, rule in shown[1][0] if p == path}  # type: ignore[index]


def test_a_header_changed_under_a_warm_cache_changes_the_findings(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "repo")
    cache = ("--cache-dir", tmp_path / "cache")
    src = tree / "src"

    def lint() -> tuple[int, object]:
        got = _run("lint", src, *cache)
        assert got == _run("lint", src, "--no-cache")
        return got

    first = lint()
    assert AT_32 <= _rules(first, f"{src}/main.cu") and AT_32 <= _rules(first, f"{src}/deep/below.cu")
    again = json.loads(hipport("lint", src, *cache, "--format", "json").stdout)
    assert again["summary"]["cached"] == len(again["files"]) == 4  # the cache answers an unchanged tree

    _header(tree, 64)  # the snapshot path: nothing but the header changed
    at64 = lint()
    assert not AT_32 & _rules(at64, f"{src}/main.cu") and not AT_32 & _rules(at64, f"{src}/deep/below.cu")

    _header(tree, 32)  # the stat path: another file changed too, so no snapshot answers,
    (src / "other.cu").write_bytes(OTHER + b"// edited\n")  # but main.cu's stat is as stored
    assert lint() == first

    _header(tree, 64)  # the content path: main.cu touched (new stat, same bytes)
    os.utime(src / "main.cu", ns=(0, 10**18))
    os.utime(src / "deep" / "below.cu", ns=(0, 10**18))
    assert lint() == at64


def test_a_header_that_appears_nearer_the_file_is_seen(tmp_path: Path) -> None:
    """The lookup takes the nearest header: one made beside the file (where none was)
    changes what the file reads, with no change to any file it read before."""
    tree = _tree(tmp_path / "repo")
    src = tree / "src"
    cache = ("--cache-dir", tmp_path / "cache")
    first = _run("lint", src, *cache)
    assert AT_32 <= _rules(first, f"{src}/deep/below.cu")
    (src / "deep" / "warp.h").write_bytes(b"#pragma once\n#define WARP_SZ 64\n")
    got = _run("lint", src, *cache)
    assert got == _run("lint", src, "--no-cache")
    assert not AT_32 & _rules(got, f"{src}/deep/below.cu") and AT_32 <= _rules(got, f"{src}/main.cu")


def test_in_place_ports_see_a_header_change(tmp_path: Path) -> None:
    """`port --in-place` twice (the second finds its files as the first left them, in the
    cache too), then the header changes and nothing else: the third port reports what the
    same three ports without the cache report, and leaves the same bytes."""
    runs, files = {}, {}
    for name, extra in (("cached", ("--cache-dir", str(tmp_path / "cache"))), ("uncached", ("--no-cache",))):
        tree = _tree(tmp_path / name)
        runs[name] = [_run("port", tree / "src", "--in-place", *extra) for _ in range(2)]
        _header(tree, 64)
        runs[name].append(_run("port", tree / "src", "--in-place", *extra))
        files[name] = {str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*")) if p.is_file()}
    strip = str(tmp_path / "cached"), str(tmp_path / "uncached")
    assert json.dumps(runs["cached"]).replace(*strip) == json.dumps(runs["uncached"])
    assert files["cached"] == files["uncached"]
    main = f"{tmp_path}/cached/src/main.cu"
    assert AT_32 <= _rules(runs["cached"][1], main) and not AT_32 & _rules(runs["cached"][2], main)


def test_a_mirror_port_sees_a_header_change(tmp_path: Path) -> None:
    """`port -o` answered from its snapshot (nothing changed) until the header changes."""
    tree = _tree(tmp_path / "repo")
    cache = ("--cache-dir", tmp_path / "cache")
    first = [_run("port", tree / "src", "-o", tmp_path / "out", *cache) for _ in range(2)]
    assert first[0] == first[1] and AT_32 <= _rules(first[1], f"{tree}/src/main.cu")
    _header(tree, 64)
    got = _run("port", tree / "src", "-o", tmp_path / "out", *cache)
    assert got == _run("port", tree / "src", "-o", tmp_path / "out2", "--no-cache")
    assert not AT_32 & _rules(got, f"{tree}/src/main.cu")


def _git_repo(root: Path) -> Path:
    _tree(root)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    for cmd in (["git", "init", "-q", "."], ["git", "add", "-A"], ["git", "commit", "-qm", "init"]):
        subprocess.run(cmd, cwd=root, check=True, env=env, capture_output=True)
    return root


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("first_from", ["root", "src"])
def test_cached_results_name_files_as_the_run_that_reads_them(tmp_path: Path, first_from: str) -> None:
    """`lint src/main.cu` from the root, then `lint main.cu` from src/ (and the other way
    round): each names the file as its own command line did, in SARIF, JSON and text,
    exactly as it does without the cache (SARIF once said `src/src/main.cu`)."""
    repo = _git_repo(tmp_path / "repo")
    cache = str(tmp_path / "cache")
    runs = {"root": (repo, "src/main.cu"), "src": (repo / "src", "main.cu")}
    order = [first_from, *(k for k in runs if k != first_from)]

    def outputs(where: str, *extra: str) -> dict[str, bytes]:
        cwd, name = runs[where]
        out = {}
        for fmt in ("sarif", "json", "text"):
            p = hipport("lint", name, "--format", fmt, "--fail-on", "info", "--show-fixed", *extra, cwd=cwd)
            assert p.returncode == 1 and "Traceback" not in p.stderr.decode()
            out[fmt] = p.stdout
        return out

    for where in order:
        with_cache = outputs(where, "--cache-dir", cache)
        without = outputs(where, "--no-cache")
        sarif = json.loads(with_cache["sarif"])
        uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
                for r in sarif["runs"][0]["results"] for loc in r["locations"]}
        assert uris == {"src/main.cu"}, (where, uris)  # from the repository's root, as SARIF wants
        assert uris == {loc["physicalLocation"]["artifactLocation"]["uri"]
                        for r in json.loads(without["sarif"])["runs"][0]["results"] for loc in r["locations"]}
        name = runs[where][1]
        assert {f["path"] for f in json.loads(with_cache["json"])["findings"]} == {name}, where
        assert json.loads(with_cache["json"])["findings"] == json.loads(without["json"])["findings"]
        text = with_cache["text"].decode()
        assert f"{name}:4:14: note: [W004]" in text and "int lane = threadIdx.x % WARP_SZ;" in text, where
        assert text.split("hipport summary")[0] == without["text"].decode().split("hipport summary")[0]


def test_a_name_defined_in_a_header_outside_the_run_is_checked_before_a_snapshot_answers(
        tmp_path: Path) -> None:
    """A run of one file (a pre-commit hook) learns the names its headers define, deeper than
    the wave64 closure goes: a snapshot keeps them, so it answers only while those headers
    are unchanged."""
    src = tmp_path / "repo"
    src.mkdir()
    (src / "a.cu").write_bytes(b'#include "h1.h"\nvoid f(float* p) { cudaCheckThing(p); }\n')
    for i in range(1, 6):
        (src / f"h{i}.h").write_bytes(b'#include "h%d.h"\n' % (i + 1))
    (src / "h6.h").write_bytes(b"#define cudaCheckThing(x) (void)(x)\n")
    cache = ("--cache-dir", tmp_path / "cache")
    first = _run("lint", src / "a.cu", *cache)
    assert "HP002" not in _rules(first, f"{src}/a.cu")
    (src / "h6.h").write_bytes(b"// no longer\n")
    got = _run("lint", src / "a.cu", *cache)
    assert got == _run("lint", src / "a.cu", "--no-cache")
    assert "HP002" in _rules(got, f"{src}/a.cu")
