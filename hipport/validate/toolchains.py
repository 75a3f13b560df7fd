"""Which compilers and GPUs this machine has, found by asking them, never assumed.

* hipcc for AMD (`HIP_PLATFORM=amd`; Debian's hipcc otherwise picks NVIDIA when nvcc exists),
  and which `--offload-arch` values its clang knows: tried once per arch on a tiny kernel and
  remembered in ~/.cache/hipport/toolchains.json, keyed by the hipcc and clang it used.
* HIP on NVIDIA: `HIP_PLATFORM=nvidia hipcc`, or nvcc with HIP's headers when hipcc (a Perl
  script) cannot run; `HIPPORT_HIP_PATH` points at a HIP tree (see scripts/gpu-check-prepare.sh).
* GPUs: an AMD one when `rocminfo` lists a gfx agent; an NVIDIA one when `nvidia-smi -L`
  lists a GPU. Anything missing is reported with the reason, so callers can say "not run".

Environment overrides: HIPPORT_HIPCC, HIPPORT_NVCC, HIPPORT_CXX, HIPPORT_HIP_PATH,
HIPPORT_NO_GPU=1 (behave as if no GPU were present).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

DEFAULT_ARCH = "gfx90a"  # MI200 / MI250X (Frontier)
OPTIONAL_ARCHS = ("gfx942",)  # MI300X: compiled for by default when the toolchain knows it
PROBE_SOURCE = "__global__ void hipport_probe(int* p) { p[threadIdx.x] = warpSize; }\n"


@dataclass(frozen=True, slots=True)
class ProbeResult:
    ok: bool
    reason: str = ""


Runner = Callable[[Sequence[str], dict[str, str], float], tuple[int, str]]


def _run(cmd: Sequence[str], env: dict[str, str] | None = None, timeout: float = 60.0) -> tuple[int, str]:
    """Run a command; (exit code, stdout+stderr). Never raises for a missing or hung tool."""
    try:
        p = subprocess.run(list(cmd), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except FileNotFoundError:
        return 127, f"{cmd[0]}: not found"
    except PermissionError as e:
        return 126, f"{cmd[0]}: {e}"
    except subprocess.TimeoutExpired:
        return 124, f"{cmd[0]}: timed out after {timeout:.0f}s"
    except OSError as e:
        return 126, f"{cmd[0]}: {e}"
    return p.returncode, p.stdout.decode("utf-8", "replace")


def _default_runner(cmd: Sequence[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    return _run(cmd, env, timeout)


# --- hipcc for AMD ---------------------------------------------------------------------------

def find_hipcc() -> str | None:
    given = os.environ.get("HIPPORT_HIPCC")
    if given:
        return shutil.which(given) or (given if Path(given).is_file() else None)
    return shutil.which("hipcc")


def amd_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["HIP_PLATFORM"] = "amd"
    env.pop("HIP_COMPILER", None)
    return env


def nvidia_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["HIP_PLATFORM"] = "nvidia"
    hp = hip_path_override()
    if hp:
        env["HIP_PATH"] = hp
    cp = cuda_path()
    if cp and "CUDA_PATH" not in env:
        env["CUDA_PATH"] = cp
    return env


@dataclass(frozen=True)
class Hipcc:
    path: str
    version: str  # "HIP 5.2.21153 / clang 15.0.6"
    error: str = ""  # why it cannot compile for AMD, when it cannot

    @property
    def ok(self) -> bool:
        return not self.error


@cache
def hipcc_info() -> Hipcc | None:
    """hipcc and the HIP/clang versions it reports for the AMD platform; None when absent."""
    path = find_hipcc()
    if path is None:
        return None
    rc, out = _run([path, "--version"], amd_env(), 30)
    hip = re.search(r"HIP version:\s*(\S+)", out)
    clang = re.search(r"clang version\s*(\S+)", out)
    version = " / ".join(x for x in (f"HIP {hip.group(1)}" if hip else "",
                                      f"clang {clang.group(1)}" if clang else "") if x)
    if not clang:  # no clang behind it: it cannot compile for AMD (e.g. a hipcc carried to an NVIDIA box)
        return Hipcc(path, version or "unknown version",
                     _first_error(out) or f"`hipcc --version` names no clang (exit {rc})")
    return Hipcc(path, version or "unknown version")


def _first_error(out: str) -> str:
    for line in out.splitlines():
        if "error" in line.lower() or "fatal" in line.lower():
            return line.strip()[:300]
    lines = [x for x in out.splitlines() if x.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hipport" / "toolchains.json"


def _probe_key(hipcc: str, arch: str) -> str:
    st = Path(hipcc).resolve().stat() if Path(hipcc).exists() else None
    parts = [str(Path(hipcc).resolve()), str(st.st_mtime_ns if st else 0), arch]
    info = hipcc_info()
    parts.append(info.version if info else "")
    for var in ("HIP_CLANG_PATH", "HIP_PATH", "ROCM_PATH", "HIP_DEVICE_LIB_PATH"):
        parts.append(os.environ.get(var, ""))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


_memo: dict[str, ProbeResult] = {}


def probe_arch(arch: str, hipcc: str | None = None, *, runner: Runner | None = None,
               cache_path: Path | None = None, use_cache: bool = True) -> ProbeResult:
    """Does hipcc compile a kernel for `arch`? Tried on a tiny kernel, then remembered.

    The answer depends on the clang behind hipcc (gfx942 needs clang 17 / ROCm 5.7+) and on
    the device libraries installed, so both are part of the cache key.
    """
    hipcc = hipcc or find_hipcc()
    if hipcc is None:
        return ProbeResult(False, "hipcc not found")
    key = _probe_key(hipcc, arch) if use_cache else ""
    if use_cache and key in _memo:
        return _memo[key]
    path = cache_path or _cache_file()
    stored: dict[str, dict] = {}
    if use_cache:
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        if key in stored and isinstance(stored[key], dict):
            r = ProbeResult(bool(stored[key].get("ok")), str(stored[key].get("reason", "")))
            _memo[key] = r
            return r
    r = _probe_now(hipcc, arch, runner or _default_runner)
    if use_cache:
        _memo[key] = r
        stored[key] = {"arch": arch, "ok": r.ok, "reason": r.reason}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(stored, indent=1), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            pass
    return r


def _probe_now(hipcc: str, arch: str, runner: Runner) -> ProbeResult:
    with tempfile.TemporaryDirectory(prefix="hipport-probe-") as d:
        src = Path(d) / "probe.hip"
        src.write_text("#include <hip/hip_runtime.h>\n" + PROBE_SOURCE, encoding="utf-8")
        rc, out = runner([hipcc, "-x", "hip", f"--offload-arch={arch}", "--cuda-device-only",
                          "-c", str(src), "-o", str(Path(d) / "probe.o")], amd_env(), 120)
    if rc == 0:
        return ProbeResult(True)
    return ProbeResult(False, arch_failure_reason(arch, out))


def arch_failure_reason(arch: str, out: str) -> str:
    if re.search(rf"invalid target ID '{re.escape(arch)}'|unsupported CUDA gpu architecture|"
                 rf"unknown target CPU '{re.escape(arch)}'|Invalid offload arch", out):
        return f"this hipcc's clang does not know {arch}"
    if re.search(r"cannot find ROCm device library|device-libs|oclc_isa_version", out):
        return f"no ROCm device library for {arch} is installed"
    return _first_error(out) or f"hipcc failed for {arch}"


@dataclass(frozen=True)
class ArchPlan:
    """The archs to compile for, and the ones left out (with why)."""

    archs: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()  # (arch, reason)
    notes: tuple[str, ...] = ()


def plan_archs(requested: Sequence[str] | None, *, probe: Callable[[str], ProbeResult] | None = None) -> ArchPlan:
    """`requested` given: those archs, minus any the toolchain rejects (reported as skipped).
    Not given: gfx90a, plus gfx942 when the toolchain knows it."""
    probe = probe or probe_arch
    if requested:
        keep: list[str] = []
        skipped: list[tuple[str, str]] = []
        for a in dict.fromkeys(requested):
            if a == DEFAULT_ARCH:
                keep.append(a)  # the baseline: a failure there is a real compile failure
                continue
            r = probe(a)
            (keep.append(a) if r.ok else skipped.append((a, r.reason)))
        return ArchPlan(tuple(keep), tuple(skipped))
    archs = [DEFAULT_ARCH]
    notes: list[str] = []
    skipped = []
    for a in OPTIONAL_ARCHS:
        r = probe(a)
        if r.ok:
            archs.append(a)
        else:
            skipped.append((a, r.reason))
            notes.append(f"{a} not compiled for: {r.reason}")
    return ArchPlan(tuple(archs), tuple(skipped), tuple(notes))


# --- host compiler (emulator) ------------------------------------------------------------------

def find_cxx() -> str | None:
    given = os.environ.get("HIPPORT_CXX") or os.environ.get("CXX")
    if given and shutil.which(given):
        return shutil.which(given)
    return shutil.which("g++") or shutil.which("c++")


# --- GPUs ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Gpus:
    names: tuple[str, ...]  # gfx90a / "NVIDIA H200"
    reason: str = ""  # why none, when none

    @property
    def present(self) -> bool:
        return bool(self.names)


def parse_rocminfo(out: str) -> tuple[str, ...]:
    """The gfx names of the GPU agents rocminfo lists (CPU agents have no gfx name)."""
    names = re.findall(r"^\s*Name:\s*(gfx[0-9a-f]+)\b", out, re.M)
    return tuple(dict.fromkeys(names))


def parse_nvidia_smi(out: str) -> tuple[str, ...]:
    return tuple(m.group(1).strip() for m in re.finditer(r"^GPU \d+:\s*(.+?)\s*(?:\(UUID:.*)?$", out, re.M))


@cache
def amd_gpus() -> Gpus:
    if os.environ.get("HIPPORT_NO_GPU"):
        return Gpus((), "HIPPORT_NO_GPU is set")
    tool = shutil.which("rocminfo")
    if tool is None:
        return Gpus((), "no AMD GPU: rocminfo not found")
    rc, out = _run([tool], None, 60)
    names = parse_rocminfo(out)
    if names:
        return Gpus(names)
    return Gpus((), "no AMD GPU: rocminfo lists no gfx agent" + (f" (exit {rc})" if rc else ""))


@cache
def nvidia_gpus() -> Gpus:
    if os.environ.get("HIPPORT_NO_GPU"):
        return Gpus((), "HIPPORT_NO_GPU is set")
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return Gpus((), "no NVIDIA GPU: nvidia-smi not found")
    rc, out = _run([tool, "-L"], None, 60)
    names = parse_nvidia_smi(out)
    if names:
        return Gpus(names)
    return Gpus((), "no NVIDIA GPU: nvidia-smi -L lists none" + (f" (exit {rc})" if rc else ""))


# --- NVIDIA toolchain -----------------------------------------------------------------------------

def find_nvcc() -> str | None:
    given = os.environ.get("HIPPORT_NVCC")
    if given:
        return shutil.which(given)
    found = shutil.which("nvcc")
    if found:
        return found
    for cand in ("/usr/local/cuda/bin/nvcc",):
        if Path(cand).is_file():
            return cand
    return None


@cache
def cuda_path() -> str | None:
    """The CUDA toolkit root (for HIP's NVIDIA path): CUDA_PATH, nvcc's parent, /usr/local/cuda."""
    if os.environ.get("CUDA_PATH") and Path(os.environ["CUDA_PATH"], "include").is_dir():
        return os.environ["CUDA_PATH"]
    nvcc = find_nvcc()
    cands: list[Path] = []
    if nvcc:
        p = Path(nvcc)
        cands.append(p.resolve().parent.parent)
        # a wrapper script (`exec /usr/local/cuda-13.0/bin/nvcc "$@"`) names the real one
        try:
            head = p.read_bytes()[:4096]
            m = re.search(rb"(/\S+)/bin/nvcc", head) if head.startswith(b"#!") else None
            if m:
                cands.insert(0, Path(m.group(1).decode()))
        except OSError:
            pass
    cands += [Path("/usr/local/cuda"), *sorted(Path("/usr/local").glob("cuda-*"), reverse=True)]
    for c in cands:
        if (c / "include" / "cuda_runtime.h").is_file():
            return str(c)
    return None


def hip_path_override() -> str | None:
    hp = os.environ.get("HIPPORT_HIP_PATH")
    return hp if hp and Path(hp, "include", "hip").is_dir() else None


def hip_include_dir() -> str | None:
    hp = hip_path_override()
    if hp:
        return str(Path(hp) / "include")
    for cand in ("/usr/include", "/opt/rocm/include"):
        if Path(cand, "hip", "nvidia_detail").is_dir():
            return cand
    return None


@dataclass(frozen=True)
class NvidiaHip:
    """How to build HIP code for an NVIDIA GPU: a command prefix and its environment."""

    how: str  # "hipcc" or "nvcc"
    prefix: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


@cache
def nvidia_hip() -> NvidiaHip:
    """`HIP_PLATFORM=nvidia hipcc` when it compiles a HIP kernel here; else nvcc with HIP's
    headers (what hipcc would run); else the reason neither works."""
    nvcc = find_nvcc()
    if nvcc is None:
        return NvidiaHip("none", (), {}, "nvcc not found")
    errors: list[str] = []
    hipcc = find_hipcc()
    cands: list[NvidiaHip] = []
    if hipcc is not None:
        env = nvidia_env()
        env.setdefault("PATH", os.environ.get("PATH", ""))
        # hipcc.pl adds its -isystem flags only when it picks the language itself; with our
        # `-x cu` it does not, so name HIP's include folder (when not a system one) here.
        inc = hip_include_dir()
        pre = [hipcc] + (["-isystem", inc] if inc and inc != "/usr/include" else [])
        cands.append(NvidiaHip("hipcc", tuple(pre), env))
    inc = hip_include_dir()
    if inc is not None:
        pre = [nvcc, "-Wno-deprecated-gpu-targets"]
        if inc != "/usr/include":  # a system dir: -isystem on it breaks libstdc++'s include_next
            pre += ["-isystem", inc]
        cp = cuda_path()
        if cp:
            pre[2:2] = ["-isystem", str(Path(cp) / "include")]  # as hipcc does
        cands.append(NvidiaHip("nvcc", tuple(pre), dict(os.environ)))
    else:
        errors.append("HIP headers for NVIDIA (hip/nvidia_detail) not found; set HIPPORT_HIP_PATH")
    for c in cands:
        err = _try_nvidia(c)
        if not err:
            return c
        errors.append(f"{c.how}: {err}")
    return NvidiaHip("none", (), {}, "; ".join(errors) or "no way to build HIP for NVIDIA")


def _try_nvidia(c: NvidiaHip) -> str:
    with tempfile.TemporaryDirectory(prefix="hipport-probe-") as d:
        src = Path(d) / "probe.cu"
        src.write_text("#include <hip/hip_runtime.h>\n" + PROBE_SOURCE, encoding="utf-8")
        rc, out = _run([*c.prefix, "-x", "cu", "-c", str(src), "-o", str(Path(d) / "probe.o")], c.env, 180)
    return "" if rc == 0 else (_first_error(out) or f"exit {rc}")


def summary() -> dict[str, object]:
    """What was found, as plain data (for --format json and the report)."""
    h = hipcc_info()
    return {
        "hipcc": None if h is None else {"path": h.path, "version": h.version, "error": h.error or None},
        "cxx": find_cxx(),
        "nvcc": find_nvcc(),
        "amd_gpus": list(amd_gpus().names),
        "nvidia_gpus": list(nvidia_gpus().names),
    }
