"""A cache folder is data: whatever a tree or anyone else put there cannot run code, and a
damaged or foreign entry costs a rebuild with a one-line note, never a wrong result."""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path

import pytest

from hipport import cache as cachemod
from tests.conftest import hipport
from tests.trust.conftest import cuda_tree


class _Payload:
    """Unpickling this creates a file: proof that a pickle ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (f"touch {self.marker}",)


def _plant_pickle_db(db: Path, marker: Path) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db)
    blob = pickle.dumps(_Payload(marker))
    con.execute("CREATE TABLE results (k TEXT PRIMARY KEY, meta BLOB, detail BLOB)")
    con.execute("CREATE TABLE r (k TEXT PRIMARY KEY, meta BLOB, detail BLOB)")
    con.execute("INSERT INTO results VALUES ('x', ?, ?)", (blob, blob))
    con.execute("INSERT INTO r VALUES ('x', ?, ?)", (blob, blob))
    con.commit()
    con.close()


def _lint(tree: Path, *extra: str) -> tuple[int, object, str]:
    """(exit code, the findings and file statuses, stderr) of a JSON lint."""
    p = hipport("lint", tree, "--format", "json", *extra)
    if not p.stdout:
        return p.returncode, None, p.stderr.decode()
    data = json.loads(p.stdout)
    shown = (data["findings"], [(f["path"], f["status"], f["error"]) for f in data["files"]])
    return p.returncode, shown, p.stderr.decode()


def test_a_cache_shipped_in_the_tree_is_never_read(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    marker = tmp_path / "PWNED"
    for name in ("results-v3.sqlite", cachemod.DB_NAME):
        _plant_pickle_db(tree / ".hipport-cache" / name, marker)
    (tree / ".hipport-cache" / "run-0.marshal").write_bytes(b"\xe3" + b"\0" * 64)
    rc, out, err = _lint(tree)
    assert not marker.exists() and "Traceback" not in err
    assert (rc, out) == _lint(tree, "--no-cache")[:2] and out[0]  # type: ignore[index]


def test_a_crafted_user_cache_runs_nothing_and_is_rebuilt(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    cache = tmp_path / "cache"
    clean = _lint(tree, "--no-cache")
    marker = tmp_path / "PWNED"
    _plant_pickle_db(cache / cachemod.DB_NAME, marker)
    rc, out, err = _lint(tree, "--cache-dir", str(cache))
    assert not marker.exists() and "Traceback" not in err
    assert (rc, out) == clean[:2]
    assert err.count("note:") == 1 and "rebuilt" in err  # one line says what happened
    again = _lint(tree, "--cache-dir", str(cache))
    assert again[:2] == clean[:2] and "note:" not in again[2]  # the rebuilt cache is used


def test_rows_that_do_not_decode_are_dropped_with_a_note(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    cache = tmp_path / "cache"
    first = _lint(tree, "--cache-dir", str(cache))
    for snap in cache.glob("run-*.json"):
        snap.unlink()  # a real run reads the database
    con = sqlite3.connect(cache / cachemod.DB_NAME)
    con.execute("UPDATE r SET meta = '[\"not\", \"a result\"]', detail = '{\"x\": 1'")
    con.commit()
    con.close()
    for f in (tree / "a").iterdir():  # new stats: the contents are looked up by key
        f.touch()
    rc, out, err = _lint(tree, "--cache-dir", str(cache))
    assert (rc, out) == first[:2]
    assert "note:" in err and "Traceback" not in err


def test_a_garbage_database_or_snapshot_is_replaced(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    cache = tmp_path / "cache"
    first = _lint(tree, "--cache-dir", str(cache))
    (cache / cachemod.DB_NAME).write_bytes(b"this is not a database" * 100)
    for snap in cache.glob("run-*.json"):
        snap.write_bytes(b'{"format": [4, 1], "paths": 7}\n[[[')
    rc, out, err = _lint(tree, "--cache-dir", str(cache))
    assert (rc, out) == first[:2] and "Traceback" not in err
    assert "damaged" in err or "could not be used" in err


def test_a_database_with_a_trigger_is_not_used(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    cache = tmp_path / "cache"
    first = _lint(tree, "--cache-dir", str(cache))
    for snap in cache.glob("run-*.json"):
        snap.unlink()
    con = sqlite3.connect(cache / cachemod.DB_NAME)
    con.execute("CREATE TABLE evil (x TEXT)")
    con.execute("CREATE TRIGGER t AFTER INSERT ON s BEGIN INSERT INTO evil VALUES ('ran'); END")
    con.commit()
    con.close()
    for f in (tree / "a").iterdir():
        f.touch()
    rc, out, err = _lint(tree, "--cache-dir", str(cache))
    assert (rc, out) == first[:2] and "rebuilt" in err
    con = sqlite3.connect(cache / cachemod.DB_NAME)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")] \
        == ["r", "s", "o"]


def test_the_default_cache_is_outside_the_tree_and_private(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    before = sorted(p.name for p in tree.rglob("*"))
    rc, _, _ = _lint(tree, "--fail-on", "info")  # every site is one the port fixes: notes
    assert rc == 1 and sorted(p.name for p in tree.rglob("*")) == before
    folder = Path(hipport("cache", "dir", tree).stdout.decode().strip())
    assert folder.is_dir() and (folder / cachemod.DB_NAME).is_file()
    assert folder.stat().st_mode & 0o077 == 0
    cleared = hipport("cache", "clear", tree)
    assert cleared.returncode == 0 and not folder.exists()


def test_the_key_holds_the_version_and_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport import buildid, pipeline
    from hipport.config import Config

    a = pipeline.salt_of(Config())
    assert buildid.build_id().startswith(buildid.__version__ + "+")
    monkeypatch.setattr(pipeline, "build_id", lambda: "0.0.0-other+0")
    assert pipeline.salt_of(Config()) != a
    monkeypatch.undo()
    assert pipeline.salt_of(Config(rocm="6.0")) != a
    # an editable install after `git pull` keeps its version: the digest of its code changes
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("X = 1\n")
    (pkg / "sub" / "b.py").write_text("Y = 2\n")
    before = buildid.code_digest(pkg)
    (pkg / "sub" / "b.py").write_text("Y = 3\n")
    changed = buildid.code_digest(pkg)
    (pkg / "sub" / "b.py").write_text("Y = 2\n")
    assert changed != before == buildid.code_digest(pkg)
    (pkg / "sub" / "b.py").rename(pkg / "b2.py")  # the same bytes under another name
    assert buildid.code_digest(pkg) != before


def test_files_of_equal_content_keep_their_own_results_when_cached(tmp_path: Path) -> None:
    """Two files with the same bytes share a cached result: each must still be itself (the
    second run once gave both the same path, so a ported mirror lost one of them)."""
    from hipport.config import Config
    from hipport.pipeline import run
    from hipport.workspace import discover

    kernel = b'extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n'
    for name in ("a", "b", "c"):
        (tmp_path / "src" / name).mkdir(parents=True)
        (tmp_path / "src" / name / "k.cu").write_bytes(kernel)
    files = discover([tmp_path / "src"], (), ())
    for attempt in ("cold", "warm", "warm again"):
        r = run(files, Config(), cache_dir=tmp_path / "cache", keep_original=True)
        assert sorted(x.path for x in r.files) == sorted(wf.display for wf in files), attempt
        assert all(x.ported is not None and b"hip/hip_runtime.h" in x.ported for x in r.files), attempt
        assert len({id(x) for x in r.files}) == 3  # each its own (frozen: findings are a tuple)
        assert all(type(x.findings) is tuple for x in r.files), attempt
    out = tmp_path / "out"
    assert hipport("port", tmp_path / "src", "-o", out, "--cache-dir", tmp_path / "cache").returncode in (0, 1)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.cu")) == ["a/k.cu", "b/k.cu", "c/k.cu"]


def test_a_damaged_detail_row_is_ported_again_not_lost(tmp_path: Path) -> None:
    """Results whose metadata decodes but whose edits and findings do not (another codec
    shape, a damaged row): the file is ported again. It once came back failed and a mirror
    (validate's) silently held the unported file."""
    from hipport.config import Config
    from hipport.model import FileStatus
    from hipport.pipeline import run
    from hipport.workspace import discover

    tree = cuda_tree(tmp_path / "repo")
    cache = tmp_path / "cache"
    files = discover([tree], (), ())
    first = run(files, Config(), cache_dir=cache, keep_original=True)
    con = sqlite3.connect(cache / cachemod.DB_NAME)
    con.execute("UPDATE r SET detail = '[[], [[\"HP001\", \"warning\"]]]'")
    con.commit()
    con.close()
    again = run(files, Config(), cache_dir=cache, keep_original=True)
    assert [(r.path, r.status, r.ported) for r in again.files] == [(r.path, r.status, r.ported) for r in first.files]
    assert not any(r.status == FileStatus.FAILED for r in again.files)
    assert [[f.message for f in r.findings] for r in again.files] == [[f.message for f in r.findings] for r in first.files]


def test_the_key_holds_the_shape_of_cached_results(monkeypatch: object) -> None:
    from hipport import codec, pipeline
    from hipport.config import Config

    a = pipeline.salt_of(Config())
    monkeypatch.setattr(codec, "FORMAT", codec.FORMAT + 1)  # type: ignore[attr-defined]
    assert pipeline.salt_of(Config()) != a
