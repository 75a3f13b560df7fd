"""The compile matrix (issue 29): every kind of fix hipport emits, compiled in three columns.

| column        | the port's floor | compiled with                                         |
|---------------|------------------|-------------------------------------------------------|
| `5.2@hip-5.2` | `--rocm 5.2`     | the host's HIP (Debian 12: HIP 5.2, clang 15)          |
| `5.2@hip-6.4` | `--rocm 5.2`     | the HIP 6.4 root (a floor is a minimum: nothing hipport emits for 5.2 may clash with what HIP 6.2+ declares) |
| `6.4@hip-6.4` | `--rocm 6.4`     | the HIP 6.4 root                                       |

Fixtures are the wave64 folders (fixtures/wave64/*/input.cu, each strategy), the translate golden
cases (fixtures/translate) and the library cases (fixtures/libraries): each is ported with the real
passes at the column's floor and the output is compiled for gfx90a (`-c`, hipcc's options, through
hipport's toolchain description: the root's clang runs inside the root; an output that can use
it, as validate decides, gets the toolchain's precompiled <hip/hip_runtime.h>, its two sides compiled
apart: ~3x less CPU, the parse of HIP's headers being most of a compile; outputs that start with
the same system includes are compiled as one unit, each alone only when its batch fails:
tests/batching.py). The library cases compile
against the real hipBLAS, hipCUB, rocThrust, hipFFT, hipSOLVER, MIOpen, ... headers in the root.

A fixture is left out of a column only where it says why: a translate or library case's
`compile = false` + `why` for the host's HIP, its `not_hip64` for the root (a text; or a table
by the port's floor, `{ "5.2" = "why" }`); nothing else. A fix
kind (`fix_kinds()`) with no fixture in a column fails `test_every_fix_kind_has_a_fixture`, which
needs no compiler. Where a column fails today because of what HIP 6 changed, the fixture is an
expected failure with the reason (XFAIL, strict: it flips when fixed). Compile cells are marked
`hipcc` (host) and `rocm64` (root), so the fast job skips them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from hipport import registry
from hipport.passes import port_bytes
from hipport.source import SourceFile
from hipport.validate import toolchains
from hipport.validate.compile import _PCH_TROUBLE
from hipport.validate.compilecache import Answer, CompileCache, read_depfile
from hipport.validate.driver import Toolchain
from hipport.validate.pch import Precompiled
from hipport.validate.pch import eligible as pch_eligible
from hipport.validate.site import Site
from hipport.wave64 import run as wave64_run
from hipport.workspace import PORTED_ROLES, role_of
from tests import batching
from tests import compiled as compiled_store
from tests.conftest import ROOT
from tests.test_library_fixtures import CASES as LIBRARY_CASES
from tests.test_translate_golden import CASES as TRANSLATE_CASES
from tests.test_translate_golden import Case, in_its_folder
from tests.wave64.helpers import FIXTURES as WAVE64_FIXTURES
from tests.wave64.helpers import apply, config

HIP64 = "hip-6.4"
WAVE64_STUBS = ROOT / "tests" / "wave64" / "include"  # hipCUB's template shape, for a host without hipCUB


@dataclass(frozen=True)
class Column:
    id: str
    floor: str  # the port's --rocm
    toolchain: str  # "host" (the host's HIP) or a toolchain name
    mark: Any


COLUMNS = (Column("5.2@hip-5.2", "5.2", "host", pytest.mark.hipcc),
           Column("5.2@hip-6.4", "5.2", HIP64, pytest.mark.rocm64),
           Column("6.4@hip-6.4", "6.4", HIP64, pytest.mark.rocm64))
BY_ID = {c.id: c for c in COLUMNS}

# wave64 rules that report and never fix (the registry's `report_only`; checked: they fix nothing anywhere).
REPORT_ONLY = {r.id: r.report_only for r in registry.rules().values() if r.wave64 and not r.fixes}
# (fix kind, column) cells with no fixture that can be, with why (checked: still true).
NO_FIXTURE = {
    ("W021", "6.4@hip-6.4"): "HIP wraps __shfl source lanes itself from ROCm 5.7: W021 fixes below a 5.7 floor only",
    ("HP-bf16", "6.4@hip-6.4"): "from ROCm 6.2 bfloat16 is __hip_bfloat16, which converts from float implicitly: "
                                "HP-bf16 writes conversions below a 6.2 floor only",
    ("HP-args-order", "5.2@hip-5.2"): "only MIOpen calls have arguments reordered (--dnn miopen-hipify), and "
                                      "Debian 12 packages no MIOpen headers",
    **{("HP900", c.id): "deleting an unused suppression comment changes nothing the compiler sees" for c in COLUMNS},
}
# Cells that fail today because of what HIP 6 changed (issue 29; fixed in hipport/translate,
# hipport/wave64 and rules/): (fixture, column) -> the reason. Strict: a fix makes it fail until
# its line is removed here.
XFAIL: dict[tuple[str, str], str] = {
}


def fix_kinds() -> list[str]:
    """Every kind of fix hipport emits, from the rule registry."""
    return list(registry.fix_kinds())


# --- fixtures: what is ported and compiled -------------------------------------------------------

@dataclass(frozen=True)
class Fixture:
    id: str  # "wave64/k_argmax.native", "translate/ggl_launch_simple", "libraries/cublas/sgemm_handle_stream"
    folder: Path  # the fixture's folder: other files in it are there for the compiler
    name: str  # the file name the output is compiled under
    case: Case | None  # a translate or library case; None for a wave64 folder
    strategy: str = ""  # wave64: logical32 or native

    def left_out(self, column: Column) -> str:
        """Why the fixture is not compiled in `column` ("" when it is), as the fixture says."""
        if self.case is None:
            return ""
        if column.toolchain == "host":
            return "" if self.case.compile else self.case.why
        return self.case.not_hip64.get(column.floor) or self.case.not_hip64.get("*", "")

    def port(self, floor: str) -> tuple[bytes, frozenset[str]]:
        """The output at `floor` and the fix kinds it holds."""
        if self.case is not None:
            return _ported(self.case, floor)
        return _wave64(self.folder, self.strategy, floor)


def _ported(case: Case, floor: str) -> tuple[bytes, frozenset[str]]:
    return _ported_named(case.name, floor)


@cache
def _ported_named(name: str, floor: str) -> tuple[bytes, frozenset[str]]:
    case = CASES_BY_NAME[name]
    data = case.input.read_bytes()
    role = case.role or role_of(case.input, data[:65536])
    if role not in PORTED_ROLES:
        return data, frozenset()
    res = port_bytes(f"{case.name}/{case.input.name}", role, data, replace(case.config, rocm=floor),
                     **in_its_folder(case.input, data))
    assert res.error is None, f"{case.name}: {res.error}"
    return (res.ported if res.ported is not None else data), frozenset(e.rule for e in res.edits)


@cache
def _wave64(folder: Path, strategy: str, floor: str) -> tuple[bytes, frozenset[str]]:
    text = (folder / "input.cu").read_text()
    found = wave64_run(SourceFile(str(folder / "input.cu"), text.encode()), config(strategy, floor))
    kinds = frozenset(f.rule for f in found if f.fix is not None and f.fix.edits)
    return apply(text, found).encode(), kinds


CASES_BY_NAME = {c.name: c for c in [*TRANSLATE_CASES, *(lc.case for lc in LIBRARY_CASES)]}


def all_fixtures() -> list[Fixture]:
    out = [Fixture(f"wave64/{d.name}.{s}", d, f"{d.name}.hip", None, s)
           for d in sorted(p for p in WAVE64_FIXTURES.iterdir() if (p / "input.cu").is_file())
           for s in ("logical32", "native")]
    out += [Fixture(f"translate/{c.name}", c.input.parent, c.expected.name, c) for c in TRANSLATE_CASES]
    out += [Fixture(f"libraries/{lc.id}", lc.case.input.parent, lc.case.expected.name, lc.case) for lc in LIBRARY_CASES]
    return out


FIXTURE_LIST = all_fixtures()


def cells() -> list[Any]:
    out = []
    for col in COLUMNS:
        for fx in FIXTURE_LIST:
            if fx.left_out(col):
                continue
            marks = [col.mark]
            if (fx.id, col.id) in XFAIL:
                marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[(fx.id, col.id)]))
            out.append(pytest.param(col, fx, id=f"{col.id}:{fx.id}", marks=marks))
    return out


# --- compiling --------------------------------------------------------------------------------

def _toolchain(col: Column) -> Toolchain:
    if col.toolchain == "host":
        tc = toolchains.amd_toolchain()
        if tc is None or not tc.ok:
            pytest.skip("no HIP on this machine (apt-get install hipcc libamdhip64-dev rocm-device-libs)")
        return tc
    found = next((t for t in toolchains.listing().toolchains if t.name == col.toolchain), None)
    if found is None or not found.ok:
        why = f"no usable {col.toolchain} toolchain in {toolchains.roots_folder()} (python3 scripts/hip_root.py)"
        if col.toolchain in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {col.toolchain}, but {why}")
        pytest.skip(why)
    return found


def _unit(work: Path, fx: Fixture, floor: str) -> Path:
    """The fixture's output at `floor`, in a folder of its own beside the files it includes."""
    here = work / fx.id.replace("/", "__")
    here.mkdir(parents=True)
    for extra in fx.folder.iterdir():  # headers the output includes, beside it or in folders
        if extra.is_dir():
            shutil.copytree(extra, here / extra.name)
        elif not extra.name.startswith(("input.", "expected.", "case.toml")):
            shutil.copy(extra, here / extra.name)
    out = here / fx.name
    out.write_bytes(fx.port(floor)[0])
    return out


