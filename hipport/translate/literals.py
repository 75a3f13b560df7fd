"""A string literal glued to a macro name: `"node ("fNID")"`, `"%"PRIu64`.

C++11 reads `"abc"NAME` as a user-defined literal; nvcc compiles such C-era code, clang rejects
it ("invalid suffix on literal"). A suffix that no literal operator can have (one not starting
with `_`, other than the standard library's `s`, `sv`, `h`, `min`, ...) is a macro meant to be
pasted by string concatenation, so a space goes between them.
"""

from __future__ import annotations

import re

from hipport.registry import FixKind
from hipport.source import SourceFile
from hipport.translate.context import Context

STANDARD = frozenset({"s", "sv", "h", "min", "ms", "us", "ns", "y", "d", "i", "il", "if"})
# A quote, then a name: the tree says whether it is a suffix (the quote closes a string).
_GLUED = re.compile(rb'"([A-Za-z]\w*)')


def run(ctx: Context) -> None:
    for at in sites(ctx.src):
        ctx.edit(at, at, " ", FixKind.LITERAL)


def sites(src: SourceFile) -> list[int]:
    """The start of each macro name glued to a string literal (where the space goes)."""
    out = []
    for m in _GLUED.finditer(src.data):
        name = m.group(1).decode()
        if name in STANDARD:
            continue
        node = src.node_at(m.start(1), m.end(1))
        if node is not None and node.type == "literal_suffix" and node.start_byte == m.start(1):
            out.append(m.start(1))
    return out
