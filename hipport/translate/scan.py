"""Find every table name, and every name that looks like a CUDA API, in a file's bytes.

The spans are those the regex `(?<![\\w$])(?:NAME|…|GENERIC)(?![\\w$])` finds, at a fraction of
its cost (a regex tries its alternatives at every byte): one `translate` and one `split`, both
in C, list the file's words; a set intersection keeps the few that are table names; and
`bytes.find` locates just those.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from hipport.errors import HipportError
from hipport.rules import are_words

_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$"  # [\w$] in bytes
# Every byte that cannot be part of an identifier becomes a space.
_BLANK_OTHERS = bytes(c if c in _WORD_BYTES else 0x20 for c in range(256))
_WORD = re.compile(rb"[\w$]+")


@dataclass(frozen=True)
class NameScanner:
    names: frozenset[bytes]  # found wherever they are a whole word
    generic: re.Pattern[bytes]  # finds other words to report, in b" word word … "

    @classmethod
    def build(cls, names: Iterable[str], generic: Iterable[str]) -> NameScanner:
        """`generic` regexes must match identifier characters only."""
        names = list(names)
        if not are_words(names):  # the scan only sees whole words
            odd = sorted(n for n in names if not _WORD.fullmatch(n.encode()))
            raise HipportError(f"table names that are not identifiers: {', '.join(odd[:5])}")
        encoded = frozenset(n.encode() for n in names)
        alternatives = "|".join(generic).encode()
        return cls(encoded, re.compile(rb" ((?:" + alternatives + rb"))(?= )"))

    def find(self, data: bytes) -> list[tuple[int, int, str]]:
        """(start, end, name) of every whole-word occurrence, in file order."""
        spaced = b" " + data.translate(_BLANK_OTHERS) + b" "
        words = set(spaced.split())
        found = words & self.names
        rest = words - found  # the small set: `- self.names` would look each word up again
        if rest:
            found.update(self.generic.findall(b" " + b" ".join(rest) + b" "))
        hits: list[tuple[int, int, str]] = []
        for word in found:
            name, key, n = word.decode(), b" " + word + b" ", len(word)
            at = spaced.find(key)
            while at != -1:  # `at` indexes the space before the word: its start in `data`
                hits.append((at, at + n, name))
                at = spaced.find(key, at + n + 1)  # the space after it may start the next one
        hits.sort()
        return hits
