"""Runs at once lose nothing: real processes racing --in-place, a held lock, a file edited
between hipport's read and its write."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from hipport.config import Config
from hipport.model import FileStatus
from tests.conftest import hipport
from tests.trust.conftest import KERNEL, snapshot


def _tree(root: Path, n: int) -> Path:
    for i in range(n):
        d = root / f"d{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        body = KERNEL.replace(b"void k(", b"void k%d(" % i).replace(b"k<<<", b"k%d<<<" % i)
        (d / f"f{i}.cu").write_bytes(body * 8 * (1 + i % 5))
    return root


def _start(err: Path, *args: str | Path) -> subprocess.Popen[bytes]:
    """A real run in the background; its report goes to a file (a full pipe would stall it)."""
    env = {**os.environ, "NO_COLOR": "1"}
    with open(err, "wb") as f:
        return subprocess.Popen([sys.executable, "-m", "hipport", *map(str, args)],
                                stdout=subprocess.DEVNULL, stderr=f, env=env)


def test_two_in_place_runs_at_once_port_every_file_once(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree", 160)
    expected_dir = tmp_path / "expected"
    assert hipport("port", tree, "-o", expected_dir, "--no-cache").returncode in (0, 1)
    expected = {k: v for k, v in snapshot(expected_dir).items() if k.endswith(".cu")}
    errs = [tmp_path / "err1", tmp_path / "err2"]
    runs = [_start(e, "port", tree, "--in-place", "-j", "2") for e in errs]
    codes = [p.wait(timeout=600) for p in runs]
    text = b"".join(e.read_bytes() for e in errs)
    assert all(c in (0, 1) for c in codes) and b"Traceback" not in text, text[-3000:]
    assert snapshot(tree) == expected  # each file ported exactly once, none corrupted
    again = hipport("port", tree, "--check", "--no-cache")
    assert again.returncode == 0, again.stderr.decode()[-2000:]


def test_a_held_lock_makes_a_second_run_exit_2(tmp_path: Path) -> None:
    from hipport import lock

    tree = _tree(tmp_path / "tree", 3)
    before = snapshot(tree)
    with lock.hold([tree]):
        p = hipport("port", tree, "--in-place", env={"HIPPORT_LOCK_TIMEOUT": "0"})
    assert p.returncode == 2
    err = p.stderr.decode()
    assert err.count("\n") == 1 and "another hipport run" in err and str(tree) in err
    assert snapshot(tree) == before


def test_a_file_edited_after_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    from hipport import engine
    from hipport.commands.port import write_in_place
    from hipport.workspace import discover

    tree = _tree(tmp_path / "tree", 2)
    files = discover([tree])
    result = engine.run(files, Config(jobs=1), engine.Need(engine.CHANGED, original=False))
    edited = files[0].path
    edited.write_bytes(b"// saved by an editor meanwhile\n")
    unwritten = write_in_place(result, files)
    assert edited.read_bytes() == b"// saved by an editor meanwhile\n"
    assert [u.path for u in unwritten] == [files[0].display] and "changed on disk" in unwritten[0].error
    assert b"hip" in files[1].path.read_bytes()  # the other file still went ahead
    assert result.count(FileStatus.FAILED) == 0  # the run is only read; the views get a copy
    shown = result.with_failed({u.path: u.error for u in unwritten})
    failed = [r for r in shown.files if r.status == FileStatus.FAILED]
    assert [r.path for r in failed] == [files[0].display] and failed[0].ported is None
    assert shown.count(FileStatus.FAILED) == 1 and shown.count(FileStatus.PORTED) == 1
    assert result.files[0].status == FileStatus.PORTED and result.files[0].ported is not None


def test_rename_extensions_never_overwrites(tmp_path: Path) -> None:
    src = tmp_path / "s"
    src.mkdir()
    (src / "a.cu").write_bytes(KERNEL)
    (src / "a.hip").write_bytes(b"// someone's own HIP file\n")
    mirror = hipport("port", src, "-o", tmp_path / "o", "--rename-extensions", "--no-cache")
    assert mirror.returncode == 1 and b"would write it over" in mirror.stdout
    assert (tmp_path / "o" / "a.hip").read_bytes() == b"// someone's own HIP file\n"
    inplace = tmp_path / "ip"
    shutil.copytree(src, inplace)
    p = hipport("port", inplace, "--in-place", "--rename-extensions", "--no-cache")
    assert p.returncode == 1 and b"already exists" in p.stdout
    assert snapshot(inplace) == snapshot(src)
