"""Compile a unit on HIP's NVIDIA platform: nvcc with HIP's NVIDIA headers, no GPU needed.

Debian's HIP 5.2 headers predate CUDA 12/13, so they are compiled from a copy that
hipport.validate.hipkit patches for the nvcc at hand (what scripts/gpu-check-prepare.sh makes
for a GPU machine). The copy is made once per content (hipkit.cached_kit): its folder is named
by a digest of HIP's headers and nvcc's version, under the user's cache; a compile's success is
kept by content too, in pytest's cache (tests/compiled.py). Tests that use it are marked
`nvidia`; `require()` skips them where nvcc or the headers are absent and fails them where
HIPPORT_REQUIRE_TOOLCHAINS names nvidia.

nvcc spends most of a small unit's ~1.4 s of CPU on HIP's and CUDA's headers (cudafe++, cicc and
the host compiler each parse them), so `compile_batched` builds units that start with the same
system includes as one unit (`batch_source`), and a unit alone only when its batch fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest

from hipport.validate import hipkit, toolchains
from hipport.validate.compilecache import Answer, CompileCache, read_depfile

NAME = "nvidia"
ARCH = "sm_90"  # compiled, not run: any architecture CUDA 12/13 supports


def _why_not() -> str:
    if toolchains.find_nvcc() is None:
        return "nvcc not found"
    if toolchains.hip_include_dir() is None:
        return "HIP's NVIDIA headers (hip/nvidia_detail) not found"
    return ""


def require() -> None:
    why = _why_not()
    if why:
        if NAME in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {NAME}, but {why}")
        pytest.skip(f"no HIP NVIDIA platform here: {why}")


@cache
def kit() -> Path:
    """A folder holding hip/: HIP's headers, patched for this nvcc (made once per content)."""
    done = hipkit.cached_kit()
    assert done is not None
    return done


@cache
def _nvcc() -> str:
    """Which nvcc, and what it says it is: part of every cached answer's key."""
    nvcc = toolchains.find_nvcc()
    return f"{nvcc}\n{subprocess.run([str(nvcc), '--version'], capture_output=True, text=True).stdout}"


