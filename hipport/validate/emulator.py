"""Build and run HIP programs on hipport's CPU wave emulator.

The emulator is a header-only C++17 runtime (``emulator/include``) that makes
``#include <hip/hip_runtime.h>`` resolve to hipport's own headers, so a HIP
program compiles with the host g++ and runs on the CPU with wavefronts of
exactly 32 or 64 lanes.  Wave-size bugs then show up as wrong output, and
detected errors (divergent or inactive-lane cross-lane ops, barrier
deadlocks, out-of-bounds shared memory in checked builds) exit with
:data:`EXIT_CODE` after a message naming kernel, block, thread and source line.
See docs/emulator.md.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = [
    "EXIT_CODE",
    "EmulatorBuildError",
    "build",
    "compiler",
    "include_dir",
    "prepare_source",
    "run",
    "run_until",
]

#: Exit status of an emulated program that the emulator stopped on an error.
EXIT_CODE = 86

_HERE = Path(__file__).resolve().parent


class EmulatorBuildError(RuntimeError):
    """g++ failed to compile an emulated program; ``stderr`` holds its output."""

    def __init__(self, cmd: Sequence[str], returncode: int, stderr: str) -> None:
        self.cmd = list(cmd)
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(f"emulator build failed (exit {returncode}): {' '.join(self.cmd)}\n{stderr}")


def include_dir() -> Path:
    """Directory to pass with ``-I``: holds ``hip/hip_runtime.h`` and friends."""
    return _HERE / "emulator" / "include"


def compiler() -> str | None:
    """The C++ compiler used by :func:`build` (``$HIPEMU_CXX`` or g++), or None."""
    return shutil.which(os.environ.get("HIPEMU_CXX", "g++"))


# ---------------------------------------------------------------- pre-pass
# The only textual rewrite: ``extern __shared__ T name[];`` (dynamic shared
# memory) cannot be expressed with macros, because ``__shared__`` expands to
# ``static``.  It becomes a constant pointer into the emulator's fixed
# dynamic-shared buffer, which is valid at block and at namespace scope:
#     T* const name = reinterpret_cast<T*>(::hipemu::detail::dyn_smem());
# Line count is preserved so diagnostics keep the original line numbers.
_EXTERN_SHARED = re.compile(
    r"\bextern\b(?P<body>[^;{}\"]*?\b__shared__\b[^;{}\"]*?)"
    r"\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;"
)
_DROP_WORDS = re.compile(r"\b(?:__shared__|HIP_DYNAMIC_SHARED_ATTRIBUTE)\b")


def _drop_call(text: str, word: str) -> str:
    """Remove ``word(...)`` with balanced parentheses (e.g. ``__align__(16)``)."""
    out, i = [], 0
    pat = re.compile(r"\b" + re.escape(word) + r"\s*\(")
    while (m := pat.search(text, i)) is not None:
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def _rewrite_extern_shared(m: re.Match[str]) -> str:
    body = m.group("body")
    for word in ("__align__", "__attribute__", "alignas"):
        body = _drop_call(body, word)
    type_ = " ".join(_DROP_WORDS.sub(" ", body).split())
    name = m.group("name")
    newlines = "\n" * m.group(0).count("\n")
    return f"{type_}* const {name} = reinterpret_cast<{type_}*>(::hipemu::detail::dyn_smem());{newlines}"


# ``static __shared__ T x[N];`` (legal CUDA) would become ``static static``:
# the redundant ``static`` next to ``__shared__`` is blanked (same columns).
_QUALS = (
    r"(?:volatile|const|__align__\s*\((?:[^()]|\([^()]*\))*\)|__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\))"
)
_STATIC_BEFORE = re.compile(rf"\bstatic\b(?=(?:\s+{_QUALS})*\s+__shared__\b)")
_STATIC_AFTER = re.compile(rf"(?<=__shared__)((?:\s+{_QUALS})*\s+)static\b")


# Inline PTX reads of the lane special registers, the one kind of inline asm CUDA code commonly
# has: the emulator evaluates them (the CUDA reference leg runs unported code). 32-bit, as in PTX.
_PTX_LANE_REG = re.compile(
    r'asm\s*(?:volatile\s*|__volatile__\s*)?\(\s*"mov\.u32\s+%0\s*,\s*%%(laneid|lanemask_(?:lt|le|gt|ge|eq))\s*;?\s*"'
    r'\s*:\s*"=r"\s*\(\s*([^()]+?)\s*\)\s*\)')
_PTX_VALUE = {
    "laneid": "(unsigned)__lane_id()",
    "lanemask_lt": "(unsigned)((1ull << __lane_id()) - 1)",
    "lanemask_le": "(unsigned)((2ull << __lane_id()) - 1)",
    "lanemask_eq": "(unsigned)(1ull << __lane_id())",
    "lanemask_gt": "(unsigned)~((2ull << __lane_id()) - 1)",
    "lanemask_ge": "(unsigned)~((1ull << __lane_id()) - 1)",
}


def _rewrite_ptx(m: re.Match[str]) -> str:
    return f"(({m.group(2)}) = {_PTX_VALUE[m.group(1)]})"


# ``hipLaunchKernel(reinterpret_cast<const void*>(k), grid, block, args, shm, stream)`` (how
# ported code spells cudaLaunchKernel): the emulator unpacks ``args`` by the kernel's parameter
# types, which the cast erases, so the cast becomes ``HIP_KERNEL_NAME(k)`` (same lines).
_LAUNCH_ARGS = re.compile(r"\bhipLaunch(?:Cooperative)?Kernel\s*\(")
_VOID_PTR = r"(?:const\s+)?void\s*\*\s*(?:const\s*)?"
_CAST_CALL = re.compile(rf"(?:reinterpret|static)_cast\s*<\s*{_VOID_PTR}>\s*\((?P<k>.*)\)", re.S)
_CAST_C = re.compile(rf"\(\s*{_VOID_PTR}\)\s*(?P<k>.*)", re.S)


def _first_arg_end(text: str, i: int) -> int:
    """Index of the comma or closing parenthesis that ends the argument starting at `i`."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
        i += 1
    return i


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def _uncast_launches(text: str) -> str:
    out, pos = [], 0
    for m in _LAUNCH_ARGS.finditer(text):
        if m.start() < pos:
            continue
        end = _first_arg_end(text, m.end())
        arg = text[m.end():end]
        c = _CAST_CALL.fullmatch(arg.strip()) or _CAST_C.fullmatch(arg.strip())
        if c is None or not _balanced(c.group("k")):
            continue
        kernel = c.group("k").strip()
        newlines = "\n" * (arg.count("\n") - kernel.count("\n"))
        out += [text[pos:m.end()], f"HIP_KERNEL_NAME({kernel}){newlines}"]
        pos = end
    return "".join(out) + text[pos:]


