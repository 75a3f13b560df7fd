"""The headers a source file reads: its include closure, read once, before the cache lookup.

A header is looked up as the wave64 facts always have looked headers up: beside the
including file, then in each folder above it (eight folders in all), as a tree's own include
root gives it; the first regular file found is the header. The closure follows includes
three levels below the file's own, each header once, at the level where it is first met.

hipport.inputs reads the closure of each file before it is ported: the content key holds every
header's path and bytes, the stat row and the run snapshot every path looked at, found or
not, with what was there (a header that appears nearer the file changes the result), and the
passes read headers from it, never from the disk. Nothing here parses C++: an include is a
line that starts with `#include`, in an inactive branch too (the passes ask about fewer).
"""

from __future__ import annotations

import os
import re
import stat as statmod
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from hipport import directives
from hipport.cache import blake2b
from hipport.memo import Lru
from hipport.model import Included
from hipport.workspace import read_regular

if TYPE_CHECKING:
    from hipport.source import SourceFile

INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"][^>"\n]+[>"])', re.M)
LEVELS = 3  # includes followed below the file's own
FOLDERS = 8  # the including file's folder and those above it, nearest first
MAX_BYTES = 1 << 21  # a larger header is not read (not a project's constants header)


@dataclass(frozen=True, slots=True)
class Closure:
    path: str  # the including file, absolute and normalised ("": none, nothing is found)
    found: dict[str, bytes | None] = field(default_factory=dict)  # header -> bytes, in the
    # order met (None: not read, over MAX_BYTES or unreadable)
    looked: tuple[Included, ...] = ()  # every path looked at, found or not, and what was there
    dirs: tuple[str, ...] = ()  # include folders, looked in after those beside and above
    # Quoted includes found nowhere else, taken from the tree's header of that unique name:
    # (spec, header) pairs.
    fallback: tuple[tuple[str, str], ...] = ()
    # The quoted includes of the file and its headers that no header answered (angle includes
    # are the system's and libraries': not looked for outside the include folders).
    unresolved: tuple[str, ...] = ()
    root: str = ""  # the folder of the tree the file lies in, absolute ("": unknown)

    def resolve(self, including: str, spec: str) -> str | None:
        """The header that `#include spec` in `including` (a path in `found`, or this file)
        names: its first candidate that is a header of the closure, else the tree's header
        of that unique name."""
        for cand in candidates(including, spec, self.dirs):
            if cand in self.found:
                return cand
        for s, header in self.fallback:
            if s == spec and header in self.found:
                return header
        return None


    def beside(self, spec: str) -> bool:
        """Is there a header `spec` right beside this file (a quoted include finds it first)?"""
        first = candidates(self.path, spec)[:1] if self.path else ()
        return bool(first) and first[0] in self.found


@lru_cache(maxsize=1 << 16)  # asked for each include of each header of each file's closure
def candidates(including: str, spec: str, dirs: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Where `#include spec` in the file `including` may be, nearest first: beside it and
    above it, then in the include folders `dirs`."""
    return _candidates(os.path.dirname(including), spec, dirs)


@lru_cache(maxsize=1 << 16)  # a run's files share their folders and their includes
def _candidates(folder: str, spec: str, dirs: tuple[str, ...]) -> tuple[str, ...]:
    inc = spec.strip().strip('"<>')
    if not inc or os.path.isabs(inc):
        return ()
    out = []
    d = folder
    for _ in range(FOLDERS):
        out.append(os.path.normpath(os.path.join(d, inc)))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    out += [os.path.normpath(os.path.join(d, inc)) for d in dirs]
    return tuple(dict.fromkeys(out))


def includes(data: bytes) -> Iterator[re.Match[bytes]]:
    """Each #include line's match, in order; group 1 is its spec."""
    return directives.finditer(INCLUDE, data)


def specs(data: bytes) -> list[str]:
    """The include specs (`<a.h>`, `"b.h"`) of every #include line, in order."""
    return [m.group(1).decode(errors="replace") for m in includes(data)]


def read(path: str, data: bytes, memo: dict[str, Included] | None = None,
         dirs: tuple[str, ...] = (), unique: dict[str, str] | None = None) -> Closure:
    """The closure of the file at `path` whose bytes are `data`, from the disk (hipport.inputs
    calls this: the passes never do). `memo` keeps the paths where no header was, for the
    next file (one run's files share most); `dirs` are include folders, looked in last;
    `unique` the tree's headers by name, for a quoted include found nowhere else."""
    if not path or path.startswith("<"):
        return Closure("")
    top = os.path.normpath(os.path.abspath(path))
    found: dict[str, bytes | None] = {}
    looked: dict[str, Included] = {}
    memo = {} if memo is None else memo
    fallback: dict[str, str] = {}
    unresolved: list[str] = []
    misses = _misses(memo)
    level = [(top, data)]
    for _ in range(LEVELS + 1):  # the file's includes, then each level of headers' includes
        below: list[tuple[str, bytes]] = []
        for including, text in level:
            for spec in specs(text):
                cands = candidates(including, spec, dirs)
                hit = None
                gone = misses.get(cands)
                if gone is not None:  # no header at any candidate: all looked at (in order)
                    looked.update(gone)
                    cands = ()
                for cand in cands:
                    if cand in found:
                        hit = cand
                        break
                    if cand in looked:
                        continue  # looked at already: nothing there
                    seen = memo.get(cand)
                    got, header = _look(cand) if seen is None else (seen, False)
                    if not header:  # (a header's bytes are held by _look, while unchanged)
                        memo[cand] = got
                    looked[cand] = got
                    if header:
                        found[cand] = got.data
                        if got.data is not None:
                            below.append((cand, got.data))
                        hit = cand
                        break
                if hit is None and cands and all(c in memo for c in cands):
                    misses[cands] = {c: memo[c] for c in cands}
                if hit is not None or not spec.startswith('"'):
                    continue
                other = _unique(spec, unique)
                if other is None or other == including:
                    if spec not in unresolved:
                        unresolved.append(spec)
                    continue
                fallback.setdefault(spec, other)
                if other not in found:
                    got, is_header = _look(other)
                    looked[other] = got
                    if is_header:
                        found[other] = got.data
                        if got.data is not None:
                            below.append((other, got.data))
        level = below
    return Closure(top, found, tuple(looked.values()), dirs, tuple(fallback.items()), tuple(unresolved))


# The candidates where no header was, each with what was there, for the memo of a run (one
# at a time): most includes are the system's, looked for beside and above every file.
_MISSES: tuple[object, dict[tuple[str, ...], dict[str, Included]]] = (None, {})


def _misses(memo: dict[str, Included]) -> dict[tuple[str, ...], dict[str, Included]]:
    global _MISSES
    if _MISSES[0] is not memo:
        _MISSES = (memo, {})
    return _MISSES[1]


def _unique(spec: str, unique: dict[str, str] | None) -> str | None:
    """The tree's only header named as `spec` ends (`"a/b.h"`: a header b.h in a folder a)."""
    if not unique:
        return None
    inc = spec.strip().strip('"')
    header = unique.get(os.path.basename(inc))
    if header is None or not header.replace(os.sep, "/").endswith("/" + inc.lstrip("./")):
        return None
    return header


# The headers read this run, by path: (identity, bytes). A header included by many files is
# read once while its identity (size, mtime, inode: what the stat rows trust) holds, and its
# files share one bytes object, whose hash Python keeps for the memos keyed by content. One
# changed in the last RACY_NS is not held: a rewrite of the same size within the clock's tick
# would keep its identity (git's "racily clean" entries).
_HELD: Lru[str, tuple[tuple[int, int, int], bytes]] = Lru(8192, 64 << 20, lambda _p, v: len(v[1]))
RACY_NS = 2_000_000_000


def _look(path: str) -> tuple[Included, bool]:
    """What is at `path` (a regular file's bytes, unless too large or unreadable, and its
    identity), and whether it is a header: a regular file."""
    try:
        st = os.stat(path)
    except OSError:
        return Included(path, None, []), False
    ident = [st.st_size, st.st_mtime_ns, st.st_ino]
    if not statmod.S_ISREG(st.st_mode):
        return Included(path, None, ident), False  # a folder, a fifo: looked past
    if st.st_size > MAX_BYTES:
        return Included(path, None, ident), True
    held = _HELD.get(path)
    if held is not None and held[0] == (st.st_size, st.st_mtime_ns, st.st_ino):
        return Included(path, held[1], ident), True
    try:
        data, st = read_regular(path)
    except OSError:
        return Included(path, None, ident), True
    if st.st_mtime_ns < time.time_ns() - RACY_NS:
        _HELD.put(path, ((st.st_size, st.st_mtime_ns, st.st_ino), data))
    return Included(path, data, [st.st_size, st.st_mtime_ns, st.st_ino]), True


_DIGESTS: Lru[bytes, bytes] = Lru(8192, 64 << 20, lambda data, _d: len(data))  # (its keys: mostly _HELD's bytes)


def digest(data: bytes) -> bytes:
    """A 16-byte digest of a header's content, once per content (the passes key their memos
    of header facts by it, and a file's cache key holds those of its headers)."""
    got = _DIGESTS.get(data)
    if got is None:
        got = _DIGESTS.put(data, blake2b(data, digest_size=16).digest())
    return got


def of(src: SourceFile) -> Closure:
    """The closure of `src`, as its FileInput brought it (hipport.inputs); none for a
    SourceFile made without one: the passes never look at the disk."""
    return src.closure if src.closure is not None else _NONE


_NONE = Closure("")