def compile_nvidia(source: Path, *args: str, cache: Path | None = None,
                   root: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`nvcc -x cu -std=c++17 -c SOURCE` with the patched headers, as validate's NVIDIA leg
    compiles (nvcc called directly, never hipcc). With `cache` (tests/compiled.py's folder), a
    success is kept by content: answered again while every file nvcc read hashes the same
    (paths under `root`, the work folder, are keyed relative to it)."""
    require()
    nvcc = toolchains.find_nvcc()
    assert nvcc
    cuda = toolchains.cuda_path()
    flags = ["-Wno-deprecated-gpu-targets", f"-arch={ARCH}",
             *(["-isystem", str(Path(cuda) / "include")] if cuda else []), "-isystem", str(kit()),
             "-x", "cu", "-std=c++17", *args]
    cc = CompileCache(cache, root or source.parent) if cache is not None else None
    key = cc.key("nvcc", _nvcc(), ARCH, flags, source) if cc is not None else ""
    hit = cc.get(key) if cc is not None else None
    if hit is not None:
        return subprocess.CompletedProcess([nvcc], hit.rc, "", hit.output)
    depfile = source.with_suffix(".d")
    t0 = time.perf_counter()
    p = subprocess.run([nvcc, *flags, "-MD", "-MF", str(depfile), "-c", str(source), "-o", str(source.with_suffix(".o"))],
                       capture_output=True, text=True, errors="replace", timeout=600, stdin=subprocess.DEVNULL)
    if cc is not None and p.returncode == 0 and depfile.is_file():
        deps = read_depfile(depfile.read_text(errors="replace"), source.parent)
        if deps:
            cc.put(key, Answer(p.returncode, p.stderr, time.perf_counter() - t0, True), deps)
    return p


def errors(proc: subprocess.CompletedProcess[str]) -> str:
    return "\n".join(line for line in (proc.stdout + proc.stderr).splitlines() if "error" in line)[:4000]


_SYSTEM_INCLUDE = re.compile(r"#\s*include\s*<([^>\n]+)>\s*(?://.*)?")
_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)[ \t]*(\w*)", re.M)
_HEADER_NAMESPACE = re.compile(r"^\s*namespace\s+(?:std|cooperative_groups|cub|hipcub|thrust)\s*\{", re.M)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)


def split_head(text: str) -> tuple[tuple[str, ...], int] | None:
    """A unit's head, the system includes it starts with (blank and comment lines between them),
    and the line its body starts at; None where the unit cannot share a batch without a
    difference from its compile alone: an include or `#undef` in the body (the body of a batch
    sits in a namespace, after the other units), a pragma other than `unroll`, a header's
    namespace reopened."""
    lines = text.split("\n")
    head: list[str] = []
    start, comment = 0, False
    for i, line in enumerate(lines):
        bare = line.strip()
        if comment:
            if "*/" in bare and bare.split("*/", 1)[1].strip():
                return None
            comment = "*/" not in bare
            start = i + 1
            continue
        m = _SYSTEM_INCLUDE.fullmatch(bare)
        if m:
            if m.group(1) not in head:
                head.append(m.group(1))
        elif bare.startswith("/*"):
            comment = "*/" not in bare
            if not comment and not bare.endswith("*/"):
                break
        elif bare and not bare.startswith("//"):
            break
        start = i + 1
    body = "\n".join(lines[start:])
    for name, word in _DIRECTIVE.findall(body):
        if name in ("include", "import", "undef") or (name == "pragma" and word != "unroll"):
            return None
    if _HEADER_NAMESPACE.search(body):  # reopened inside the batch's namespace, it is another one
        return None
    if not head or comment:
        return None
    return tuple(head), start


def batch_source(units: Sequence[Path], base: Path) -> str:
    """One unit for `units` of the same head: the head once, then each body in its own namespace
    under a `#line` naming its file (relative to `base`, so that a batch's text does not depend on
    the temporary folder), its macros undefined after it."""
    parts: list[str] = []
    for i, unit in enumerate(units):
        text = unit.read_text(encoding="latin-1")  # the bytes as they are
        split = split_head(text)
        assert split is not None, unit
        head, start = split
        if i == 0:
            parts += [f"#include <{h}>\n" for h in head]
        body = "\n".join(text.split("\n")[start:])
        parts.append(f"namespace hipport_batch_{i} {{\n#line {start + 1} \"{unit.relative_to(base)}\"\n{body}\n}}\n")
        parts += [f"#undef {m}\n" for m in sorted(set(_DEFINE.findall(body)))]
    return "".join(parts)


def compile_batched(units: Sequence[Path], batch: Path, *args: str, cache: Path | None = None,
                    root: Path) -> dict[Path, subprocess.CompletedProcess[str]]:
    """Each unit's `compile_nvidia` answer, from one compile of `batch` (written here, from units
    of one head: `split_head`) when that builds; where it does not, each half is tried the same
    way, down to a unit alone: a unit that fails alone fails, with its own errors, and one
    failing unit costs about two compiles a halving, not one a unit."""
    if len(units) == 1:
        return {units[0]: compile_nvidia(units[0], *args, cache=cache, root=root)}
    batch.write_text(batch_source(units, root), encoding="latin-1")
    together = compile_nvidia(batch, *args, cache=cache, root=root)
    if together.returncode == 0:
        return dict.fromkeys(units, together)
    half = len(units) // 2
    return {**compile_batched(units[:half], batch.with_name(f"{batch.stem}a{batch.suffix}"), *args, cache=cache, root=root),
            **compile_batched(units[half:], batch.with_name(f"{batch.stem}b{batch.suffix}"), *args, cache=cache, root=root)}
