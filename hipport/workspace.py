"""Discovery: which files to port, their roles and output paths; and atomic writes.

Folders are walked honouring .gitignore files and --include/--exclude globs; a symlink is
followed only while it stays inside the root it was found under.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
                        rb"#\s*include\s*[<\"](?:cuda|cu[a-z]+|nv|thrust/system/cuda|vector_(?:types|functions)|"
                        rb"math_constants|(?:builtin|driver|texture|surface)_types|device_launch_parameters|mma\.h)")


@dataclass(slots=True)  # not frozen: a frozen init costs a warm run of 6,500 files 5 ms
class WorkFile:
    file: str  # on disk (a string: thousands of Path objects cost a warm run real time)
    rel: str  # posix path relative to its root, as shown to users
    display: str  # path as the user would type it
    root: Path
    stat: os.stat_result | None = None  # taken when discovered (before the file is read)

    @property
    def path(self) -> Path:
        return Path(self.file)


def role_by_name(path: str | Path) -> str | None:
    """The role a file's name alone decides; None for C/C++ files, which need their content."""
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1].lower()
    if ext in SOURCE_EXT:
        return CUDA_SOURCE
    if ext in HEADER_EXT:
        return CUDA_HEADER
    if ext in CXX_EXT:
        return None
    if name in BUILD_NAMES or ext == ".cmake":
        return BUILD
    return OTHER


def role_of(path: str | Path, head: bytes) -> str:
    role = role_by_name(path)
    if role is not None:
        return role
    if _CUDA_HINT.search(head):
        return CUDA_HEADER if os.path.splitext(path)[1].lower() in {".h", ".hh", ".hpp", ".hxx", ".inl"} \
            else HOST
    return OTHER


def output_rel(rel: str, role: str, rename_extensions: bool) -> str:
    if rename_extensions and role == CUDA_SOURCE and rel.endswith(".cu"):
        return rel[:-3] + ".hip"
    return rel


class _Ignore:
    """.gitignore rules of one folder tree, nested files included."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.specs: list[tuple[str, Any]] = []  # (folder prefix, pathspec.PathSpec)
        self.seen: set[Path] = {root}  # real folders reached through symlinks

    def add_dir(self, d: Path, prefix: str) -> None:
        gi = d / ".gitignore"
        if gi.is_file():
            try:
                lines = gi.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                return
            import pathspec  # only where a .gitignore exists: it costs more to import than a walk

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
            files.append(WorkFile(str(given), given.name, str(given), given.parent))
            continue
        root = given.resolve()
        inside = skip if skip is not None and skip.is_relative_to(root) else None  # else no folder is it
        _walk(root, root, "", _Ignore(root), include, exclude, inside, _display_base(given), files)
    return files


def _walk(root: Path, folder: Path, prefix: str, ign: _Ignore, include: tuple[str, ...],
          exclude: tuple[str, ...], skip: Path | None, base: str, out: list[WorkFile]) -> None:
    """Depth-first in name order with os.scandir (cheap file types; strings, not Paths).

    `prefix` is the folder's path relative to `root` as users see it, which differs from the
    disk path inside a symlinked folder (followed only when it points inside the root)."""
    ign.add_dir(folder, prefix)
    try:  # listing through a folder descriptor makes each entry's stat a one-name lookup
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        entries = sorted(os.scandir(fd), key=lambda e: e.name)
        here = str(folder) + "/"
        globbing = bool(include or exclude)
        for e in entries:
            rel = prefix + e.name
            try:
                is_dir = e.is_dir()
            except OSError:
                continue
            if is_dir:
                if e.name in ALWAYS_SKIP or ign.ignored(rel, True):
                    continue
                sub = Path(here + e.name)
                if skip is not None and sub.resolve() == skip:
                    continue
                if e.is_symlink():
                    real = sub.resolve()
                    if not real.is_relative_to(root) or real in ign.seen:
                        continue  # outside the root, or a loop back into a folder already walked
                    ign.seen.add(real)
                _walk(root, sub, rel + "/", ign, include, exclude, skip, base, out)
                continue
            if ign.ignored(rel, False) or (globbing and not _globbed(rel, include, exclude)):
                continue
            if e.is_symlink() and not Path(here + e.name).resolve().is_relative_to(root):
                continue
            try:
                st = e.stat()
            except OSError:  # dangling link or gone: the pipeline reports it
                st = None
            out.append(WorkFile(here + e.name, rel, base + rel, root, st))
    finally:
        os.close(fd)


def _display_base(given: Path) -> str:
    """What goes before a relative path to show it as the user would type it."""
    base = given.as_posix()
    return "" if base in (".", "./") else base.rstrip("/") + "/"


def write_atomic(path: Path | str, data: bytes, mode: int | None = None,
                 durable: bool = False) -> os.stat_result:
    """Write via a temporary file and rename, so a crash leaves the old or the new file;
    returns the new file's stat.

    The file gets `mode` (else the umask's default). `durable` also fsyncs before the
    rename: worth it when replacing a user's own file (--in-place), too slow for thousands
    of fresh files in an output mirror. Every step works on the descriptor, not the path:
    file creation dominates writing a mirror.
    """
    path = os.fspath(path)
    try:
        fd, tmp = _temporary(path)
    except FileNotFoundError:  # a new folder in the output tree
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        fd, tmp = _temporary(path)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if mode is not None:
            os.fchmod(fd, mode)
        if durable:
            os.fsync(fd)
        st = os.fstat(fd)  # a rename keeps size, mtime and inode
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
        return st
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _temporary(path: str) -> tuple[int, str]:
    """A new file beside `path`, named after this process (cheaper than mkstemp's random
    names, which cost more than the write itself across thousands of outputs)."""
    tmp = f"{os.path.dirname(path) or '.'}/.{os.path.basename(path)}.{os.getpid()}.hipport-tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        return os.open(tmp, flags, 0o666), tmp
    except FileExistsError:  # left by a crashed run whose process had the same id
        os.unlink(tmp)
        return os.open(tmp, flags, 0o666), tmp
