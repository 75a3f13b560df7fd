"""Preprocessor lines found fast.

A pattern that starts `^` (re.M) makes Python's regex engine try every byte of a file as a
line start, in its slow path. `finditer(rx, data)` gives exactly the matches of
`rx.finditer(data)` by searching for the same pattern after a newline (a literal first
character, which the engine finds by a fast scan) and matching `rx` at the line start found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache


@cache
def _after_newline(rx: re.Pattern[bytes]) -> re.Pattern[bytes]:
    """`rx` with its '^' spelled as the newline before the line: a literal first character,
    which the engine scans for in C."""
    if not rx.pattern.startswith(b"^") or not rx.flags & re.M:
        raise ValueError(f"not a line-start pattern: {rx.pattern!r}")
    return re.compile(b"\n" + rx.pattern[1:], rx.flags)


def finditer(rx: re.Pattern[bytes], data: bytes) -> Iterator[re.Match[bytes]]:
    """The matches of `rx.finditer(data)` for a pattern `^...` (re.M), each as `rx` gives it."""
    nl = _after_newline(rx)
    end = 0  # where the last match ended: the next one starts there or later, as in finditer
    m = rx.match(data)
    if m is not None:
        yield m
        end = m.end()
    while (f := nl.search(data, max(end - 1, 0))) is not None:
        m = rx.match(data, f.start() + 1)  # the same body at the same line start: it matches
        assert m is not None
        yield m
        end = m.end()


def search(rx: re.Pattern[bytes], data: bytes) -> re.Match[bytes] | None:
    """`rx.search(data)` for such a pattern."""
    return next(finditer(rx, data), None)
