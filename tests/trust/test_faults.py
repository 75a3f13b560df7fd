"""Faults of the machine end in one line naming the path, never a traceback, a 0-byte file
or a temporary left behind: a full disk (a small tmpfs, and `ulimit -f`), a read-only
folder, a kill in the middle of a run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import hipport
from tests.trust.conftest import KERNEL, cuda_tree


@contextmanager
def _tmpfs(where: Path, opts: str) -> Iterator[Path]:
    """A real small filesystem mounted at `where` for the test (root only)."""
    where.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with _tmpfs(tmp_path / "disk", "size=12k") as disk:
        yield disk


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    with _tmpfs(tmp_path / "ro", "ro,size=4k") as ro:
        yield ro


def _big_tree(root: Path, n: int = 40) -> Path:
    cuda_tree(root)
    for i in range(n):
        (root / "a" / f"big{i}.cu").write_bytes(KERNEL * 60)  # 14 kB: past `ulimit -f 8`
    return root


def _no_partial_files(folder: Path) -> None:
    for p in folder.rglob("*"):
        assert not p.name.endswith(".hipport-tmp"), p
        if p.is_file():
            assert p.stat().st_size > 0, f"{p} is a 0-byte file"


def test_a_full_disk_fails_the_files_that_did_not_fit(tmp_path: Path, small_disk: Path) -> None:
    tree = _big_tree(tmp_path / "repo")
    p = hipport("port", tree, "-o", small_disk / "out", "--no-cache")
    text = (p.stdout + p.stderr).decode()
    assert p.returncode == 1 and "Traceback" not in text
    assert "No space left on device" in text and str(small_disk / "out") in text
    _no_partial_files(small_disk)


def test_a_file_size_limit_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    tree = _big_tree(tmp_path / "repo")
    out = tmp_path / "out"
    script = f"ulimit -f 8; exec {sys.executable} -m hipport port {tree} -o {out} --no-cache -j 1"
    p = subprocess.run(["bash", "-c", script], capture_output=True, timeout=300,
                       env={**os.environ, "NO_COLOR": "1"})
    text = (p.stdout + p.stderr).decode()
    assert p.returncode == 1 and "Traceback" not in text, text[-2000:]
    assert "File too large" in text
    _no_partial_files(out)


def test_a_read_only_output_folder_exits_2_before_any_work(tmp_path: Path, read_only: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    for out in (read_only, read_only / "new"):
        p = hipport("port", tree, "-o", out, "--no-cache")
        err = p.stderr.decode()
        assert p.returncode == 2 and err.count("\n") == 1 and str(read_only) in err, err
    p = hipport("report", tree, "-o", read_only / "rep", "--no-cache")
    assert p.returncode == 2 and p.stderr.decode().count("\n") == 1


def test_a_read_only_cache_folder_is_a_note(tmp_path: Path, read_only: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    p = hipport("lint", tree, "--cache-dir", read_only / "cache")
    err = p.stderr.decode()
    assert p.returncode == 1 and "Traceback" not in err and "running without it" in err


def test_a_killed_run_leaves_no_temporary_files(tmp_path: Path) -> None:
    tree = _big_tree(tmp_path / "repo", 400)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "hipport", "port", tree, "-o", out, "--no-cache",
                             "-j", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (out / "a").is_dir():
        time.sleep(0.02)
    time.sleep(0.2)  # mid-run: some outputs written, workers busy
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (143, 0), err  # 0: it finished first
    assert b"Traceback" not in err
    time.sleep(0.5)  # workers exit after the parent
    _no_partial_files(out)
