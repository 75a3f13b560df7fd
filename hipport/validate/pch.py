"""A precompiled <hip/hip_runtime.h> for the compile check: most of a small unit's check is
the parse of HIP's headers, twice (host and device), so each run builds them once per arch and
language flags and a unit that can use them is checked in under half the time.

A precompiled header is included ahead of everything, so a unit uses it only when nothing
that comes before its first `#include <hip/hip_runtime.h>` (in the unit, or in the project's
headers it includes first, followed in order) can change what HIP's headers mean or can
depend on them: blank lines, comments, harmless pragmas, system includes, conditionals, and
`#define`/`#undef` of names that no header of the precompiled set uses, and code that names
nothing those headers name (`const char* sample = "x";`). Other code before it (it may need
HIP's declarations, or clash with them), an unknown pragma (`pack` changes layouts), a
runtime include inside a conditional other than an include guard, a forced header, or a
project folder with its own `hip/hip_runtime.h` make the unit be checked the plain way. This keeps the check's answer the one a build would
give (a unit whose compiler refuses the precompiled header is checked the plain way too).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from hipport.validate.compilecache import read_depfile
from hipport.validate.driver import Toolchain
from hipport.validate.site import Site

_COMMENTS = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)
_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(\w+)[ \t]*(.*)", re.S)
_INCLUDE = re.compile(rb"([<\"])([^>\"]+)[>\"]")
_NAME = re.compile(rb"[A-Za-z_]\w*")
_HARMLESS_PRAGMA = re.compile(rb"once|GCC\s+diagnostic|clang\s+diagnostic|warning|message|comment|"
                              rb"region|endregion|GCC\s+system_header")
_LITERALS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|\b\d\w*')
_KEYWORDS = frozenset(b"""alignas alignof asm auto bool break case catch char char16_t char32_t char8_t class
    const constexpr const_cast continue decltype default delete do double dynamic_cast else enum
    explicit export extern false float for friend goto if inline int long mutable namespace new
    noexcept nullptr operator private protected public register reinterpret_cast return short
    signed sizeof static static_assert static_cast struct switch template this thread_local throw
    true try typedef typeid typename union unsigned using virtual void volatile wchar_t while""".split())
_RUNTIME = b"hip/hip_runtime.h"
_KEY_FLAGS = ("-D", "-U", "-std=")
_MAX_DEPTH = 8

REACHED, CLEAN, BAD = "reached", "clean", "bad"


def eligible(data: bytes, flags: list[str], where: Path | None = None,
             used: Callable[[], frozenset[bytes] | None] | None = None) -> bool:
    """Can this unit be checked with the precompiled runtime header (see the module doc)?
    `where`: the unit's folder (its quoted includes); `used`: the names the precompiled
    headers use (None: unknown, so no macro may come first)."""
    if any(f in ("-include", "--pre-include") for f in flags):
        return False
    dirs = [Path(f[2:]) for f in flags if f.startswith("-I") and len(f) > 2]
    if any((d / "hip" / "hip_runtime.h").exists() for d in dirs):
        return False
    return _Walk(dirs, used).text(data, where, 0) == REACHED


class _Walk:
    def __init__(self, dirs: list[Path], used: Callable[[], frozenset[bytes] | None] | None) -> None:
        self.dirs = dirs
        self.used = used
        self.seen: set[Path] = set()

    def text(self, data: bytes, where: Path | None, depth: int) -> str:
        """REACHED: the runtime include comes with only harmless lines before it; CLEAN: the
        text ends with only harmless lines; BAD: anything else."""
        lines = _COMMENTS.sub(b"", data.replace(b"\\\r\n", b"").replace(b"\\\n", b"")).split(b"\n")
        stack: list[bool] = []  # open conditionals: True for this file's include guard
        for i, raw in enumerate(lines):
            line = raw.strip()
            if not line:
                continue
            m = _DIRECTIVE.fullmatch(line)
            if m is None:
                if not self.code_alone(line):
                    return BAD
                continue
            word, rest = m.group(1), m.group(2).strip()
            if word in (b"if", b"ifdef", b"ifndef"):
                guard = word == b"ifndef" and not stack and _defines(lines, i + 1, rest)
                stack.append(guard)
            elif word in (b"elif", b"else"):
                if not stack:
                    return BAD
                stack[-1] = False
            elif word == b"endif":
                if not stack:
                    return BAD
                stack.pop()
            elif word in (b"define", b"undef"):
                name = _NAME.match(rest)
                names = self.used() if self.used is not None else None
                if name is None or names is None or name.group(0) in names:
                    return BAD
            elif word == b"pragma":
                if not _HARMLESS_PRAGMA.match(rest):
                    return BAD
            elif word in (b"include", b"include_next"):
                inc = _INCLUDE.match(rest)
                if inc is None:
                    return BAD  # a computed include
                got = self.include(inc.group(1) == b'"', inc.group(2), where, depth)
                if got == BAD or got == REACHED and not all(stack):
                    return BAD
                if got == REACHED:
                    return REACHED
            elif word not in (b"error", b"warning", b"line", b"ident"):
                return BAD
        return CLEAN if not stack else BAD

    def code_alone(self, line: bytes) -> bool:
        """Code that names nothing the precompiled headers name (its own names and keywords
        only) means the same with HIP's declarations ahead of it or not."""
        names = self.used() if self.used is not None else None
        if names is None:
            return False
        words = set(_NAME.findall(_LITERALS.sub(b" ", line))) - _KEYWORDS
        return not (words & names)

    def include(self, quoted: bool, name: bytes, where: Path | None, depth: int) -> str:
        if name == _RUNTIME:
            return REACHED
        text = name.decode("utf-8", "surrogateescape")
        if quoted and where is None:
            return BAD  # a project header, unread
        found = None
        for d in ([where] if quoted and where is not None else []) + self.dirs:
            p = d / text
            if p.is_file():
                found = p
                break
        if found is None:
            return CLEAN  # a system header: it cannot depend on HIP's
        key = Path(os.path.normpath(found))
        if key in self.seen:
            return CLEAN  # read before (a guard or #pragma once makes it empty now)
        self.seen.add(key)
        if depth >= _MAX_DEPTH:
            return BAD
        try:
            data = found.read_bytes()
        except OSError:
            return BAD
        return self.text(data, found.parent, depth + 1)


