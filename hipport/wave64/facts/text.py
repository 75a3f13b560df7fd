"""Text helpers: whole-word searches over the bytes of a file, without compiling a pattern per
file (`word_hits`, `WordSet`, `range_words`)."""

from __future__ import annotations

import re

WORD = re.compile(rb"\w+")
SPACES = re.compile(r"\s+")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def word_hits(data: bytes, names: list[str]) -> list[tuple[int, int, str]] | None:
    """(start, end, name) of every whole-word occurrence of `names` in `data`, in file order: what
    `re.finditer(rb"\\b(" + b"|".join(map(re.escape, names)) + rb")\\b", data)` finds, found with
    bytes.find. None when a name is not a plain identifier (the caller keeps the pattern then)."""
    hits = []
    n = len(data)
    for name in set(names):
        b = name.encode()
        if not b or not WORD.fullmatch(b):
            return None
        size = len(b)
        i = data.find(b)
        while i >= 0:
            j = i + size
            if (i == 0 or data[i - 1] not in _WORD_BYTES) and (j == n or data[j] not in _WORD_BYTES):
                hits.append((i, j, name))
            i = data.find(b, i + 1)
    hits.sort()
    return hits


class WordSet:
    """Whether `re.compile(b"|".join(rb"\\b" + re.escape(n) + rb"\\b" for n in names)).search(data, start, end)`
    matches, without compiling a pattern per file: plain identifiers are looked up among the words of the
    range (the same matches, since a word can only match where it starts and ends on a boundary);
    any other name keeps a compiled pattern."""

    __slots__ = ("words", "rx")

    def __init__(self, names) -> None:
        words = set()
        other = []
        for n in names:
            b = n.encode()
            if b and WORD.fullmatch(b):
                words.add(b)
            else:
                other.append(b"\\b" + re.escape(b) + b"\\b")
        self.words = words
        self.rx = re.compile(b"|".join(other)) if other else None

    def hits(self, data: bytes, start: int, end: int, words: set[bytes]) -> bool:
        """Whether the pattern matches in data[start:end], whose words (`range_words`) are `words`."""
        if self.rx is not None and self.rx.search(data, start, end):
            return True
        return not self.words.isdisjoint(words)


def range_words(data: bytes, start: int, end: int) -> set[bytes]:
    """The words that lie whole in data[start:end] (a word cut by `start` is no match for \\bname\\b)."""
    if start > 0 and data[start - 1] in _WORD_BYTES:
        m = WORD.match(data, start, end)
        if m is not None:
            start = m.end()
    return set(WORD.findall(data, start, end))

