"""The C++ harness of one kernel, built twice on the wave emulator (the CUDA original at wave
32, the port at wave 64) and run on a case file per input kind.

The harness includes the file that launches the kernel (its `main` renamed away), so the
kernel, its templates and the file's constants are what the program itself compiles; it reads
each case (grid, block, scalars, buffers) from the case file, launches the kernel with
`hipLaunchKernelGGL`, and writes every buffer back. Builds are AddressSanitizer builds: a
kernel reading past a buffer's generated length stops the run instead of reading garbage.
What each run wrote is kept in the cache folder (data: bytes), keyed by everything the harness
is built from and the cases; a harness is built only when a run is not answered from there."""

from __future__ import annotations

import functools
import hashlib
import os
import struct
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from hipport.cache import make_private
from hipport.verify.inputs import Plan

CTYPE = {"f": "float", "d": "double", "i": "int", "I": "unsigned int", "q": "long long",
         "Q": "unsigned long long", "h": "short", "H": "unsigned short", "b": "signed char",
         "B": "unsigned char", "?": "bool"}


def _c_string(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _loop(p: Plan) -> str:
    """The loop over the cases of plan `p`: read a case, launch the kernel, write every buffer back."""
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
    return f"""  for (uint32_t c = 0; c < count; ++c) {{
    uint32_t g[3], b[3]; hv_read(g, 12, in); hv_read(b, 12, in);
{nl.join(decls)}
    hipLaunchKernelGGL(HIP_KERNEL_NAME({p.callee}), {call});
    hv_check(hipGetLastError());
    hv_check(hipDeviceSynchronize());
{nl.join(back)}
    fflush(out);
  }}
"""


def _prelude(title: str, include: Path) -> str:
    return f"""// hipport verify: harness of {title}
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
"""


_OPEN = """  in = fopen(argv[1], "rb");
  FILE* out = fopen(argv[2], "wb");
  if (!in || !out) return 2;
  char magic[4]; hv_read(magic, 4, in);
  uint32_t count; hv_read(&count, 4, in);
"""


def source(p: Plan, include: Path) -> str:
    """The harness for plan `p`, including `include` (the launching file's copy in a tree)."""
    return (_prelude(f"{p.kernel.qualified} ({p.kernel.file.name}:{p.kernel.line})", include)
            + f"int main(int argc, char** argv) {{\n  if (argc != 3) return 2;\n{_OPEN}{_loop(p)}  return 0;\n}}\n")


def _shared_source(members: list[Harness]) -> str:
    """One harness for kernels launched from one file: each kernel's loop in a function of its
    own, chosen by a third argument (the kernel's index in `members`)."""
    assert members[0].plan is not None and members[0].include is not None
    out = [_prelude(", ".join(h.plan.kernel.qualified for h in members if h.plan is not None), members[0].include)]
    for i, h in enumerate(members):
        assert h.plan is not None
        out.append(f"static int hv_kernel_{i}(FILE* out, uint32_t count) {{\n{_loop(h.plan)}  return 0;\n}}\n")
    cases = "".join(f"    case {i}: return hv_kernel_{i}(out, count);\n" for i in range(len(members)))
    out.append(f"int main(int argc, char** argv) {{\n  if (argc != 4) return 2;\n{_OPEN}"
               f"  switch (atoi(argv[3])) {{\n{cases}  }}\n  return 2;\n}}\n")
    return "".join(out)


@dataclass
class Harness:
    """A harness to build on first need: a run answered from the cache needs no binary."""

    source: str
    name: str
    work: Path
    wave: int
    includes: list[Path]
    defines: list[str]
    others: list[Path]
    key: str  # everything the binary is built from
    cache: Path | None
    plan: Plan | None = None  # with `include`: what `share` needs to build it with others
    include: Path | None = None
    shared: _Shared | None = None
    _built: tuple[Path | None, str, list[str]] | None = None

    def binary(self) -> tuple[Path | None, str, list[str]]:
        """The built harness and the arguments that choose this kernel in it (a shared
        harness's index), or None and the build's first error lines."""
        if self._built is None:
            built = self.shared.binary() if self.shared is not None else None
            if built is not None and built[0] is not None:
                self._built = (built[0], "", [str(self.shared.members.index(self))])  # type: ignore[union-attr]
            else:  # alone, as the one harness of its kernel (also where a shared one does not build)
                self._built = (*_build(self.source, self.name, self.work, self), [])
        return self._built


class _Shared:
    """One build for harnesses of one launching file, flags and wave; built on first need."""

    def __init__(self, members: list[Harness]) -> None:
        self.members = members
        self._lock = threading.Lock()
        self._built: tuple[Path | None, str] | None = None

    def binary(self) -> tuple[Path | None, str]:
        with self._lock:
            if self._built is None:
                first = self.members[0]
                self._built = _build(_shared_source(self.members), f"{first.name}+{len(self.members) - 1}",
                                     first.work, first)
            return self._built


def _build(text: str, name: str, work: Path, h: Harness) -> tuple[Path | None, str]:
    """Build harness source `text` as `work/name.wWAVE` with `h`'s flags and other sources."""
    from hipport.validate import emulator

    src = work / f"{name}.w{h.wave}.cpp"
    src.write_text(text, encoding="utf-8", errors="surrogateescape")
    out = work / f"{name}.w{h.wave}"
    try:
        emulator.build([src, *h.others], out, wave=h.wave, include_dirs=h.includes,
                       defines=h.defines, check=True, extra_flags=["-w"])
    except emulator.EmulatorBuildError as e:
        lines = [x for x in e.stderr.splitlines() if "error" in x][:3]
        return None, " | ".join(lines) or e.stderr.strip()[-300:]
    return out, ""


def share(harnesses: list[Harness]) -> None:
    """Build harnesses of one launching file, flags and wave as one program (most of a build is
    the launching file and the emulator, compiled once instead of once a kernel); each kernel
    runs alone in it, chosen by its index. Where that program does not build, each harness is
    built alone, so a kernel's result and its build errors are its own."""
    groups: dict[tuple[object, ...], list[Harness]] = {}
    for h in harnesses:
        if h.plan is not None and h.include is not None and h.shared is None:
            key = (h.include, h.wave, tuple(h.includes), tuple(h.defines), tuple(h.others), h.work.parent)
            groups.setdefault(key, []).append(h)
    for members in groups.values():
        if len(members) > 1:
            shared = _Shared(members)
            for h in members:
                h.shared = shared


@functools.cache
def _compiler_identity() -> str:
    """The emulator's C++ compiler and what it says it is (a result depends on its version)."""
    from hipport.validate import emulator

    cxx = emulator.compiler() or ""
    try:
        said = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=60).stdout if cxx else ""
    except (OSError, subprocess.SubprocessError):
        said = ""
    return f"{cxx}\n{said}"


