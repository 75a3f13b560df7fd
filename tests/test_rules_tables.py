"""The API mapping tables: they load, they are broad, and what they promise HIP declares."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from hipport.config import version_tuple
from hipport.errors import HipportError
from hipport.rules import load, load_table, rules_dir
from tests.conftest import ROOT

HIP_INCLUDE = Path("/usr/include/hip")
CORE = ("runtime", "driver", "device", "complex", "vector")
# HIPIFY's supported counts for these families (the breadth we must at least match).
BREADTH = {"runtime": 920, "driver": 1105, "device": 513, "complex": 26}


def test_every_table_loads_and_names_its_family() -> None:
    for path in sorted((rules_dir() / "api").glob("*.toml")):
        meta, names, headers, spaces = load_table(path)
        assert meta["family"], path
        assert names or headers or spaces, f"{path.name} maps nothing"


@pytest.mark.parametrize("family,floor", sorted(BREADTH.items()))
def test_breadth_at_least_hipify(family: str, floor: int) -> None:
    rs = load()
    supported = [m for m in rs.names.values() if m.family == family and m.status != "unsupported"]
    assert len(supported) >= floor


def test_unknown_key_is_an_error_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "x.toml"
    bad.write_text('family = "x"\n[names]\ncudaFoo = { hip = "hipFoo", kind = "function", hpi = 1 }\n')
    with pytest.raises(HipportError, match=r"x\.toml: \[names\] cudaFoo: unknown key\(s\) hpi"):
        load_table(bad)
    bad.write_text('family = "x"\n[names]\ncudaFoo = { kind = "function" }\n')
    with pytest.raises(HipportError, match="a supported entry needs a 'hip' name"):
        load_table(bad)
    # a hipSOLVER spelling is written into the code, so it must be a name and have a HIP one beside it
    for entry in ('hip = "HIPBLAS_X", hipsolver = 3', 'hip = "HIPBLAS_X", hipsolver = "HIPSOLVER X"',
                  'status = "unsupported", hipsolver = "HIPSOLVER_X"'):
        bad.write_text(f'family = "x"\n[names]\nCUBLAS_X = {{ {entry}, kind = "enum" }}\n')
        with pytest.raises(HipportError, match=r"x\.toml: \[names\] CUBLAS_X: 'hipsolver' must be an identifier"):
            load_table(bad)


@cache
def _hip_identifiers() -> frozenset[str]:
    """Every identifier in HIP's AMD headers (the NVIDIA shims would prove nothing)."""
    words: set[str] = set()
    # clang's own HIP wrapper headers define a few names too (`__managed__`).
    clang = list(Path("/usr/lib").glob("llvm-*/lib/clang/*/include/__clang_hip_*.h"))
    for p in [*HIP_INCLUDE.rglob("*.h*"), *clang]:
        if "nvidia_detail" not in p.parts:
            words.update(re.findall(r"[A-Za-z_]\w*", p.read_text(errors="replace")))
    return frozenset(words)


def _declared(name: str, words: frozenset[str]) -> bool:
    # HIP 5.2 builds the vector constructors by token pasting (`make_##type`); a template with
    # its argument written (`min<unsigned int>`) is declared when the template is; a
    # `hipport_` name is a helper the port writes itself (translate/atomics.py).
    name = name.split("<", 1)[0].strip()
    return name in words or (name.startswith("make_") and "make_" in words) \
        or (name.startswith("hipport_") and f" {name}(" in _helpers())


@cache
def _helpers() -> str:
    """The text of the translate sub-passes, which hold the helpers the port writes."""
    return "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "hipport" / "translate").glob("*.py")))


@pytest.mark.skipif(not HIP_INCLUDE.is_dir(), reason="HIP headers are not installed "
                    "(apt-get install libamdhip64-dev)")
def test_supported_hip_names_are_declared_in_the_installed_headers() -> None:
    """A `supported` mapping at ROCm <= 5.2 must name something HIP 5.2 declares for AMD;
    newer names must carry the version that added them."""
    text = _hip_identifiers()
    rs = load()
    missing = sorted(f"{m.family}:{m.cuda}->{m.hip}" for m in rs.names.values()
                     if m.family in CORE and m.status != "unsupported" and m.hip
                     and version_tuple(m.since) <= (5, 2) and not _declared(m.hip, text))
    assert missing == []


def test_headers_map_to_installed_hip_headers() -> None:
    rs = load()
    for h in rs.headers.values():
        if h.family == "headers" and h.hip and HIP_INCLUDE.is_dir() \
                and version_tuple(h.since) <= (5, 2):  # newer ones are reported below their floor
            assert (HIP_INCLUDE.parent / h.hip).is_file(), f"{h.cuda} -> {h.hip} is not installed"


def test_rocblas_replaces_hipblas_names_only_when_asked() -> None:
    if "cublasSgemm" not in load().names:
        pytest.skip("no cuBLAS table yet")
    assert load().names["cublasSgemm"].hip.startswith("hipblas")
    assert load("rocblas").names["cublasSgemm"].hip.startswith("rocblas")


def test_compiled_tables_are_cached_per_version_of_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport import rules as rulesmod

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "r"
    (root / "api").mkdir(parents=True)
    table = root / "api" / "t.toml"
    table.write_text('family = "t"\n[names]\ncudaFoo = { hip = "hipFoo", kind = "function" }\n')
    calls = []
    build = lambda: calls.append(1) or len(calls)  # noqa: E731
    assert rulesmod.cached("x", build, str(root)) == 1
    assert rulesmod.cached("x", build, str(root)) == 1  # from the cache folder
    rulesmod.tables_digest.cache_clear()
    table.write_text(table.read_text() + 'cudaBar = { hip = "hipBar", kind = "function" }\n')
    assert rulesmod.cached("x", build, str(root)) == 2  # the tables changed: built again
    # only the current build is kept: a folder of stale 1 MB pickles helps nobody
    assert len(list((tmp_path / "cache" / "hipport" / "tables").glob("*-x.pickle"))) == 1
    rulesmod.tables_digest.cache_clear()
