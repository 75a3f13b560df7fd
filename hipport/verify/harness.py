"""The C++ harness of one kernel, built twice on the wave emulator (the CUDA original at wave
32, the port at wave 64) and run on a case file per input kind.

The harness includes the file that launches the kernel (its `main` renamed away), so the
kernel, its templates and the file's constants are what the program itself compiles; it reads
each case (grid, block, scalars, buffers) from the case file, launches the kernel with
`hipLaunchKernelGGL`, and writes every buffer back. Builds are AddressSanitizer builds: a
kernel reading past a buffer's generated length stops the run instead of reading garbage.
Binaries are kept in the cache folder by the hash of everything they are built from."""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hipport.cache import make_private
from hipport.verify.inputs import Plan

CTYPE = {"f": "float", "d": "double", "i": "int", "I": "unsigned int", "q": "long long",
         "Q": "unsigned long long", "h": "short", "H": "unsigned short", "b": "signed char",
         "B": "unsigned char", "?": "bool"}


def _c_string(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def source(p: Plan, include: Path) -> str:
    """The harness for plan `p`, including `include` (the launching file's copy in a tree)."""
    decls: list[str] = []
    args: list[str] = []
    back: list[str] = []
    for i, (prm, how) in enumerate(p.params):
        if how.startswith("ptr:"):
            t = p.ctypes.get(prm.name, CTYPE[how[4:]])  # char and signed char are two types
            decls += [f"    uint64_t n{i}; hv_read(&n{i}, 8, in);",
                      f"    std::vector<{t}> h{i}(n{i}); hv_read(h{i}.data(), n{i} * sizeof({t}), in);",
                      f"    {t}* d{i} = nullptr; hv_check(hipMalloc((void**)&d{i}, n{i} * sizeof({t})));",
                      f"    hv_check(hipMemcpy(d{i}, h{i}.data(), n{i} * sizeof({t}), hipMemcpyHostToDevice));"]
            args.append(f"d{i}")
            back += [f"    hv_check(hipMemcpy(h{i}.data(), d{i}, n{i} * sizeof({t}), hipMemcpyDeviceToHost));",
                     f"    fwrite(&n{i}, 8, 1, out); fwrite(h{i}.data(), sizeof({t}), n{i}, out);",
                     f"    hv_check(hipFree(d{i}));"]
        elif how.startswith("text:"):
            args.append(f"({how[5:]})")
        else:
            t = p.ctypes.get(prm.name, CTYPE[how])
            decls.append(f"    {t} s{i}; {{ unsigned char raw[8]; hv_read(raw, 8, in); memcpy(&s{i}, raw, sizeof({t})); }}")
            args.append(f"s{i}")
    call = ", ".join(["dim3(g[0], g[1], g[2])", "dim3(b[0], b[1], b[2])", "0", "0", *args])
    nl = "\n"
    return f"""// hipport verify: harness of {p.kernel.qualified} ({p.kernel.file.name}:{p.kernel.line})
#define main hipport_verify_program_main
#include {_c_string(include)}
#undef main
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static FILE* in;
static void hv_read(void* p, size_t n, FILE* f) {{
  if (n && fread(p, 1, n, f) != n) {{ fprintf(stderr, "hipport verify: short case file\\n"); exit(3); }}
}}
static void hv_check(hipError_t e) {{
  if (e != hipSuccess) {{ fprintf(stderr, "hipport verify: %s\\n", hipGetErrorString(e)); exit(4); }}
}}
int main(int argc, char** argv) {{
  if (argc != 3) return 2;
  in = fopen(argv[1], "rb");
  FILE* out = fopen(argv[2], "wb");
  if (!in || !out) return 2;
  char magic[4]; hv_read(magic, 4, in);
  uint32_t count; hv_read(&count, 4, in);
  for (uint32_t c = 0; c < count; ++c) {{
    uint32_t g[3], b[3]; hv_read(g, 12, in); hv_read(b, 12, in);
{nl.join(decls)}
    hipLaunchKernelGGL(HIP_KERNEL_NAME({p.callee}), {call});
    hv_check(hipGetLastError());
    hv_check(hipDeviceSynchronize());
{nl.join(back)}
    fflush(out);
  }}
  return 0;
}}
"""


@dataclass
class Built:
    binary: Path | None
    error: str = ""  # the build's first error lines when it failed
    cached: bool = False


def build(harness: str, name: str, work: Path, *, wave: int, includes: list[Path], defines: list[str],
          others: list[Path], root: Path, tree_files: list[Path], cache: Path | None) -> Built:
    """Build a harness for the emulator, or take it from the cache (keyed by the harness, every
    file of the tree it is built in, the flags, the wave and the compiler; the tree's folder,
    a temporary one, stands as a placeholder)."""
    from hipport.validate import emulator

    h = hashlib.sha256()
    here = str(root)
    for part in (harness, str(wave), repr(includes), repr(defines), repr(others), emulator.compiler() or "",
                 os.environ.get("HIPEMU_CXX", "")):
        h.update(part.replace(here, "\0root\0").encode("utf-8", "surrogateescape") + b"\0")
    for f in sorted(tree_files):
        try:
            h.update(str(f).replace(here, "").encode("utf-8", "surrogateescape") + b"\0" + f.read_bytes() + b"\0")
        except OSError:
            pass
    for d in (emulator.include_dir() / "hip", emulator.include_dir() / "hipemu"):
        for f in sorted(d.iterdir()):
            h.update(f.name.encode() + f.read_bytes())
    key = h.hexdigest()[:32]
    if cache is not None and _trusted(cache / key):
        return Built(cache / key, cached=True)
    src = work / f"{name}.w{wave}.cpp"
    src.write_text(harness, encoding="utf-8", errors="surrogateescape")
    out = work / f"{name}.w{wave}"
    try:
        emulator.build([src, *others], out, wave=wave, include_dirs=includes, defines=defines, check=True,
                       extra_flags=["-w"])
    except emulator.EmulatorBuildError as e:
        lines = [x for x in e.stderr.splitlines() if "error" in x][:3]
        return Built(None, " | ".join(lines) or e.stderr.strip()[-300:])
    if cache is not None:
        try:
            make_private(cache)
            tmp = cache / f".{key}.{os.getpid()}"
            shutil.copy2(out, tmp)
            os.replace(tmp, cache / key)
        except OSError:
            pass  # a full or read-only cache costs the next run a build, nothing else
    return Built(out)


def _trusted(binary: Path) -> bool:
    """A cached harness is run only when this user made it and nobody else can have changed
    it (the cache folder is private; a binary in it is checked all the same)."""
    try:
        st = binary.stat()
    except OSError:
        return False
    return binary.is_file() and st.st_uid == os.getuid() and not st.st_mode & 0o022 \
        and not binary.parent.stat().st_mode & 0o022


@dataclass
class Ran:
    buffers: list[list[bytes]] | None  # per case, each pointer's bytes; None: it stopped
    error: str = ""


def run(binary: Path, cases: bytes, count: int, sizes: list[int], work: Path, tag: str, timeout: float) -> Ran:
    """Run a harness on a case file (`sizes`: each pointer's element size); the buffers of
    every case, or why the run stopped."""
    from hipport.validate import emulator

    cin, cout = work / f"{tag}.cases", work / f"{tag}.out"
    cin.write_bytes(cases)
    cout.unlink(missing_ok=True)
    try:
        p = emulator.run(binary, [str(cin), str(cout)], timeout)
    except subprocess.TimeoutExpired:
        return Ran(None, f"timed out after {timeout:g}s")
    if p.returncode != 0:
        lines = [x.strip() for x in p.stderr.splitlines() if x.strip() and not x.startswith(("    #", "=="))]
        msg = next((x for x in lines if "error" in x), lines[-1] if lines else f"exit {p.returncode}")
        return Ran(None, msg[:300])
    raw = cout.read_bytes()
    out: list[list[bytes]] = []
    at = 0
    for _ in range(count):
        bufs = []
        for size in sizes:
            (n,) = struct.unpack_from("<Q", raw, at)
            at += 8
            bufs.append(raw[at:at + n * size])
            at += n * size
        out.append(bufs)
    return Ran(out)