def prepare_source(text: str) -> str:
    """The minimal pre-pass: rewrite ``extern __shared__ T name[];`` (see above),
    blank a ``static`` written next to ``__shared__``, evaluate inline-PTX reads of
    ``%laneid`` / ``%lanemask_*``, and drop the ``const void*`` cast of a kernel given to
    ``hipLaunchKernel`` / ``hipLaunchCooperativeKernel``; nothing else."""
    text = _PTX_LANE_REG.sub(_rewrite_ptx, text)
    if "hipLaunch" in text:
        text = _uncast_launches(text)
    text = _EXTERN_SHARED.sub(_rewrite_extern_shared, text)
    text = _STATIC_BEFORE.sub("      ", text)
    return _STATIC_AFTER.sub(lambda m: m.group(1) + "      ", text)


# ---------------------------------------------------------------- build / run
def _c_string(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def build(
    sources: list[Path],
    out: Path,
    *,
    wave: int,
    include_dirs: Iterable[Path | str] = (),
    defines: Iterable[str] = (),
    check: bool = False,
    extra_flags: Iterable[str] = (),
) -> Path:
    """Compile HIP ``sources`` into the executable ``out`` for a ``wave``-lane emulator.

    Sources are compiled as C++ whatever their suffix (.cpp, .hip, .cu).
    ``defines`` are ``NAME`` or ``NAME=VALUE``.  ``check=True`` builds with
    AddressSanitizer (-O1 -g) so out-of-bounds shared/global accesses are
    reported; otherwise -O2.  Sources needing the pre-pass are rewritten into
    ``<out>.hipemu-src/`` (with ``#line`` so messages name the original file).
    Raises :class:`EmulatorBuildError` with the compiler's stderr on failure.
    """
    if wave not in (32, 64):
        raise ValueError(f"wave must be 32 or 64, not {wave!r}")
    cxx = compiler()
    if cxx is None:
        raise EmulatorBuildError([os.environ.get("HIPEMU_CXX", "g++")], 127, "C++ compiler not found")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    srcdir = out.parent / f"{out.name}.hipemu-src"
    inputs: list[str] = []
    quote_dirs: list[str] = []
    for i, src in enumerate(map(Path, sources)):
        text = src.read_text(encoding="utf-8", errors="surrogateescape")
        prepared = prepare_source(text)
        if prepared == text:
            inputs.append(str(src))
            continue
        srcdir.mkdir(exist_ok=True)
        copy = srcdir / f"{i}_{src.name}"
        copy.write_text(
            f"#line 1 {_c_string(src.resolve())}\n{prepared}", encoding="utf-8", errors="surrogateescape"
        )
        inputs.append(str(copy))
        quote_dirs.append(str(src.resolve().parent))  # its own "local.h" includes
    # predef.h: the macros hipcc predefines (__HIPCC__, __HIP__, wave size, arch).
    predef = include_dir() / "hipemu" / "predef.h"
    cmd = [cxx, "-std=c++17", f"-DHIPEMU_WAVE={wave}", "-I", str(include_dir()), "-include", str(predef)]
    for d in quote_dirs:
        cmd += ["-iquote", d]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-D{d}" for d in defines]
    if check:
        cmd += ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address"]
    else:
        cmd += ["-O2"]
    cmd += list(extra_flags)
    # HIP sources may be named .hip/.cu: always compile the inputs as C++.
    cmd += ["-o", str(out), "-x", "c++", *inputs]
    # The C locale makes g++ quote names with ASCII quotes, which the diagnostic parser reads.
    env = {**os.environ, "LC_ALL": "C"}
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env)
    if proc.returncode != 0:
        raise EmulatorBuildError(cmd, proc.returncode, proc.stderr)
    return out


