"""A ported copy of the input on disk, and the way back from it to the original files.

`PortedTree.port` runs the pipeline with one configuration and writes a mirror of the input
(ported files ported, every other file copied, so includes and data files resolve);
`PortedTree.existing` wraps a tree someone already ported (`--ported DIR`). Either way,
`locate(path, line, column)` turns a compiler's position in the copy into the original file
and line.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hipport import engine
from hipport.config import Config
from hipport.linemap import LineMap, Location
from hipport.model import FileResult, FileStatus, RunResult
from hipport.workspace import CUDA_SOURCE, CXX_EXT, HOST, PORTED_ROLES, WorkFile, role_of

_WALK_LIMIT = 200_000  # files looked at to answer in_project
TU_EXT = {".cu", ".hip", ".c", ".cc", ".cpp", ".cxx", ".c++"}
_GPU_HINT = re.compile(rb"\bhip[A-Z]\w*|__global__|__device__|<<<|#\s*include\s*[<\"](?:hip/|cuda)")
_MAIN = re.compile(rb"^[ \t]*(?:(?:static|extern|inline)\s+)*(?:int|auto|void)\s+main\s*\(", re.M)


def has_main(data: bytes) -> bool:
    return _MAIN.search(data) is not None


@dataclass(slots=True)
class Entry:
    """One file of the input and its copy in the tree."""

    wf: WorkFile | None  # the original (None for a --ported tree given without originals)
    display: str  # how results name it: the original path as the user gave it
    copy: Path  # absolute path of the file in the tree
    role: str
    result: FileResult | None = None  # the port of this file (None: copied or pre-ported)
    linemap: LineMap | None = None  # built lazily from result.edits or the two texts
    original_bytes: bytes | None = None

    @property
    def is_unit(self) -> bool:
        """A translation unit to compile: a CUDA/HIP source or a host file using the GPU API."""
        ext = self.copy.suffix.lower()
        if ext not in TU_EXT:
            return False
        if self.role in (CUDA_SOURCE, HOST) or ext in (".cu", ".hip"):
            return True
        try:
            return ext in CXX_EXT and _GPU_HINT.search(self.copy.read_bytes()[:65536]) is not None
        except OSError:
            return False


@dataclass
class PortedTree:
    root: Path  # the mirror's root on disk
    base: Path | None  # the originals' common folder (None without originals)
    entries: list[Entry] = field(default_factory=list)
    run: RunResult | None = None
    label: str = ""
    _by_copy: dict[str, Entry] = field(default_factory=dict)
    project: Path | None = None  # the repository the originals lie in (validate's stop folder)
    _project_files: dict[str, list[str]] | None = None  # file name -> paths under `project`

    def __post_init__(self) -> None:
        self._by_copy = {os.path.normpath(str(e.copy)): e for e in self.entries}

    # --- building ------------------------------------------------------------------------------

    @classmethod
    def port(cls, files: list[WorkFile], config: Config, out: Path, *, cache_dir: Path | None = None,
             label: str = "", transform: Callable[[Path, bytes], bytes] | None = None,
             progress: Callable[[int, int], None] | None = None) -> PortedTree:
        """Port `files` with `config` and write the mirror under `out`."""
        result = engine.run(files, config, engine.EVERYTHING, cache_dir=cache_dir, progress=progress)
        base = common_base(files)
        out.mkdir(parents=True, exist_ok=True)
        entries: list[Entry] = []
        by_display = {r.path: r for r in result.files}
        for wf in files:
            r = by_display.get(wf.display)
            rel = (r.output_path if r is not None and r.output_path else wf.rel)
            copy = (out / wf.root.resolve().relative_to(base) / rel) if base else out / rel
            copy = Path(os.path.normpath(copy))
            copy.parent.mkdir(parents=True, exist_ok=True)
            data: bytes | None = None
            if r is not None and r.ported is not None and r.status == FileStatus.PORTED:
                data = r.ported
            elif r is not None and r.original is not None:
                data = r.original
            if data is None:
                try:
                    data = wf.path.read_bytes()
                except OSError:
                    continue
            if transform is not None and r is not None and r.role in PORTED_ROLES:
                data = transform(copy, data)
            _write(copy, data)
            role = r.role if r is not None else role_of(wf.path, data[:65536])
            entries.append(Entry(wf, wf.display, copy, role, r if r is not None and r.role in PORTED_ROLES else None,
                                 original_bytes=r.original if r is not None else None))
        return cls(out, base, entries, result, label)

    @classmethod
    def existing(cls, ported: Path, originals: list[WorkFile] | None = None, label: str = "",
                 include: Sequence[str] = (), exclude: Sequence[str] = ()) -> PortedTree:
        """A tree already ported. With the originals, files are paired by path (a .hip copy
        pairs with its .cu original) and mapped back through a line diff. `include` and
        `exclude` (globs, as for the inputs) choose which of its files are checked."""
        from hipport.workspace import discover

        root = ported.resolve()
        copies = discover([root], tuple(include), tuple(exclude))
        base = common_base(originals) if originals else None
        by_rel: dict[str, WorkFile] = {}
        for o in originals or []:
            rel = (o.root.resolve().relative_to(base) / o.rel).as_posix() if base else o.rel
            by_rel[rel] = o
            if rel.endswith(".cu"):
                by_rel.setdefault(rel[:-3] + ".hip", o)
        only_one = originals is not None and len(originals) == 1 and len(copies) == 1
        entries: list[Entry] = []
        for c in copies:
            rel = c.rel if root.is_dir() else c.path.name
            wf: WorkFile | None
            wf = originals[0] if only_one and originals else by_rel.get(rel)
            if wf is None and originals and len(originals) == 1 and root.is_dir():
                wf = next((o for o in originals if Path(o.rel).stem == Path(rel).stem), None)
            data = c.path.read_bytes()[:65536]
            role = role_of(wf.path, data) if wf is not None else _role_of_ported(c.path, data)
            entries.append(Entry(wf, wf.display if wf else c.display, Path(os.path.normpath(c.path.resolve())), role))
        return cls(root if root.is_dir() else root.parent, base, entries, None, label)

    # --- looking things up -----------------------------------------------------------------------

    def entry_for_copy(self, path: str | Path) -> Entry | None:
        return self._by_copy.get(os.path.normpath(str(path)))

    def entry_for_original(self, path: Path) -> Entry | None:
        rp = path.resolve()
        for e in self.entries:
            if e.wf is not None and e.wf.path.resolve() == rp:
                return e
        return None

    def copy_of_dir(self, d: Path) -> Path:
        """Where folder `d` of the originals lies in the tree (itself when outside the input)."""
        if self.base is None:
            return d
        try:
            rel = d.resolve().relative_to(self.base)
        except ValueError:
            return d
        return self.root / rel

    def in_project(self, spec: str) -> bool:
        """Is there a file the include path `spec` can name in the project, or in this tree
        (a header the port lost is the port's failure, not a missing dependency)?"""
        inc = spec.strip().strip('"<>').replace(os.sep, "/").lstrip("./")
        if self._project_files is None:
            self._project_files = {}
            for top in dict.fromkeys(p for p in (self.project, self.base, self.root) if p is not None):
                seen = 0
                for d, dirs, names in os.walk(top):
                    dirs[:] = [x for x in dirs if not x.startswith(".")]
                    for n in names:
                        self._project_files.setdefault(n, []).append(os.path.join(d, n).replace(os.sep, "/"))
                    seen += len(names)
                    if seen > _WALK_LIMIT:  # a huge folder (a home directory): enough to answer
                        break
        name = inc.rsplit("/", 1)[-1]
        return any(p == inc or p.endswith("/" + inc) for p in self._project_files.get(name, ()))

    def units(self) -> list[Entry]:
        return [e for e in self.entries if e.is_unit]

    def linemap(self, e: Entry) -> LineMap | None:
        if e.linemap is not None:
            return e.linemap
        if e.result is not None and e.original_bytes is not None:
            e.linemap = LineMap(e.original_bytes, e.result.edits)
        elif e.wf is not None:
            try:
                orig = e.wf.path.read_bytes()
                e.linemap = LineMap.from_texts(orig, e.copy.read_bytes())
            except OSError:
                return None
        return e.linemap

    def locate(self, path: str, line: int | None, column: int | None,
               cwd: Path | None = None) -> tuple[Entry, Location, LineMap | None] | None:
        """The original place of a compiler position in this tree (None: not a project file)."""
        p = Path(path)
        if not p.is_absolute() and cwd is not None:
            p = cwd / p
        e = self.entry_for_copy(os.path.normpath(str(p)))
        if e is None:
            return None
        if line is None:
            return e, Location(1, 1), None
        m = self.linemap(e)
        if m is None:  # no original known: the copy is the source
            return e, Location(line, column or 1), None
        return e, m.original_location(line, column or 1), m

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _role_of_ported(path: Path, head: bytes) -> str:
    if path.suffix.lower() == ".hip":
        return CUDA_SOURCE
    return role_of(path, head)


def common_base(files: list[WorkFile] | None) -> Path | None:
    if not files:
        return None
    roots = sorted({str(wf.root.resolve()) for wf in files})
    return Path(os.path.commonpath(roots))


def _write(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return  # keep the mtime: nothing to rebuild
    except OSError:
        pass
    path.write_bytes(data)
