"""Ports build from one source on both HIP platforms (issue 32): the NVIDIA platform's compile.

The compile matrix's NVIDIA column: every wave64 fixture (each strategy, at the 5.2 floor: the
floor whose rewrites use the most AMD builtins), every translate case whose port compiles for
gfx90a (the matrix's 5.2@hip-5.2 column, tests/test_compile_matrix.py), and the bundled
examples are ported and compiled with nvcc through HIP's NVIDIA headers (tests/nvidia.py;
outputs that start with the same system includes are built as one unit, each alone only when
its batch fails; a success is kept by content in pytest's cache, so an unchanged run costs hashing). A fixture
is left out only with why (`why_not`): its *input* already uses an AMD builtin (code written for
AMD, left as it is: what is checked is what hipport writes), its port needs an API HIP has only
on AMD and notes it (HP022), or the library's NVIDIA backend is not installed here.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hipport import portable
from hipport.config import Config
from hipport.passes import port_bytes
from hipport.registry import HP
from hipport.validate import toolchains
from hipport.workspace import role_of
from tests import batching, nvidia
from tests import compiled as compiled_store
from tests.conftest import ROOT
from tests.test_compile_matrix import FIXTURE_LIST, WAVE64_STUBS, Fixture
from tests.test_translate_golden import in_its_folder

pytestmark = pytest.mark.nvidia

FLOOR = "5.2"
# HIP libraries whose NVIDIA backend includes CUDA's library: the CUDA header it needs. A port
# that uses one builds on HIP's NVIDIA platform only where the CUDA toolkit has that library.
BACKENDS = {"hiprand/": "curand.h", "hipsparse/": "cusparse.h", "hipblas/": "cublas_v2.h", "hipfft/": "cufft.h",
            "hipsolver/": "cusolverDn.h", "hipcub/": "cub/cub.cuh"}


def _sources(fx: Fixture) -> str:
    """The fixture's input and the headers beside it (written for HIP in summary fixtures)."""
    return "".join(p.read_text(errors="replace") for p in sorted(fx.folder.iterdir())
                   if p.name.startswith("input.") or p.suffix in (".cuh", ".h"))


def _flagged(fx: Fixture) -> str:
    """The first AMD-only API the port of a translate case notes (HP022), or ""."""
    assert fx.case is not None
    data = fx.case.input.read_bytes()
    res = port_bytes(f"{fx.case.name}/{fx.case.input.name}", fx.case.role or role_of(fx.case.input, data[:65536]),
                     data, replace(fx.case.config, rocm=FLOOR), **in_its_folder(fx.case.input, data))
    return next((f.message.split(" is declared")[0] for f in res.findings if f.rule == HP.AMD_ONLY_API), "")


def _absent_backend(ported: bytes) -> str:
    cuda = toolchains.cuda_path()
    for hip, needs in BACKENDS.items():
        if f"{hip}".encode() in ported and not (cuda and (Path(cuda) / "include" / needs).is_file()):
            return f"{hip.rstrip('/')}'s NVIDIA backend needs CUDA's {needs}, which this CUDA toolkit lacks"
    return ""


def why_not(fx: Fixture) -> str:
    """Why a fixture is not built on HIP's NVIDIA platform ("" when it is): its input is AMD code
    (it calls an AMD builtin itself), the port needs an API HIP has only on AMD and noted it
    (HP022), or the library's NVIDIA backend is not installed here."""
    used = portable.AMD_ONLY.search(_sources(fx))
    if used:
        return f"the input is AMD code: it calls {used.group()} itself"
    if "hipcub/" in _sources(fx):  # the wave64 tests' stand-in is AMD's shape
        return "hipCUB's NVIDIA backend is not installed here"
    if fx.case is not None:
        flagged = _flagged(fx)
        if flagged:
            return f"the port needs {flagged}, an AMD-only API, and says so (HP022)"
        return _absent_backend(fx.port(FLOOR)[0])
    return ""


def _chosen() -> list[Any]:
    """The NVIDIA column: every wave64 fixture, and every translate case whose port compiles
    for gfx90a (the compile matrix's 5.2@hip-5.2 column), each built or left out with why."""
    out = []
    for fx in FIXTURE_LIST:
        if fx.case is not None and (not fx.id.startswith("translate/") or not fx.case.compile):
            continue
        why = why_not(fx)
        out.append(pytest.param(fx, id=fx.id, marks=[pytest.mark.skip(reason=why)] if why else []))
    return out


BATCH = 40  # units per nvcc batch: most of a unit's cost is the headers, parsed once per batch


def _unit(work: Path, fx: Fixture) -> Path:
    """The fixture's output written in a folder of its own, beside the files it includes."""
    here = work / fx.id.replace("/", "__")
    here.mkdir(parents=True)
    for extra in fx.folder.iterdir():  # headers the output includes
        if extra.is_dir():
            shutil.copytree(extra, here / extra.name)
        elif not extra.name.startswith(("input.", "expected.", "case.toml")):
            shutil.copy(extra, here / extra.name)
    out = here / (Path(fx.name).stem + ".cu")
    out.write_bytes(fx.port(FLOOR)[0])
    return out