def _defines(lines: list[bytes], start: int, rest: bytes) -> bool:
    """Is the next directive `#define` of the name `#ifndef` tested (an include guard)?"""
    name = _NAME.match(rest)
    for line in lines[start:]:
        line = line.strip()
        if line:
            m = _DIRECTIVE.fullmatch(line)
            return bool(m and name and m.group(1) == b"define"
                        and _NAME.match(m.group(2).strip()) is not None
                        and _NAME.match(m.group(2).strip()).group(0) == name.group(0))  # type: ignore[union-attr]
    return False


class Precompiled:
    """The precompiled headers of one run, built on first use: one pair (host, device) per
    arch and per language flags (-D, -U, -std), in `folder`."""

    def __init__(self, tc: Toolchain, folder: Path, site: Site | None = None) -> None:
        self.tc = tc
        self.site = site or Site(tc)  # `folder` must be one its compiler sees
        self.folder = folder
        self._lock = threading.Lock()
        self._pairs: dict[tuple[str, ...], tuple[Path, Path] | None] = {}
        self._names: dict[tuple[str, ...], frozenset[bytes]] = {}
        self._building: dict[tuple[str, ...], threading.Event] = {}

    def names(self, arch: str, flags: list[str]) -> frozenset[bytes] | None:
        """Every name the headers precompiled for `arch` and `flags` use (None: none built)."""
        if self.pair(arch, flags) is None:
            return None
        return self._names.get(self._key(arch, flags))

    @staticmethod
    def _key(arch: str, flags: list[str]) -> tuple[str, ...]:
        return (arch, *[f for f in flags if f.startswith(_KEY_FLAGS)])

    def pair(self, arch: str, flags: list[str]) -> tuple[Path, Path] | None:
        lang = [f for f in flags if f.startswith(_KEY_FLAGS)]
        key = self._key(arch, flags)
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
            made = self._build(len(self._building), arch, lang, key)
        finally:
            with self._lock:
                self._pairs[key] = made
            ev.set()
        return made

    def _build(self, n: int, arch: str, lang: list[str], key: tuple[str, ...]) -> tuple[Path, Path] | None:
        src = self.folder / f"pch{n}.h"
        src.write_text("#include <hip/hip_runtime.h>\n")
        host, dev = self.folder / f"pch{n}-host.pch", self.folder / f"pch{n}-{arch}.pch"
        base = ["-x", "hip", f"--offload-arch={arch}", *lang, "-Xclang", "-emit-pch"]
        deps = [self.folder / f"pch{n}-host.d", self.folder / f"pch{n}-{arch}.d"]
        # The device side's list is asked of the compiler proper: clang 21's driver drops -MD -MF
        # on a device-only -S (unused), which left the HIP 6.4 root without a precompiled header.
        dev_deps = [a for x in ("-dependency-file", str(deps[1]), "-MT", str(dev), "-sys-header-deps")
                    for a in ("-Xclang", x)]
        cmds = (self.site.command([*base, "--cuda-host-only", "-MD", "-MF", str(deps[0]), "-c", "-o", str(host), str(src)]),
                self.site.command([*base, "--cuda-device-only", *dev_deps, "-S", "-o", str(dev), str(src)]))
        # Both sides at once: every unit of the run waits for them.
        procs: list[subprocess.Popen[bytes]] = []
        try:
            for cmd in cmds:
                procs.append(subprocess.Popen(cmd, env=self.site.env, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL))
            codes = [p.wait(timeout=300) for p in procs]
        except (OSError, subprocess.TimeoutExpired):
            return None
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        if any(codes):
            return None
        if not (host.is_file() and dev.is_file()):
            return None
        names: set[bytes] = set()
        for d in deps:
            try:
                files = [self.site.host_path(f) for f in
                         read_depfile(d.read_text(encoding="utf-8", errors="surrogateescape"), self.folder)]
            except OSError:
                return None
            for f in files:
                try:
                    names.update(_NAME.findall(Path(f).read_bytes()))
                except OSError:
                    return None
        self._names[key] = frozenset(names)
        return host, dev
