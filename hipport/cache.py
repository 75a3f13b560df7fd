"""Results cached by content hash: an unchanged file under an unchanged config costs a lookup.

One SQLite file per cache folder. A result is stored in two parts: a small `meta` (status,
counts, names defined) that every run loads, and the `detail` (edits and findings) that is
loaded only when a command needs it. A stat table maps a path and its (size, mtime, inode)
to its content key, so an unchanged file is not even read; an output table remembers what
`port -o` last wrote, so an up-to-date output is not rewritten. Beside the database, a
snapshot per command and config holds its whole last run: when every file and output still
has the stat it had, the run is that snapshot, and nothing else is opened.
"""

from __future__ import annotations

import marshal
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hipport.model import Edit, FileResult, Finding, evolve

try:  # hashlib's own blake2b, without loading OpenSSL: 5 ms of every run, a no-op one too
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

FORMAT = 3
KEEP_SNAPSHOTS = 8


def key(data: bytes, role: str, salt: str) -> str:
    h = blake2b(digest_size=20)
    h.update(salt.encode())
    h.update(role.encode())
    h.update(data)
    return h.hexdigest()


def stat_sig(st: os.stat_result, salt: str) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{salt}"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A whole run, to answer the same command over an untouched tree with stats alone."""

    paths: tuple[str, ...]  # the files, in order
    stats: tuple[tuple[int, ...], ...]  # their (size, mtime, inode)
    targets: tuple[str | None, ...]  # their outputs, if the command writes any
    outs: tuple[tuple[int, ...] | None, ...]  # the outputs' (size, mtime, inode)
    result: bytes  # the pickled RunResult (details stay in the database)


def load_snapshot(folder: Path, key: str) -> Snapshot | None:
    try:
        with open(folder / f"run-{key}.marshal", "rb") as f:
            fmt, *fields = marshal.loads(f.read())
        return Snapshot(*fields) if fmt == FORMAT else None
    except (OSError, EOFError, ValueError, TypeError):  # absent or damaged: a normal run
        return None


def save_snapshot(folder: Path, key: str, snap: Snapshot) -> None:
    path = folder / f"run-{key}.marshal"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(marshal.dumps((FORMAT, snap.paths, snap.stats, snap.targets, snap.outs,
                                   snap.result)))
    os.replace(tmp, path)
    # One snapshot per command and config: keep the few used last, not every one ever made.
    others = sorted(folder.glob("run-*.marshal"), key=_mtime, reverse=True)
    for old in others[KEEP_SNAPSHOTS:]:
        old.unlink(missing_ok=True)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # removed meanwhile by another run
        return 0


def pickle_meta(r: FileResult) -> bytes:
    """A result without its details and bytes, as the `meta` column and the pool carry it."""
    return pickle.dumps(evolve(r, ported=None, original=None, edits=[], findings=[]),
                        protocol=pickle.HIGHEST_PROTOCOL)


class Cache:
    def __init__(self, folder: Path, readonly: bool = False) -> None:
        import sqlite3  # not needed by a run that the snapshot answers

        db = folder / f"results-v{FORMAT}.sqlite"
        if readonly:  # a pool worker's lookups while the parent owns the writes
            self.db = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            return
        folder.mkdir(parents=True, exist_ok=True)
        gi = folder / ".gitignore"
        if not gi.exists():
            gi.write_text("# written by hipport: the cache is not for version control\n*\n")
        self.db = sqlite3.connect(db)
        # The cache is disposable: trade crash durability for speed (no fsync per commit).
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.execute("CREATE TABLE IF NOT EXISTS r (k TEXT PRIMARY KEY, meta BLOB, detail BLOB)")
        self.db.execute("CREATE TABLE IF NOT EXISTS s (path TEXT PRIMARY KEY, sig TEXT, k TEXT, role TEXT)")
        self.db.execute("CREATE TABLE IF NOT EXISTS o (path TEXT PRIMARY KEY, sig TEXT, k TEXT)")

    def _select(self, sql: str, keys: list[str]) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            rows.extend(self.db.execute(sql.format(",".join("?" * len(chunk))), chunk))
        return rows

    def metas(self, keys: list[str]) -> dict[str, FileResult]:
        """Results without their edits and findings (`pending` names the detail to load)."""
        out: dict[str, FileResult] = {}
        for k, v in self._select("SELECT k, meta FROM r WHERE k IN ({})", keys):
            try:
                r = pickle.loads(v)
            except Exception:  # a stale or damaged entry is a miss, not a failure
                continue
            r.pending = k
            out[k] = r
        return out

    def details(self, keys: list[str]) -> dict[str, tuple[list[Edit], list[Finding]]]:
        out = {}
        for k, v in self._select("SELECT k, detail FROM r WHERE k IN ({})", keys):
            try:
                out[k] = pickle.loads(v)
            except Exception:
                continue
        return out

    def put_many(self, rows: list[tuple[str, bytes, bytes]]) -> None:
        """Store results as (key, pickled meta, pickled (edits, findings)), pickled by the
        workers that made them (see `pickle_meta`)."""
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO r VALUES (?, ?, ?)", rows)

    def has_results(self) -> bool:
        return self.db.execute("SELECT 1 FROM r LIMIT 1").fetchone() is not None

    def stats(self, paths: list[str]) -> dict[str, tuple[str, str, str]]:
        return {p: (sig, k, role) for p, sig, k, role
                in self._select("SELECT path, sig, k, role FROM s WHERE path IN ({})", paths)}

    def put_stats(self, rows: list[tuple[str, str, str, str]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO s VALUES (?, ?, ?, ?)", rows)

    def outputs(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        return {p: (sig, k) for p, sig, k
                in self._select("SELECT path, sig, k FROM o WHERE path IN ({})", paths)}

    def put_outputs(self, rows: list[tuple[str, str, str]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO o VALUES (?, ?, ?)", rows)

    def close(self) -> None:
        self.db.close()
