"""A bounded memo for what is found once per header content (its bytes, digest and facts): a
run's files share most of their headers, and a long run (a server, a watch loop) must not keep
every header it ever saw. Least recently used entries go first. And a pool's folder where one
worker offers what it found to the others (`shared_by_workers`): each worker has its own
memos, and on a real tree most of a run's header facts were found by several workers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from hipport.cache import blake2b
from hipport.workspace import left_by_dead, write_atomic

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most `size` entries, and where `weigh` is given, entries weighing at most `weight`
    in all (`weigh(key, value)`: a memo that holds a header's bytes counts them); `get`
    refreshes an entry, `put` drops the oldest past the bounds."""

    __slots__ = ("_items", "_weights", "_held", "size", "weight", "weigh")

    def __init__(self, size: int, weight: int = 0, weigh: Callable[[K, V], int] | None = None) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self._weights: dict[K, int] = {}
        self._held = 0
        self.size = size
        self.weight = weight
        self.weigh = weigh

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        if self.weigh is not None:
            w = self.weigh(key, value)
            self._held += w - self._weights.get(key, 0)
            self._weights[key] = w
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size or (self.weigh is not None and self._held > self.weight
                                               and len(self._items) > 1):
            old, _ = self._items.popitem(last=False)
            self._held -= self._weights.pop(old, 0)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()
        self._weights.clear()
        self._held = 0


# ---- facts shared by the workers of one pool -------------------------------------------------

# The folder a pool's workers share what one found and the others may read (None: no pool, or
# none running). The pipeline makes it private (mkdtemp) before it forks, for that pool alone,
# and removes it after; entries are JSON named by a digest of their key, written atomically,
# and the reader (hipport.wave64.facts.headers) checks each value's shape, so an entry can at
# worst be ignored.
_SHARED: str | None = None


@contextmanager
def shared_by_workers() -> Iterator[None]:
    """Within this block, `shared_get` and `shared_put` reach a folder private to this run
    (`hipport-shared-PID-*` in the temporary folder; those a killed run left are removed)."""
    global _SHARED
    try:
        folder = tempfile.mkdtemp(prefix=f"{_SHARED_PREFIX}{os.getpid()}-")
    except OSError:  # no writable temporary folder: each worker finds the facts for itself
        yield
        return
    _sweep(os.path.dirname(folder))
    _SHARED = folder
    try:
        yield
    finally:
        _SHARED = None
        shutil.rmtree(folder, ignore_errors=True)


_SHARED_PREFIX = "hipport-shared-"
_SHARED_NAME = re.compile(re.escape(_SHARED_PREFIX) + r"([1-9][0-9]{0,9})-[A-Za-z0-9_]+")


def _sweep(parent: str) -> None:
    """Remove the shared folders of runs killed outright (kill -9), this user's only."""
    for e in left_by_dead(parent, _SHARED_NAME, 1, stat.S_ISDIR):
        shutil.rmtree(e.path, ignore_errors=True)


def shared_name(key: object) -> str:
    """The entry name of a key: a digest of its repr (the same in every forked worker, which
    shares its parent's hash seed and so the order of its sets)."""
    return blake2b(repr(key).encode(), digest_size=20).hexdigest()


def shared_get(name: str) -> Any:
    """The JSON value another worker put under `name`, or None."""
    if _SHARED is None:
        return None
    try:
        with open(os.path.join(_SHARED, name), "rb") as f:
            return json.loads(f.read())
    except (OSError, ValueError):
        return None


def shared_put(name: str, value: Any) -> None:
    """Offer `value` (JSON data) to the other workers; a failed write only loses the offer."""
    if _SHARED is None:
        return
    try:
        write_atomic(os.path.join(_SHARED, name), json.dumps(value, separators=(",", ":")).encode())
    except (OSError, ValueError, TypeError):
        pass
