"""An output never overwrites an input, and a report never deletes what it did not write."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import hipport
from tests.trust.conftest import cuda_tree, snapshot


@pytest.mark.parametrize("target", ["same", "holds", "file-folder", "inside"])
def test_an_output_folder_that_is_an_input_is_refused(tmp_path: Path, target: str) -> None:
    tree = cuda_tree(tmp_path / "repo")
    before = snapshot(tmp_path)
    src, out = {"same": (tree, tree), "holds": (tree / "a", tree),
                "file-folder": (tree / "a" / "k0.cu", tree / "a"),
                "inside": (tree, tree / "ported")}[target]
    p = hipport("port", src, "-o", out, "--no-cache")
    err = p.stderr.decode()
    assert p.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert snapshot(tmp_path) == before and not (tree / "ported").exists()


def test_an_excluded_mirror_inside_the_input_is_allowed(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    p = hipport("port", tree, "-o", tree / "ported", "--exclude", "ported/**", "--no-cache")
    assert p.returncode == 0, p.stderr
    assert (tree / "ported" / "a" / "k0.cu").is_file()


def test_report_refuses_a_folder_of_other_files_and_one_holding_an_input(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    mine = tmp_path / "docs"
    mine.mkdir()
    (mine / "index.html").write_text("my own page")
    before = snapshot(tmp_path)
    for out in (mine, tmp_path):
        p = hipport("report", tree, "-o", out, "--no-cache")
        assert p.returncode == 2 and p.stderr.decode().count("\n") == 1, p.stderr
    assert snapshot(tmp_path) == before


def test_report_rewrites_its_own_folder_and_keeps_files_added_to_it(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    rep = tmp_path / "rep"
    assert hipport("report", tree, "-o", rep, "--no-cache").returncode == 0
    (rep / "README.txt").write_text("notes I keep beside the report")
    (tree / "a" / "k2.cu").unlink()
    p = hipport("report", tree, "-o", rep, "--no-cache")
    assert p.returncode == 0 and b"1 stale pages removed" in p.stderr
    assert (rep / "README.txt").read_text() == "notes I keep beside the report"


def test_port_to_stdout_and_diff_write_nothing(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    before = snapshot(tmp_path)
    assert hipport("port", tree / "a" / "k0.cu", "-o", "-", "--no-cache").returncode == 0
    assert hipport("port", tree, "--diff", "--no-cache").returncode == 0
    assert snapshot(tmp_path) == before


def test_a_copied_file_keeps_its_bytes_mode_times_and_attributes(tmp_path: Path) -> None:
    """Files that are not ported are copied into the mirror as shutil.copy2 copies them,
    and the source is only read."""
    import os

    tree = cuda_tree(tmp_path / "repo")
    data = tree / "data.bin"
    data.write_bytes(bytes(range(256)) * 5000)  # larger than one read
    empty = tree / "EMPTY"
    empty.write_bytes(b"")
    script = tree / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    script.chmod(0o750)
    os.utime(data, ns=(1_500_000_000_123_456_789, 1_600_000_000_987_654_321))
    try:
        os.setxattr(data, "user.origin", b"lab")
        has_xattr = True
    except OSError:  # a file system without user attributes
        has_xattr = False
    before = snapshot(tree)
    p = hipport("port", tree, "-o", tmp_path / "out", "--no-cache")
    assert p.returncode == 0, p.stderr
    out = tmp_path / "out"
    assert (out / "data.bin").read_bytes() == data.read_bytes()
    assert (out / "EMPTY").read_bytes() == b""
    assert (out / "run.sh").stat().st_mode & 0o777 == 0o750
    assert (out / "data.bin").stat().st_mtime_ns == 1_600_000_000_987_654_321
    if has_xattr:
        assert os.getxattr(out / "data.bin", "user.origin") == b"lab"
    assert snapshot(tree) == before
    assert not [p for p in out.rglob("*") if p.name.endswith(".hipport-tmp")]
