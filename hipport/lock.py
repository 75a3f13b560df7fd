"""One writer per tree: a run that writes files holds a lock on each folder it writes into,
so a second run (an editor hook while a terminal runs) waits for it, then exits 2 with a
clear message if the first one does not finish. The locks are files in the user cache,
named by the folder's real path, held with flock: a killed run releases its lock.

A flock belongs to the open file description, which a forked process shares: a pool worker
that kept it would hold the lock after its run was killed, so every process forked while a
lock is held closes its copy at once (`_forget`), which leaves the parent's lock as it is."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from hipport.errors import HipportError

DEFAULT_WAIT = 60.0  # seconds; HIPPORT_LOCK_TIMEOUT overrides it

_HELD: set[int] = set()  # descriptors of the locks this process holds


def _forget() -> None:
    """In a forked child: close the inherited lock descriptors (closing a copy never
    unlocks; only the last close of the description does, which stays the parent's)."""
    for fd in _HELD:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def _wait_limit() -> float:
    raw = os.environ.get("HIPPORT_LOCK_TIMEOUT")
    if raw is None:
        return DEFAULT_WAIT
    try:
        return max(0.0, float(raw))
    except ValueError:
        raise HipportError(f"HIPPORT_LOCK_TIMEOUT must be a number of seconds, not {raw!r}") from None


def lock_path(folder: Path) -> Path:
    from hipport.cache import blake2b, make_private
    from hipport.paths import user_cache

    real = os.path.realpath(folder)
    d = user_cache() / "locks"
    make_private(d)
    return d / (blake2b(real.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest() + ".lock")


@contextmanager
def hold(folders: list[Path], notify: object = None) -> Iterator[None]:
    """Hold the lock of every folder (in a fixed order, so two runs never deadlock).
    `notify(message)` is told once when the run has to wait."""
    with ExitStack() as stack:
        for folder in sorted({os.path.realpath(f) for f in folders}):
            stack.enter_context(_hold_one(Path(folder), notify))
        yield


@contextmanager
def _hold_one(folder: Path, notify: object) -> Iterator[None]:
    import fcntl

    try:
        path = lock_path(folder)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:  # no writable cache folder: nothing to coordinate through
        yield
        return
    owner = os.getpid()
    _HELD.add(fd)
    try:
        deadline = None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            if deadline is None:
                limit = _wait_limit()
                deadline = time.monotonic() + limit
                if callable(notify) and limit > 0:
                    notify(f"hipport: note: waiting for another hipport run (pid {holder}) "
                           f"writing {folder}")
            if time.monotonic() >= deadline:
                raise HipportError(f"another hipport run (pid {holder}) is writing here; "
                                   "try again when it has finished", folder)
            time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        if os.getpid() == owner:  # a forked child closed its copy when it began
            _HELD.discard(fd)
            os.close(fd)  # closing releases the flock
