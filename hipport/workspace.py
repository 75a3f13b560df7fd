"""Discovery: which files to port, their roles and output paths; and safe reads and writes.

A folder inside a git work tree is listed as git lists it (`git ls-files --cached --others
--exclude-standard`: tracked files, even ones a .gitignore covers, and untracked files no
ignore rule covers); elsewhere, or when git is missing or fails, it is walked honouring
.gitignore files and keeping what `.git/index` tracks, to the same effect. Both apply
--include/--exclude globs. Only regular files are read: a fifo, socket or device is listed
as skipped (by the walker; git lists none) and never opened. A symbolic
link found in a folder is never followed: it stays a link (a mirror gets the same link), its
target is ported where it lies if that is inside the tree, and a link out of the tree is
left alone with a note.
"""

from __future__ import annotations

import bisect
import errno
import fnmatch
import functools
import hashlib
import os
import re
import stat as statmod
import struct
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hipport.errors import HipportError

CUDA_SOURCE = "cuda-source"
CUDA_HEADER = "cuda-header"
HOST = "host"  # C/C++ file that calls CUDA APIs
BUILD = "build"
OTHER = "other"
PORTED_ROLES = (CUDA_SOURCE, CUDA_HEADER, HOST, BUILD)  # BUILD: unless --no-build-files

SOURCE_EXT = {".cu"}
HEADER_EXT = {".cuh"}
CXX_EXT = {".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tpp"}
BUILD_NAMES = {"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile", "make.config"}
BUILD_EXT = {".cmake", ".mk", ".make"}
ALWAYS_SKIP = {".git", ".hg", ".svn", ".hipport-cache", "__pycache__"}
TMP_SUFFIX = ".hipport-tmp"  # hipport's own temporary files (see `_temporary`): never inputs

# WorkFile kinds: what discovery found at a path.
REGULAR = "file"
SPECIAL = "special"  # fifo, socket, device: never opened
LINK = "link"  # a symbolic link to something inside the tree: kept as a link
LINK_OUT = "link-out"  # a symbolic link out of the tree (or dangling): left alone
# A CUDA hint: each branch starts with a literal byte, so the regex engine skips to the bytes
# that may begin one (a branch that began with \b made it try every byte of the head); the two
# that need a word boundary before them are `_CUDA_WORD`, checked by hand.
_CUDA_HINT = re.compile(rb"cuda[A-Z_]|__global__|__device__|<<<|cublas|cufft|curand|"
                        rb"cusparse|cusolver|nccl[A-Z]|nvrtc|cooperative_groups|thrust::cuda|"
                        rb"#\s*include\s*[<\"](?:cuda|cu[a-z]+|nv|npp|thrust/system/cuda|vector_(?:types|functions)|"
                        rb"math_constants|(?:builtin|driver|texture|surface)_types|device_launch_parameters|mma\.h)|"
                        # host code standing in for a CUDA vector type (`#define uint4 uint32_t`)
                        rb"#[ \t]*define[ \t]+u?(?:char|short|int|long|longlong|float|double)[1-4][ \t]|"
                        # a CUDA source included (`#include "k.cu"`): --rename-extensions renames it
                        rb"#[ \t]*include[ \t]*\"[^\"\n]*\.cu\"")
_CUDA_WORD = re.compile(rb"cu(?:[A-Z][a-z]|b::)")  # (a driver API name, cub::) at a word's start
_WORD_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def cuda_hint(head: bytes) -> bool:
    """Does this text say CUDA (a runtime or library name, a kernel, a CUDA header)?"""
    if _CUDA_HINT.search(head):
        return True
    return any(m.start() == 0 or head[m.start() - 1] not in _WORD_CHARS for m in _CUDA_WORD.finditer(head))


@dataclass(slots=True)  # not frozen: a frozen init costs a warm run of 6,500 files 5 ms
class WorkFile:
    file: str  # on disk (a string: thousands of Path objects cost a warm run real time)
    rel: str  # posix path relative to its root, as shown to users
    display: str  # path as the user would type it
    root: Path
    stat: os.stat_result | None = None  # taken when discovered (before the file is read)
    kind: str = REGULAR
    link: str | None = None  # LINK: the link text to give a mirror
    # The role a file is ported as when its name and content give it none that is C++ (other
    # files, build files): `hipport hipify` ports every file it is given as CUDA.
    fallback: str | None = None

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
    if name in BUILD_NAMES or ext in BUILD_EXT:
        return BUILD
    return OTHER


