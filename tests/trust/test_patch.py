"""`port --diff` is a patch that `git apply` and `patch -p1` accept, and applying it gives
exactly the bytes `port -o` writes: over the bundled examples and fixtures, and over the
awkward cases (CRLF, no final newline, U+2028 in a comment, renamed files, odd names)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, hipport
from tests.trust.conftest import KERNEL, snapshot

ODD = {
    "crlf.cu": KERNEL.replace(b"\n", b"\r\n"),
    "no_newline.cu": KERNEL.rstrip(b"\n"),
    "separator.cu": b"// a line\xe2\x80\xa8separator and a\xe2\x80\xa9paragraph\n" + KERNEL,
    "sp ace\tand \"quote\".cu": KERNEL,
    "caf\xc3\xa9.cuh".encode("latin-1").decode("utf-8"): KERNEL.replace(b"int main()", b"int other()"),
    "empty.cu": b"",
    "only_bom.cu": b"\xef\xbb\xbf",
}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _tree(root: Path, bundled: bool) -> Path:
    if bundled:
        for folder in ("examples", "fixtures"):
            shutil.copytree(ROOT / folder, root / folder, symlinks=True)
    odd = root / "odd"
    odd.mkdir(parents=True, exist_ok=True)
    for name, data in ODD.items():
        (odd / name).write_bytes(data)
    return root


# The odd files cover renames; the bundled tree covers volume.
@pytest.mark.parametrize("bundled, rename", [(False, False), (False, True), (True, False)],
                         ids=["odd-files", "odd-files-renamed", "examples-and-fixtures"])
def test_the_diff_applies_and_gives_the_ported_tree(tmp_path: Path, rename: bool, bundled: bool) -> None:
    repo = _tree(tmp_path / "repo", bundled)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    extra = ["--rename-extensions"] if rename else []
    expected_dir = tmp_path / "expected"
    assert hipport("port", ".", "-o", expected_dir, "--no-cache", *extra, cwd=repo).returncode in (0, 1)
    diff = hipport("port", "odd" if not bundled else ".", "--diff", "--no-cache", *extra, cwd=repo)
    assert diff.returncode in (0, 1) and diff.stdout.startswith(b"diff --git "), diff.stderr
    (tmp_path / "p.diff").write_bytes(diff.stdout)
    expected = snapshot(expected_dir)
    if not bundled:
        expected = {k: v for k, v in expected.items() if k.startswith("odd/")}

    by_git = tmp_path / "by-git"
    shutil.copytree(repo, by_git, symlinks=True)
    r = subprocess.run(["git", "apply", "--check", str(tmp_path / "p.diff")], cwd=by_git, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    _git(by_git, "apply", str(tmp_path / "p.diff"))
    shutil.rmtree(by_git / ".git")
    got = {k: v for k, v in snapshot(by_git).items() if bundled or k.startswith("odd/")}
    assert got == expected

    by_patch = tmp_path / "by-patch"
    shutil.copytree(repo, by_patch, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    r = subprocess.run(["patch", "-p1", "--quiet", "--batch", "-i", str(tmp_path / "p.diff")],
                       cwd=by_patch, capture_output=True)
    assert r.returncode == 0, (r.stdout + r.stderr).decode()
    got = {k: v for k, v in snapshot(by_patch).items() if bundled or k.startswith("odd/")}
    assert got == expected


def test_the_diff_names_paths_from_the_repository_top(tmp_path: Path) -> None:
    repo = _tree(tmp_path / "repo", False)
    _git(repo, "init", "-q")
    diff = hipport("port", ".", "--diff", "--no-cache", cwd=repo / "odd").stdout
    assert b"diff --git a/odd/crlf.cu b/odd/crlf.cu\n" in diff
    assert b'"a/odd/sp ace\\tand \\"quote\\".cu"' in diff  # git's quoting
    assert b"\\ No newline at end of file\n" in diff


def test_diff_base_takes_only_a_revision(tmp_path: Path) -> None:
    repo = _tree(tmp_path / "repo", False)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    p = hipport("lint", ".", "--diff-base=--output=stolen.txt", "--no-cache", cwd=repo)
    assert p.returncode == 2 and not (repo / "stolen.txt").exists()
    (repo / "odd" / "new file \"q\".cu").write_bytes(KERNEL)
    (repo / "odd" / "crlf.cu").write_bytes(KERNEL.replace(b"\n", b"\r\n") + b"__global__ void z(float* a) "
                                           b"{ a[1] = __shfl_down_sync(0xffffffff, a[1], 8); }\r\n")
    _git(repo, "add", "-A")  # tracked, so git diff (not ls-files) names it, quoted
    p = hipport("lint", ".", "--diff-base", "HEAD", "--format", "json", "--no-cache", cwd=repo)
    import json

    found = {(f["path"], f["line"]) for f in json.loads(p.stdout)["findings"]}
    assert any(path.endswith('new file "q".cu') for path, _ in found)
    assert {line for path, line in found if path.endswith("crlf.cu")} == {4}


def test_opcodes_rebuild_the_new_lines_from_random_edits() -> None:
    """The patience diff behind --diff: every edit script it gives turns a into b exactly,
    on inputs full of repeated lines (`}`, blanks), where anchors are scarce."""
    import random

    from hipport.linediff import opcodes

    rng = random.Random(7)
    pool = [b"}\n", b"\n", b"{\n", b"x;\n"] + [b"a%d\n" % i for i in range(12)]
    for _ in range(2000):
        a = [rng.choice(pool) for _ in range(rng.randint(0, 40))]
        b = list(a)
        for _ in range(rng.randint(0, 6)):
            k = rng.randint(0, len(b))
            what = rng.random()
            if what < 0.4 or not b:
                b.insert(k, rng.choice(pool + [b"new\n"]))
            elif what < 0.7:
                b[min(k, len(b) - 1)] = b"changed\n"
            else:
                del b[min(k, len(b) - 1)]
        ops, out, at = opcodes(a, b), [], (0, 0)
        for tag, i1, i2, j1, j2 in ops:
            assert (i1, j1) == at
            if tag == "equal":
                assert a[i1:i2] == b[j1:j2]
            out += b[j1:j2]
            at = (i2, j2)
        assert at == (len(a), len(b)) and out == b


def test_the_diff_of_a_file_of_many_kernels_applies(tmp_path: Path) -> None:
    """A generated file of 3,000 kernels (the scaling benchmark's): its --diff applies with
    git apply and gives port -o's bytes (difflib took seconds here; the patience diff does not)."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import kernel_scaling
    finally:
        sys.path.pop(0)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "k.cu").write_bytes(kernel_scaling.kernels_file(3000))
    _git(repo, "init", "-q")
    assert hipport("port", "k.cu", "-o", tmp_path / "out", "--no-cache", cwd=repo).returncode in (0, 1)
    diff = hipport("port", "k.cu", "--diff", "--no-cache", cwd=repo)
    assert diff.returncode in (0, 1) and diff.stdout.startswith(b"diff --git "), diff.stderr
    (tmp_path / "p.diff").write_bytes(diff.stdout)
    _git(repo, "apply", str(tmp_path / "p.diff"))
    assert (repo / "k.cu").read_bytes() == (tmp_path / "out" / "k.cu").read_bytes()
