"""Discovery: which files to port, their roles and output paths; and atomic writes.

Folders are walked honouring .gitignore files and --include/--exclude globs; a symlink is
followed only while it stays inside the root it was found under.
"""

from __future__ import annotations

import fnmatch
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pathspec

from hipport.errors import HipportError

CUDA_SOURCE = "cuda-source"
CUDA_HEADER = "cuda-header"
HOST = "host"  # C/C++ file that calls CUDA APIs
BUILD = "build"
OTHER = "other"
PORTED_ROLES = (CUDA_SOURCE, CUDA_HEADER, HOST)

SOURCE_EXT = {".cu"}
HEADER_EXT = {".cuh"}
CXX_EXT = {".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tpp"}
BUILD_NAMES = {"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile"}
ALWAYS_SKIP = {".git", ".hg", ".svn", ".hipport-cache", "__pycache__"}
_CUDA_HINT = re.compile(rb"cuda[A-Z_]|\bcu[A-Z][a-z]|__global__|__device__|<<<|cublas|cufft|curand|"
                        rb"cusparse|cusolver|\bcub::|nccl[A-Z]|nvrtc|cooperative_groups|thrust::cuda|"
                        rb"#\s*include\s*[<\"](?:cuda|cu[a-z]+|nv|thrust/system/cuda)")


@dataclass(frozen=True, slots=True)
class WorkFile:
    path: Path  # on disk
    rel: str  # posix path relative to its root, as shown to users
    display: str  # path as the user would type it
    root: Path


def role_of(path: Path, head: bytes) -> str:
    ext = path.suffix.lower()
    if ext in SOURCE_EXT:
        return CUDA_SOURCE
    if ext in HEADER_EXT:
        return CUDA_HEADER
    if ext in CXX_EXT:
        if _CUDA_HINT.search(head):
            return CUDA_HEADER if ext in {".h", ".hh", ".hpp", ".hxx", ".inl"} else HOST
        return OTHER
    if path.name in BUILD_NAMES or ext == ".cmake":
        return BUILD
    return OTHER


def output_rel(rel: str, role: str, rename_extensions: bool) -> str:
    if rename_extensions and role == CUDA_SOURCE and rel.endswith(".cu"):
        return rel[:-3] + ".hip"
    return rel


class _Ignore:
    """.gitignore rules of one folder tree, nested files included."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.specs: list[tuple[str, pathspec.PathSpec]] = []
        self.seen: set[Path] = {root}  # real folders reached through symlinks

    def add_dir(self, d: Path, prefix: str) -> None:
        gi = d / ".gitignore"
        if gi.is_file():
            try:
                lines = gi.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                return
            self.specs.append((prefix, pathspec.PathSpec.from_lines("gitwildmatch", lines)))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        for prefix, spec in self.specs:
            if prefix and not rel.startswith(prefix):
                continue
            sub = rel[len(prefix):]
            if spec.match_file(sub + "/" if is_dir else sub):
                return True
        return False


def _globbed(rel: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    def hit(pats: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(Path(rel).name, p) for p in pats)
    return (not include or hit(include)) and not hit(exclude)


def discover(inputs: list[Path], include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
             skip: Path | None = None) -> list[WorkFile]:
    """Every file under `inputs`, in a stable order; `skip` is an output folder to leave out."""
    files: list[WorkFile] = []
    for given in inputs:
        if not given.exists() and not given.is_symlink():
            raise HipportError("no such file or directory", given)
        if given.is_file():
            files.append(WorkFile(given, given.name, str(given), given.parent))
            continue
        root = given.resolve()
        _walk(root, root, "", _Ignore(root), include, exclude, skip, given, files)
    return files


def _walk(root: Path, folder: Path, prefix: str, ign: _Ignore, include: tuple[str, ...],
          exclude: tuple[str, ...], skip: Path | None, given: Path, out: list[WorkFile]) -> None:
    """Depth-first in name order with os.scandir (cheap file types; strings, not Paths).

    `prefix` is the folder's path relative to `root` as users see it, which differs from the
    disk path inside a symlinked folder (followed only when it points inside the root)."""
    ign.add_dir(folder, prefix)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    globbing = bool(include or exclude)
    for e in entries:
        rel = prefix + e.name
        if e.is_dir(follow_symlinks=True):
            if e.name in ALWAYS_SKIP or ign.ignored(rel, True):
                continue
            sub = Path(e.path)
            if skip is not None and sub.resolve() == skip:
                continue
            if e.is_symlink():
                real = sub.resolve()
                if not real.is_relative_to(root) or real in ign.seen:
                    continue  # outside the root, or a loop back into a folder already walked
                ign.seen.add(real)
            _walk(root, sub, rel + "/", ign, include, exclude, skip, given, out)
            continue
        if ign.ignored(rel, False) or (globbing and not _globbed(rel, include, exclude)):
            continue
        if e.is_symlink() and not Path(e.path).resolve().is_relative_to(root):
            continue
        out.append(WorkFile(Path(e.path), rel, _display(given, rel), root))


def _display(given: Path, rel: str) -> str:
    base = given.as_posix()
    return rel if base in (".", "./") else f"{base.rstrip('/')}/{rel}"


def write_atomic(path: Path, data: bytes, mode_from: Path | None = None, durable: bool = False) -> None:
    """Write via a temporary file and rename, so a crash leaves the old or the new file.

    `durable` also fsyncs before the rename: worth it when replacing a user's own file
    (--in-place), too slow for thousands of fresh files in an output mirror.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".hipport-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        src = mode_from if mode_from is not None and mode_from.exists() else (path if path.exists() else None)
        if src is not None:
            os.chmod(tmp, src.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
