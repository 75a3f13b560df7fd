"""A kill ends a run cleanly: SIGTERM and SIGHUP unwind like Ctrl-C, so every temporary
file is removed by the code that made it and the exit status says which signal it was.
Pool workers are told the same way; one stopped between files exits at once.

A run killed outright (SIGKILL, the OOM killer) cannot tell its workers: each worker asks
the kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG), or where it cannot, watches
its parent id from a thread; either way it is gone within a second, and the temporary files
a killed worker leaves are removed by the next run that writes there (hipport.workspace)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from types import FrameType

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Interrupted(SystemExit):
    """Raised by the handler: unwinds through every `finally` to an exit 128 + signal."""


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(128 + signum)


def install() -> None:
    """In the main process."""
    for s in SIGNALS:
        signal.signal(s, _raise)


_in_job = False


def _worker_signal(signum: int, frame: FrameType | None) -> None:
    if not _in_job:  # between files nothing of ours is half-written
        os._exit(128 + signum)
    raise Interrupted(128 + signum)


def install_in_worker(parent: int) -> None:
    """In a pool worker started by `parent`: signals end it as above, and it ends with its parent."""
    for s in (*SIGNALS, signal.SIGINT):
        signal.signal(s, _worker_signal)
    end_with(parent)


WATCH_EVERY = 0.5  # seconds between two looks at the parent id, where the kernel cannot tell


def end_with(parent: int, kernel: bool = True) -> None:
    """End this process (SIGKILL, as its parent had) once `parent`, the process that forked
    it, is gone. `kernel=False` skips prctl and watches from a thread (the fallback)."""
    if not (kernel and _death_signal(signal.SIGKILL)):
        threading.Thread(target=_watch, args=(parent,), name="hipport-parent-watch", daemon=True).start()
    if os.getppid() != parent:  # it died before we asked: the signal will never come
        os.kill(os.getpid(), signal.SIGKILL)


def _death_signal(sig: int) -> bool:
    """Ask Linux to send `sig` when the parent dies (prctl PR_SET_PDEATHSIG); False where it
    cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(1, sig, 0, 0, 0)) == 0  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:  # an orphan is adopted by init or a subreaper
        time.sleep(WATCH_EVERY)
    os.kill(os.getpid(), signal.SIGKILL)


def run_job(fn, job):  # type: ignore[no-untyped-def]
    """Run one job in a worker; a signal during it unwinds (cleaning up), then exits."""
    global _in_job
    _in_job = True
    try:
        return fn(job)
    except Interrupted as e:
        os._exit(e.code if isinstance(e.code, int) else 1)
    finally:
        _in_job = False
