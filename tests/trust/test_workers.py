"""Pool workers are real processes, held to three promises: a run killed outright (kill -9)
leaves no worker behind and no lock held (its workers never hold the folder's lock, end within
5 s of it, and the next `--in-place` goes ahead); and a tree's config cannot start more
workers than the cores the run may use."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hipport import lock
from tests.conftest import hipport
from tests.trust.conftest import KERNEL, snapshot

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")


def _write_tree(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"d{i % 4}"
        d.mkdir(parents=True, exist_ok=True)
        body = KERNEL.replace(b"void k(", b"void k%d(" % i).replace(b"k<<<", b"k%d<<<" % i)
        # A comment makes the file big enough for a pool (hipport.pipeline.WORKER_BYTES a worker)
        # at little cost to port: each of the tests below ports the tree many times.
        (d / f"f{i}.cu").write_bytes(body * 4 + b"// padding to share the tree among workers\n" * 160)


def _parent_and_state(pid: int) -> tuple[int, str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), fields[0].decode()


def _alive(pid: int) -> bool:
    got = _parent_and_state(pid)
    return got is not None and got[1] not in ("Z", "X")


def _cmdline(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return None


def _workers(pid: int) -> list[int]:
    """The pool workers of the run `pid`: its children forked from it (the same command line)."""
    cmdline = _cmdline(pid)
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and cmdline is not None
            and (_parent_and_state(int(n)) or (0, ""))[0] == pid and _cmdline(int(n)) == cmdline]


def _end(pids: list[int], cmdline: bytes | None) -> None:
    """Kill what is left of the test's own processes (those still running its command line)."""
    for p in pids:
        if _alive(p) and cmdline is not None and _cmdline(p) == cmdline:
            os.kill(p, signal.SIGKILL)


def _holds(pid: int, path: Path) -> bool:
    """Has process `pid` the file `path` open?"""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                return True
        except OSError:
            pass
    return False


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    """The processes still running after `seconds` (polled)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def test_kill_9_mid_run_leaves_no_worker_and_no_stuck_lock(tmp_path: Path) -> None:
    tree, expected_dir = tmp_path / "tree", tmp_path / "expected"
    _write_tree(tree, 40)  # a pool of 2 (hipport.pipeline.WORKER_BYTES a worker)
    assert hipport("port", tree, "-o", expected_dir, "--no-cache").returncode in (0, 1)
    expected = snapshot(expected_dir)
    lock_file = lock.lock_path(tree)
    env = {**os.environ, "NO_COLOR": "1"}
    locks_seen = 0
    for trial in range(10):
        run = subprocess.Popen([sys.executable, "-m", "hipport", "port", str(tree), "--in-place",
                                "--no-cache", "-j", "2"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        workers: list[int] = []
        cmdline = None
        try:
            deadline = time.monotonic() + 120
            while len(workers) < 2 and run.poll() is None and time.monotonic() < deadline:
                workers = _workers(run.pid)
                time.sleep(0.01)
            cmdline = _cmdline(run.pid)
            assert len(workers) == 2, f"trial {trial}: no pool of 2 workers came up"
            if _holds(run.pid, lock_file):  # the run holds the lock; its workers never do
                locks_seen += 1
                assert not [w for w in workers if _holds(w, lock_file)], f"trial {trial}: a worker holds the lock"
            run.kill()
            assert run.wait() == -signal.SIGKILL, f"trial {trial}: the run ended before the kill"
            assert _gone_within(workers, 5.0) == [], f"trial {trial}: workers outlived the run by 5 s"
        finally:  # nothing of this test's outlives it
            run.kill()
            run.wait()
            _end(workers, cmdline)
        after = hipport("port", tree, "--in-place", "--no-cache", env={"HIPPORT_LOCK_TIMEOUT": "0"})
        assert after.returncode in (0, 1), f"trial {trial}: {after.stderr.decode()[-800:]}"
        assert b"another hipport run" not in after.stderr
        assert snapshot(tree) == expected, f"trial {trial}: the tree is not the port"
        _write_tree(tree, 40)  # the CUDA tree again, for the next kill
    assert locks_seen > 0  # the look at the workers' descriptors happened at least once


_ORPHAN = textwrap.dedent("""
    import os, sys, time
    from hipport import interrupt
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        interrupt.end_with(parent, kernel=sys.argv[1] == "kernel")
        time.sleep(120)
        os._exit(0)
    print(child, flush=True)
    time.sleep(120)
""")


@pytest.mark.parametrize("how", ["kernel", "watch"])
def test_a_forked_worker_ends_with_its_parent(how: str) -> None:
    """The parent-death signal, and the thread that watches the parent id where the kernel
    cannot be asked: either way the child of a process killed with -9 ends within 5 s."""
    p = subprocess.Popen([sys.executable, "-c", _ORPHAN, how], stdout=subprocess.PIPE)
    assert p.stdout is not None
    child = int(p.stdout.readline())
    cmdline = _cmdline(p.pid)
    try:
        time.sleep(0.3)
        assert _alive(child)  # alive while its parent is
        p.send_signal(signal.SIGKILL)
        p.wait()
        assert _gone_within([child], 5.0) == []
    finally:
        p.kill()
        p.wait()
        _end([child], cmdline)


def test_a_trees_jobs_setting_never_starts_more_workers_than_cores(tmp_path: Path) -> None:
    mine = sorted(os.sched_getaffinity(0))
    if len(mine) < 2:
        pytest.skip("needs two cores to see a pool")
    tree = tmp_path / "tree"
    _write_tree(tree, 80)  # enough files for a pool of 10
    (tree / ".hipport.toml").write_text("jobs = 50\n")
    env = {**os.environ, "NO_COLOR": "1"}
    run = subprocess.Popen([sys.executable, "-m", "hipport", "lint", str(tree), "--no-cache",
                            "--fail-on", "never", "--format", "json"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                           preexec_fn=lambda: os.sched_setaffinity(0, mine[:2]))  # a 2-core machine
    most: list[int] = []
    cmdline = None
    try:
        while run.poll() is None:
            now = _workers(run.pid)
            most = max(most, now, key=len)
            cmdline = cmdline or _cmdline(run.pid)
            time.sleep(0.01)
        assert run.stderr is not None
        err = run.stderr.read().decode()
    finally:
        run.kill()
        run.wait()
        _end(most, cmdline)
    assert run.returncode == 0, err
    assert len(most) == 2, most  # a pool, of one worker per core
    assert f"jobs = 50 (from {tree / '.hipport.toml'}) asks for more workers than the 2 cores" in err
