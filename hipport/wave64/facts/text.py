"""Text helpers: whole-word searches over the bytes of a file, without compiling a pattern per
file (`word_hits`, `WordSet`, `Ranges`)."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

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
    """Names to find as whole words (`\\bname\\b`) without compiling a pattern per file: plain
    identifiers are looked up among the words of a range (`Ranges.word_matches`: the same
    matches, since a word can only match where it starts and ends on a boundary); any other
    name keeps a compiled pattern."""

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


class Ranges:
    """Whether a pattern matches inside each of many ranges of a file (the values of its
    assignments), from one scan of their union: in a chain `x = x = ... = v` each value holds
    the next, so searching every range again was quadratic in the chain's length.

    The ranges are a syntax tree's nodes: nested or disjoint, and starting and ending on
    token boundaries, so a match lies inside a range exactly when it starts and ends there."""

    __slots__ = ("data", "outer")

    def __init__(self, data: bytes, ranges: list[tuple[int, int]]) -> None:
        self.data = data
        outer: list[tuple[int, int]] = []
        for start, end in sorted(ranges):
            if outer and start <= outer[-1][1]:
                if end > outer[-1][1]:
                    outer[-1] = (outer[-1][0], end)
            else:
                outer.append((start, end))
        self.outer = outer

    def matches(self, rx: re.Pattern[bytes]) -> tuple[list[int], list[int]]:
        """The (starts, ends) of `rx`'s matches in the ranges, in file order."""
        starts: list[int] = []
        ends: list[int] = []
        for start, end in self.outer:
            for m in rx.finditer(self.data, start, end):
                starts.append(m.start())
                ends.append(m.end())
        return starts, ends

    def word_matches(self, words: WordSet) -> tuple[list[int], list[int]]:
        """`matches` of a WordSet's pattern: its plain words among the ranges' words, and
        its other names through their pattern."""
        starts: list[int] = []
        ends: list[int] = []
        found = words.words
        if found:
            for start, end in self.outer:
                for m in WORD.finditer(self.data, start, end):
                    if m.group() in found:
                        starts.append(m.start())
                        ends.append(m.end())
        if words.rx is not None:
            more = self.matches(words.rx)
            pairs = sorted(zip(starts + more[0], ends + more[1], strict=True))
            starts, ends = [a for a, _ in pairs], [b for _, b in pairs]
        return starts, ends


def inside(found: tuple[list[int], list[int]], start: int, end: int) -> bool:
    """Whether a match of `found` (`Ranges.matches`) lies whole in data[start:end]."""
    starts, ends = found
    i = bisect_left(starts, start)
    while i < len(starts) and starts[i] < end:
        if ends[i] <= end:
            return True
        i += 1
    return False


def directives(rx: re.Pattern[bytes], data: bytes) -> Iterator[tuple[int, re.Match[bytes]]]:
    """(line start, match) of each match of `rx`, a pattern that starts at a directive's `#`,
    where only spaces and tabs stand before it on its line: what `^[ \\t]*` + `rx` finds under
    re.M (whose match starts at the line start), but the search skips from `#` to `#` where the
    anchored pattern tries every byte of the file (ten times slower on real code)."""
    pos = 0
    while True:
        m = rx.search(data, pos)
        if m is None:
            return
        start = m.start()
        line = data.rfind(b"\n", 0, start) + 1
        if line == start or not data[line:start].strip(b" \t"):
            yield line, m
            pos = max(m.end(), start + 1)
        else:
            pos = start + 1  # (a `#` inside a line: the anchored pattern never starts there)
