"""Ports build from one source on both HIP platforms (issue 32): the NVIDIA platform's compile.

Every wave64 fixture (each strategy, at the 5.2 floor: the floor whose rewrites use the most
AMD builtins), the translate cases whose output holds the NVIDIA shims, and the bundled
examples are ported and compiled with nvcc through HIP's NVIDIA headers (tests/nvidia.py).
The AMD side of the same outputs is the compile matrix's (tests/test_compile_matrix.py). A
fixture whose *input* already uses an AMD builtin (code written for AMD, left as it is) is
left out with that reason: what is checked is what hipport writes.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hipport import portable
from hipport.config import Config
from hipport.passes import port_bytes
from hipport.registry import FixKind
from tests import nvidia
from tests.conftest import ROOT
from tests.test_compile_matrix import FIXTURE_LIST, WAVE64_STUBS, Fixture

pytestmark = pytest.mark.nvidia

FLOOR = "5.2"


def _chosen() -> list[Any]:
    out = []
    for fx in FIXTURE_LIST:
        if fx.case is None:
            # the input and the headers beside it (written for HIP in summary fixtures)
            text = "".join(p.read_text() for p in sorted(fx.folder.iterdir())
                           if p.name == "input.cu" or p.suffix in (".cuh", ".h"))
            used = portable.AMD_ONLY.search(text)
            marks = [pytest.mark.skip(reason=f"the input is AMD code: it calls {used.group()} itself")] if used else []
            if "hipcub/" in text:  # the tests' stand-in is AMD's shape; hipCUB over CUB is not installed
                marks = [pytest.mark.skip(reason="hipCUB's NVIDIA backend is not installed here")]
        elif FixKind.PORTABLE in fx.port(FLOOR)[1] and fx.case.compile:
            marks = []
        else:
            continue
        out.append(pytest.param(fx, id=fx.id, marks=marks))
    return out


def _compile(work: Path, fx: Fixture) -> subprocess.CompletedProcess[str]:
    here = work / fx.id.replace("/", "__")
    here.mkdir(parents=True)
    for extra in fx.folder.iterdir():  # headers the output includes
        if extra.is_dir():
            shutil.copytree(extra, here / extra.name)
        elif not extra.name.startswith(("input.", "expected.", "case.toml")):
            shutil.copy(extra, here / extra.name)
    out = here / (Path(fx.name).stem + ".cu")
    out.write_bytes(fx.port(FLOOR)[0])
    return nvidia.compile_nvidia(out, "-I", str(WAVE64_STUBS))


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Any:
    """The compiles this session runs, started together on a pool when the first is asked for
    (here 14 of the 81 outputs repeat another's bytes: nvcc costs ~1.6 s of CPU each)."""
    nvidia.require()
    nvidia.kit()
    chosen = [item.callspec.params["fixture"] for item in request.session.items
              if item.originalname == "test_port_builds_on_nvidia" and hasattr(item, "callspec")]
    work = tmp_path_factory.mktemp("nvidia")
    with ThreadPoolExecutor(max_workers=2) as pool:
        # a fixture whose two strategies port to the same bytes (beside the same files) is built once
        same: dict[tuple[Path, str], Future[subprocess.CompletedProcess[str]]] = {}
        futures: dict[str, Future[subprocess.CompletedProcess[str]]] = {}
        for fx in chosen:
            key = (fx.folder, hashlib.sha256(fx.port(FLOOR)[0]).hexdigest())
            if key not in same:
                same[key] = pool.submit(_compile, work, fx)
            futures[fx.id] = same[key]
        yield futures
        for f in futures.values():
            f.cancel()


@pytest.mark.parametrize("fixture", _chosen())
def test_port_builds_on_nvidia(fixture: Fixture, compiled: dict[str, Any]) -> None:
    r = compiled[fixture.id].result()
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
def test_the_bundled_examples_build_on_nvidia(example: str, tmp_path: Path) -> None:
    nvidia.require()
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
        r = nvidia.compile_nvidia(src, *incs)
        assert r.returncode == 0, f"{unit.relative_to(out)}:\n{nvidia.errors(r)}"
