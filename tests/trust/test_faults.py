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
    p = hipport("lint", tree, "--cache-dir", read_only / "cache", "--fail-on", "info")  # fixed sites: notes
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


# A process that starts hipport's own temporaries, as writes do, and is killed (-9) with them
# half-written; or (`live`) that stays, as a run still writing would.
_WRITER = """
import os, signal, sys, time
from hipport.workspace import _temp_name, _temporary
for target in sys.argv[2:]:
    tmp = _temp_name(target)
    fd = _temporary(tmp, target)
    os.write(fd, b"half")
    print(tmp, flush=True)
if sys.argv[1] == "live":
    time.sleep(120)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _killed_mid_write(*targets: Path) -> list[Path]:
    p = subprocess.run([sys.executable, "-c", _WRITER, "kill", *map(str, targets)],
                       capture_output=True, timeout=60)
    assert p.returncode == -signal.SIGKILL, p.stderr
    return [Path(line) for line in p.stdout.decode().splitlines()]


def test_the_next_run_that_writes_there_removes_what_a_kill_9_left(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    live = subprocess.Popen([sys.executable, "-c", _WRITER, "live", str(tree / "a" / "k2.cu")],
                            stdout=subprocess.PIPE)
    try:
        assert live.stdout is not None
        writing = Path(live.stdout.readline().decode().strip())  # a run still writing: kept
        left = _killed_mid_write(tree / "a" / "k0.cu", tree / "a" / "k1.cu")
        [elsewhere] = _killed_mid_write(tree / "notes.txt")  # a folder --in-place does not write
        assert writing.is_file() and all(q.is_file() for q in left)
        dead = int(left[0].name.split(".")[-2])
        # Not hipport's own, though close: a user's files, each kept.
        decoys = [".k0.cu.hipport-tmp", f"k0.cu.{dead}.hipport-tmp", f".k0.cu.{dead}.hipport-tmp~",
                  f".k0.cu.0{dead}.hipport-tmp", f".{dead}.hipport-tmp"]
        for name in decoys:
            (tree / "a" / name).write_bytes(b"mine")
        (tree / "a" / f".d.{dead}.hipport-tmp").mkdir()
        p = hipport("port", tree, "--in-place", "--no-cache")
        assert p.returncode in (0, 1), p.stderr.decode()
        assert b"hipMalloc" in (tree / "a" / "k0.cu").read_bytes()  # the run wrote into a/
        assert not [q for q in left if q.exists()]
        assert writing.is_file() and elsewhere.is_file()
        assert all((tree / "a" / name).read_bytes() == b"mine" for name in decoys)
        assert (tree / "a" / f".d.{dead}.hipport-tmp").is_dir()
    finally:
        live.kill()
        live.wait()
    (tree / "a" / "k0.cu").write_bytes(KERNEL)  # the next write into a/ (a new process) ...
    assert hipport("port", tree, "--in-place", "--no-cache").returncode in (0, 1)
    assert not writing.exists()  # ... finds its writer dead, and removes it


def test_a_running_process_is_the_writer_only_if_it_started_before_the_file_changed() -> None:
    """An id given again: a process that started after the file was last changed did not write it."""
    from hipport.workspace import writer_may_run

    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        now = time.time()
        assert writer_may_run(sleeper.pid, now)
        assert not writer_may_run(sleeper.pid, now - 60)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert not writer_may_run(sleeper.pid, time.time())  # gone (reaped)
