"""Results cached by content hash: an unchanged file under an unchanged config costs a lookup.

The cache is data only (JSON text in SQLite rows and in snapshot files, read back through
`hipport.codec`, which checks every field), so a cache folder that someone else wrote can at
worst cost a rebuild. By default it lives in the user's cache folder, one folder per input
tree keyed by the tree's real path, not inside the tree: a repository cannot ship one.

One SQLite file per cache folder. A result is stored in two parts: a small `meta` (status,
counts, names defined) that every run loads, and the `detail` (edits and findings) that is
loaded only when a command needs it. A stat table maps a path and its (size, mtime, inode)
to its content key, so an unchanged file is not even read (a Makefile's row also holds the
stats of the files it includes, whose contents its key holds); an output table remembers what
`port -o` last wrote, so an up-to-date output is not rewritten. Beside the database, a
snapshot per command and config holds its whole last run: when every file and output still
has the stat it had, the run is that snapshot, and nothing else is opened. Every key holds
hipport's version, the configuration and the rule tables' digest (the pipeline's salt).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hipport import codec
from hipport.model import Edit, FileResult, Finding, evolve
from hipport.paths import user_cache

try:  # hashlib's own blake2b, without loading OpenSSL: 5 ms of every run, a no-op one too
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

FORMAT = 4  # 4: JSON rows and snapshots (3 held pickles)
KEEP_SNAPSHOTS = 8
DB_NAME = f"results-v{FORMAT}.sqlite"
_SCHEMA = {
    "r": "CREATE TABLE r (k TEXT PRIMARY KEY, meta TEXT, detail TEXT)",
    "s": "CREATE TABLE s (path TEXT PRIMARY KEY, sig TEXT, k TEXT, role TEXT)",
    "o": "CREATE TABLE o (path TEXT PRIMARY KEY, sig TEXT, k TEXT)",
}


def key(data: bytes, role: str, salt: str) -> str:
    h = blake2b(digest_size=20)
    h.update(salt.encode())
    h.update(role.encode())
    h.update(data)
    return h.hexdigest()


def stat_sig(st: os.stat_result, salt: str) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{salt}"


def default_folder(paths: Sequence[Path]) -> Path:
    """The first input's tree's folder in the user cache (never inside the tree: a
    repository must not be able to ship one); `--cache-dir` puts it elsewhere."""
    first = paths[0] if paths else Path(".")
    return tree_folder(first if first.is_dir() else first.parent)


def tree_folder(root: Path) -> Path:
    """The default cache folder of an input tree: in the user cache, named by its real path
    (as ruff and mypy keep theirs per project), so two checkouts never share results."""
    real = os.path.realpath(root)
    tag = blake2b(real.encode("utf-8", "surrogateescape"), digest_size=10).hexdigest()
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))[:40]
    return user_cache() / "trees" / f"{name or 'root'}-{tag}"


def make_private(folder: Path) -> None:
    """Create `folder` (and parents) readable by this user only: others on a shared machine
    must not be able to plant entries."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A whole run, to answer the same command over an untouched tree with stats alone."""

    paths: list[str]  # the files, in order
    stats: list[list[int]]  # their (size, mtime, inode); [] where missing
    targets: list[str | None]  # their outputs, if the command writes any
    outs: list[list[int] | None]  # the outputs' (size, mtime, inode)
    cached: int
    defined: list[str]
    statuses: dict[str, int]
    files: bytes = field(repr=False)  # the results as JSON (`codec.load_files`), decoded when used
    deps: list[str] = field(default_factory=list)  # files besides these that results depend on
    # (a Makefile's includes), each list as the pipeline's `_deps_sig` writes it


def _snapshot_path(folder: Path, key: str) -> Path:
    return folder / f"run-{key}.json"


