"""A precompiled <hip/hip_runtime.h> for the compile check: most of a small unit's check is
the parse of HIP's headers, twice (host and device), so each run builds them once per arch and
language flags and a unit that can use them is checked in under half the time.

A unit uses them only when nothing before its own `#include <hip/hip_runtime.h>` can change
what that header means (only comments, pragmas and system includes come first), no include
folder of its own holds a `hip/hip_runtime.h`, and no header is forced in. A precompiled
header is included ahead of everything, so this keeps the check's answer the one a build
would give (a unit whose compiler refuses the precompiled header is checked the plain way).
"""

from __future__ import annotations

import re
import subprocess
import threading
from pathlib import Path

from hipport.validate import toolchains

_RUNTIME = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*<hip/hip_runtime\.h>", re.M)
_COMMENTS = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)
_HARMLESS = re.compile(rb"^[ \t]*(?:#[ \t]*(?:pragma\b.*|include[ \t]*<[^>\n]+>.*))?[ \t\r]*$")
_KEY_FLAGS = ("-D", "-U", "-std=")


def eligible(data: bytes, flags: list[str]) -> bool:
    """Can this unit be checked with the precompiled runtime header (see the module doc)?"""
    m = _RUNTIME.search(data)
    if m is None or any(f in ("-include", "--pre-include") for f in flags):
        return False
    head = _COMMENTS.sub(b"", data[:m.start()])
    if not all(_HARMLESS.match(line) for line in head.split(b"\n")):
        return False
    for f in flags:
        d = f[2:] if f.startswith("-I") else None
        if d and (Path(d) / "hip" / "hip_runtime.h").exists():
            return False
    return True


class Precompiled:
    """The precompiled headers of one run, built on first use: one pair (host, device) per
    arch and per language flags (-D, -U, -std), in `folder`."""

    def __init__(self, hipcc: str, folder: Path) -> None:
        self.hipcc = hipcc
        self.folder = folder
        self._lock = threading.Lock()
        self._pairs: dict[tuple[str, ...], tuple[Path, Path] | None] = {}
        self._building: dict[tuple[str, ...], threading.Event] = {}

    def pair(self, arch: str, flags: list[str]) -> tuple[Path, Path] | None:
        lang = [f for f in flags if f.startswith(_KEY_FLAGS)]
        key = (arch, *lang)
        with self._lock:
            if key in self._pairs:
                return self._pairs[key]
            ev = self._building.get(key)
            mine = ev is None
            if mine:
                ev = self._building[key] = threading.Event()
        assert ev is not None
        if not mine:
            ev.wait()
            return self._pairs.get(key)
        made: tuple[Path, Path] | None = None
        try:
            made = self._build(len(self._building), arch, lang)
        finally:
            with self._lock:
                self._pairs[key] = made
            ev.set()
        return made

    def _build(self, n: int, arch: str, lang: list[str]) -> tuple[Path, Path] | None:
        src = self.folder / f"pch{n}.h"
        src.write_text("#include <hip/hip_runtime.h>\n")
        host, dev = self.folder / f"pch{n}-host.pch", self.folder / f"pch{n}-{arch}.pch"
        base = [self.hipcc, "-x", "hip", f"--offload-arch={arch}", *lang, "-Xclang", "-emit-pch"]
        for cmd in ([*base, "--cuda-host-only", "-c", "-o", str(host), str(src)],
                    [*base, "--cuda-device-only", "-S", "-o", str(dev), str(src)]):
            try:
                p = subprocess.run(cmd, env=toolchains.amd_env(), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=300)
            except (OSError, subprocess.TimeoutExpired):
                return None
            if p.returncode != 0:
                return None
        return (host, dev) if host.is_file() and dev.is_file() else None