def _compile(tc: Toolchain, out: Path, stubs: bool, cache: CompileCache | None,
             pch: Precompiled | None = None) -> tuple[int, str]:
    """Compile `out` (a fixture's output, or a batch of them) for gfx90a: (exit code, errors)."""
    here = out.parent if out.parent.name != "batches" else out.parent / out.stem  # temporary files
    here.mkdir(exist_ok=True)
    base = ["-x", "hip", "--offload-arch=gfx90a", "-std=c++17", "-Wno-unused-result",
            *(["-I", str(WAVE64_STUBS)] if stubs else [])]
    args = [*base, "-c", str(out), "-o", "/dev/null"]
    key = cache.key(f"{tc.name}:{tc.clang}", tc.version, "gfx90a", args, out) if cache is not None else ""
    hit = cache.get(key) if cache is not None else None
    if hit is not None:  # every file the compile read (the output, its headers, HIP's) is unchanged
        return hit.rc, hit.output
    site = Site(tc)
    site.tmp = str(here)  # a compile cut short leaves its temporary files in the work folder
    t0 = time.perf_counter()
    rc, stderr, deps = _with_pch(site, pch, base, out, here) if pch is not None else (None, "", [])
    if rc is None:  # not eligible, or the precompiled header was refused: hipcc's one command
        depfile = here / "deps.d"
        p = subprocess.run(site.command([*args, "-MD", "-MF", str(depfile)]), capture_output=True, text=True,
                           errors="replace", env=site.env, stdin=subprocess.DEVNULL, timeout=600)
        rc, stderr = p.returncode, p.stderr
        deps = _read_deps(site, depfile, here)
    errors = "\n".join(x for x in stderr.splitlines() if "error" in x)[:4000]
    if cache is not None and rc == 0 and deps:
        cache.put(key, Answer(rc, errors, time.perf_counter() - t0, True), deps)
    return rc, errors


