"""A bounded memo for what is found once per header content (its bytes, digest and facts): a
run's files share most of their headers, and a long run (a server, a watch loop) must not keep
every header it ever saw. Least recently used entries go first."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

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
