"""The bytes tree-sitter parses: the file's own, with the project's declaration macros blanked.

A macro whose whole body is declaration specifiers (`#define MGPU_DEVICE __device__`,
`#define CUCO_KERNEL __attribute__((visibility("hidden"))) __global__`), nothing at all
(`#define HOST_DEVICE`), or opens or closes a namespace (`#define BEGIN_NS namespace mgpu {`,
`#define END_NS }`) makes the code around its uses unparseable to tree-sitter, which does not
expand macros: a function after `BEGIN_NS` is read as one broken declaration (HP005), and no
rule runs inside it. Such macros, defined in the file or in the headers of its closure, are
replaced by spaces where they are used (never on preprocessor lines), so every offset stays the
file's: edits and findings are made on the file's own bytes, and a pass that wants the macro
reads it there (`blanked_before`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from hipport import directives

_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(?![\w(])[ \t]*((?:[^\n\\]|\\\n|\\.)*)$", re.M)
_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)
_SPECIFIERS = frozenset({b"__device__", b"__host__", b"__global__", b"__forceinline__", b"__noinline__",
                         b"inline", b"__inline__", b"static", b"constexpr", b"extern"})
# Words tree-sitter-cuda parses itself: a tree that defines one for its host build
# (`#define __device__`) does not make it a macro here.
_KEYWORDS = _SPECIFIERS | {b"__shared__", b"__constant__", b"__managed__", b"__restrict__", b"__launch_bounds__",
                           b"__grid_constant__", b"const", b"volatile", b"__attribute__"}
_ATTRIBUTE = re.compile(rb"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)|__launch_bounds__\s*\([^()]*\)")
_NAMESPACE = re.compile(rb"(?:namespace\s+[A-Za-z_][\w:]*\s*\{\s*)+|(?:\}\s*)+|extern\s+\"C\"\s*\{")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")  # [\w$]
_PREPROC_LINE = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*#(?:[^\n\\]|\\\n|\\.)*", re.M)  # (a BOM first)


@lru_cache(maxsize=4096)  # a run's files share their headers
def _macros(data: bytes) -> tuple[frozenset[bytes], frozenset[bytes]]:
    """(declaration macros, other macros) that `data` #defines."""
    decl: set[bytes] = set()
    other: set[bytes] = set()
    for m in directives.finditer(_DEFINE, data):
        body = _ATTRIBUTE.sub(b" ", _COMMENT.sub(b" ", m.group(2).replace(b"\\\n", b" "))).strip()
        words = body.split()
        if all(w in _SPECIFIERS for w in words) or _NAMESPACE.fullmatch(body):
            decl.add(m.group(1))
        else:
            other.add(m.group(1))
    return frozenset(decl), frozenset(other)


def _whole_words(data: bytes, names: list[bytes]) -> list[tuple[int, int]]:
    """The spans of each of `names` (words) where it is a whole [\\w$] word, in file order: found
    by `bytes.find`, the bytes around each checked (a regex of the names, compiled for each
    file's set, cost more than the search)."""
    hits: list[tuple[int, int]] = []
    for name in names:
        n = len(name)
        at = data.find(name)
        while at != -1:
            end = at + n
            if (not at or data[at - 1] not in _WORD_BYTES) and (end == len(data) or data[end] not in _WORD_BYTES):
                hits.append((at, end))
            at = data.find(name, at + 1)
    hits.sort()
    return hits


def view(data: bytes, headers: Iterable[bytes | None] = ()) -> bytes | None:
    """`data` with its declaration macros blanked, or None when it uses none. A name that is
    also defined otherwise (in another branch or header) is left alone."""
    decl: set[bytes] = set()
    other: set[bytes] = set()
    for d in (data, *headers):
        if d and b"define" in d:
            a, b = _macros(d)
            decl |= a
            other |= b
    names = decl - other - _KEYWORDS
    if not names or not any(n in data for n in names):
        return None
    hits = _whole_words(data, [n for n in names if n in data])
    if not hits:
        return None
    skip = [m.span() for m in directives.finditer(_PREPROC_LINE, data)] + [m.span() for m in _COMMENT.finditer(data)]
    skip.sort()
    out = bytearray(data)
    changed = False
    i = 0
    for start, end in hits:
        while i < len(skip) and skip[i][1] <= start:
            i += 1
        if i < len(skip) and skip[i][0] <= start < skip[i][1]:
            continue
        out[start:end] = b" " * (end - start)
        changed = True
    return bytes(out) if changed else None
