"""Which compilers and GPUs this machine has, found by reading and asking them, never assumed;
the one place that finds toolchains.

* HIP for AMD: the installation whose `hipcc` is on PATH (or HIPPORT_HIPCC), described from
  its files as a `driver.Toolchain` (the clang hipcc would run and the options it would add;
  see `describe`). hipcc itself, hipconfig and Perl are never run: every compile calls that
  clang from an argv list. Which `--offload-arch` values the clang knows is tried once per
  arch on a tiny kernel and remembered in ~/.cache/hipport/toolchains.json, keyed by the
  toolchain's description and its clang.
* Every HIP toolchain (`listing`, `hipport toolchains`): that host HIP; a ROCm under ROCM_PATH
  or /opt/rocm*, described the same way; and the roots scripts/hip_root.py builds (each folder
  of HIPPORT_TOOLCHAINS, else /opt/hipport, holding a `hipport-toolchain.json`): the descriptor
  is data, checked field by field (descriptor.py), and the root's clang runs inside the root
  (`chroot ROOT` as root, `unshare --map-root-user --root=ROOT` otherwise; see driver.py).
  Which targets a clang knows is asked once (`--print-supported-cpus`) and remembered beside
  the arch probes.
* HIP on NVIDIA: nvcc with HIP's headers (and the options hipcc's NVIDIA path adds), called
  directly; `HIPPORT_HIP_PATH` points at a HIP tree (see scripts/gpu-check-prepare.sh).
* GPUs: an AMD one when `rocminfo` lists a gfx agent; an NVIDIA one when `nvidia-smi -L`
  lists a GPU. Anything missing is reported with the reason, so callers can say "not run".

Environment overrides: HIPPORT_HIPCC (the hipcc whose installation to use; never run),
HIPPORT_TOOLCHAINS (the folder of toolchain roots),
HIPPORT_NVCC, HIPPORT_CXX, HIPPORT_HIP_PATH, HIPPORT_NO_GPU=1 (behave as if no GPU were present).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from hipport.errors import HipportError
from hipport.paths import user_cache
from hipport.validate import descriptor
from hipport.validate.driver import Library, Toolchain

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


# --- HIP for AMD: the installation, described from its files ----------------------------------

INSTALLATIONS = ("/opt/rocm/bin/hipcc", "/usr/bin/hipcc")  # where HIP is, when PATH names none


def find_hipcc() -> str | None:
    """The hipcc that marks the HIP installation to use; it is read about, never run.
    HIPPORT_HIPCC; else the first `hipcc` on PATH that sits in a HIP installation (beside its
    hipcc.pl, or with HIP's headers above it: a script of the same name elsewhere is not one);
    else /opt/rocm's or /usr's."""
    given = os.environ.get("HIPPORT_HIPCC")
    if given:
        return shutil.which(given) or (given if Path(given).is_file() else None)
    on_path = [str(Path(d, "hipcc")) for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    for cand in (*on_path, *INSTALLATIONS):
        if os.path.isfile(cand) and os.access(cand, os.X_OK) and _in_installation(Path(cand)):
            return cand
    return None


def _in_installation(hipcc: Path) -> bool:
    bindir = Path(os.path.realpath(hipcc)).parent
    return (bindir / "hipcc.pl").is_file() or (bindir / ".hipVersion").is_file() \
        or (bindir.parent / "include" / "hip" / "hip_version.h").is_file()


def amd_env(base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["HIP_PLATFORM"] = "amd"
    env.pop("HIP_COMPILER", None)
    return env


# What a program inside a root is given: none of this machine's variables (a TMPDIR or
# LD_LIBRARY_PATH of the host means nothing there, or the wrong thing).
ROOT_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TMPDIR": "/tmp", "HOME": "/", "HIP_PLATFORM": "amd"}


def compile_env(tc: Toolchain) -> dict[str, str]:
    """The environment the toolchain's clang runs in: this machine's (as hipcc's) on the host,
    a fixed one inside a root."""
    return dict(ROOT_ENV) if tc.root else amd_env()


@cache
def amd_toolchain() -> Toolchain | None:
    """The HIP installation whose hipcc is on PATH (or HIPPORT_HIPCC), described from its
    files without running hipcc; None when there is none."""
    path = find_hipcc()
    if path is None:
        return None
    origin = "HIPPORT_HIPCC" if os.environ.get("HIPPORT_HIPCC") else f"{path}"
    return replace(describe(Path(path), os.environ), origin=origin)


def describe(hipcc: Path, env: Mapping[str, str]) -> Toolchain:
    """What hipcc.pl (and hipvars.pm beside it) would run for the AMD platform, read from the
    installation's files: its clang, HIP and clang versions and the options it adds. The
    variables hipcc reads (HIP_PATH, ROCM_PATH, HIP_CLANG_PATH, HSA_PATH, DEVICE_LIB_PATH,
    HIP_LIB_PATH) are honoured as hipcc honours them. Nothing is run."""
    bindir = Path(os.path.realpath(hipcc)).parent
    hip_path = env.get("HIP_PATH") or str(bindir.parent)
    rocm = env.get("ROCM_PATH")
    if rocm is None:
        if hip_path == "/usr":
            rocm = "/usr"
        elif Path(hip_path, "..", "bin", "rocm_agent_enumerator").exists():
            rocm = os.path.dirname(hip_path)
        elif Path(hip_path, "bin", "rocm_agent_enumerator").exists():
            rocm = hip_path
        else:
            rocm = "/opt/rocm"
    # hipvars.pm: the runtime's home is beside hipcc's folder when it holds device bitcode
    if (bindir.parent / "lib" / "bitcode").exists():
        home = str(bindir.parent)
    elif (bindir / "lib" / "bitcode").exists():
        home = str(bindir)
    else:
        home = hip_path
    clang_dir = env.get("HIP_CLANG_PATH") or (f"{rocm}/llvm/bin" if Path(rocm, "llvm", "bin").exists()
                                              else f"{rocm}/bin")
    if Path(home, "bin", "clang").exists():
        clang_dir = f"{home}/bin"
    clang = f"{clang_dir}/{_clang_name(bindir)}"
    hip_version = _hip_version(hip_path, home, bindir)
    name = "hip-" + ".".join(hip_version.split(".")[:2])
    resource = _resource_dir(clang)
    if resource is None:
        why = f"its clang {clang} is missing" if not Path(clang).exists() else \
            f"no resource folder (lib/clang/VERSION) beside {os.path.realpath(clang)}"
        return Toolchain(name, clang, hip_version, "", rocm, error=why)
    clang_version = resource.name
    include = Path(clang_dir, "..", "lib", "clang", clang_version, "include")
    clang_include = os.path.realpath(include) if include.exists() else str(resource / "include")
    hsa = env.get("HSA_PATH") or f"{rocm}/hsa"
    device_libs = env.get("DEVICE_LIB_PATH") or _device_libs(home, rocm)
    hip_include = f"{home}/include"
    lib = env.get("HIP_LIB_PATH") or f"{home}/lib"
    common = ["-isystem", f"{clang_include}/..", "-isystem", f"{hsa}/include", f"--hip-version={hip_version}",
              f"--rocm-path={rocm}"]
    if hip_include != "/usr/include":  # a system folder: -isystem on it breaks include_next
        common += ["-isystem", hip_include]
    return Toolchain(
        name, clang, hip_version, clang_version, rocm,
        headers=present_libraries((hip_include, f"{rocm}/include", "/usr/include")),
        c_options=tuple(common),
        cxx_options=("-std=c++11", *common),
        inline_options=("-mllvm", "-amdgpu-early-inline-all=true", "-mllvm", "-amdgpu-function-calls=false"),
        device_lib_options=() if device_libs == f"{rocm}/amdgcn/bitcode" else
        (f"--hip-device-lib-path={device_libs}",),
        link_options=(f"-L{lib}", f"--hip-version={hip_version}", f"--rocm-path={rocm}"),
        system_libraries=("-lgcc_s", "-lgcc", "-lpthread", "-lm", "-lrt"),
        libraries=("-lamdhip64", f"-L{clang_dir}/../lib/clang/{clang_version}/lib/linux",
                   f"-lclang_rt.builtins-{platform.machine()}"),
    )


_HIPCC_CLANG = re.compile(r'\$HIPCC\s*=\s*"\$HIP_CLANG_PATH/(clang\+\+[\w.+-]*)"')


def _clang_name(bindir: Path) -> str:
    """The clang++ hipcc.pl names (Debian's names its versioned one, clang++-15), else clang++."""
    try:
        m = _HIPCC_CLANG.search((bindir / "hipcc.pl").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        m = None
    return m.group(1) if m else "clang++"


def _resource_dir(clang: str) -> Path | None:
    """clang's own lib/clang/VERSION folder; its name is the version hipcc reads from
    `clang --version` (15.0.6; clang 16 and later name it by the major version alone)."""
    if not Path(clang).is_file():
        return None
    found = sorted(d for d in Path(os.path.realpath(clang)).parent.parent.glob("lib/clang/*")
                   if (d / "include").is_dir())
    return found[-1] if found else None


def _hip_version(hip_path: str, home: str, bindir: Path) -> str:
    """MAJOR.MINOR.PATCH as hipvars.pm finds it: bin/.hipVersion, else its own base version;
    else the headers' hip_version.h, else share/hip/version."""
    for f in (Path(hip_path, "bin", ".hipVersion"), bindir / "hipvars.pm", Path(home, "include", "hip", "hip_version.h"),
              Path(hip_path, "include", "hip", "hip_version.h"), Path(hip_path, "share", "hip", "version")):
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        parts = [re.search(rf'HIP_(?:BASE_)?VERSION_{k}\s*=?\s*"?(\d+)', text) for k in ("MAJOR", "MINOR", "PATCH")]
        if all(parts):
            return ".".join(m.group(1) for m in parts if m)
    return "unknown"


def _device_libs(home: str, rocm: str) -> str:
    """The device bitcode folder, where hipcc.pl looks for it (in its order)."""
    for cand in (f"{home}/lib/bitcode", f"{rocm}/amdgcn/bitcode"):
        if Path(cand).exists():
            return cand
    found = sorted(Path(rocm).glob("lib/*/amdgcn/bitcode"))
    return str(found[0]) if found else f"{rocm}/lib"


def _first_error(out: str) -> str:
    for line in out.splitlines():
        if "error" in line.lower() or "fatal" in line.lower():
            return line.strip()[:300]
    lines = [x for x in out.splitlines() if x.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _cache_file() -> Path:
    return user_cache() / "toolchains.json"


def _probe_key(tc: Toolchain, arch: str) -> str:
    real = os.path.realpath(tc.host_path(tc.clang))
    st = os.stat(real) if os.path.exists(real) else None
    parts = [real, str(st.st_mtime_ns if st else 0), arch, repr(tc)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


_memo: dict[str, ProbeResult] = {}


def probe_arch(arch: str, toolchain: Toolchain | None = None, *, runner: Runner | None = None,
               cache_path: Path | None = None, use_cache: bool = True) -> ProbeResult:
    """Does the toolchain's clang compile a kernel for `arch`? Tried on a tiny kernel, then
    remembered.

    The answer depends on the clang (gfx942 needs clang 17 / ROCm 5.7+) and on the device
    libraries installed, so the whole toolchain description is part of the cache key.
    """
    tc = toolchain or amd_toolchain()
    if tc is None:
        return ProbeResult(False, "HIP for AMD not found (no hipcc on PATH, in /opt/rocm or /usr)")
    if not tc.ok:
        return ProbeResult(False, tc.error)
    key = _probe_key(tc, arch) if use_cache else ""
    if use_cache and key in _memo:
        return _memo[key]
    path = cache_path or _cache_file()
    stored: dict[str, dict] = {}
    if use_cache:
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        if not isinstance(stored, dict):
            stored = {}
        if key in stored and isinstance(stored[key], dict):
            r = ProbeResult(bool(stored[key].get("ok")), str(stored[key].get("reason", "")))
            _memo[key] = r
            return r
    r = _probe_now(tc, arch, runner or _default_runner)
    if use_cache:
        _memo[key] = r
        stored[key] = {"arch": arch, "ok": r.ok, "reason": r.reason}
        _store(path, stored)
    return r


def _probe_now(tc: Toolchain, arch: str, runner: Runner) -> ProbeResult:
    with tempfile.TemporaryDirectory(prefix="hipport-probe-", dir=tc.scratch) as d:
        src = Path(d) / "probe.hip"
        src.write_text("#include <hip/hip_runtime.h>\n" + PROBE_SOURCE, encoding="utf-8")
        rc, out = runner(tc.command(["-x", "hip", f"--offload-arch={arch}", "--cuda-device-only",
                                     "-c", tc.inside(str(src)), "-o", tc.inside(str(Path(d) / "probe.o"))]),
                         compile_env(tc), 120)
    if rc == 0:
        return ProbeResult(True)
    return ProbeResult(False, arch_failure_reason(arch, out))


def arch_failure_reason(arch: str, out: str) -> str:
    if re.search(rf"invalid target ID '{re.escape(arch)}'|unsupported CUDA gpu architecture|"
                 rf"unknown target CPU '{re.escape(arch)}'|Invalid offload arch", out):
        return f"this HIP's clang does not know {arch}"
    if re.search(r"cannot find ROCm device library|device-libs|oclc_isa_version", out):
        return f"no ROCm device library for {arch} is installed"
    return _first_error(out) or f"clang failed for {arch}"


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


# --- every HIP toolchain -------------------------------------------------------------------------

ROOTS = Path("/opt/hipport")  # where scripts/hip_root.py puts roots; HIPPORT_TOOLCHAINS moves it
ROCM_INSTALLS = "/opt/rocm*"
# The libraries whose headers a HIP on this machine is looked for with (a root's descriptor
# lists its own): the name people know and the header that marks it.
LIBRARIES = tuple(Library(n, h) for n, h in (
    ("hipBLAS", "hipblas/hipblas.h"), ("hipBLASLt", "hipblaslt/hipblaslt.h"), ("rocBLAS", "rocblas/rocblas.h"),
    ("hipFFT", "hipfft/hipfft.h"), ("rocFFT", "rocfft/rocfft.h"), ("hipCUB", "hipcub/hipcub.hpp"),
    ("rocThrust", "thrust/device_vector.h"), ("rocPRIM", "rocprim/rocprim.hpp"),
    ("hipSOLVER", "hipsolver/hipsolver.h"), ("rocSOLVER", "rocsolver/rocsolver.h"),
    ("hipSPARSE", "hipsparse/hipsparse.h"), ("rocSPARSE", "rocsparse/rocsparse.h"),
    ("hipRAND", "hiprand/hiprand.h"), ("rocRAND", "rocrand/rocrand.h"), ("MIOpen", "miopen/miopen.h"),
    ("RCCL", "rccl/rccl.h")))
_CHROOT = ("/usr/sbin/chroot", "/usr/bin/chroot", "/sbin/chroot")
_UNSHARE = ("/usr/bin/unshare", "/bin/unshare")


def present_libraries(include_dirs: Sequence[str]) -> tuple[Library, ...]:
    """The LIBRARIES whose header is in one of these folders (of this machine)."""
    return tuple(lib for lib in LIBRARIES if any(os.path.isfile(os.path.join(d, lib.header)) for d in include_dirs))


def roots_folder() -> Path:
    given = os.environ.get("HIPPORT_TOOLCHAINS")
    return Path(given) if given else ROOTS


def root_prefix(root: str, as_root: bool | None = None) -> tuple[tuple[str, ...], str]:
    """The argv that runs a program inside `root`, and "" (or no argv and why not):
    `chroot ROOT` for root, a user namespace with ROOT as its root for anyone else
    (`as_root`: for whom; default: this process)."""
    if os.geteuid() == 0 if as_root is None else as_root:
        chroot = next((p for p in _CHROOT if os.path.isfile(p)), None)
        return ((chroot, root), "") if chroot else ((), "chroot is not installed")
    unshare = next((p for p in _UNSHARE if os.path.isfile(p)), None)
    return ((unshare, "--map-root-user", f"--root={root}"), "") if unshare else \
        ((), "unshare (util-linux) is not installed")


def root_toolchain(root: Path) -> Toolchain:
    """The toolchain of a root scripts/hip_root.py built, from its checked descriptor (raises
    descriptor.DescriptorError when it does not check). Its clang is given what hipcc gives
    it on the AMD platform: the ROCm folder, the device libraries and the same defaults."""
    d = descriptor.read(root)
    prefix, why = root_prefix(d.root)
    return Toolchain(
        d.name, d.clang, d.hip_version, d.clang_version, d.rocm_path,
        cxx_options=(f"--rocm-path={d.rocm_path}",),
        inline_options=("-mllvm", "-amdgpu-early-inline-all=true", "-mllvm", "-amdgpu-function-calls=false"),
        device_lib_options=(f"--hip-device-lib-path={d.device_lib_path}",),
        link_options=(f"--rocm-path={d.rocm_path}", "--hip-link"),
        error=why, root=d.root, prefix=prefix, headers=d.libraries, origin=str(Path(d.root) / descriptor.FILE))


@dataclass(frozen=True)
class Listing:
    """Every HIP toolchain found, in order (the host's first), and what was passed over."""

    toolchains: tuple[Toolchain, ...]
    notes: tuple[str, ...] = ()  # a descriptor that does not check, a ROCm that is not one, ...

    def names(self) -> list[str]:
        return [t.name for t in self.toolchains]


@cache
def listing() -> Listing:
    """The host's HIP (as `amd_toolchain` finds it), each ROCm under ROCM_PATH and /opt/rocm*
    (the same installation found twice counts once), then each root of `roots_folder()`. Two
    with the same name: the later one is named NAME-2."""
    found: list[Toolchain] = []
    notes: list[str] = []
    host = amd_toolchain()
    if host is not None:
        found.append(host)
    rocms = [os.environ["ROCM_PATH"]] if os.environ.get("ROCM_PATH") else []
    rocms += sorted(str(p) for p in Path(ROCM_INSTALLS).parent.glob(Path(ROCM_INSTALLS).name))
    for d in dict.fromkeys(os.path.realpath(r) for r in rocms):
        hipcc = Path(d, "bin", "hipcc")
        if not hipcc.is_file() or not _in_installation(hipcc):
            continue
        env = os.environ if os.environ.get("ROCM_PATH") and os.path.realpath(os.environ["ROCM_PATH"]) == d \
            else {"ROCM_PATH": d}
        tc = replace(describe(hipcc, env), origin=d)
        if any(os.path.realpath(t.clang) == os.path.realpath(tc.clang) and t.hip_version == tc.hip_version
               for t in found):
            continue
        found.append(tc)
    folder = roots_folder()
    try:
        roots = sorted(p for p in folder.iterdir() if (p / descriptor.FILE).exists() and not p.name.startswith("."))
    except OSError:
        roots = []
    for root in roots:
        try:
            found.append(root_toolchain(root))
        except descriptor.DescriptorError as e:
            notes.append(f"ignored: {e}")
    named: list[Toolchain] = []
    for t in found:
        name, n = t.name, 1
        while any(x.name == name for x in named):
            n += 1
            name = f"{t.name}-{n}"
        named.append(t if name == t.name else replace(t, name=name))
    return Listing(tuple(named), tuple(notes))


def find(name: str) -> Toolchain:
    """The toolchain `hipport toolchains` lists under this name (a usage error otherwise)."""
    found = listing()
    for t in found.toolchains:
        if t.name == name:
            return t
    known = ", ".join(found.names()) or "none"
    why = "".join(f"; {n}" for n in found.notes)
    raise HipportError(f"no toolchain named {name!r} (found: {known}{why}); `hipport toolchains` lists them")


_TARGET = re.compile(r"^\s+(gfx[0-9a-z-]+)\s*$", re.M)


def targets(tc: Toolchain, *, cache_path: Path | None = None, use_cache: bool = True) -> tuple[tuple[str, ...], str]:
    """The AMD GPU targets the toolchain's clang knows (`--print-supported-cpus`, one run,
    remembered beside the arch probes) and "", or () and why it could not say. Knowing a
    target is not yet compiling for it: `probe_arch` also needs its device libraries."""
    if not tc.ok:
        return (), tc.error
    key = _probe_key(tc, "targets")
    path = cache_path or _cache_file()
    stored: dict[str, Any] = {}
    if use_cache:
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        if not isinstance(stored, dict):
            stored = {}
        got = stored.get(key)
        if isinstance(got, dict) and isinstance(got.get("targets"), list) and isinstance(got.get("reason"), str) \
                and all(isinstance(t, str) and re.fullmatch(r"gfx[0-9a-z-]+", t) for t in got["targets"]):
            return tuple(got["targets"]), got["reason"]
    rc, out = _run([*tc.prefix, tc.clang, "--target=amdgcn-amd-amdhsa", "-nogpulib", "--print-supported-cpus"],
                   compile_env(tc), 60)
    found = tuple(sorted(dict.fromkeys(_TARGET.findall(out)), key=_target_order))
    if not found:  # not remembered: what stopped it (a user namespace refused, ...) may change
        return (), _first_error(out) or f"clang exited {rc}"
    if use_cache:
        stored[key] = {"targets": list(found), "reason": ""}
        _store(path, stored)
    return found, ""


def _target_order(t: str) -> tuple[int, int, str]:
    """gfx600 < gfx90a < gfx942 < gfx1030 < gfx1201; the generic targets last."""
    m = re.fullmatch(r"gfx(\d+)([0-9a-z])([0-9a-z])", t)
    return (0, int(m.group(1)), m.group(2) + m.group(3)) if m else (1, 0, t)


def _store(path: Path, stored: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(stored, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


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
    """How to build HIP code for an NVIDIA GPU: nvcc with HIP's headers, the options hipcc's
    NVIDIA path adds (`prefix`: nvcc and its compile options; `link`: its link options), and
    the environment to run it in."""

    how: str  # "nvcc", or "none" with `error`
    prefix: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    error: str = ""
    link: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.error


@cache
def nvidia_hip() -> NvidiaHip:
    """nvcc with HIP's headers, called directly (hipcc on the NVIDIA platform is the same Perl
    script that hands arguments to a shell, so it is never run), when it compiles a HIP kernel
    here; else the reason it does not."""
    nvcc = find_nvcc()
    if nvcc is None:
        return NvidiaHip("none", (), {}, "nvcc not found")
    inc = hip_include_dir()
    if inc is None:
        return NvidiaHip("none", (), {}, "HIP headers for NVIDIA (hip/nvidia_detail) not found; set HIPPORT_HIP_PATH")
    pre = [nvcc, "-Wno-deprecated-gpu-targets"]
    cp = cuda_path()
    if cp:
        pre += ["-isystem", str(Path(cp) / "include")]  # as hipcc does
    if inc != "/usr/include":  # a system dir: -isystem on it breaks libstdc++'s include_next
        pre += ["-isystem", inc]
    link = ("-lcuda", "-lcudart", *([f"-L{cp}/lib64"] if cp else []))  # hipcc's NVIDIA link options
    c = NvidiaHip("nvcc", tuple(pre), dict(os.environ), link=link)
    err = _try_nvidia(c)
    return c if not err else NvidiaHip("none", (), {}, f"nvcc: {err}")


def _try_nvidia(c: NvidiaHip) -> str:
    with tempfile.TemporaryDirectory(prefix="hipport-probe-") as d:
        src = Path(d) / "probe.cu"
        src.write_text("#include <hip/hip_runtime.h>\n" + PROBE_SOURCE, encoding="utf-8")
        rc, out = _run([*c.prefix, "-x", "cu", "-c", str(src), "-o", str(Path(d) / "probe.o")], c.env, 180)
    return "" if rc == 0 else (_first_error(out) or f"exit {rc}")


def summary() -> dict[str, object]:
    """What was found, as plain data (for --format json and the report)."""
    tc = amd_toolchain()
    return {
        "hip": None if tc is None else {"name": tc.name, "clang": tc.clang, "version": tc.version,
                                        "error": tc.error or None},
        "cxx": find_cxx(),
        "nvcc": find_nvcc(),
        "amd_gpus": list(amd_gpus().names),
        "nvidia_gpus": list(nvidia_gpus().names),
    }
