"""Compiles kept by content between test runs, in pytest's cache folder (.pytest_cache).

An answer is reused only while every file the compiler read (the unit, its headers, HIP's own)
hashes the same, with hipport validate's own compile cache (hipport/validate/compilecache.py);
only successes are kept, so a failing compile always runs again. `-p no:cacheprovider` or
HIPPORT_TEST_NO_COMPILE_CACHE=1 compiles everything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from functools import cache
from pathlib import Path

import pytest

from hipport.validate.compilecache import Answer, CompileCache, read_depfile


def folder(config: pytest.Config, name: str) -> Path | None:
    """The cache folder `name` in pytest's cache; None where pytest keeps none."""
    store = getattr(config, "cache", None)
    if store is None or os.environ.get("HIPPORT_TEST_NO_COMPILE_CACHE"):
        return None
    return Path(store.mkdir(name))


@cache
def _hipcc() -> str:
    """Which hipcc, and what it says it is: part of every key."""
    p = subprocess.run(["hipcc", "--version"], capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    return f"{shutil.which('hipcc')}\n{p.stdout}"


def hipcc(where: Path | None, args: list[str], unit: Path, root: Path) -> tuple[int, str]:
    """`hipcc ARGS` (which compile `unit`), its exit code and stderr; answered from the cache
    folder `where` when an earlier run compiled the same files with the same command. Paths
    under `root` are keyed relative to it (a temporary folder's name does not count)."""
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    cc = CompileCache(where, root) if where is not None else None
    key = cc.key("hipcc", _hipcc(), "", args, unit) if cc is not None else ""
    hit = cc.get(key) if cc is not None else None
    if hit is not None:
        return hit.rc, hit.output
    with tempfile.TemporaryDirectory(prefix="hipport-deps-") as tmp:
        depfile = Path(tmp) / "unit.d"
        t0 = time.perf_counter()
        p = subprocess.run(["hipcc", *args, "-MD", "-MF", str(depfile)], capture_output=True, text=True,
                           env=env, timeout=600)
        if cc is not None and p.returncode == 0 and depfile.is_file():
            # hipcc writes a rule per side (host, device): the later rules' targets are no files
            deps = [d for d in read_depfile(depfile.read_text(errors="replace"), Path.cwd()) if not d.endswith(":")]
            if deps:
                cc.put(key, Answer(p.returncode, p.stderr, time.perf_counter() - t0, True), deps)
    return p.returncode, p.stderr
