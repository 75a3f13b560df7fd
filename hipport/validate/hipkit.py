"""Make a copy of HIP's NVIDIA headers compile with the CUDA toolkit at hand.

HIP's NVIDIA path (`hip/nvidia_detail/*.h`) wraps each HIP call in an inline function calling
its CUDA twin. Debian's HIP 5.2 predates CUDA 12/13, which removed or changed some of those
CUDA APIs (texture references, `cudaDeviceProp::clockRate`, `cudaMemPrefetchAsync`'s
signature, ...), so including `<hip/hip_runtime.h>` fails with nvcc 13. This module patches a
*copy* of the headers (scripts/gpu-check-prepare.sh makes it in .gpu-kit/): it compiles a probe
with nvcc, and for each error in a HIP header it guards the offending code with
`#if CUDART_VERSION < N` (N: this toolkit's major version * 1000), putting in its place
`return hipErrorNotSupported;` (a statement of a function returning hipError_t), nothing (a
struct field copy), or nothing at all (a whole function whose signature no longer compiles,
e.g. the texture-reference templates). Repeated until the probe compiles.

    python -m hipport.validate.hipkit patch-nvidia INCLUDE_DIR [--nvcc NVCC]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hipport.validate import errors_map, toolchains

PROBE_HEADERS = ("hip/hip_runtime.h", "hip/hip_runtime_api.h", "hip/hip_cooperative_groups.h",
                 "hip/hip_fp16.h", "hip/hip_complex.h", "hip/hip_vector_types.h")
MARK = "hipport-compat"


@dataclass
class Patch:
    file: str
    line: int
    what: str  # "statement", "field", "function"
    message: str


def cuda_major(nvcc: str) -> int | None:
    rc, out = toolchains._run([nvcc, "--version"], None, 60)
    m = re.search(r"release (\d+)\.", out)
    return int(m.group(1)) if m else None


def probe(include: Path, nvcc: str, extra: list[str] | None = None) -> tuple[int, str]:
    heads = [h for h in PROBE_HEADERS if (include / h).is_file()]
    src = "".join(f"#include <{h}>\n" for h in heads)
    src += ("__global__ void hipport_probe(float* p) { p[threadIdx.x] += __shfl_down(p[0], 1); }\n"
            "int main() { float* d; hipMalloc(&d, 4); hipLaunchKernelGGL(hipport_probe, dim3(1), dim3(1), 0, 0, d);"
            " hipDeviceProp_t prop; hipGetDeviceProperties(&prop, 0); return hipDeviceSynchronize(); }\n")
    cmd = [nvcc, "-x", "cu", "-Wno-deprecated-gpu-targets", "-isystem", str(include)]
    cp = toolchains.cuda_path()
    if cp:
        cmd[4:4] = ["-isystem", str(Path(cp) / "include")]
    with tempfile.TemporaryDirectory(prefix="hipport-kit-") as d:
        f = Path(d) / "probe.cu"
        f.write_text(src, encoding="utf-8")
        return toolchains._run([*cmd, *(extra or []), "-c", str(f), "-o", str(Path(d) / "probe.o")], None, 600)


def _code(line: str) -> str:
    return re.sub(r"//.*", "", line).strip()


def _decl_start(lines: list[str], i: int) -> int:
    """First line of the top-level declaration holding line index i (column-0 start)."""
    j = i
    while j > 0:
        s = lines[j]
        if s and not s[0].isspace() and not s.startswith(("}", "#", "//", "/*", "*")):
            break
        j -= 1
    while j > 0 and _code(lines[j - 1]).startswith("template"):
        j -= 1
    return j


def _decl_end(lines: list[str], i: int) -> int:
    """Line index of the `}` closing the top-level function that holds line i."""
    j = i
    while j < len(lines):
        if lines[j].startswith("}"):
            return j
        j += 1
    return len(lines) - 1


def _body_start(lines: list[str], start: int, end: int) -> int:
    for j in range(start, end + 1):
        if "{" in _code(lines[j]):
            return j
    return end


def _statement(lines: list[str], i: int, lo: int) -> tuple[int, int]:
    s = i
    while s > lo and not _code(lines[s - 1]).endswith((";", "{", "}", ":")) and not lines[s - 1].lstrip().startswith("#"):
        s -= 1
    e = i
    while e < len(lines) - 1 and not _code(lines[e]).endswith((";", "{", "}")):
        e += 1
    return s, e


def patch_file(path: Path, errs: list[tuple[int, str]], guard: str) -> list[Patch]:
    """Guard the code at the given 1-based lines; returns what was done."""
    lines = path.read_text(encoding="utf-8", errors="surrogateescape").split("\n")
    edits: dict[tuple[int, int], tuple[str, str, str]] = {}  # (start, end) -> (kind, replacement, message)
    for line, msg in errs:
        i = line - 1
        if not 0 <= i < len(lines) or MARK in lines[i]:
            continue
        ds = _decl_start(lines, i)
        de = _decl_end(lines, i)
        bs = _body_start(lines, ds, de)
        head = " ".join(_code(x) for x in lines[ds:bs + 1])
        if i <= bs and "(" in head:  # the signature itself: drop the whole function
            edits[(ds, de)] = ("function", "", msg)
            continue
        s, e = _statement(lines, i, bs + 1)
        stmt = " ".join(_code(x) for x in lines[s:e + 1])
        if re.match(r"^[\w\]\[]+(?:\.|->)\w+(?:\[[^\]]*\])?\s*=", stmt):
            edits[(s, e)] = ("field", "", msg)
        elif "hipError_t" in head.split("(")[0]:
            indent = lines[s][:len(lines[s]) - len(lines[s].lstrip())]
            edits[(s, e)] = ("statement", f"{indent}return hipErrorNotSupported;", msg)
        elif re.search(r"\bvoid\b", head.split("(")[0]):
            edits[(s, e)] = ("statement", "", msg)
        else:
            edits[(s, e)] = ("statement", "", msg)
    # Apply bottom-up; skip spans inside another edited span.
    spans = sorted(edits, key=lambda x: (x[0], -x[1]))
    kept: list[tuple[int, int]] = []
    for sp in spans:
        if kept and sp[0] <= kept[-1][1]:
            continue
        kept.append(sp)
    done: list[Patch] = []
    for s, e in reversed(kept):
        kind, rep, msg = edits[(s, e)]
        new = [f"#if {guard} /* {MARK}: {kind} does not compile with this CUDA */", *lines[s:e + 1]]
        if rep:
            new += ["#else", rep]
        new.append(f"#endif /* {MARK} */")
        lines[s:e + 1] = new
        done.append(Patch(str(path), s + 1, kind, msg))
    path.write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
    return done


def patch_nvidia(include: Path, nvcc: str | None = None, rounds: int = 10,
                 log=print) -> tuple[bool, list[Patch]]:  # noqa: ANN001
    """Patch the headers under `include` (a folder holding hip/) until the probe compiles."""
    nvcc = nvcc or toolchains.find_nvcc()
    if nvcc is None:
        raise SystemExit("nvcc not found: cannot check HIP's NVIDIA headers")
    major = cuda_major(nvcc) or 13
    guard = f"!defined(CUDART_VERSION) || CUDART_VERSION < {major * 1000}"
    include = include.resolve()
    patches: list[Patch] = []
    for _ in range(rounds):
        rc, out = probe(include, nvcc)
        if rc == 0:
            return True, patches
        per_file: dict[Path, list[tuple[int, str]]] = {}
        for d in errors_map.parse(out):
            if not d.ported_file or d.ported_line is None:
                continue
            p = Path(d.ported_file).resolve()
            if p.is_relative_to(include / "hip"):
                per_file.setdefault(p, []).append((d.ported_line, d.message))
        if not per_file:
            log(out[-3000:])
            return False, patches
        n = 0
        for p, errs in per_file.items():
            new = patch_file(p, errs, guard)
            n += len(new)
            patches += new
        if n == 0:
            log(out[-3000:])
            return False, patches
    rc, out = probe(include, nvcc)
    return rc == 0, patches


def cached_kit(cache: Path | None = None) -> Path | None:
    """A folder holding hip/: HIP's headers patched for the nvcc at hand, made once per content
    (its name is a digest of HIP's headers, nvcc's version and this module) under `cache`
    (default: the user's cache folder); None where nvcc or HIP's NVIDIA headers are absent.
    Raises RuntimeError when the headers do not compile with this nvcc even patched."""
    nvcc, inc = toolchains.find_nvcc(), toolchains.hip_include_dir()
    if nvcc is None or inc is None:
        return None
    h = hashlib.blake2b(digest_size=8)
    h.update(subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.encode())
    h.update(Path(__file__).read_bytes())
    for p in sorted(Path(inc, "hip").rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(inc)).encode() + b"\0" + p.read_bytes())
    home = cache or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hipport-tests"
    done = home / f"nvidia-kit-{h.hexdigest()}"
    if (done / "hip" / "hip_runtime.h").is_file():
        return done
    done.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kit-", dir=done.parent))
    shutil.copytree(Path(inc, "hip"), work / "hip", symlinks=True)
    ok, _ = patch_nvidia(work, nvcc, log=lambda m: None)
    if not ok:
        shutil.rmtree(work, ignore_errors=True)
        raise RuntimeError("HIP's NVIDIA headers do not compile with this nvcc even patched")
    try:
        work.rename(done)  # another process may have made it meanwhile: theirs is as good
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hipport.validate.hipkit")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("patch-nvidia", help="patch a copy of HIP's headers for this CUDA toolkit")
    p.add_argument("include", type=Path, help="folder holding hip/ (a copy, never /usr/include)")
    p.add_argument("--nvcc", default=None)
    p.add_argument("--force", action="store_true", help="allow patching a system folder")
    a = ap.parse_args(argv)
    if a.cmd == "patch-nvidia":
        inc = a.include.resolve()
        if str(inc).startswith(("/usr/", "/opt/")) and not a.force:
            print(f"refusing to patch {inc}: patch a copy (see scripts/gpu-check-prepare.sh)", file=sys.stderr)
            return 2
        if not (inc / "hip" / "hip_runtime.h").is_file():
            print(f"{inc}/hip/hip_runtime.h not found", file=sys.stderr)
            return 2
        ok, patches = patch_nvidia(inc, a.nvcc, log=lambda m: print(m, file=sys.stderr))
        for x in patches:
            print(f"{Path(x.file).relative_to(inc)}:{x.line}: guarded {x.what}: {x.message}")
        print(("HIP's NVIDIA headers compile with this nvcc" if ok else "still failing") +
              f" ({len(patches)} patch(es))")
        return 0 if ok else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
