"""A tiny C/C++ token scanner for text the tree does not parse for us: macro bodies.

It finds the identifiers of a `#define` body outside string/char literals and comments, so a
macro body is ported token by token (`#x` and `a##b` stay exactly as written).
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    rb"""(?P<comment>//[^\n]*|/\*.*?\*/)
      |(?P<string>(?:u8|[uUL])?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"
                  |(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?
                  |(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?)
      |(?P<ident>[A-Za-z_$][\w$]*)
    """,
    re.S | re.X,
)


def code_ranges(text: bytes, until: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of every identifier token in `text` outside comments and literals; only
    those starting before `until` when given (the scan stops there: the tokens before it are
    the same either way)."""
    if until is None:
        until = len(text)
    found = []
    for m in _TOKEN.finditer(text):
        if m.start() >= until:
            break
        if m.lastgroup == "ident":
            found.append(m.span())
    return found
