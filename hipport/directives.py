"""Preprocessor lines found fast.

A pattern that starts `^[ \\t]*#` (re.M) makes Python's regex engine try every byte of a file
as a line start, in its slow path. `finditer(rx, data)` gives exactly the matches of
`rx.finditer(data)` by searching for the pattern from its '#' (a literal first character,
which the engine finds by a fast scan) and matching `rx` at the start of that line when only
blanks stand before the '#'. The wave64 facts and the translate pass search directives so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

_BLANK_OR_BOM = (b"", b"\xef\xbb\xbf")
_PREFIXES = (rb"^[ \t]*", rb"^(?:\xef\xbb\xbf)?[ \t]*")  # (a byte-order mark first)


@cache
def _from_hash(rx: re.Pattern[bytes]) -> re.Pattern[bytes]:
    """`rx` from its '#' on: a literal first character, which the engine scans for in C."""
    for prefix in _PREFIXES:
        if rx.pattern.startswith(prefix + b"#") and rx.flags & re.M:
            return re.compile(rx.pattern[len(prefix):], rx.flags)
    raise ValueError(f"not a pattern of a line that starts with '#': {rx.pattern!r}")


def finditer(rx: re.Pattern[bytes], data: bytes) -> Iterator[re.Match[bytes]]:
    """The matches of `rx.finditer(data)` for a pattern `^[ \\t]*#...` (re.M), each as `rx`
    gives it: found from their '#', then matched at the start of its line."""
    head = _from_hash(rx)
    end = 0  # where the last match ended: the next one starts there or later, as in finditer
    pos = 0
    while (h := head.search(data, pos)) is not None:
        at = h.start()
        line = data.rfind(b"\n", 0, at) + 1
        m = rx.match(data, line) if line >= end and data[line:at].strip(b" \t") in _BLANK_OR_BOM else None
        if m is None:  # a '#' inside a line: the anchored pattern never starts there
            pos = at + 1
            continue
        yield m
        end = pos = m.end()


def search(rx: re.Pattern[bytes], data: bytes) -> re.Match[bytes] | None:
    """`rx.search(data)` for such a pattern."""
    return next(finditer(rx, data), None)
