"""One unit of work: a file's bytes and the bytes of every file its result depends on, read
once, before the passes run, which open nothing (hipport.passes.port takes a FileInput).

What a file depends on: a source's include closure (hipport.closure: beside the file, then
in each folder above it, then in the include folders given, three includes deep); a
Makefile's includes in its tree (hipport.build.includes). The cache key is the hash of the
whole input plus the salt (configuration, rule tables and version: pipeline.salt_of), as
`FileInput.key` gives it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

from hipport import cache as cachemod
from hipport import closure as closuremod
from hipport.closure import Closure
from hipport.model import Included
from hipport.workspace import BUILD

HEADERS = "headers"  # deps are a source's include closure
INCLUDED = "included"  # deps are a Makefile's includes


@dataclass(frozen=True)
class FileInput:
    """A file as the passes see it: `display` (its name in findings), `role`, `data`, and
    `deps`, each dependency's path (on disk, normalised) and bytes (None: looked at, not
    read), in the order met. `looked` is every place looked at for them, found or not, with
    what was there (the stat row and the run snapshot check those); `root` the folder of
    the tree, which a Makefile's include never leaves."""

    display: str
    role: str
    data: bytes
    path: str = ""  # on disk, absolute and normalised ("": bytes with no place, nothing found)
    deps: tuple[tuple[str, bytes | None], ...] = ()
    kind: str = ""  # HEADERS, INCLUDED or "" (no dependencies looked for)
    looked: tuple[Included, ...] = ()
    root: str | None = None
    dirs: tuple[str, ...] = ()  # include folders the headers were looked up in, after the tree
    fallback: tuple[tuple[str, str], ...] = ()  # quoted includes taken from the tree's unique headers
    unresolved: tuple[str, ...] = ()  # quoted includes no header answered

    def own_key(self, salt: str) -> str:
        """The key of the file's own bytes (`FileResult.digest`)."""
        return cachemod.key(self.data, self.role, salt)

    def key(self, salt: str, own: str | None = None) -> str:
        """The cache key: the file's own key and its dependencies' places (from the file's
        folder, so a moved checkout keeps its keys) and contents, by digest (size -1: not read)."""
        own = own or self.own_key(salt)
        if not self.deps:
            return own
        here = os.path.dirname(self.path)
        tag = b"".join(b"\0%s\0%d:%s" % (os.fsencode(os.path.relpath(p, here)), -1 if d is None else len(d),
                                          b"" if d is None else closuremod.digest(d)) for p, d in self.deps)
        if self.root is not None and any(p.endswith(".cu") for p, _ in self.deps):
            # --rename-extensions renames an included .cu only where it lies in the tree
            tag += b"\0root\0" + os.fsencode(os.path.relpath(os.path.abspath(self.root), here))
        return cachemod.key(tag, self.kind, own)

    @cached_property
    def closure(self) -> Closure | None:
        """The headers a source includes, as the passes ask about them (None: not a source)."""
        if self.kind != HEADERS:
            return None
        return Closure(self.path, dict(self.deps), self.looked, self.dirs, self.fallback, self.unresolved,
                       os.path.normpath(os.path.abspath(self.root)) if self.root else "")

    @property
    def included(self) -> tuple[bytes, ...]:
        """What a Makefile includes, read."""
        return tuple(d for _, d in self.deps if d is not None) if self.kind == INCLUDED else ()


def resolve(path: str, display: str, role: str, data: bytes, *, rel: str = "",
            include_dirs: tuple[str, ...] = (), memo: dict[str, Included] | None = None,
            unique: dict[str, str] | None = None) -> FileInput:
    """The FileInput of the file at `path` (on disk; `rel` its path from the tree's root)
    whose bytes are `data`: its dependencies looked up and read now. `include_dirs` are
    looked in after the folders beside and above the file (the project model gives them);
    `memo` keeps the places where no header was, for the next file of a run; `unique` the
    tree's headers by name, for a quoted include found nowhere else."""
    root = tree_root(path, rel)
    if role != BUILD:
        if not path or path.startswith("<"):
            return FileInput(display, role, data, root=root)
        dirs = tuple(os.path.normpath(os.path.abspath(d)) for d in include_dirs)
        cl = closuremod.read(path, data, memo, dirs, unique)
        return FileInput(display, role, data, cl.path, tuple(cl.found.items()), HEADERS, cl.looked, root, dirs,
                         cl.fallback, cl.unresolved)
    from hipport import build

    if build.kind(path) != "make":
        return FileInput(display, role, data, os.path.abspath(path), root=root)
    from hipport.build import includes, own_copy

    deps = includes.read(path, data, root, own_copy)
    return FileInput(display, role, data, os.path.abspath(path), tuple((d.path, d.data) for d in deps),
                     INCLUDED, tuple(deps), root)


def of_bytes(display: str, role: str, data: bytes, included: tuple[bytes, ...] = (),
             closure: Closure | None = None, root: str | None = None) -> FileInput:
    """A FileInput for bytes handed in directly (a test, a tool): the given dependencies,
    else a source's headers looked up beside `display` on the disk, now."""
    if included:
        return FileInput(display, role, data, os.path.abspath(display),
                         tuple(("", d) for d in included), INCLUDED, root=root)
    if closure is not None:
        return FileInput(display, role, data, closure.path, tuple(closure.found.items()), HEADERS,
                         closure.looked, root, closure.dirs, closure.fallback, closure.unresolved)
    if role == BUILD:
        return FileInput(display, role, data, root=root)
    cl = closuremod.read(display, data)
    return FileInput(display, role, data, cl.path, tuple(cl.found.items()), HEADERS, cl.looked, root)


def tree_root(path: str, rel: str) -> str:
    """The folder of the tree a file at `path` (on disk) lies in, `rel` being its path there."""
    root = path[:len(path) - len(rel)] if rel and path.endswith(rel) else os.path.dirname(path)
    return root or "."
