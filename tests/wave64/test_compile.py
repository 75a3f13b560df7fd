"""Every rewritten fixture compiles with hipcc (HIP 5.2 headers, clang 15 here):

- for gfx90a (wave64): tests/test_compile_matrix.py, with HIP 5.2 and the HIP 6.4 root;
- the native outputs and the W019 / W020 fixtures (the no-over-correction rules) for gfx1030
  (wave32), batched into one translation unit (each file alone only when the batch fails);
- all outputs again, batched into one translation unit per check, against tests/wave64/include/
  rocm7_shim.h: HIP 7.0's 64-bit-mask *_sync builtins, a warpSize that is not constexpr, and no
  __AMDGCN_WAVEFRONT_SIZE (7.2). Fixtures with a 7.0 floor are only compiled this way.

hipCUB is not installed here; the W013 fixtures compile against include/hipcub/hipcub.hpp, a stub
with hipCUB's template shape.
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hipport import portable
from tests import compiled
from tests.wave64.helpers import FIXTURES, HIPCC
from tests.wave64.regen import meta

pytestmark = [pytest.mark.hipcc, pytest.mark.skipif(HIPCC is None, reason="hipcc is not on PATH (install hipcc, "
                                                    "libamdhip64-dev and rocm-device-libs to run the compile checks)")]

INCLUDE = Path(__file__).resolve().parent / "include"
SHIM = INCLUDE / "rocm7_shim.h"
FOLDERS = sorted(p for p in FIXTURES.iterdir() if (p / "input.cu").is_file())


def floor7(folder: Path) -> bool:
    rocm = meta(folder).get("config", {}).get("rocm", "5.2")
    return tuple(int(x) for x in rocm.split(".")[:2]) >= (7, 0)


def wave32_too(folder: Path, strategy: str) -> bool:
    return strategy == "native" or folder.name.startswith(("w019", "w020"))


def hipcc(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    return subprocess.run(["hipcc", *args], capture_output=True, text=True, env=env, timeout=600)


def errors(proc: subprocess.CompletedProcess[str]) -> str:
    return _errors(proc.stderr)


def _errors(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if "error" in line)[:4000]


def per_file_jobs() -> list[tuple[Path, tuple[str, ...]]]:
    """One job per distinct output that must also build for wave 32 (gfx90a is the matrix's)."""
    by_text: dict[str, tuple[Path, set[str]]] = {}
    for folder in FOLDERS:
        if floor7(folder):
            continue
        for strategy in ("logical32", "native"):
            if not wave32_too(folder, strategy):
                continue
            path = folder / f"expected.{strategy}.hip"
            first, seen = by_text.setdefault(path.read_text(), (path, set()))
            seen.add("gfx1030")
    return [(path, tuple(sorted(archs, reverse=True))) for path, archs in by_text.values()]


@pytest.fixture(scope="module")
def per_file_results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    """`hipcc --offload-arch=gfx1030 -c -o /dev/null -x hip FILE` for each file (kept by content
    between runs: tests/compiled.py). The files are compiled first as one batch (`batch`: one
    hipcc for all, not one per file); only when that fails is each compiled alone, to name the
    file that does not build."""
    where = compiled.folder(request.config, "hipport-wave64-compile")

    def one(job: tuple[Path, tuple[str, ...]]) -> tuple[str, tuple[int, str]]:
        path, archs = job
        rc, err = compiled.hipcc(where, [*(f"--offload-arch={a}" for a in archs), "-c", "-o", os.devnull, "-x", "hip",
                                         "-I", str(INCLUDE), str(path)], path, FIXTURES)
        return str(path), (rc, _errors(err))
    jobs = per_file_jobs()
    tmp = tmp_path_factory.mktemp("wave32-batch")
    together = tmp / "all.hip"
    together.write_text(batch([path for path, _ in jobs]))
    rc, _ = compiled.hipcc(where, ["--offload-arch=gfx1030", "-c", "-o", os.devnull, "-x", "hip", "-I", str(INCLUDE),
                                   str(together)], together, tmp)
    if rc == 0 and all(archs == ("gfx1030",) for _, archs in jobs):
        return {str(path): (0, "") for path, _ in jobs}
    with ThreadPoolExecutor(max_workers=max(2, (os.cpu_count() or 2))) as pool:
        return dict(pool.map(one, jobs))


JOBS = per_file_jobs()


@pytest.mark.parametrize(("path", "archs"), JOBS, ids=[f"{p.parent.name}/{p.name}:{'+'.join(a)}" for p, a in JOBS])
def test_compiles(path: Path, archs: tuple[str, ...], per_file_results: dict[str, tuple[int, str]]) -> None:
    rc, err = per_file_results[str(path)]
    assert rc == 0, f"{path} for {'+'.join(archs)}:\n{err}"


def batch(files: list[Path]) -> str:
    """One translation unit: each file in its own namespace, its macros undefined after it."""
    lines = ["#include <hip/hip_runtime.h>", "#include <hip/hip_cooperative_groups.h>",
             "#include <hipcub/hipcub.hpp>", "#include <algorithm>", "#include <cmath>", "#include <cstdio>"]
    for i, f in enumerate(files):
        lines += [f"namespace hipport_fixture_{i} {{", f'#include "{f}"', "}"]
        lines += [f"#undef {m}" for m in sorted(set(re.findall(r"^\s*#\s*define\s+(\w+)", f.read_text(), re.M)))]
    return "\n".join(lines) + "\n"


BATCHES = {
    "rocm7-gfx90a-all": ("gfx90a", [f for d in FOLDERS for f in sorted(d.glob("expected.*.hip"))]),
    "rocm7-gfx1030-no-over-correction": ("gfx1030", [d / f"expected.{s}.hip" for d in FOLDERS
                                                      for s in ("logical32", "native") if wave32_too(d, s)]),
}


@pytest.mark.parametrize("name", list(BATCHES))
def test_compiles_against_rocm7_semantics(name: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    arch, files = BATCHES[name]
    src = tmp_path / f"{name}.hip"
    src.write_text(batch(files))
    rc, err = compiled.hipcc(compiled.folder(request.config, "hipport-wave64-compile"),
                             [f"--offload-arch={arch}", "-c", "-o", os.devnull, "-x", "hip", "-I", str(INCLUDE),
                              "-include", str(SHIM), str(src)], src, tmp_path)
    assert rc == 0, _errors(err)


def test_the_shim_catches_what_rocm7_rejects(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hip"
    bad.write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* p) {\n  __shared__ float s[warpSize];\n"
                   "  s[0] = __shfl_down_sync(0xffffffff, p[0], 1);\n  p[0] = s[0];\n}\n")
    proc = hipcc(["--offload-arch=gfx90a", "-c", "-o", os.devnull, "-x", "hip", "-include", str(SHIM), str(bad)])
    assert proc.returncode != 0
    assert "variable length array" in proc.stderr and "64-bit integer" in proc.stderr


def _amd_compiles(text: str) -> str:
    """`text` without the preprocessor branches AMD never compiles (`#else` of an AMD test)."""
    from hipport.config import Config
    from hipport.source import SourceFile
    from hipport.wave64.facts import Facts

    data = text.encode()
    fx = Facts(SourceFile("x.hip", data), Config())
    for start, end in sorted(fx.inactive, reverse=True):
        data = data[:start] + data[end:]
    return data.decode()


def test_outputs_use_no_removed_or_missing_names() -> None:
    """Text checks for what the compile cannot see on HIP 5.2: nothing removed in 7.2, and no *_sync
    builtin below a 7.0 floor."""
    for folder in FOLDERS:
        for path in folder.glob("expected.*.hip"):
            text = _amd_compiles(path.read_text().replace(portable.NVIDIA_SHIMS, ""))  # NVIDIA's own
            code = re.sub(r"//[^\n]*|\"(?:\\.|[^\"\\])*\"", "", text)
            assert "__AMDGCN_WAVEFRONT_SIZE" not in code, path
            if not floor7(folder):
                assert not re.search(r"\b__\w+_sync\s*\(|\b__activemask\s*\(|\b__syncwarp\s*\(", code), path
