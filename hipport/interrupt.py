"""A kill ends a run cleanly: SIGTERM and SIGHUP unwind like Ctrl-C, so every temporary
file is removed by the code that made it and the exit status says which signal it was.
Pool workers are told the same way; one stopped between files exits at once."""

from __future__ import annotations

import os
import signal
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


def install_in_worker() -> None:
    for s in (*SIGNALS, signal.SIGINT):
        signal.signal(s, _worker_signal)


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
