"""Which files a run takes, in a real git repository: ignore files as git reads them, and
excludes applied to named files with --force-exclude (pre-commit names every staged file)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from hipport import workspace
from hipport.workspace import discover
from tests.conftest import hipport


def _files(p: subprocess.CompletedProcess[bytes]) -> list[str]:
    assert p.returncode in (0, 1), p.stderr.decode()
    return sorted(f["path"] for f in json.loads(p.stdout)["files"] if f["path"].endswith((".cu", ".cuh")))


def _repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / "src" / "sub").mkdir(parents=True)
    (r / "src" / "third").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=r, check=True)
    (r / ".gitignore").write_text("*.cuh\nthird/\n")
    (r / ".git" / "info" / "exclude").write_text("skip.cu\n")
    (r / "src" / "sub" / ".gitignore").write_text("!keep.cuh\n")
    for f in ("a.cu", "skip.cu", "x.cuh", "sub/keep.cuh", "sub/other.cuh", "third/t.cu"):
        (r / "src" / f).write_text("int x;\n")
    return r


def test_ignore_files_are_read_as_git_reads_them(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    expected = ["src/a.cu", "src/sub/keep.cuh"]  # info/exclude, the top .gitignore, a negation
    assert _files(hipport("lint", "src", "--format", "json", "--no-cache", cwd=r)) == expected
    tracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "src"], cwd=r,
                             capture_output=True, text=True, check=True).stdout.split()
    assert sorted(t for t in tracked if t.endswith((".cu", ".cuh"))) == expected  # git agrees
    inner = hipport("lint", ".", "--format", "json", "--no-cache", cwd=r / "src")
    assert _files(inner) == ["a.cu", "sub/keep.cuh"]  # rules above the folder still apply


def test_force_exclude_applies_excludes_to_named_files(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    named = ["src/third/t.cu", "src/a.cu"]
    assert _files(hipport("lint", *named, "--exclude", "third/**", "--format", "json",
                          "--no-cache", cwd=r)) == sorted(named)
    assert _files(hipport("lint", *named, "--exclude", "third/**", "--force-exclude",
                          "--format", "json", "--no-cache", cwd=r)) == ["src/a.cu"]
    (r / "pyproject.toml").write_text('[tool.hipport]\nexclude = ["third/**"]\nforce-exclude = true\n')
    assert _files(hipport("lint", *named, "--format", "json", "--no-cache", cwd=r)) == ["src/a.cu"]


# -- Listing through git, and the walker that stands in for it ---------------------------

def _git(r: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=r, check=True,
                   capture_output=True)


def _listed(r: Path, **kw: Any) -> list[str]:
    return [wf.rel for wf in discover([r], **kw)]


def _git_repo(tmp_path: Path) -> Path:
    """Nested .gitignore files with a negation, an info/exclude entry, an untracked file,
    tracked files a .gitignore covers (one in an ignored folder), a tracked file deleted
    since, and a nested repository."""
    r = tmp_path / "repo"
    (r / "src" / "sub").mkdir(parents=True)
    _git(r, "init", "-q")
    (r / ".gitignore").write_text("*.cuh\nbuild/\nk*.cu\n")
    (r / "src" / ".gitignore").write_text("gen_*.cu\n")
    (r / "src" / "sub" / ".gitignore").write_text("!keep.cu\n")
    (r / ".git" / "info" / "exclude").write_text("local.cu\n")
    for f in ("a.cu", "gen_x.cu", "local.cu", "x.cuh", "kill.cu", "sub/keep.cu", "sub/kill.cu",
              "vendored.cuh", "gone.cu", "build/b.cu"):
        (r / "src" / f).parent.mkdir(parents=True, exist_ok=True)
        (r / "src" / f).write_text("int x;\n")
    _git(r, "add", ".")
    _git(r, "add", "-f", "src/vendored.cuh", "src/build/b.cu")  # tracked, though ignored
    _git(r, "commit", "-qm", "start")
    (r / "src" / "gone.cu").unlink()  # still in the index
    (r / "src" / "new.cu").write_text("int y;\n")  # untracked
    (r / "src" / "a b\u00e9.cu").write_text("int w;\n")  # a space and a non-ASCII name
    (r / "src" / "to_a.cu").symlink_to("a.cu")  # links stay links, in and out of the tree
    (r / "src" / "out").symlink_to(tmp_path)
    (r / "src" / "nested").mkdir()
    _git(r / "src" / "nested", "init", "-q")
    (r / "src" / "nested" / "n.cu").write_text("int z;\n")
    return r


@pytest.mark.parametrize("version", [2, 3, 4], ids=["index-v2", "index-v3", "index-v4-prefix-compressed"])
def test_git_and_the_walker_list_the_same_files(tmp_path: Path, version: int) -> None:
    r = _git_repo(tmp_path)
    (r / "src" / "ita.cuh").write_text("int i;\n")
    _git(r, "add", "-f", "-N", "src/ita.cuh")  # intent to add: an extended-flags entry
    _git(r, "update-index", "--index-version", str(version))
    walked = _listed(r, git=False)
    listed = _listed(r)
    # git's answer, which hipport follows: a tracked file is taken though a .gitignore covers
    # it (the walker reads the index for that); a deleted one is not
    assert [f for f in listed if f.endswith((".cu", ".cuh"))] == [
        "src/a b\u00e9.cu", "src/a.cu", "src/build/b.cu", "src/ita.cuh", "src/nested/n.cu",
        "src/new.cu", "src/sub/keep.cu", "src/to_a.cu", "src/vendored.cuh"]
    assert listed == walked  # the same files in the same order (name order per folder)
    git_says = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              cwd=r, capture_output=True, check=True).stdout.decode().split("\0")
    assert set(listed) == set(git_says) - {"", "src/gone.cu", "src/nested/"} | {"src/nested/n.cu"}
    kinds = {wf.rel: wf.kind for wf in discover([r])}
    assert kinds == {wf.rel: wf.kind for wf in discover([r], git=False)}
    assert (kinds["src/to_a.cu"], kinds["src/out"]) == (workspace.LINK, workspace.LINK_OUT)
    # globs, a sub-folder and an output folder to skip behave the same either way
    for kw in ({"include": ("*.cu",)}, {"exclude": ("sub/*",)}, {"skip": (r / "src" / "sub")}):
        assert _listed(r, **kw) == _listed(r, git=False, **kw), kw
    inner = [".gitignore", "a b\u00e9.cu", "a.cu", "build/b.cu", "ita.cuh", "nested/n.cu", "new.cu",
             "out", "sub/.gitignore", "sub/keep.cu", "to_a.cu", "vendored.cuh"]
    assert _listed(r / "src") == _listed(r / "src", git=False) == inner  # rules above it apply


def test_git_is_run_so_the_tree_cannot_choose_what_runs(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    r = _git_repo(tmp_path)
    expected = {f for f in _listed(r) if f.endswith((".cu", ".cuh"))}  # vendored.cuh: git ran
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    _git(r, "config", "core.fsmonitor", str(hook))  # plain `git ls-files` would run it
    expected.add("src/bare/b.cu")  # to the outer repository, it is only files
    bare = r / "src" / "bare"  # a bare repository buried in the tree, with the same hook
    _git(r, "init", "-q", "--bare", str(bare))
    _git(bare, "config", "core.fsmonitor", str(hook))
    (bare / "b.cu").write_text("int b;\n")
    other = tmp_path / "other"
    other.mkdir()
    _git(other, "init", "-q")
    _git(r, "config", "core.worktree", str(other))  # so would a work tree set in its config
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # would list another repository
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "no-index"))

    def no_walk(*args: object) -> None:
        raise AssertionError("walked: git did not list the folder")

    monkeypatch.setattr(workspace, "_walk", no_walk)
    assert {f for f in _listed(r) if f.endswith((".cu", ".cuh"))} == expected
    assert not marker.exists()
    assert "b.cu" in _listed(bare)  # the outer repository's files: git never takes it for one
    assert not marker.exists()


def test_without_git_the_walker_lists_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _git_repo(tmp_path)
    walked = _listed(r, git=False)
    sleep = shutil.which("sleep")
    monkeypatch.setattr(workspace, "_git_missing", False)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no git
    assert _listed(r) == walked
    monkeypatch.setattr(workspace, "_git_missing", False)
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "git").write_text("#!/bin/sh\nexit 128\n")  # a git that fails
    (tmp_path / "git").chmod(0o755)
    assert _listed(r) == walked
    (tmp_path / "git").write_text(f"#!/bin/sh\nexec {sleep} 60\n")  # one that hangs
    monkeypatch.setattr(workspace, "_GIT_TIMEOUT", 0.5)
    started = time.monotonic()
    assert _listed(r) == walked
    assert 0.4 < time.monotonic() - started < 30  # killed at the timeout


@pytest.mark.parametrize("index", [b"", b"DIRC\0\0\0\2\xff\xff\xff\xff",
                                   b"DIRC\0\0\0\2\0\0\0\1" + b"\0" * 70],
                         ids=["empty", "too-many-entries", "empty-name"])
def test_a_damaged_index_only_loses_the_tracked_exception(tmp_path: Path, index: bytes) -> None:
    r = _git_repo(tmp_path)
    (r / ".git" / "index").write_bytes(index + hashlib.sha1(index).digest())  # past the checksum
    assert workspace.tracked_paths(r) is None
    assert "src/vendored.cuh" not in _listed(r, git=False)  # ignored, as with no index
