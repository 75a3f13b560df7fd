"""The compile check: every translation unit of the ported tree, per AMD arch, by the HIP
toolchain's clang with the options hipcc would add (driver.py), run from an argv list.

Units compile in parallel (one job per unit and arch); each error is parsed, mapped back to
the original CUDA file and line, classified and explained by a rule (errors_map).
Include folders, defines, the standard and forced includes come from the tree (its
compile_commands.json with `-p DIR`, or its build files), each value checked first
(flags.py), and from -I/-D on the command line.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipport.config import workers as config_workers
from hipport.validate import errors_map, toolchains
from hipport.validate.compilecache import Answer, CompileCache, read_depfile
from hipport.validate.devicecode import holds_device_code
from hipport.validate.driver import Library, Toolchain
from hipport.validate.errors_map import Diagnostic
from hipport.validate.flags import Flags
from hipport.validate.pch import Precompiled
from hipport.validate.pch import eligible as pch_eligible
from hipport.validate.site import Site
from hipport.validate.tree import Entry, PortedTree
from hipport.validate.unitclass import UnitClass, classify_unit

PASS, FAIL, NOT_RUN = "pass", "fail", "not-run"
MAX_ERRORS = 25  # per unit and arch: the first ones are the ones that matter


# --- the tree's values as compiler arguments ----------------------------------------------------

def command_flags(flags: Flags, tree: PortedTree) -> list[str]:
    """Compiler arguments, with folders of the input swapped for their ported copies."""
    out: list[str] = []
    if flags.std:
        out.append(f"-std={flags.std}")
    for p in flags.includes:
        out.append(f"-I{tree.copy_of_dir(p)}")
    for p in flags.system_includes:
        out += ["-isystem", str(tree.copy_of_dir(p))]
    for d in flags.defines:
        out.append(f"-U{d[1:]}" if d.startswith("!") else f"-D{d}")
    for p in flags.forced:
        c = tree.entry_for_original(p)
        out += ["-include", str(c.copy if c else p)]
    return out


# --- results -----------------------------------------------------------------------------------

@dataclass
class ArchResult:
    status: str  # pass / fail / not-run
    seconds: float = 0.0
    reason: str = ""  # not-run: why; fail without parsed errors: the tool's last words
    diagnostics: list[Diagnostic] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    cached: bool = False  # the answer of an earlier run whose files all hash the same

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "seconds": round(self.seconds, 3), "reason": self.reason or None,
                "errors": [d.to_dict() for d in self.diagnostics], "command": self.command,
                "cached": self.cached}


@dataclass
class UnitResult:
    file: str  # the original, as the user named it
    ported: str  # the copy that was compiled
    archs: dict[str, ArchResult] = field(default_factory=dict)
    toolchain: str = ""  # the name of the toolchain that compiled it ("hip-5.2")
    has: tuple[Library, ...] = ()  # the libraries whose headers that toolchain has (not in the JSON)
    in_project: Callable[[str], bool] | None = None  # is an include path a file of the project

    @property
    def failed(self) -> bool:
        return any(a.status == FAIL for a in self.archs.values())

    def errors(self) -> list[Diagnostic]:
        """Each distinct error once, with the archs that reported it."""
        return errors_map.merge_archs({k: v.diagnostics for k, v in self.archs.items()})

    def verdict(self) -> UnitClass | None:
        """Why it failed (None when it did not): missing package, flagged or unexpected."""
        return classify_unit(self.errors(), self.has, self.toolchain, self.in_project) if self.failed else None

    def to_dict(self) -> dict[str, Any]:
        v = self.verdict()
        return {"file": self.file, "ported": self.ported, "toolchain": self.toolchain,
                "archs": {k: v.to_dict() for k, v in self.archs.items()},
                "class": v.kind if v else None, "why": v.why if v else None}


# --- running -------------------------------------------------------------------------------------

Explain = Callable[[Diagnostic, Entry | None], None]


def map_diagnostics(diags: list[Diagnostic], tree: PortedTree, cwd: Path | None,
                    explain: Explain | None = None, tool: str = "", unit: Entry | None = None) -> list[Diagnostic]:
    """Fill in each diagnostic's original file and line, source text, category and rule; one
    that names no place (the backend's) is the compiled `unit`'s."""
    for d in diags:
        d.tool = tool
        entry: Entry | None = None if d.ported_file else unit
        if d.ported_file:
            hit = tree.locate(d.ported_file, d.ported_line, d.ported_column, cwd)
            if hit is None:  # in a system or emulator header: where the project code reached it
                for path, line, col in d.chain:
                    hit = tree.locate(path, line, col, cwd)
                    if hit is not None:
                        d.notes.insert(0, f"reported in {d.ported_file}:{d.ported_line}")
                        d.ported_file, d.ported_line, d.ported_column = path, line, col
                        break
            if hit is not None:
                entry, loc, m = hit
                d.ported_file = str(entry.copy)
                d.file = entry.display
                d.line, d.column, d.rewritten = loc.line, loc.column, loc.rewritten
                if m is not None:
                    d.source = m.original_line_text(loc.line).strip()
                    d.ported_source = m.ported_line_text(d.ported_line or 1).strip()
                else:
                    d.source = d.ported_source = _line_of(entry.copy, d.ported_line or 1)
            else:
                p = Path(d.ported_file)
                if not p.is_absolute() and cwd is not None:
                    p = cwd / p
                d.ported_file = os.path.normpath(str(p))
                d.ported_source = _line_of(p, d.ported_line or 1)
        d.category = errors_map.classify(d)
        if explain is not None:
            explain(d, entry)
    return diags


def _line_of(path: Path, line: int) -> str:
    try:
        with open(path, "rb") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    return text.decode("utf-8", "replace").strip()
    except OSError:
        pass
    return ""


# The precompiled header itself was refused: check the plain way.
_PCH_TROUBLE = re.compile(r"PCH file|precompiled header|pch", re.I)
# Inline assembly is checked by the backend only: a unit that has some is compiled in full. So
# are units that call a device function some target lacks the instructions for (HP020's table,
# rules/targets/device.toml): gfx90a fails `tex2DLod` in the backend only.
_ASM = re.compile(rb"\b(?:asm|__asm__|__asm)\b")


@functools.cache
def _backend_checked() -> re.Pattern[bytes]:
    from hipport.rules.targets import lacks

    names = sorted({f for lack in lacks() if lack.backend for f in lack.functions})
    return re.compile(rb"\b(?:asm|__asm__|__asm|" + b"|".join(n.encode() for n in names) + rb")\b")


def compile_one(tc: Toolchain, entry: Entry, arch: str, flags: list[str], tree: PortedTree,
                objdir: Path, explain: Explain | None, timeout: float = 900.0,
                cache: CompileCache | None = None, pch: Precompiled | None = None,
                site: Site | None = None) -> ArchResult:
    """The toolchain's clang on one unit for one arch, with hipcc's options (driver.py).
    `-fsyntax-only` gives the diagnostics without code generation, unless the unit or a
    header of the tree holds inline assembly; an answer whose files all hash as before comes
    from `cache`; `pch` checks an eligible unit with a precompiled runtime header (a failure
    is checked again without it). `flags` are hipcc-style arguments: include folders,
    defines, the standard and forced includes, tree values already checked (flags.py).
    `site`: where the compiler runs (a toolchain's root: the tree placed inside it, site.py)."""
    site = site or Site(tc)
    stem = f"{abs(hash((str(entry.copy), arch)))}-{entry.copy.stem}.{arch}"
    obj, depfile = objdir / f"{stem}.o", objdir / f"{stem}.d"
    base = ["-x", "hip", f"--offload-arch={arch}", *flags]
    syntax = [*base, "-fsyntax-only", str(entry.copy)]
    full = [*base, "-c", str(entry.copy), "-o", str(obj)]
    key = cache.key(tc.clang, repr(tc), arch, flags, entry.copy) if cache is not None else ""
    hit = cache.get(key) if cache is not None else None
    if hit is not None:
        rc, out, secs, cmd = hit.rc, hit.output, hit.seconds, full if hit.backend else syntax
    else:
        t0 = time.perf_counter()
        got, out, deps, absent = _check(site, pch, base, arch, flags, entry, depfile, objdir, timeout)
        cmd = syntax
        if got == 0 and _has_asm(deps, tree):
            cmd = full
            got, out = _clang(site, full, entry, timeout)
        secs = time.perf_counter() - t0
        if got is None:
            return ArchResult(NOT_RUN, 0.0, f"cannot run clang: {out}", [], site.command(cmd))
        rc = got
        dirs = _search_dirs(tc, flags, deps, entry) if cache is not None and absent else []
        if cache is not None and rc != 124 and deps:
            cache.put(key, Answer(rc, out, secs, cmd is full), deps, absent, dirs)
        for p in (obj, depfile):
            try:
                p.unlink()
            except OSError:
                pass
    if rc == 0:
        return ArchResult(PASS, secs, "", [], site.command(cmd), cached=hit is not None)
    diags = _from_site(errors_map.parse(out), site)
    map_diagnostics(diags, tree, entry.copy.parent, explain, f"{tc.name} {arch}", entry)
    reason = ""
    if not diags:
        tail = [x for x in out.splitlines() if x.strip()][-3:]
        reason = " | ".join(tail) or f"clang exited {rc}"
    return ArchResult(FAIL, secs, reason, diags[:MAX_ERRORS], site.command(cmd), cached=hit is not None)


def _from_site(diags: list[Diagnostic], site: Site) -> list[Diagnostic]:
    """The paths the compiler printed, as this machine names them (a root's: site.py)."""
    if not site.tc.root:
        return diags
    seen = site.mirror_prefix
    for d in diags:
        if d.ported_file:
            d.ported_file = site.host_path(d.ported_file)
        d.chain = [(site.host_path(p), line, col) for p, line, col in d.chain]
        if seen:
            d.notes = [n[len(seen):] if n.startswith(seen + "/") else n for n in d.notes]
    return diags


def _check(site: Site, pch: Precompiled | None, base: list[str], arch: str, flags: list[str], entry: Entry,
           depfile: Path, objdir: Path, timeout: float) -> tuple[int | None, str, list[str], list[str]]:
    """The diagnostics-only check, host side then device side, with the precompiled runtime
    header where the unit can use it (checked again without it when it is refused):
    (exit code, output, files read, names not found). The device side is checked when the
    host side passes, as hipcc does, and the unit holds device code (see devicecode)."""
    pair = None
    if pch is not None:
        try:
            data = entry.copy.read_bytes()
        except OSError:
            data = b""
        names = functools.partial(pch.names, arch, flags)
        pair = pch.pair(arch, flags) if data and pch_eligible(data, flags, entry.copy.parent, names) else None
    got, out, deps, absent = _sides(site, base, pair, entry, depfile, objdir, timeout)
    if pair is not None and got not in (None, 0) and _PCH_TROUBLE.search(out):
        got, out, deps, absent = _sides(site, base, None, entry, depfile, objdir, timeout)
    return got, out, deps, absent


def _sides(site: Site, base: list[str], pair: tuple[Path, Path] | None, entry: Entry, depfile: Path,
           objdir: Path, timeout: float) -> tuple[int | None, str, list[str], list[str]]:
    unit = str(entry.copy)
    host = ["-include-pch", str(pair[0])] if pair else []
    rc1, out1 = _clang(site, [*base, "--cuda-host-only", *host, "-fsyntax-only", "-MD", "-MF", str(depfile), unit],
                       entry, timeout)
    scratch = os.path.normpath(str(objdir)) + os.sep  # the precompiled header and its source
    deps = [d for d in _deps(depfile, entry, site) if not d.startswith(scratch)]
    absent: list[str] = []
    if rc1 not in (None, 0, 124) and not deps:
        # A missing header stops the compile before it writes its dependencies: the
        # preprocessor alone lists them, the missing ones by the name they were asked by.
        deps, absent = _listed_deps(site, base, entry, timeout)
    if rc1 is None or rc1 == 124:
        return rc1, out1, deps, absent
    if rc1 != 0 or not holds_device_code(unit, deps):
        # hipcc too stops at the host side's errors: the device side's come once it passes.
        return rc1, out1, deps, absent
    dev = ["-include-pch", str(pair[1])] if pair else []
    rc2, out2 = _clang(site, [*base, "--cuda-device-only", *dev, "-fsyntax-only", unit], entry, timeout)
    if rc2 is None:
        return None, out2, deps, absent
    return (rc1 or rc2), out1 + out2, deps, absent


def _clang(site: Site, args: list[str], entry: Entry, timeout: float) -> tuple[int | None, str]:
    """The toolchain's clang on hipcc-style `args`, from an argv list: (exit code, output);
    (None, why) when it cannot be started."""
    try:
        p = subprocess.run(site.command(args), cwd=entry.copy.parent, env=site.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"clang: error: timed out after {timeout:.0f}s"
    except OSError as e:
        return None, str(e)
    # surrogateescape: a file name that is not UTF-8 keeps its bytes, so its diagnostics map
    # back to the original file (the views write those bytes as \xff)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape")


def _deps(depfile: Path, entry: Entry, site: Site) -> list[str]:
    try:
        text = depfile.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return []
    return [site.host_path(d) for d in read_depfile(text, entry.copy.parent)]


def _listed_deps(site: Site, base: list[str], entry: Entry, timeout: float) -> tuple[list[str], list[str]]:
    """(files found, names not found) of the unit, from `-M -MG` (preprocessing only)."""
    try:
        # hipcc checks dependencies on the host side (-M adds --cuda-host-only)
        p = subprocess.run(site.command([*base, "--cuda-host-only", "-M", "-MG", str(entry.copy)]),
                           cwd=entry.copy.parent, env=site.env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                           timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return [], []
    if p.returncode != 0:
        return [], []
    named = [site.host_path(d) for d in
             read_depfile(p.stdout.decode("utf-8", "surrogateescape"), entry.copy.parent, keep_relative=True)]
    here = entry.copy.parent
    found = [os.path.normpath(str(here / d)) for d in named if os.path.exists(here / d)]
    return found, [d for d in named if not os.path.isabs(d) and not os.path.exists(here / d)]


def _search_dirs(tc: Toolchain, flags: list[str], deps: list[str], entry: Entry) -> list[str]:
    """Every folder a missing header could appear in: the -I and -isystem folders, the
    folders of the files it read (quoted includes) and the compiler's own list."""
    dirs = [entry.copy.parent.as_posix()]
    it = iter(flags)
    for f in it:
        if f == "-isystem":
            dirs.append(next(it, ""))
        elif f.startswith("-I"):
            dirs.append(f[2:])
    dirs += [os.path.dirname(d) for d in deps]
    dirs += system_dirs(tc)
    return list(dict.fromkeys(os.path.normpath(d) for d in dirs if d))


@functools.cache
def system_dirs(tc: Toolchain) -> tuple[str, ...]:
    """The folders the toolchain's compiler searches for `#include <...>` by default (its
    own options included), as `-E -v` lists them; a root's as this machine sees them."""
    try:
        p = subprocess.run(tc.command(["-x", "hip", "-E", "-v", "/dev/null", "-o", "/dev/null"]),
                           env=toolchains.compile_env(tc), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0 or "search starts here" not in out:
        return ()
    block = out.split("#include <...> search starts here:", 1)[-1].split("End of search list.", 1)[0]
    return tuple(tc.host_path(x.strip()) for x in block.splitlines() if x.strip())


def _named_folders(flags: list[list[str]]) -> list[Path]:
    """The existing folders the units' flags name (include folders, forced includes' folders)."""
    out: dict[str, None] = {}
    for fl in flags:
        it = iter(fl)
        for f in it:
            if f in ("-isystem", "-include"):
                v = next(it, "")
                d = v if f == "-isystem" else os.path.dirname(v)
            elif f.startswith("-I"):
                d = f[2:]
            else:
                continue
            if d and os.path.isabs(d) and os.path.isdir(d):
                out[os.path.normpath(d)] = None
    return [Path(d) for d in out]


def _has_asm(deps: list[str], tree: PortedTree) -> bool:
    root = os.path.normpath(str(tree.root)) + os.sep
    for d in deps:
        if d.startswith(root):
            try:
                with open(d, "rb") as f:
                    if _backend_checked().search(f.read()):
                        return True
            except OSError:
                continue
    return False


def compile_units(tree: PortedTree, units: list[Entry], archs: Sequence[str], *,
                  flags_for: Callable[[Entry], list[str]], jobs: int = 0,
                  explain: Explain | None = None, toolchain: Toolchain | None = None,
                  skipped: Sequence[tuple[str, str]] = (),
                  progress: Callable[[int, int], None] | None = None,
                  cache_dir: Path | None = None, use_pch: bool = True) -> list[UnitResult]:
    """Compile every unit for every arch with `toolchain` (default: the host's HIP); archs in
    `skipped` are recorded as not run. With `cache_dir`, answers of units whose files are
    unchanged are reused. A toolchain in a root compiles the tree placed inside it (site.py)."""
    tc = toolchain or toolchains.amd_toolchain()
    results = [UnitResult(u.display, str(u.copy), toolchain=tc.name if tc is not None else "",
                          has=tc.headers if tc is not None else (), in_project=tree.in_project) for u in units]
    if tc is None or not tc.ok:
        why = "HIP for AMD not found (no hipcc on PATH, in /opt/rocm or /usr)" if tc is None else \
            f"HIP for AMD does not work: {tc.error}" if not tc.root else f"{tc.name} cannot run: {tc.error}"
        for r in results:
            for a in archs:
                r.archs[a] = ArchResult(NOT_RUN, reason=why)
            for a, reason in skipped:
                r.archs[a] = ArchResult(NOT_RUN, reason=reason)
        return results
    tasks = [(i, a) for i in range(len(units)) for a in archs]
    done = 0
    if progress:
        progress(0, len(tasks))
    workers = config_workers(jobs)  # never more than the cores
    flags = [flags_for(u) for u in units]
    with Site(tc) as site, tempfile.TemporaryDirectory(prefix="hipport-objs-", dir=site.scratch) as objdir, \
            ThreadPoolExecutor(max_workers=max(1, min(workers, len(tasks) or 1))) as ex:
        site.tmp = objdir
        if tc.root:  # the compiler sees the root's files only: the tree, and folders it names
            site.place(tree.root)
            for d in _named_folders(flags):
                site.place(d)
        cache = CompileCache(cache_dir, tree.root, mirror=site.mirror_prefix) if cache_dir is not None else None
        pch = Precompiled(tc, Path(objdir), site) if use_pch else None
        futs = {ex.submit(compile_one, tc, units[i], a, flags[i], tree,
                          Path(objdir), explain, cache=cache, pch=pch, site=site): (i, a)
                for i, a in tasks}
        per: dict[tuple[int, str], ArchResult] = {}
        from concurrent.futures import as_completed
        for fut in as_completed(futs):
            per[futs[fut]] = fut.result()
            done += 1
            if progress:
                progress(done, len(tasks))
    for (i, a), ar in per.items():
        results[i].archs[a] = ar
    for r in results:
        r.archs = {a: r.archs[a] for a in archs if a in r.archs}
        for a, reason in skipped:
            r.archs[a] = ArchResult(NOT_RUN, reason=reason)
    return results
