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
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGHUP)
REDELIVER = 0.02  # seconds before a signal dropped in a finalizer is sent again


class Interrupted(SystemExit):
    """Raised by the handler: unwinds through every `finally` to an exit 128 + signal."""


received: int | None = None  # the signal that stopped this run, if one did


def _raise(signum: int, frame: FrameType | None) -> None:
    global received
    received = signum
    raise Interrupted(128 + signum)


def _keyboard(signum: int, frame: FrameType | None) -> None:
    global received
    received = signum
    raise KeyboardInterrupt


def _unraisable(u: sys.UnraisableHookArgs) -> None:
    """A kill that lands in a finalizer (`__del__`, a weakref callback) is dropped there by
    Python, which prints its traceback and goes on: deliver it again a moment later, from
    another thread (delivered from here, its handler would run here, inside the hook, and be
    dropped again), to unwind from where the run is then."""
    if isinstance(u.exc_value, Interrupted) and isinstance(u.exc_value.code, int):
        again = threading.Timer(REDELIVER, os.kill, (os.getpid(), u.exc_value.code - 128))
        again.daemon = True
        again.start()
        return
    sys.__unraisablehook__(u)


def install() -> None:
    """In the main process."""
    for s in SIGNALS:
        signal.signal(s, _raise)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _keyboard)
    sys.unraisablehook = _unraisable


def _exit_now(signum: int, frame: FrameType | None) -> None:
    _flush()
    os._exit(128 + signum)


def finishing() -> None:
    """The run's work is over (its writes done or unwound): a kill from here on ends the
    process at once, with nothing left to clean up and no traceback from the interpreter's
    own shutdown."""
    for s in SIGNALS:
        signal.signal(s, _exit_now)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def leave(code: int) -> None:
    """End an interrupted run now. Its cleanup ran as it unwound; what is skipped is the
    interpreter's wait for a process pool's own thread, which waits forever when a worker
    stopped while sending its result (see `stop_pool`)."""
    _flush()
    os._exit(code)


_stopped_threads: set[threading.Thread] = set()


def _quiet_stopped(args: threading.ExceptHookArgs) -> None:
    """A stopped pool's thread may trip over futures the run cancelled as it unwound (a
    CPython race: InvalidStateError); the run is ending, so that is not for the user."""
    if args.thread in _stopped_threads:
        return
    threading.__excepthook__(args)


STOP_WAIT = 10.0  # seconds for stopped workers to remove their temporaries before SIGKILL


def stop_pool(ex: Any) -> None:
    """Stop a concurrent.futures process pool's workers (SIGTERM: each removes what it
    was writing) and wait for them, but not for the pool's thread: a worker stopped while
    sending a result leaves that thread reading the rest of a message that never comes (this
    process holds the pipe's write end too, so no end of file either)."""
    manager = getattr(ex, "_executor_manager_thread", None)
    if manager is not None:
        _stopped_threads.add(manager)
        threading.excepthook = _quiet_stopped
    procs = list((getattr(ex, "_processes", None) or {}).values())
    for p in procs:
        p.terminate()
    deadline = time.monotonic() + STOP_WAIT
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)
    ex.shutdown(wait=False, cancel_futures=True)


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
