"""Which files a run takes, in a real git repository: ignore files as git reads them, and
excludes applied to named files with --force-exclude (pre-commit names every staged file)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

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