def prepare(harness: str, name: str, work: Path, *, wave: int, includes: list[Path], defines: list[str],
            others: list[Path], root: Path, tree_files: list[Path], cache: Path | None,
            plan: Plan | None = None, include: Path | None = None) -> Harness:
    """A harness of the emulator, keyed by the harness, every file of the tree it is built in,
    the flags, the wave, the compiler and the emulator's headers (the tree's folder, a
    temporary one, stands as a placeholder)."""
    from hipport.validate import emulator

    h = hashlib.sha256()
    here = str(root)
    for part in (harness, str(wave), repr(includes), repr(defines), repr(others), _compiler_identity(),
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
    return Harness(harness, name, work, wave, includes, defines, others, h.hexdigest()[:32], cache, plan, include)


@dataclass
class Ran:
    buffers: list[list[bytes]] | None  # per case, each pointer's bytes; None: it stopped
    error: str = ""
    unbuilt: bool = False  # it stopped because the harness does not build


def run(h: Harness, cases: bytes, count: int, sizes: list[int], tag: str, timeout: float) -> Ran:
    """Run a harness on a case file (`sizes`: each pointer's element size); the buffers of
    every case, or why the run stopped. What a run wrote is kept in the cache folder by the
    harness's key and the cases: the cache holds data (a case's output bytes, read by
    `_buffers`), never a program to run."""
    key = hashlib.sha256(f"{h.key}:{timeout:g}:".encode() + cases).hexdigest()[:40]
    entry = h.cache / key if h.cache is not None else None
    if entry is not None:
        try:
            got = _buffers(entry.read_bytes(), count, sizes)
        except OSError:
            got = None
        if got is not None:
            return Ran(got)
    binary, error, choose = h.binary()
    if binary is None:
        return Ran(None, error, unbuilt=True)
    from hipport.validate import emulator

    cin, cout = h.work / f"{tag}.cases", h.work / f"{tag}.out"
    cin.write_bytes(cases)
    cout.unlink(missing_ok=True)
    try:
        p = emulator.run(binary, [str(cin), str(cout), *choose], timeout)
    except subprocess.TimeoutExpired:
        return Ran(None, f"timed out after {timeout:g}s")
    if p.returncode != 0:
        lines = [x.strip() for x in p.stderr.splitlines() if x.strip() and not x.startswith(("    #", "=="))]
        msg = next((x for x in lines if "error" in x), lines[-1] if lines else f"exit {p.returncode}")
        return Ran(None, msg[:300])
    raw = cout.read_bytes()
    out = _buffers(raw, count, sizes)
    if out is None:
        return Ran(None, "the harness wrote a short output")
    if entry is not None and h.cache is not None:
        try:
            make_private(h.cache)
            tmp = h.cache / f".{key}.{os.getpid()}"
            tmp.write_bytes(raw)
            os.replace(tmp, entry)
        except OSError:
            pass  # a full or read-only cache costs the next run a run, nothing else
    return Ran(out)


def _buffers(raw: bytes, count: int, sizes: list[int]) -> list[list[bytes]] | None:
    """Each case's buffers from a harness's output; None where it is not one (a damaged
    cache entry is a miss)."""
    out: list[list[bytes]] = []
    at = 0
    try:
        for _ in range(count):
            bufs = []
            for size in sizes:
                (n,) = struct.unpack_from("<Q", raw, at)
                at += 8
                if at + n * size > len(raw):
                    return None
                bufs.append(raw[at:at + n * size])
                at += n * size
            out.append(bufs)
    except struct.error:
        return None
    return out if at == len(raw) else None
