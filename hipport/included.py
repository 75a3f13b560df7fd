"""Names a project defines in the headers its files include, for runs that do not hold
those headers: a pre-commit hook lints only the staged files, and a helper such as
`cudaCheck` defined in an included `common.h` must not read as an unknown CUDA API.

Only `#include "..."` is followed (the project's own headers, found beside the including
file, as the preprocessor looks first), to a fixed depth; each header is read like any
input (regular files only) and parsed by the translator, nothing is run."""

from __future__ import annotations

import os
import re
from dataclasses import replace

from hipport import directives
from hipport.config import Config
from hipport.model import Included
from hipport.workspace import REGULAR, WorkFile, read_regular

INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
MAX_FILES = 500  # a run this small may lack its headers; a tree holds them already
MAX_DEPTH = 8
MAX_BYTES = 4 << 20


def names(files: list[WorkFile], config: Config, looked: list[Included] | None = None) -> frozenset[str]:
    """What the headers reachable from `files` (and not among them) define; `looked` gets
    each such path with what was there (a run snapshot holds `defined`: it answers only
    while they are unchanged)."""
    if not files or len(files) > MAX_FILES:
        return frozenset()
    from hipport.passes import port_bytes
    from hipport.workspace import role_of

    inside = {wf.file for wf in files}
    seen: set[str] = set()
    frontier = [wf.file for wf in files if wf.kind == REGULAR]
    out: set[str] = set()
    quick = replace(config, wave64=False, select=(), ignore=())
    for depth in range(MAX_DEPTH + 1):
        nxt: list[str] = []
        for path in frontier:
            data, identity = _read(path)
            if looked is not None and path not in inside:
                looked.append(Included(path, data, identity))
            if data is None:
                continue
            if path not in inside and depth:  # a header the run lacks: learn its names
                out.update(port_bytes(path, role_of(path, data), data, quick).defines)
            if depth == MAX_DEPTH:
                continue
            base = os.path.dirname(path)
            for m in directives.finditer(INCLUDE, data):
                target = os.path.realpath(os.path.join(base, os.fsdecode(m.group(1))))
                if target not in seen and target not in inside:
                    seen.add(target)
                    nxt.append(target)
        frontier = nxt
        if not frontier:
            break
    return frozenset(out)


def _read(path: str) -> tuple[bytes | None, list[int]]:
    """A header's bytes (None: none, not a regular file, or too large) and its identity."""
    try:
        data, st = read_regular(path)
    except OSError:
        try:
            st = os.stat(path)
        except OSError:
            return None, []
        return None, [st.st_size, st.st_mtime_ns, st.st_ino]
    return data if len(data) <= MAX_BYTES else None, [st.st_size, st.st_mtime_ns, st.st_ino]