def run(
    binary: Path,
    args: list[str],
    timeout: float,
    *,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run an emulated program, capturing stdout/stderr as text.

    ``env`` entries (e.g. ``HIPEMU_WATCHDOG``, ``HIPEMU_STACK_KB``) are added
    to the current environment.  A run past ``timeout`` raises
    ``subprocess.TimeoutExpired``.  Exit status :data:`EXIT_CODE` means the
    emulator reported an error on stderr.
    """
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [str(Path(binary).resolve()), *args],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        env=full_env,
    )


def run_until(
    binary: Path,
    args: list[str],
    timeout: float,
    passed_when: re.Pattern[str],
    *,
    env: Mapping[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[str], str | None]:
    """`run`, stopped as soon as a line of stdout matches `passed_when` (a program's own check
    has passed; what follows is its benchmark). Returns the run (exit status 0 when stopped)
    and the matching line, or None when the program ended or timed out without one."""
    import threading
    import time

    full_env = dict(os.environ, HIPEMU_LINE_BUFFERED="1")  # see the line as it is printed
    if env:
        full_env.update(env)
    proc = subprocess.Popen([str(Path(binary).resolve()), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            errors="replace", env=full_env)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read() if proc.stderr else ""),
                              daemon=True)
    reader.start()
    out: list[str] = []
    matched: str | None = None
    timer = threading.Timer(timeout, proc.kill)  # a program that never prints again
    timer.start()
    t0 = time.monotonic()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            if passed_when.search(line):
                matched = line.rstrip("\n")
                proc.kill()
                break
    finally:
        timer.cancel()
    proc.wait()
    reader.join(timeout=5)
    if matched is None and time.monotonic() - t0 >= timeout:
        raise subprocess.TimeoutExpired(proc.args, timeout, "".join(out), "".join(err))
    # What the program does after its check passed (llm.c's permute calls its kernel without a
    # launch in the benchmark) is not its check.
    rc = 0 if matched is not None else proc.returncode
    return subprocess.CompletedProcess(proc.args, rc, "".join(out), "".join(err)), matched
