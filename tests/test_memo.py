"""hipport.memo.Lru: bounded by entries and, given a weight, by what its entries hold."""

from __future__ import annotations

from hipport.memo import Lru


def test_entries_past_either_bound_go_oldest_first() -> None:
    by_count: Lru[str, int] = Lru(2)
    for k in "abc":
        by_count.put(k, ord(k))
    assert "a" not in by_count and len(by_count) == 2
    by_count.get("b")  # refreshed: "c" is now the oldest
    by_count.put("d", 0)
    assert "b" in by_count and "c" not in by_count


def test_a_weighed_memo_counts_each_value_once_even_when_replaced() -> None:
    held: Lru[str, bytes] = Lru(100, 10, lambda _k, v: len(v))
    held.put("a", b"x" * 4)
    held.put("a", b"x" * 6)  # replaced: 6 held, not 10
    held.put("b", b"x" * 4)
    assert "a" in held and "b" in held
    held.put("c", b"x" * 3)  # 13 > 10: the oldest goes
    assert "a" not in held and "b" in held and "c" in held
    held.put("d", b"x" * 50)  # heavier than the bound alone: kept, everything else dropped
    assert list(held._items) == ["d"]