BATCH = 40  # outputs per batch (tests/batching.py): most of a compile is HIP's headers, once a batch


def _batches(units: list[tuple[Path, bool]]) -> list[tuple[list[Path], bool]]:
    """Outputs grouped for one compile each: those of one head and the same flags (`stubs`), at
    most BATCH a group; one with files of its own beside it, or whose body cannot share, alone."""
    groups: dict[tuple[tuple[str, ...], bool], list[Path]] = {}
    alone: list[tuple[list[Path], bool]] = []
    for unit, stubs in units:
        split = batching.split_head(unit.read_text(encoding="latin-1"))
        if split is None or any(p != unit for p in unit.parent.iterdir()):
            alone.append(([unit], stubs))
        else:
            groups.setdefault((split[0], stubs), []).append(unit)
    out = [(g[i:i + BATCH], stubs) for (_, stubs), g in groups.items() for i in range(0, len(g), BATCH)]
    return sorted(out, key=lambda b: len(b[0]), reverse=True) + alone


def _read_deps(site: Site, depfile: Path, here: Path) -> list[str]:
    try:
        return [site.host_path(d) for d in read_depfile(depfile.read_text(errors="replace"), here)]
    except OSError:
        return []


def _with_pch(site: Site, pch: Precompiled, base: list[str], out: Path, here: Path) -> tuple[int | None, str, list[str]]:
    """hipcc's `-c` as its two sides, each with the precompiled <hip/hip_runtime.h> (most of a
    fixture's compile is the parse of HIP's headers, twice), where the output can use it
    (hipport.validate.pch.eligible: nothing ahead of its runtime include can change what the
    headers mean): (exit code, stderr, files read). The device side first, as hipcc: code
    generation and the device link, then the host side's code generation. (None, ...) when the
    output cannot use it or the compiler refused it: the caller compiles the plain way."""
    names = functools.partial(pch.names, "gfx90a", base)
    pair = pch.pair("gfx90a", base) if pch_eligible(out.read_bytes(), base, here, names) else None
    if pair is None:
        return None, "", []
    rc, stderr, deps = 0, "", []
    for side, made in (("--cuda-device-only", pair[1]), ("--cuda-host-only", pair[0])):
        depfile = here / f"deps{side}.d"
        p = subprocess.run(site.command([*base, side, "-include-pch", str(made), "-c", str(out), "-o", "/dev/null",
                                         "-MD", "-MF", str(depfile)]),
                           capture_output=True, text=True, errors="replace", env=site.env,
                           stdin=subprocess.DEVNULL, timeout=600)
        stderr += p.stderr
        if p.returncode != 0:
            if _PCH_TROUBLE.search(p.stderr):
                return None, "", []
            return p.returncode, stderr, []
        deps += _read_deps(site, depfile, here)
    # what the precompiled headers were made from, for the .pch files the unit's list names
    made_here = os.path.normpath(str(pch.folder)) + os.sep
    deps = [d for d in deps if not d.startswith(made_here)]
    deps += [d for f in sorted(pch.folder.glob("pch*.d")) for d in _read_deps(site, f, pch.folder)]
    return rc, stderr, list(dict.fromkeys(deps))


