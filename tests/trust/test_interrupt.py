"""A kill ends a run, whatever it lands in: a worker sending its result, a finalizer, the
interpreter's own shutdown. Each case runs in a real process, killed with a real signal."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

# A pool whose one worker is stopped while it sends a result: the pool's thread is left
# reading the rest of a message that never comes (the worker writes the start of one, as a
# worker killed mid-send leaves it). `stop_pool` must not wait for that thread, and `leave`
# must end the process anyway.
_HALF_SENT = """
import gc, os, struct, sys, time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing
from multiprocessing.queues import SimpleQueue
from hipport import interrupt

def half(marker):
    [results] = [o for o in gc.get_objects() if isinstance(o, SimpleQueue)]
    os.write(results._writer.fileno(), struct.pack("!i", 1 << 20) + b"half")
    open(marker, "w").close()
    time.sleep(60)

ex = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
fut = ex.submit(half, sys.argv[1])
while not os.path.exists(sys.argv[1]):
    time.sleep(0.005)
time.sleep(0.1)
t0 = time.monotonic()
interrupt.stop_pool(ex)
print(f"stopped {fut.done()} {time.monotonic() - t0:.1f}", flush=True)
interrupt.leave(143)
"""


def test_a_pool_stopped_mid_send_does_not_hold_the_run(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-c", _HALF_SENT, str(tmp_path / "sending")],
                       capture_output=True, timeout=60)
    assert p.returncode == 143, p.stderr.decode()
    assert p.stdout.startswith(b"stopped"), p.stdout
    assert b"Traceback" not in p.stderr, p.stderr.decode()


# SIGTERM lands inside a __del__, where Python prints the exception and drops it: the run must
# still unwind (its finally runs) and exit 143, with no traceback on stderr.
_IN_FINALIZER = """
import os, signal, sys, time
from hipport import interrupt
interrupt.install()

class Slow:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)  # the handler runs in here

try:
    try:
        Slow()
        for _ in range(100):
            time.sleep(0.05)
        print("not stopped", flush=True)
    finally:
        print("unwound", flush=True)
except SystemExit as e:
    interrupt.finishing()
    interrupt.leave(e.code)
"""


def test_a_kill_inside_a_finalizer_still_ends_the_run() -> None:
    p = subprocess.run([sys.executable, "-c", _IN_FINALIZER], capture_output=True, timeout=60)
    assert p.stdout.decode().split() == ["unwound"]
    assert p.returncode == 143
    assert b"Traceback" not in p.stderr and b"Exception ignored" not in p.stderr, p.stderr.decode()


def test_a_kill_after_the_work_ends_at_once_without_a_traceback() -> None:
    code = textwrap.dedent("""
        import atexit, os, signal, time
        from hipport import interrupt
        interrupt.install()
        interrupt.finishing()
        atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(5), print("late")))
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert p.returncode == 143 and b"late" not in p.stdout
    assert p.stderr == b"", p.stderr.decode()