def batches(units: list[Path]) -> list[list[Path]]:
    """Units grouped for `nvidia.compile_batched`: those of one head (`batching.split_head`), at most
    BATCH a group; a unit with files of its own beside it, or none that can share, alone."""
    groups: dict[tuple[str, ...], list[Path]] = {}
    alone = []
    for unit in units:
        split = batching.split_head(unit.read_text(encoding="latin-1"))
        if split is None or any(p != unit for p in unit.parent.iterdir()):
            alone.append([unit])
        else:
            groups.setdefault(split[0], []).append(unit)
    out = [g[i:i + BATCH] for g in groups.values() for i in range(0, len(g), BATCH)]
    return sorted(out, key=len, reverse=True) + alone


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Any:
    """Each fixture's nvcc answer, from compiles started together on a pool when the first is
    asked for: outputs of one head are built as one unit (a unit alone only when its batch fails,
    `nvidia.compile_batched`: nvcc's ~1.4 s of CPU a unit is mostly HIP's and CUDA's headers),
    and a fixture whose two strategies port to the same bytes (beside the same files) once."""
    nvidia.require()
    nvidia.kit()
    chosen = [item.callspec.params["fixture"] for item in request.session.items  # not those left out
              if item.originalname == "test_port_builds_on_nvidia" and hasattr(item, "callspec")
              and item.get_closest_marker("skip") is None]
    work = tmp_path_factory.mktemp("nvidia")
    cache = compiled_store.folder(request.config, "hipport-nvidia")  # successes kept by content
    same: dict[tuple[Path, str], Path] = {}
    unit_of: dict[str, Path] = {}
    for fx in chosen:
        key = (fx.folder, hashlib.sha256(fx.port(FLOOR)[0]).hexdigest())
        if key not in same:
            same[key] = _unit(work, fx)
        unit_of[fx.id] = same[key]
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers: dict[Path, Future[dict[Path, subprocess.CompletedProcess[str]]]] = {}
        for i, group in enumerate(batches(list(same.values()))):
            future = pool.submit(nvidia.compile_batched, group, work / f"batch{i}.cu", "-I", str(WAVE64_STUBS),
                                 cache=cache, root=work)
            answers.update(dict.fromkeys(group, future))
        yield {fid: (answers[unit], unit) for fid, unit in unit_of.items()}
        for f in answers.values():
            f.cancel()


@pytest.mark.parametrize("fixture", _chosen())
def test_port_builds_on_nvidia(fixture: Fixture, compiled: dict[str, Any]) -> None:
    answer, unit = compiled[fixture.id]
    r = answer.result()[unit]
    assert r.returncode == 0, f"{fixture.id} ported at --rocm {FLOOR}, built with nvcc:\n{nvidia.errors(r)}"


SOURCE = b"""#include <cuda_runtime.h>
__global__ void k(const int* in, unsigned* out) {
  const unsigned b = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);
  const unsigned lane = threadIdx.x % 32;
  if (lane == 0) out[threadIdx.x / 32] = __popc(b) + __any_sync(0xffffffff, in[0]);
}
"""


def test_the_shims_come_once_after_the_includes_and_a_second_port_changes_nothing() -> None:
    cfg = Config(rocm=FLOOR, wave_strategy="native", apply_review_fixes=True)
    once = port_bytes("k.cu", "cuda-source", SOURCE, cfg)
    assert once.ported is not None and once.error is None
    text = once.ported.decode()
    assert text.count(portable.NVIDIA_SHIMS) == 1
    assert text.index("#include <hip/hip_runtime.h>") < text.index(portable.NVIDIA_SHIMS) < text.index("__global__")
    assert "__ballot(" in text  # the AMD rewrite, which the shims carry to NVIDIA
    again = port_bytes("k.hip", "cuda-source", once.ported, cfg)
    assert again.ported in (None, once.ported)


def test_a_file_without_amd_builtins_gets_no_shims() -> None:
    plain = b"#include <cuda_runtime.h>\n__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n"
    res = port_bytes("k.cu", "cuda-source", plain, Config(rocm=FLOOR))
    assert res.ported is not None and b"HIPPORT_NVIDIA_SHIMS" not in res.ported


@pytest.mark.parametrize("example", sorted(p.name for p in (ROOT / "examples").iterdir() if p.is_dir()))
def test_the_bundled_examples_build_on_nvidia(example: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    nvidia.require()
    cache = compiled_store.folder(request.config, "hipport-nvidia")
    out = tmp_path / example
    p = subprocess.run([sys.executable, "-m", "hipport", "port", str(ROOT / "examples" / example), "-o", str(out),
                        "--no-cache", "--rocm", FLOOR], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    units = sorted(out.rglob("*.hip")) + sorted(out.rglob("*.cu"))
    assert units
    for unit in units:
        src = unit.with_suffix(".cu") if unit.suffix == ".hip" else unit
        if src != unit:
            shutil.copy(unit, src)
        incs = [a for d in {h.parent for h in out.rglob("*.h")} | {out / "include"} for a in ("-I", str(d))]
        r = nvidia.compile_nvidia(src, *incs, cache=cache, root=tmp_path)
        assert r.returncode == 0, f"{unit.relative_to(out)}:\n{nvidia.errors(r)}"


def test_a_batch_builds_units_of_the_same_names_once_and_a_unit_that_fails_alone_still_fails(tmp_path: Path) -> None:
    nvidia.require()
    units = batching.planted(tmp_path, ".cu")
    # the batch of three fails; its halves are tried: `bad` alone, then `one` and `two` together
    got = nvidia.compile_batched(units, tmp_path / "all.cu", root=tmp_path)
    assert got[units[1]].returncode == 0 and got[units[1]] is got[units[2]]  # one nvcc for both
    assert got[units[0]].returncode != 0 and got[units[0]].args[-3] == str(units[0])  # compiled alone
    assert "undeclared_name" in nvidia.errors(got[units[0]])