def role_of(path: str | Path, head: bytes) -> str:
    role = role_by_name(path)
    if role is not None:
        return role
    if cuda_hint(head):
        return CUDA_HEADER if os.path.splitext(path)[1].lower() in {".h", ".hh", ".hpp", ".hxx", ".inl"} \
            else HOST
    return OTHER


def output_rel(rel: str, role: str, rename_extensions: bool) -> str:
    if rename_extensions and role == CUDA_SOURCE and rel.endswith(".cu"):
        return rel[:-3] + ".hip"
    return rel


class _Ignore:
    """Git's ignore rules for one walk: `.git/info/exclude`, the `.gitignore` files from the
    repository top down to the walked folder, and each nested one met on the way. As in
    git, the last pattern that matches wins, a deeper file's patterns over a shallower
    one's, so a nested `!keep.cu` brings back what a parent ignored. And as in git, ignoring
    applies to untracked paths only: what the repository's index holds is kept."""

    def __init__(self, root: Path, prefix: str = "") -> None:
        """`prefix`: where `root` lies below the folder the walk's paths start from."""
        self.root = root
        # (folder prefix below root, what to put before the rest of the path, patterns)
        self.specs: list[tuple[str, str, list[Any]]] = []
        top = repository_top(root)
        self._top, self._prefix, self._up = top, prefix, _up(root, top)
        self._index: tuple[frozenset[str], list[str]] | None = None
        self._index_read = False  # read only once something is ignored
        self._add(top / ".git" / "info" / "exclude", prefix, _up(root, top))
        for d in reversed(root.parents):  # folders above the walked one, top first
            if d.is_relative_to(top):
                self._add(d / ".gitignore", prefix, _up(root, d))

    def _add(self, gi: Path, prefix: str, up: str) -> None:
        if not gi.is_file():
            return
        try:
            lines = gi.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        import pathspec  # only where a .gitignore exists: it costs more to import than a walk

        pats = [p for p in pathspec.PathSpec.from_lines("gitwildmatch", lines).patterns
                if p.include is not None]
        if pats:
            self.specs.append((prefix, up, pats))

    def add_dir(self, d: Path, prefix: str) -> None:
        self._add(d / ".gitignore", prefix, "")

    def ignored(self, rel: str, is_dir: bool) -> bool:
        decision = False
        for prefix, up, pats in self.specs:
            if prefix and not rel.startswith(prefix):
                continue
            sub = up + rel[len(prefix):]
            if is_dir:
                sub += "/"
            for pat in pats:
                if pat.match_file(sub) is not None:
                    decision = bool(pat.include)
        return decision and not self._tracked(rel, is_dir)

    def _tracked(self, rel: str, is_dir: bool) -> bool:
        if not self._index_read:
            self._index, self._index_read = tracked_paths(self._top), True
        if self._index is None or not rel.startswith(self._prefix):
            return False
        paths, ordered = self._index
        path = self._up + rel[len(self._prefix):]
        if path in paths:  # a file, or a submodule
            return True
        if not is_dir:
            return False
        i = bisect.bisect_left(ordered, path + "/")  # a folder holding a tracked file
        return i < len(ordered) and ordered[i].startswith(path + "/")


