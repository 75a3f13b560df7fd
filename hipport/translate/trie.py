"""Build one compiled regex that finds every table name in a file's bytes.

A plain alternation of thousands of names makes `re` try each alternative at each position;
folding the names into a trie first keeps the scan close to one pass over the bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def _pattern(words: list[str]) -> str:
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        end = "" in node
        branches = sorted((k, v) for k, v in node.items() if k)
        alts = [re.escape(k) + emit(v) for k, v in branches]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if end else body

    return emit(trie)


def name_pattern(names: Iterable[str], generic: Iterable[str] = ()) -> str:
    """A regex source matching whole identifiers in `names` or matching a `generic` pattern."""
    parts = [_pattern(sorted(set(names)))] + list(generic)
    body = "|".join(p for p in parts if p)
    return rf"(?<![\w$])(?:{body})(?![\w$])"

