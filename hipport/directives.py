"""Preprocessor lines found from their '#'.

A pattern of the form `^[ \\t]*#...` (re.M) makes the regex engine try every byte of a file
as a line start; most files have few '#'. `finditer(rx, data)` gives exactly the matches of
`rx.finditer(data)` by trying `rx` only at the start of each line whose first character
(after blanks, or a byte-order mark) is '#': about 3x faster over real trees.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_BLANK_OR_BOM = (b"", b"\xef\xbb\xbf")


def finditer(rx: re.Pattern[bytes], data: bytes) -> Iterator[re.Match[bytes]]:
    """The matches of `rx.finditer(data)`, where every match of `rx` starts a line and its
    first non-blank character is '#'."""
    end = 0  # where the last match ended: the next one starts there or later, as in finditer
    tried = -1
    h = data.find(b"#")
    while h >= 0:
        line = data.rfind(b"\n", 0, h) + 1
        if line >= end and line != tried and data[line:h].strip(b" \t") in _BLANK_OR_BOM:
            tried = line
            m = rx.match(data, line)
            if m is not None:
                yield m
                end = m.end()
                h = data.find(b"#", max(end, h + 1))
                continue
        h = data.find(b"#", h + 1)


def search(rx: re.Pattern[bytes], data: bytes) -> re.Match[bytes] | None:
    """`rx.search(data)` for such a pattern."""
    return next(finditer(rx, data), None)
