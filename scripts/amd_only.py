"""Write rules/targets/nvidia.toml: the HIP names the runtime tables write that HIP's AMD
platform declares and its NVIDIA platform does not (HP022 reports each use).

HIP's runtime headers are preprocessed for each platform (AMD: the host's HIP, clang, both
sides; NVIDIA: nvcc with the headers hipkit patches for it), and a name counts as declared on a
platform where it is a word of the preprocessed text or a macro it defines. Only the tables of
the HIP runtime (not the libraries, whose NVIDIA backends need CUDA's libraries) are read.

    python3 scripts/amd_only.py          # rewrite rules/targets/nvidia.toml
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport.validate import hipkit, toolchains  # noqa: E402

TABLES = ("runtime", "driver", "device", "cooperative_groups", "complex", "vector")
HEADERS = ("hip/hip_runtime.h", "hip/hip_runtime_api.h", "hip/hip_cooperative_groups.h", "hip/hip_fp16.h",
           "hip/hip_complex.h", "hip/hip_vector_types.h", "hip/hip_bfloat16.h", "hip/hip_texture_types.h")
WORD = re.compile(r"[A-Za-z_]\w*")


def words(cmds: list[list[str]], env: dict[str, str]) -> set[str]:
    out: set[str] = set()
    for cmd in cmds:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd[:3])} ...: {p.stderr[-2000:]}")
        out |= set(WORD.findall(p.stdout))
    return out


def main() -> int:
    kit, nvcc, cuda = hipkit.cached_kit(), toolchains.find_nvcc(), toolchains.cuda_path()
    if kit is None or nvcc is None:
        sys.exit("needs nvcc and HIP's NVIDIA headers")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "all.cu"
        src.write_text("".join(f"#include <{h}>\n" for h in HEADERS))
        amd = ["hipcc", "-E", "-x", "hip", "-std=c++17", "--offload-arch=gfx90a", str(src), "-o", "-"]
        env = {**os.environ, "HIP_PLATFORM": "amd"}
        on_amd = words([[*amd[:-3], side, *amd[-3:]] for side in ("--cuda-device-only", "--cuda-host-only")]
                       + [[*amd[:-3], "--cuda-host-only", "-dM", *amd[-3:]]], env)
        nv = [nvcc, "-E", "-x", "cu", "-std=c++17", "-arch=sm_90", *(["-isystem", f"{cuda}/include"] if cuda else []),
              "-isystem", str(kit), str(src), "-o", "-"]
        on_nvidia = words([nv, [*nv[:-3], "-Xcompiler", "-dM", *nv[-3:]]], dict(os.environ))
    names: set[str] = set()
    for t in TABLES:
        table = tomllib.loads((ROOT / "rules" / "api" / f"{t}.toml").read_text())
        for entry in table.get("names", {}).values():
            hip = entry.get("hip") or ""
            if WORD.fullmatch(hip) and hip in on_amd and hip not in on_nvidia:
                names.add(hip)
    body = "\n".join(f'  "{n}",' for n in sorted(names))
    (ROOT / "rules" / "targets" / "nvidia.toml").write_text(
        "# HIP names the runtime tables write that HIP's AMD platform declares and its NVIDIA platform\n"
        "# (HIP 5.2's headers, patched for CUDA 13) does not: a port that uses one builds for AMD only,\n"
        "# and each use is reported (HP022). Made by scripts/amd_only.py, which preprocesses HIP's\n"
        "# runtime headers for each platform.\n"
        f'hip = "5.2"\nnames = [\n{body}\n]\n', encoding="utf-8")
    print(f"{len(names)} names", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