def _cache(request: pytest.FixtureRequest, tc: Toolchain, work: Path) -> CompileCache | None:
    """Compiles kept by content between runs (tests/compiled.py): a cell is answered from the
    cache only while every file its compile read still hashes the same."""
    where = compiled_store.folder(request.config, "hipport-compile-matrix")
    return CompileCache(where, work, tc.inside(str(work)) if tc.root else "") if where is not None else None


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Per column, the compiles of the cells this session runs, started at once on a thread
    pool when the column's first cell asks, in batches (`_batches`). A fixture whose output is
    the same at two floors is compiled once per toolchain (most are: the floor changes a few
    names). Each cell gets the compile that answers it and its unit there."""
    chosen = {(item.callspec.params["column"].id, item.callspec.params["fixture"].id)
              for item in request.session.items
              if item.originalname == "test_fixture_compiles" and hasattr(item, "callspec")}
    started: dict[str, Any] = {}
    # (toolchain, fixture, output hash) -> the compile that answers it, and its unit there
    same: dict[tuple[str, str, str], tuple[Future[dict[Path, tuple[int, str]]], Path]] = {}
    pools: list[ThreadPoolExecutor] = []
    folders: list[Path] = []
    pchs: dict[str, Precompiled] = {}  # per toolchain: its precompiled runtime header, built on first use

    def start(col: Column) -> dict[str, tuple[Future[dict[Path, tuple[int, str]]], Path]]:
        if col.id not in started:
            tc = _toolchain(col)
            work = Path(tempfile.mkdtemp(prefix="hipport-matrix-", dir=tc.scratch or tmp_path_factory.mktemp("matrix")))
            folders.append(work)
            (work / "batches").mkdir()
            cache = _cache(request, tc, work)
            if tc.name not in pchs:
                (work / "pch").mkdir()
                pchs[tc.name] = Precompiled(tc, work / "pch")
            pch = pchs[tc.name]
            pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
            pools.append(pool)
            fresh: dict[Path, tuple[str, str, str]] = {}
            units: list[tuple[Path, bool]] = []
            for fx in FIXTURE_LIST:
                if (col.id, fx.id) not in chosen:
                    continue
                key = (tc.name, fx.id, hashlib.sha256(fx.port(col.floor)[0]).hexdigest())
                if key not in same and key not in fresh.values():
                    unit = _unit(work, fx, col.floor)
                    fresh[unit] = key
                    # an expected failure is compiled alone: its batch would fail every time
                    units.append((unit, fx.case is None and not tc.root))
            xfail = {u for u, k in fresh.items() if (k[1], col.id) in XFAIL}
            groups = [([u], stubs) for u, stubs in units if u in xfail]
            groups += _batches([(u, stubs) for u, stubs in units if u not in xfail])
            for i, (group, stubs) in enumerate(groups):
                future = pool.submit(batching.compile_batched, group, work / "batches" / f"b{i}.hip",
                                     functools.partial(_compile, tc, stubs=stubs, cache=cache, pch=pch),
                                     lambda r: r[0] == 0, work)
                for unit in group:
                    same[fresh[unit]] = (future, unit)
            started[col.id] = {fx.id: same[(tc.name, fx.id, hashlib.sha256(fx.port(col.floor)[0]).hexdigest())]
                               for fx in FIXTURE_LIST if (col.id, fx.id) in chosen}
        return started[col.id]

    yield {"start": start}
    for pool in pools:
        pool.shutdown(cancel_futures=True)
    for f in folders:
        shutil.rmtree(f, ignore_errors=True)


@pytest.mark.parametrize(("column", "fixture"), cells())
def test_fixture_compiles(column: Column, fixture: Fixture, compiled: dict[str, Any]) -> None:
    answer, unit = compiled["start"](column)[fixture.id]
    rc, errors = answer.result()[unit]
    assert rc == 0, f"{fixture.id} ported at --rocm {column.floor}, compiled with {column.toolchain}:\n{errors}"


@pytest.mark.hipcc
def test_a_batch_answers_for_its_outputs_and_one_that_fails_alone_fails_alone(tmp_path: Path) -> None:
    tc = _toolchain(COLUMNS[0])
    (tmp_path / "pch").mkdir()
    pch = Precompiled(tc, tmp_path / "pch")
    (tmp_path / "batches").mkdir()
    units = batching.planted(tmp_path, ".hip")
    got = batching.compile_batched(units, tmp_path / "batches" / "b.hip",
                                   functools.partial(_compile, tc, stubs=False, cache=None, pch=pch),
                                   lambda r: r[0] == 0, tmp_path)
    assert got[units[1]] == got[units[2]] == (0, "")  # one compile for both: `bad` was halved off
    assert got[units[0]][0] != 0 and "undeclared_name" in got[units[0]][1]


# --- coverage: no compiler needed --------------------------------------------------------------

def _kinds_in(col: Column) -> dict[str, list[str]]:
    """Fix kind -> the fixtures compiled in `col` that hold it."""
    out: dict[str, list[str]] = {}
    for fx in FIXTURE_LIST:
        if not fx.left_out(col):
            for k in fx.port(col.floor)[1]:
                out.setdefault(k, []).append(fx.id)
    return out


@pytest.mark.parametrize("kind", fix_kinds())
@pytest.mark.parametrize("column", COLUMNS, ids=[c.id for c in COLUMNS])
def test_every_fix_kind_has_a_fixture(column: Column, kind: str) -> None:
    have = _kinds_in(column).get(kind, [])
    why = NO_FIXTURE.get((kind, column.id))
    if why is not None:
        assert not have, f"{kind} has fixtures in {column.id} ({have[:3]}): remove its NO_FIXTURE entry"
        return
    assert have, f"no fixture compiled in {column.id} holds a {kind} fix: add one (fixtures/), or say why it is left out"


def test_report_only_rules_fix_nothing() -> None:
    for col in COLUMNS:
        kinds = _kinds_in(col)
        for rule in REPORT_ONLY:
            assert rule not in kinds, f"{rule} fixes {kinds[rule][:3]}: it is a fix kind, not report-only"
    assert all(REPORT_ONLY.values()), "a report-only rule says why in rules/registry.toml"


def test_every_fix_the_fixtures_hold_is_a_registered_kind() -> None:
    """The registry's list of fix kinds is complete: no fixture holds an edit of another kind."""
    kinds = set(fix_kinds())
    for col in COLUMNS:
        unknown = set(_kinds_in(col)) - kinds
        assert not unknown, f"edit kinds missing from rules/registry.toml: {sorted(unknown)}"


def test_every_fixture_left_out_says_why() -> None:
    for fx in FIXTURE_LIST:
        for col in COLUMNS:
            why = fx.left_out(col)
            assert why == "" or len(why) > 10, f"{fx.id} in {col.id}: {why!r}"
    stale = [k for k in XFAIL if k[1] not in BY_ID or not any(fx.id == k[0] for fx in FIXTURE_LIST)]
    assert not stale, f"XFAIL entries naming no cell: {stale}"
    kinds = set(fix_kinds())
    stale = [k for k in NO_FIXTURE if k[1] not in BY_ID or k[0] not in kinds]
    assert not stale, f"NO_FIXTURE entries naming no cell: {stale}"
