"""Compile-check results kept between runs, so an unchanged re-run of `validate` costs hashing.

An entry is found by what the compile was asked to do (compiler and its version, arch, flags,
the unit's place in the ported tree) and holds what answered it: the hash of every file the
unit read (the unit, its headers, system headers: the compiler's own dependency list) with
hipcc's exit code and output. It is reused only when every one of those files still hashes
the same. Ported trees are temporary folders, so their root is written as a placeholder in
keys and outputs and put back on use. Entries are JSON checked field by field: data only,
never code (docs/security.md); a damaged one is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hipport.cache import make_private

FORMAT = 1
ROOT = "\x00root\x00"  # stands for the ported tree's root in keys and outputs
MIRROR = "\x00mirror\x00"  # stands for a root toolchain's mirror of this machine's folders


@dataclass(frozen=True)
class Answer:
    rc: int
    output: str
    seconds: float
    backend: bool  # the unit went through code generation, not only -fsyntax-only


class CompileCache:
    def __init__(self, folder: Path, root: Path, mirror: str = "") -> None:
        """`mirror`: where a toolchain in a root sees this machine's folders (site.py), a
        folder of its own each run: written as a placeholder in outputs too."""
        self.folder = folder / "compile"
        self.root = os.path.normpath(str(root))
        self.mirror = mirror
        self._hashes: dict[str, str | None] = {}  # per run: a header read by 100 units is hashed once

    def _portable(self, text: str) -> str:
        if self.mirror:
            text = text.replace(self.mirror, MIRROR)
        return text.replace(self.root, ROOT)

    def _local(self, text: str) -> str:
        return text.replace(ROOT, self.root).replace(MIRROR, self.mirror)

    def key(self, compiler: str, version: str, arch: str, flags: list[str], unit: Path) -> str:
        what = [FORMAT, compiler, version, arch, [self._portable(f) for f in flags],
                self._portable(os.path.normpath(str(unit)))]
        return hashlib.sha256(json.dumps(what).encode("utf-8", "surrogateescape")).hexdigest()

    def digest(self, path: str) -> str | None:
        if path not in self._hashes:
            try:
                with open(path, "rb") as f:
                    self._hashes[path] = hashlib.file_digest(f, "sha256").hexdigest()
            except OSError:
                self._hashes[path] = None
        return self._hashes[path]

    def get(self, key: str) -> Answer | None:
        try:
            with open(self.folder / f"{key}.json", "rb") as f:
                e = json.loads(f.read())
            deps, rc, out, secs, backend = e["deps"], e["rc"], e["output"], e["seconds"], e["backend"]
            absent, dirs = e["absent"], e["dirs"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not (type(e) is dict and e.get("format") == FORMAT and type(deps) is dict and type(rc) is int
                and type(out) is str and type(secs) in (int, float) and type(backend) is bool
                and all(type(k) is str and type(v) is str for k, v in deps.items())
                and type(absent) is list and type(dirs) is list
                and all(type(x) is str for x in absent + dirs)):
            return None
        for path, digest in deps.items():
            if self.digest(self._local(path)) != digest:
                return None
        # A header that was missing must still be missing wherever the compiler could look.
        for name in absent:
            if any(os.path.exists(os.path.join(self._local(d), name)) for d in dirs):
                return None
        return Answer(rc, self._local(out), float(secs), backend)

    def put(self, key: str, answer: Answer, deps: Sequence[str], absent: Sequence[str] = (),
            dirs: Sequence[str] = ()) -> None:
        """`absent`: headers the unit asked for that were not found; `dirs`: every folder the
        compiler could have found them in (one appearing there later is a miss)."""
        hashes: dict[str, str] = {}
        for d in deps:
            h = self.digest(d)
            if h is None:
                return  # a file it read is gone already: nothing to vouch for
            hashes[self._portable(d)] = h
        entry = {"format": FORMAT, "deps": hashes, "rc": answer.rc, "output": self._portable(answer.output),
                 "seconds": round(answer.seconds, 3), "backend": answer.backend,
                 "absent": list(absent), "dirs": [self._portable(d) for d in dirs]}
        from hipport.workspace import write_atomic

        try:
            make_private(self.folder)
            write_atomic(self.folder / f"{key}.json",
                         json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogateescape"), mode=0o600)
        except OSError:  # a full or read-only cache costs the next run time, nothing else
            return


def read_depfile(text: str, cwd: Path, keep_relative: bool = False) -> list[str]:
    """The files a make-style dependency list (`-MD -MF`) names, absolute and normalised
    (`keep_relative`: as written, for names `-MG` lists that were not found)."""
    body = text.replace("\\\n", " ")
    _, _, rest = body.partition(": ")
    out: list[str] = []
    word = ""
    i = 0
    while i < len(rest):
        c = rest[i]
        if c == "\\" and i + 1 < len(rest) and rest[i + 1] in " #\\":
            word += rest[i + 1]
            i += 2
            continue
        if c in " \t\n":
            if word:
                out.append(word)
            word = ""
        else:
            word += c
        i += 1
    if word:
        out.append(word)
    if keep_relative:
        return list(dict.fromkeys(out))
    return list(dict.fromkeys(os.path.normpath(w if os.path.isabs(w) else str(cwd / w)) for w in out))