def load_snapshot(folder: Path, key: str) -> Snapshot | None:
    """The snapshot, or None when absent, damaged or of another format (a normal run)."""
    try:
        with open(_snapshot_path(folder, key), "rb") as f:
            head, _, files = f.read().partition(b"\n")
        h = json.loads(head)
        if type(h) is not dict or h.get("format") != [FORMAT, codec.FORMAT]:
            return None
        snap = Snapshot(h["paths"], h["stats"], h["targets"], h["outs"], h["cached"], h["defined"],
                        h["statuses"], files, h["deps"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    ok = (type(snap.paths) is list and type(snap.stats) is list and type(snap.targets) is list
          and type(snap.outs) is list and type(snap.cached) is int and type(snap.statuses) is dict
          and type(snap.defined) is list and all(type(d) is str for d in snap.defined)
          and type(snap.deps) is list and all(type(d) is str for d in snap.deps)
          and all(type(v) is int for v in snap.statuses.values()))
    return snap if ok else None


def save_snapshot(folder: Path, key: str, snap: Snapshot) -> None:
    head = {"format": [FORMAT, codec.FORMAT], "paths": snap.paths, "stats": snap.stats,
            "targets": snap.targets, "outs": snap.outs, "cached": snap.cached,
            "defined": snap.defined, "statuses": snap.statuses, "deps": snap.deps}
    data = codec.dumps(head).encode("utf-8")
    from hipport.workspace import write_atomic

    try:
        write_atomic(_snapshot_path(folder, key), data + b"\n" + snap.files, mode=0o600)
    except OSError:  # a full or read-only cache folder costs the next run speed, nothing else
        return
    # One snapshot per command and config: keep the few used last, not every one ever made.
    others = sorted(folder.glob("run-*.json"), key=_mtime, reverse=True)
    for old in others[KEEP_SNAPSHOTS:]:
        old.unlink(missing_ok=True)


def _row_path(path: str) -> str:
    """A path as an SQLite key. A name's bytes that are not UTF-8 (surrogate escapes, which
    SQLite cannot bind) are written as JSON escapes; a name spelled with a literal `\\udcff`
    could share that key, but the stat signature stored with it still tells the two apart."""
    if path.isascii() or not codec.SURROGATE.search(path):
        return path
    return codec.SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", path)


def _row_paths(paths: list[str]) -> tuple[list[str], dict[str, str]]:
    """The keys of `paths`, and the path of each key that differs from its path."""
    keys = [_row_path(p) for p in paths]
    return keys, {k: p for k, p in zip(keys, paths, strict=True) if k is not p}


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # removed meanwhile by another run
        return 0


class Cache:
    """The result database of one cache folder. A damaged database is replaced, a row that
    does not decode is dropped; each says so once in `notes`. Failures to store are notes
    too: the cache can make a run faster, never make it fail."""

    def __init__(self, folder: Path, readonly: bool = False) -> None:
        self.folder = folder
        self.notes: list[str] = []
        self._dropped = 0
        db = folder / DB_NAME
        if readonly:  # a pool worker's lookups while the parent owns the writes
            self.db = self._connect(f"file:{quote(os.fsencode(db))}?mode=ro", uri=True)
            return
        make_private(folder)
        gi = folder / ".gitignore"
        if not gi.exists():
            try:
                gi.write_text("# written by hipport: the cache is not for version control\n*\n")
            except OSError:
                pass
        try:
            self.db = self._open(db)
        except sqlite3.DatabaseError as e:
            self.notes.append(f"note: the cache database {db} was damaged ({e}); rebuilt it")
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            self.db = self._open(db)

    @staticmethod
    def _connect(target: str, uri: bool = False) -> sqlite3.Connection:
        db = sqlite3.connect(target, uri=uri)
        # Schema objects (views, triggers) of a database that hipport did not make run no
        # functions; the tables are checked against `_SCHEMA` before use anyway.
        db.execute("PRAGMA trusted_schema=OFF")
        return db

    def _open(self, path: Path) -> sqlite3.Connection:
        db = self._connect(str(path))
        try:
            tables = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type != 'index'"))
            if tables and tables != _SCHEMA:
                raise sqlite3.DatabaseError("tables that hipport did not make")
            # The cache is disposable: trade crash durability for speed (no fsync per commit).
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")
            for sql in _SCHEMA.values():
                db.execute(sql.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
            db.commit()
        except sqlite3.DatabaseError:
            db.close()
            raise
        os.chmod(path, 0o600)
        return db

    def _select(self, sql: str, keys: list[str]) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        try:
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                rows.extend(self.db.execute(sql.format(",".join("?" * len(chunk))), chunk))
        except sqlite3.DatabaseError as e:  # damaged under us: every lookup is a miss
            self._note_damage(e)
            return []
        return rows

    def _note_damage(self, e: Exception) -> None:
        msg = f"note: the cache in {self.folder} could not be used ({e}); it is rebuilt next run"
        if msg not in self.notes:
            self.notes.append(msg)
        try:
            (self.folder / DB_NAME).unlink(missing_ok=True)
        except OSError:
            pass

    def _drop(self, k: str) -> None:
        self._dropped += 1
        try:
            with self.db:
                self.db.execute("DELETE FROM r WHERE k = ?", (k,))
        except sqlite3.DatabaseError:
            pass  # read-only (a worker's connection): the parent replaces it on the next put

    def metas(self, keys: list[str]) -> dict[str, FileResult]:
        """Results without their edits and findings (`pending` names the detail to load)."""
        out: dict[str, FileResult] = {}
        for k, v in self._select("SELECT k, meta FROM r WHERE k IN ({})", keys):
            try:
                r = codec.load_meta(v)
            except codec.Invalid:  # not written by this hipport: a miss, rebuilt
                self._drop(k)
                continue
            out[k] = evolve(r, pending=k)
        return out

    def details(self, keys: list[str]) -> dict[str, tuple[list[Edit], list[Finding]]]:
        out = {}
        for k, v in self._select("SELECT k, detail FROM r WHERE k IN ({})", keys):
            try:
                out[k] = codec.load_detail(v)
            except codec.Invalid:
                self._drop(k)
        return out

    def _put(self, sql: str, rows: Sequence[tuple[str, ...]]) -> None:
        if not rows:
            return
        try:
            with self.db:
                self.db.executemany(sql, rows)
        except sqlite3.DatabaseError as e:  # a full disk, a damaged file: the next run rebuilds
            self._note_damage(e)

    def put_many(self, rows: list[tuple[str, str, str]]) -> None:
        """Store results as (key, meta JSON, detail JSON), encoded by the workers that made
        them (`codec.dump_meta`, `codec.dump_detail`)."""
        self._put("INSERT OR REPLACE INTO r VALUES (?, ?, ?)", rows)

    def has_results(self) -> bool:
        try:
            return self.db.execute("SELECT 1 FROM r LIMIT 1").fetchone() is not None
        except sqlite3.DatabaseError as e:
            self._note_damage(e)
            return False

    def stats(self, paths: list[str]) -> dict[str, tuple[str, str, str]]:
        keys, back = _row_paths(paths)
        return {back.get(p, p): (sig, k, role) for p, sig, k, role
                in self._select("SELECT path, sig, k, role FROM s WHERE path IN ({})", keys)
                if type(p) is str and type(sig) is str and type(k) is str and type(role) is str}

    def put_stats(self, rows: list[tuple[str, str, str, str]]) -> None:
        self._put("INSERT OR REPLACE INTO s VALUES (?, ?, ?, ?)",
                  [(_row_path(p), *rest) for p, *rest in rows])

    def outputs(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        keys, back = _row_paths(paths)
        return {back.get(p, p): (sig, k) for p, sig, k
                in self._select("SELECT path, sig, k FROM o WHERE path IN ({})", keys)
                if type(p) is str and type(sig) is str and type(k) is str}

    def put_outputs(self, rows: list[tuple[str, str, str]]) -> None:
        self._put("INSERT OR REPLACE INTO o VALUES (?, ?, ?)", [(_row_path(p), *rest) for p, *rest in rows])

    def close(self) -> list[str]:
        """Close the database; the notes to show the user."""
        if self._dropped:
            self.notes.append(f"note: dropped {self._dropped} cache entr"
                              f"{'y' if self._dropped == 1 else 'ies'} that this hipport did not "
                              f"write, in {self.folder}; rebuilt")
        try:
            self.db.close()
        except sqlite3.Error:
            pass
        return self.notes
