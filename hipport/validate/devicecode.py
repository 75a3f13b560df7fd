"""Does a unit hold device code? The compile check's device side can be left out when not.

hipcc compiles every unit twice, for the host and for the GPU, and both sides parse all of
it. Clang reports an ordinary C++ error on both sides alike; what only the device side can
report concerns code that is compiled for the GPU: kernels, `__device__` functions and
variables, and code under a device-only branch (`__HIP_DEVICE_COMPILE__`). A unit none of
whose files holds such a word (its own text and every header it read, apart from HIP's and
the compiler's own, which hold device code for everyone) has nothing the device side would
check that the host side has not, so its check is the host side alone. Many units of a real
tree are host code only (a sample's main.cpp): this halves their check.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable

_DEVICE = re.compile(
    rb"\b(?:__global__|__device__|__constant__|__shared__|__managed__|__launch_bounds__|"
    rb"__HIP_DEVICE_COMPILE__|__CUDA_ARCH__|__AMDGCN__|__AMDGPU__|__gfx\w+__|__HIP_ARCH_\w+|"
    rb"__HOST_DEVICE__|__DEVICE__|__HIP_CLANG_ONLY__)\b"
    rb"|__attribute__\s*\(\(\s*(?:__)?(?:global|device|constant|shared|amdgpu_\w+)\b"
    rb"|__declspec\s*\(\s*(?:__)?(?:global|device)\b")

_lock = threading.Lock()
_seen: dict[tuple[str, int, int], bool] = {}


def _toolchain_folders(deps: Iterable[str]) -> list[str]:
    """HIP's header folder and the compiler's own, as found among the files a unit read."""
    out = []
    for d in deps:
        if d.endswith("/hip/hip_runtime.h"):
            out.append(os.path.dirname(d) + os.sep)
        elif d.endswith("/__clang_hip_runtime_wrapper.h"):
            out.append(os.path.dirname(d) + os.sep)
    return out


def holds_device_code(unit: str, deps: Iterable[str]) -> bool:
    """True when `unit` or a header among `deps` (outside HIP's and the compiler's folders)
    holds device code; a file that cannot be read counts as holding some."""
    deps = list(deps)
    skip = tuple(_toolchain_folders(deps))
    return any(_file_has(p) for p in dict.fromkeys([unit, *deps]) if not p.startswith(skip) or p == unit)


def _file_has(path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return True
    key = (path, st.st_mtime_ns, st.st_size)
    with _lock:
        if key in _seen:
            return _seen[key]
    try:
        with open(path, "rb") as f:
            found = _DEVICE.search(f.read()) is not None
    except OSError:
        found = True
    with _lock:
        _seen[key] = found
    return found