_INDEX_FLAGS = struct.Struct(">60xH")  # an index entry's flags, after its stat data and hash


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset varint (index version 4): the value and the position after it."""
    c = data[pos]
    pos += 1
    value = c & 127
    while c & 128:
        c = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (c & 127)
    return value, pos


def tracked_paths(top: Path) -> tuple[frozenset[str], list[str]] | None:
    """The paths `top/.git/index` holds (submodules included) relative to `top`, as a set
    and in order; read without git, for the walker. None where there is no index or one this
    reader does not know (split or sparse index, SHA-256 objects): nothing counts as tracked
    then. The index may come with the tree, so it is read as untrusted bytes."""
    git = top / ".git"
    try:
        data, _ = read_regular(str(git / "index"))
        config, _ = read_regular(str(git / "config"))
    except OSError:  # none, not a regular file, or .git is a file (a worktree, a submodule)
        return None
    if re.search(rb"objectformat\s*=\s*sha256", config, re.IGNORECASE):
        return None
    names: list[bytes] = []
    try:
        tail = data[-20:]  # a SHA-1 of the rest, or zeros (index.skipHash)
        if data[:4] != b"DIRC" or len(data) < 32 or (
                tail != bytes(20) and tail != hashlib.sha1(data[:-20], usedforsecurity=False).digest()):
            return None
        version, count = struct.unpack_from(">II", data, 4)
        if version not in (2, 3, 4) or count > len(data) // 62:
            return None
        pos, prev, flags_of = 12, b"", _INDEX_FLAGS.unpack_from
        for _ in range(count):
            start = pos
            flags, = flags_of(data, pos)
            pos += 62 + (2 if version >= 3 and flags & 0x4000 else 0)  # extended flags
            if version == 4:  # the name is the previous one less `strip` bytes, plus a suffix
                strip, pos = _varint(data, pos)
                end = data.index(b"\0", pos)
                if strip > len(prev):
                    return None
                name = prev[:len(prev) - strip] + data[pos:end]
                pos = end + 1
            else:  # NUL-padded to a multiple of 8 bytes, at least one NUL
                size = flags & 0xFFF
                end = pos + size if size < 0xFFF else data.index(b"\0", pos)
                name = data[pos:end]
                pos = start + ((end - start) // 8 + 1) * 8
            if not name:
                return None
            names.append(name)
            prev = name
        while pos + 8 <= len(data) - 20:  # extensions, before the trailing checksum
            sig, size = data[pos:pos + 4], struct.unpack_from(">I", data, pos + 4)[0]
            if sig in (b"link", b"sdir"):  # entries live elsewhere, or folders stand for files
                return None
            pos += 8 + size
    except (struct.error, ValueError, IndexError):
        return None
    paths = os.fsdecode(b"\0".join(names)).split("\0") if names else []  # one decode, not thousands
    return frozenset(paths), sorted(paths)


def _up(root: Path, ancestor: Path) -> str:
    """The path from `ancestor` down to `root`, as a prefix ('' when they are the same)."""
    rel = root.relative_to(ancestor).as_posix()
    return "" if rel == "." else rel + "/"


def _excluded_file(given: Path, exclude: tuple[str, ...]) -> bool:
    """An explicitly named file that an exclude pattern covers, matched against its path
    from the working folder and every shorter tail of it (so `third_party/**` holds)."""
    parts = Path(os.path.relpath(os.path.abspath(given))).as_posix().split("/")
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatch.fnmatch(t, p) for t in tails for p in exclude)


def _globbed(rel: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    def hit(pats: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(Path(rel).name, p) for p in pats)
    return (not include or hit(include)) and not hit(exclude)


def discover(inputs: list[Path], include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
             skip: Path | None = None, force_exclude: bool = False, git: bool = True) -> list[WorkFile]:
    """Every file under `inputs`, in a stable order, each once; `skip` is an output folder
    to leave out. A file named on the command line is read through a link (the user chose
    it) and written at its real path, so the link stays a link. It is taken whatever
    `exclude` says, unless `force_exclude` (pre-commit names every staged file). A folder
    is listed by git where it can be (`git=False`: always walked, as without git)."""
    files: list[WorkFile] = []
    seen: set[str] = set()
    for given in inputs:
        if not given.exists() and not given.is_symlink():
            raise HipportError("no such file or directory", given)
        if not given.is_dir():
            real = os.path.realpath(given)
            if real in seen or (force_exclude and exclude and _excluded_file(given, exclude)):
                continue
            seen.add(real)
            try:
                st: os.stat_result | None = os.stat(real)
            except OSError:
                st = None
            kind = REGULAR if st is None or statmod.S_ISREG(st.st_mode) else SPECIAL
            if st is None and given.is_symlink():
                kind = LINK_OUT  # dangling
            files.append(WorkFile(real, given.name, str(given), given.parent, st, kind))
            continue
        root = given.resolve()
        inside = skip if skip is not None and skip.is_relative_to(root) else None  # else no folder is it
        found: list[WorkFile] = []
        base = _display_base(given)
        if not (git and _git_walk(root, root, "", include, exclude, inside, base, found)):
            _walk(root, root, "", _Ignore(root), include, exclude, inside, base, found)
        for wf in found:
            if wf.file not in seen:
                seen.add(wf.file)
                files.append(wf)
    return files


def _walk(root: Path, folder: Path, prefix: str, ign: _Ignore, include: tuple[str, ...],
          exclude: tuple[str, ...], skip: Path | None, base: str, out: list[WorkFile]) -> None:
    """Depth-first in name order with os.scandir (cheap file types; strings, not Paths).

    Links are not followed, so every path here is a real path below `root`."""
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
                if e.is_symlink():
                    _link(root, here + e.name, rel, ign, include, exclude, base, out)
                    continue
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if e.name in ALWAYS_SKIP or ign.ignored(rel, True):
                    continue
                sub = Path(here + e.name)
                if skip is not None and sub == skip:
                    continue
                _walk(root, sub, rel + "/", ign, include, exclude, skip, base, out)
                continue
            if e.name.endswith(TMP_SUFFIX) or ign.ignored(rel, False) \
                    or (globbing and not _globbed(rel, include, exclude)):
                continue
            try:
                st: os.stat_result | None = e.stat(follow_symlinks=False)
            except OSError:  # gone meanwhile: the pipeline reports it
                st = None
            kind = REGULAR if st is None or statmod.S_ISREG(st.st_mode) else SPECIAL
            out.append(WorkFile(here + e.name, rel, base + rel, root, st, kind))
    finally:
        os.close(fd)


def _link(root: Path, path: str, rel: str, ign: _Ignore | None, include: tuple[str, ...],
          exclude: tuple[str, ...], base: str, out: list[WorkFile]) -> None:
    """A symbolic link met in a walk: kept as a link, never followed (`ign` None: git has
    already applied the ignore rules)."""
    real = Path(os.path.realpath(path))
    is_dir = real.is_dir()
    if (ign is not None and ign.ignored(rel, is_dir)) or (not is_dir and (include or exclude)
                                    and not _globbed(rel, include, exclude)):
        return
    try:
        st: os.stat_result | None = os.lstat(path)
    except OSError:
        return
    if real.is_relative_to(root) and real.exists():
        text = os.readlink(path)
        if os.path.isabs(text):  # a mirror elsewhere must point into itself, not back here
            text = os.path.relpath(real, os.path.dirname(path))
        out.append(WorkFile(path, rel, base + rel, root, st, LINK, text))
    else:
        out.append(WorkFile(path, rel, base + rel, root, st, LINK_OUT))


# Every GIT_* variable is dropped: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_* and
# the like would point git at another repository or config. The -c settings come first on
# the command line, so a repository's own config (which may come with the tree: a shipped
# `.git/`, a bare repository buried in it) cannot start an fsmonitor command or hook, be
# taken as the repository when a folder inside the tree looks like a bare one, or write the
# index. ls-files reads no blobs, so no filter or diff driver runs.
_GIT = ("git", "--no-pager", "--no-optional-locks", "-c", "core.fsmonitor=false",
        "-c", "core.untrackedCache=false", "-c", "core.hooksPath=/dev/null",
        "-c", "safe.bareRepository=explicit")
# A path from git that the walker would not list, or that leaves the folder ("//": an empty name).
_UNLISTED = re.compile("//|/(?:\\.\\.?|" + "|".join(map(re.escape, sorted(ALWAYS_SKIP))) + ")/")
_GIT_TIMEOUT = 30.0  # seconds; a slower git (a hung network file system) means the walker
_git_missing = False  # git was not found once: not looked for again in this process


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"
    return env


def _git_out(args: list[str], cwd: Path) -> bytes | None:
    """git's output, or None when git is missing, fails or takes too long."""
    global _git_missing
    if _git_missing:
        return None
    try:
        p = subprocess.Popen([*_GIT, *args], cwd=cwd, env=_git_env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        _git_missing = True
        return None
    except OSError:
        return None
    # A timer kills a git that hangs: communicate(timeout=) would poll the exit with sleeps.
    timer = threading.Timer(_GIT_TIMEOUT, p.kill)
    timer.start()
    try:
        out, _ = p.communicate()
    except BaseException:
        p.kill()
        p.wait()
        raise
    finally:
        timer.cancel()
    return out if p.returncode == 0 else None


def _git_listing(folder: Path, own: bool = False) -> list[str] | None:
    """The files git lists below `folder` (paths relative to it), or None when no `.git`
    lies above it (`own`: in it), or git cannot say.

    git is told the repository (the `.git` the walker would read, a folder or a worktree's
    file) and its work tree rather than left to find them: a core.worktree in its config,
    or a bare repository buried in the tree, cannot move it elsewhere."""
    top = repository_top(folder)
    dotgit = top / ".git"
    if (own and top != folder) or not dotgit.exists():
        return None
    out = _git_out([f"--git-dir={dotgit}", f"--work-tree={top}", "ls-files", "-z", "--cached",
                    "--others", "--exclude-standard"], folder)
    if out is None:
        return None
    return [n for n in os.fsdecode(out).split("\0") if n]  # one decode, not thousands


def _git_walk(root: Path, folder: Path, prefix: str, include: tuple[str, ...],
              exclude: tuple[str, ...], skip: Path | None, base: str, out: list[WorkFile],
              own: bool = False) -> bool:
    """List `folder` as git does; False (nothing added) when git cannot, so the caller walks.

    A tracked file that no longer exists is left out; a submodule or a nested repository
    (git lists it as one folder) is listed by its own git, else walked. Paths come in the
    walker's order (name order per folder, depth first)."""
    names = _git_listing(folder, own)
    if names is None:
        return False
    skip_rel = skip.relative_to(folder).as_posix() + "/" if skip is not None \
        and skip != folder and skip.is_relative_to(folder) else None
    globbing = bool(include or exclude)
    here = str(folder) + "/"
    # Component-wise name order, as the walker's: "/" sorts before every other character.
    names = sorted({n.rstrip("/") for n in names}, key=lambda n: n.replace("/", "\0"))
    cur, fd = None, -1  # each file's stat is a one-name lookup in its open folder
    try:
        for name in names:
            folder_part, _, leaf = name.rpartition("/")
            if leaf in ("", ".", "..") or leaf.endswith(TMP_SUFFIX) \
                    or (name != leaf and _UNLISTED.search("/" + folder_part + "/")) \
                    or (skip_rel is not None and (name + "/").startswith(skip_rel)):
                continue  # never a path out of the folder, nor one the walker leaves out
            if folder_part != cur:
                if fd >= 0:
                    os.close(fd)
                    fd = -1
                cur = folder_part
                try:
                    fd = os.open(here + folder_part, os.O_RDONLY | os.O_DIRECTORY)
                except OSError:
                    continue
            if fd < 0:
                continue
            path, rel = here + name, prefix + name
            try:
                st = os.stat(leaf, dir_fd=fd, follow_symlinks=False)
            except OSError:  # tracked but deleted, or gone meanwhile
                continue
            if statmod.S_ISLNK(st.st_mode):
                _link(root, path, rel, None, include, exclude, base, out)
            elif statmod.S_ISDIR(st.st_mode):  # a submodule or a nested repository
                if leaf in ALWAYS_SKIP:
                    continue
                sub = Path(path)
                # own top only: an empty, uninitialised submodule is its parent's folder
                if not _git_walk(root, sub, rel + "/", include, exclude, skip, base, out, own=True):
                    _walk(root, sub, rel + "/", _Ignore(sub, rel + "/"), include, exclude, skip, base, out)
            elif not globbing or _globbed(rel, include, exclude):
                out.append(WorkFile(path, rel, base + rel, root, st,
                                    REGULAR if statmod.S_ISREG(st.st_mode) else SPECIAL))
    finally:
        if fd >= 0:
            os.close(fd)
    return True


def _display_base(given: Path) -> str:
    """What goes before a relative path to show it as the user would type it."""
    base = given.as_posix()
    return "" if base in (".", "./") else base.rstrip("/") + "/"


class NotRegular(OSError):
    """A path that is not (or no longer) a regular file."""


class Changed(OSError):
    """A file that changed on disk since hipport read it: not overwritten."""


def read_regular(path: str) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes and the stat they were read under. Opened without blocking
    (a fifo put in a file's place must not hang the run) and checked before reading."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not statmod.S_ISREG(st.st_mode):
            raise NotRegular(f"not a regular file ({kind_name(st.st_mode)})")
        chunks = []
        while chunk := os.read(fd, max(st.st_size, 65536) + 1):
            chunks.append(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def kind_name(mode: int) -> str:
    for test, name in ((statmod.S_ISFIFO, "fifo"), (statmod.S_ISSOCK, "socket"),
                       (statmod.S_ISCHR, "character device"), (statmod.S_ISBLK, "block device"),
                       (statmod.S_ISDIR, "folder"), (statmod.S_ISLNK, "symbolic link")):
        if test(mode):
            return name
    return "special file"


def identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """What says a file is as it was read: size, mtime, inode, device."""
    return st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev


def write_atomic(path: Path | str, data: bytes, mode: int | None = None,
                 durable: bool = False, expect: tuple[int, int, int, int] | None = None,
                 exclusive: bool = False) -> os.stat_result:
    """Write via a temporary file and rename, so a crash leaves the old or the new file;
    returns the new file's stat.

    The file gets `mode` (else the umask's default). `durable` also fsyncs before the
    rename: worth it when replacing a user's own file (--in-place), too slow for thousands
    of fresh files in an output mirror. `expect` is the `identity` of the file as it was
    read: when the file no longer has it just before the rename, nothing is replaced and
    `Changed` is raised (an editor saved it meanwhile). `exclusive` never replaces an
    existing file (FileExistsError). Every step works on the descriptor, not the path:
    file creation dominates writing a mirror.
    """
    path = os.fspath(path)
    tmp, fd = _temp_name(path), -1
    try:  # from before the file exists: a signal as the open returns would leave it otherwise
        fd = _temporary(tmp, path)
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
        if expect is not None:
            try:
                now = identity(os.stat(path))
            except FileNotFoundError:
                now = None
            if now != expect:
                raise Changed(f"{path} changed on disk since hipport read it; not overwritten")
        if exclusive:
            os.link(tmp, path)  # fails if the name exists: never replaces a file
            os.unlink(tmp)
        else:
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


# Errors of the side being written, whichever file name the copy attached to them.
_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS}


def copy_atomic(source: str, target: str, mode: int | None = None) -> os.stat_result:
    """Copy a file (contents, mode, times and extended attributes, as shutil.copy2 does) so
    that the target is never seen half-written. Every step works on the two descriptors: a
    mirror copies thousands of files, and the path-based steps cost more than the bytes."""
    tmp, src, fd = _temp_name(target), -1, -1
    try:
        src = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        st = os.fstat(src)
        if not statmod.S_ISREG(st.st_mode):
            raise NotRegular(errno.EINVAL, f"not a regular file ({kind_name(st.st_mode)})", source)
        fd = _temporary(tmp, target)
        offset = 0
        while sent := os.sendfile(fd, src, offset, max(st.st_size - offset, 1 << 20)):
            offset += sent
        _copy_xattrs(src, fd)
        os.fchmod(fd, statmod.S_IMODE(st.st_mode) if mode is None else mode)
        os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
        out = os.fstat(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
        return out
    except BaseException as e:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and (e.errno in _WRITE_ERRORS or e.filename != source):
            raise OSError(e.errno, e.strerror, target) from None  # name what was being written
        raise
    finally:
        if src >= 0:
            os.close(src)


def _copy_xattrs(src: int, dst: int) -> None:
    """The extended attributes shutil.copystat copies, those the target may not take skipped."""
    try:
        names = os.listxattr(src)
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.ENODATA, errno.EINVAL):
            return
        raise
    for name in names:
        try:
            os.setxattr(dst, name, os.getxattr(src, name))
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.ENODATA, errno.EINVAL, errno.EACCES):
                raise


def link_atomic(text: str, target: str) -> os.stat_result:
    """Make `target` a symbolic link with this text, replacing what is there atomically."""
    try:
        if os.readlink(target) == text:
            return os.lstat(target)
    except OSError:
        pass
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    tmp = _temp_name(target)
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    try:
        os.symlink(text, tmp)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return os.lstat(target)


def _temporary(tmp: str, path: str) -> int:
    """Create `tmp`, this process's temporary for `path` (`_temp_name`: named after the
    process, cheaper than mkstemp's random names, which cost more than the write itself across
    thousands of outputs), making its folder if need be; returns its descriptor. The caller
    removes `tmp` by name on any exception from the call on: the descriptor of a file made as
    a signal arrives is never returned. Discovery never takes a temporary for an input."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        try:
            return os.open(tmp, flags, 0o666)
        except FileExistsError:  # left by a crashed run whose process had the same id
            os.unlink(tmp)
            return os.open(tmp, flags, 0o666)
        except FileNotFoundError:  # a new folder in the output tree
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            return os.open(tmp, flags, 0o666)
    except OSError as e:  # name the file being written, not our temporary
        raise OSError(e.errno, e.strerror, path) from None


_TEMP = re.compile(r"\.(.+)\.([1-9][0-9]{0,9})" + re.escape(TMP_SUFFIX), re.DOTALL)
_SWEPT: set[str] = set()  # folders this process has cleared of stale temporaries
CLOCK_SLACK = 1.0  # seconds: how far a process's start time read from /proc may be off


def _temp_name(path: str) -> str:
    """This process's temporary for `path`: `.NAME.PID.hipport-tmp` beside it. The first one
    in a folder also clears the folder of those a killed run left (`sweep_stale`)."""
    folder = os.path.dirname(path) or "."
    if folder not in _SWEPT:
        _SWEPT.add(folder)
        sweep_stale(folder)
    return f"{folder}/.{os.path.basename(path)}.{os.getpid()}{TMP_SUFFIX}"


def sweep_stale(folder: str) -> list[str]:
    """Remove the temporaries that hipport's writes left in `folder` when a kill -9 stopped
    them, and nothing else: names of the `.NAME.PID.hipport-tmp` pattern, regular files or
    links owned by this user, whose writer is gone (`writer_may_run`). Returns the names
    removed; a file that cannot be removed stays."""
    removed: list[str] = []
    for e in left_by_dead(folder, _TEMP, 2, lambda mode: statmod.S_ISREG(mode) or statmod.S_ISLNK(mode)):
        try:
            os.unlink(e.path)
        except OSError:
            continue
        removed.append(e.name)
    return removed


def left_by_dead(folder: str, name: re.Pattern[str], pid_group: int,
                 kind: Callable[[int], bool]) -> list[os.DirEntry[str]]:
    """The entries of `folder` that a hipport process which is gone left: a name `name` matches
    whole, with the process id in its group `pid_group`, of a `kind` (a test of st_mode), owned
    by this user, whose writer cannot still run (`writer_may_run`)."""
    out: list[os.DirEntry[str]] = []
    try:
        entries = os.scandir(folder)
    except OSError:
        return out
    with entries:
        for e in entries:
            m = name.fullmatch(e.name)
            if m is None:
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if kind(st.st_mode) and st.st_uid == os.geteuid() and not writer_may_run(int(m.group(pid_group)), st.st_ctime):
                out.append(e)
    return out


def writer_may_run(pid: int, changed: float) -> bool:
    """Can process `pid` still be writing a file last changed at `changed` (its ctime, which
    no one can set)? Not when no such process runs, nor when it started after that (the
    writer is dead and its id was given again). Where start times cannot be read, a running
    process is taken for the writer."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it runs
    except (OverflowError, OSError):
        return False  # no process can have this id
    started = _start_time(pid)
    return started is None or started <= changed + CLOCK_SLACK


def _start_time(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), from Linux's /proc; else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            after_name = f.read().rsplit(b")", 1)[1].split()
        return _boot_time() + int(after_name[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime
    except (OSError, ValueError, IndexError):
        return None


@functools.cache
def _boot_time() -> float:
    with open("/proc/stat", "rb") as f:
        for line in f:
            if line.startswith(b"btime "):
                return float(line.split()[1])
    raise OSError("no btime in /proc/stat")


def repository_top(start: Path | None = None) -> Path:
    """The repository's top folder (where `.git` is) above `start` (default: the working
    folder), else `start` itself; git is not run. Paths that views print start here, so a
    run from a sub-folder still names files as the repository does."""
    here = Path(os.path.abspath(start or os.getcwd()))
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return here
