"""The in-tree files a Makefile includes, read (never run) so that its port knows the variables
they define: `include ../../common/make.config` with `NVCC = $(CUDA_DIR)/bin/nvcc` in it.

make resolves an include against its working folder, which for `make -C DIR` (and a nested
include too) is the Makefile's folder: so does this. Followed: `include`, `-include` and
`sinclude` of literal paths (a path with `$` in it is not expanded: nothing is evaluated, no
`$(shell ...)`), an absolute or home path through the tree's own copy (`own`), regular files
inside the tree only, each once (no include loops), to a fixed depth. An include that is absent
is recorded too (with no identity): a file that appears later changes the result.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from hipport.build.make import logical_lines
from hipport.workspace import read_regular

_INCLUDE = re.compile(r"[ \t]*(?:-include|sinclude|include)[ \t]+([^#\r\n]*)")
MAX_FILES = 32
MAX_DEPTH = 4
MAX_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Included:
    path: str  # on disk, normalised
    data: bytes | None  # None: absent, not a regular file, or a link out of the tree
    identity: list[int]  # (size, mtime_ns, inode) as read; [] where nothing was there


def paths(text: str) -> list[str]:
    """The literal paths the include directives of this make text name, in order."""
    out: list[str] = []
    for ln in logical_lines(text):
        if ln.recipe:
            continue
        m = _INCLUDE.match(text, ln.start, ln.end)
        if m is None:
            continue
        out.extend(w for w in _words(m.group(1)) if "$" not in w)
    return out


def _words(body: str) -> list[str]:
    """make's words of an include line: a `$(...)` reference, spaces and all, is in one word."""
    words: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in body.replace("\\\r\n", " ").replace("\\\n", " "):
        if c in " \t" and depth == 0:
            if cur:
                words.append("".join(cur))
                cur = []
            continue
        depth += c in "({"
        depth -= depth > 0 and c in ")}"
        cur.append(c)
    if cur:
        words.append("".join(cur))
    return words


def read(makefile: str, data: bytes, root: str,
         own: Callable[[str, str, str], str | None] | None = None) -> list[Included]:
    """What `makefile` (its bytes `data`) includes, transitively, inside `root`; `own`
    (`hipport.build.own_copy`) maps an absolute include to the tree's copy."""
    here = os.path.dirname(os.path.abspath(makefile))
    top = os.path.abspath(root)
    seen = {os.path.normpath(os.path.abspath(makefile))}
    out: list[Included] = []
    frontier = [data]
    for _ in range(MAX_DEPTH):
        nxt: list[bytes] = []
        for text in frontier:
            for p in paths(text.decode("latin-1")):
                if p.startswith(("/", "~")):
                    mapped = own(makefile, p, top) if own is not None else None
                    if mapped is None:
                        continue  # outside the tree (HP013 says so at the include)
                    p = mapped
                target = os.path.normpath(os.path.join(here, p))
                if target in seen or len(out) >= MAX_FILES:
                    continue
                seen.add(target)
                if os.path.commonpath([top, target]) != top:
                    continue  # outside the tree: never read
                got = _read(target, top)
                out.append(got)
                if got.data is not None:
                    nxt.append(got.data)
        frontier = nxt
        if not frontier:
            break
    return out


def identity(path: str) -> list[int]:
    """(size, mtime_ns, inode) of what the path names now; [] when there is nothing."""
    try:
        st = os.stat(path)
    except OSError:
        return []
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _read(path: str, top: str) -> Included:
    real = os.path.realpath(path)
    if os.path.commonpath([os.path.realpath(top), real]) != os.path.realpath(top):
        return Included(path, None, identity(path))  # a link out of the tree: not read
    try:
        data, st = read_regular(real)
    except OSError:
        return Included(path, None, identity(path))
    if len(data) > MAX_BYTES:
        return Included(path, None, identity(path))
    return Included(path, data, [st.st_size, st.st_mtime_ns, st.st_ino])
