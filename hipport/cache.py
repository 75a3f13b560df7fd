"""Results cached by content hash: an unchanged file under an unchanged config costs a lookup.

One SQLite file per cache folder; values are pickled FileResults without their bytes.
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
from dataclasses import replace
from pathlib import Path

from hipport import __version__
from hipport.model import FileResult

FORMAT = 1


def key(data: bytes, role: str, salt: str) -> str:
    h = hashlib.blake2b(digest_size=20)
    h.update(salt.encode())
    h.update(role.encode())
    h.update(data)
    return h.hexdigest()


def rules_digest(rules_dir: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in sorted(rules_dir.rglob("*.toml")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


class Cache:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        gi = folder / ".gitignore"
        if not gi.exists():
            gi.write_text("# written by hipport: the cache is not for version control\n*\n")
        self.db = sqlite3.connect(folder / f"results-v{FORMAT}.sqlite")
        # The cache is disposable: trade crash durability for speed (no fsync per commit).
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.execute("CREATE TABLE IF NOT EXISTS r (k TEXT PRIMARY KEY, v BLOB)")
        self.salt = f"{__version__}:{FORMAT}"

    def get_many(self, keys: list[str]) -> dict[str, FileResult]:
        out: dict[str, FileResult] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            q = f"SELECT k, v FROM r WHERE k IN ({','.join('?' * len(chunk))})"
            for k, v in self.db.execute(q, chunk):
                try:
                    out[k] = pickle.loads(v)
                except Exception:  # a stale or damaged entry is a miss, not a failure
                    continue
        return out

    def put_many(self, items: list[tuple[str, FileResult]]) -> None:
        rows = []
        for k, r in items:
            slim = replace(r, ported=None, original=None)
            rows.append((k, pickle.dumps(slim, protocol=pickle.HIGHEST_PROTOCOL)))
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO r VALUES (?, ?)", rows)

    def close(self) -> None:
        self.db.close()
