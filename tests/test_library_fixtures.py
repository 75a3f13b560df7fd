"""Golden cases for the CUDA library ports: fixtures/libraries/<family>/<case>/.

Each case folder has the layout of fixtures/translate (see tests/test_translate_golden.py, whose
loader and porting helper are shared here): `input.<ext>`, `expected.<ext>` (the exact bytes
hipport must produce, checked by hand) and an optional `case.toml` with `config`, `findings`,
`absent_findings`, `compile` + `why`, and `xfail` (a string, or per check: output, idempotent,
findings).

Checks per case (ids are family/case):
- the input ports to the expected bytes, and porting the expected output changes nothing;
- the API findings (HP rules) reported are exactly those `findings` lists (other rules, such as
  wave64 ones, must be present when listed);
- `FileResult.families` counts the family: found > 0, found == ported + unsupported, ported > 0,
  and unsupported equal to the family's HP001/HP008 findings;
- the port compiles for gfx90a (tests/test_compile_matrix.py: with the host's HIP 5.2 unless the
  case says why it cannot (`compile = false` + `why`), and against the real library headers of the
  HIP 6.4 root unless `not_hip64` says why); a case that says its headers are "not packaged" must
  include a header that is missing.

Also: every unsupported cuDNN name a case reports names its MIOpen alternative, and every
supported hipSPARSE / hipRAND name the tables date at ROCm 5.2 or earlier is declared in the
headers Debian installs (Debian 12: libhipsparse-dev, libhiprand-dev 5.3.3).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from hipport import rules as rulesmod
from hipport.floor import version
from hipport.model import FileResult
from hipport.passes import port_bytes
from hipport.workspace import role_of
from tests.conftest import ROOT
from tests.test_translate_golden import Case, _load, _port

CASES_DIR = ROOT / "fixtures" / "libraries"
# Families that must have at least MIN_CASES cases each.
FAMILIES = ("cublas", "curand", "cufft", "cusparse", "cusolver", "cub", "thrust", "nccl", "nvrtc",
            "nvtx", "cooperative_groups", "cudnn")
MIN_CASES = 5


@dataclass(frozen=True)
class LibCase:
    family: str  # the folder: the library the case is about
    case: Case   # name is "family/case"

    @property
    def id(self) -> str:
        return self.case.name

    @property
    def counted_family(self) -> str:
        """The family id hipport counts the case's names under (rocBLAS replaces cuBLAS,
        rocSPARSE cuSPARSE, rocRAND cuRAND, rocSOLVER cuSOLVER when the case selects them)."""
        chosen = {"cublas": self.case.config.blas, "cusparse": self.case.config.sparse,
                  "curand": self.case.config.rand, "cusolver": self.case.config.solver}
        target = chosen.get(self.family, "")
        return target if target in rulesmod.ALTERNATIVES else self.family


def load_cases() -> list[LibCase]:
    out = []
    for fam in sorted(p for p in CASES_DIR.iterdir() if p.is_dir()):
        for folder in sorted(p for p in fam.iterdir() if p.is_dir()):
            c = _load(folder)
            out.append(LibCase(fam.name, replace(c, name=f"{fam.name}/{folder.name}")))
    return out


CASES = load_cases()


def _params(check: str | None, cases: list[LibCase] | None = None) -> list[Any]:
    out = []
    for c in CASES if cases is None else cases:
        marks = []
        if check is not None and check in c.case.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=c.case.xfail[check]))
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


def _result(c: LibCase) -> FileResult:
    data = c.case.input.read_bytes()
    role = c.case.role or role_of(c.case.input, data[:65536])
    res = port_bytes(c.id + "/" + c.case.input.name, role, data, c.case.config)
    assert res.error is None, f"{c.id}: {res.error}"
    return res


def _show(out: bytes, expected: bytes) -> None:
    if out != expected:  # a readable diff first; the byte comparison is the real check
        assert out.decode("utf-8", "replace") == expected.decode("utf-8", "replace")
    assert out == expected


def test_every_family_has_cases() -> None:
    per = Counter(c.family for c in CASES)
    short = {f: per.get(f, 0) for f in FAMILIES if per.get(f, 0) < MIN_CASES}
    assert not short, f"families with fewer than {MIN_CASES} cases: {short}"
    layouts = {c.case.config.include_layout for c in CASES}
    assert "flat" in layouts, "no case uses include_layout = \"flat\""
    assert any(c.case.config.blas == "rocblas" for c in CASES), "no --blas rocblas case"
    for key, target in (("sparse", "rocsparse"), ("rand", "rocrand"), ("solver", "rocsolver")):
        assert any(getattr(c.case.config, key) == target for c in CASES), f"no --{key} {target} case"


@pytest.mark.parametrize("c", _params("output"))
def test_port_matches_expected(c: LibCase) -> None:
    out, _, _ = _port(c.case, c.case.input)
    _show(out, c.case.expected.read_bytes())


@pytest.mark.parametrize("c", _params("idempotent"))
def test_porting_expected_changes_nothing(c: LibCase) -> None:
    out, _, _ = _port(c.case, c.case.expected)
    _show(out, c.case.expected.read_bytes())


@pytest.mark.parametrize("c", _params("findings"))
def test_findings(c: LibCase) -> None:
    res = _result(c)
    rules = {f.rule for f in res.findings}
    missing = [r for r in c.case.findings if r not in rules]
    assert not missing, f"missing findings {missing}; reported {_describe(res)}"
    # API findings are exact: one the case does not list is a table or translator change.
    extra = sorted(r for r in rules if r.startswith("HP") and r not in c.case.findings)
    assert not extra, f"unlisted API findings {extra}: {_describe(res)}"
    present = [r for r in c.case.absent if r in rules]
    assert not present, f"findings that must not be reported: {present}"


def _describe(res: FileResult) -> str:
    return "; ".join(f"{f.rule} {f.span.line}:{f.span.column} {f.message}" for f in res.findings)


@pytest.mark.parametrize("c", _params(None))  # counts stay consistent even where a table is wrong
def test_family_counts(c: LibCase) -> None:
    res = _result(c)
    fam = c.counted_family
    assert fam in res.families, f"family {fam} not counted: {sorted(res.families)}"
    n = res.families[fam]
    assert n.found > 0 and n.ported > 0, (n.found, n.ported, n.unsupported)
    assert n.found == n.ported + n.unsupported, (n.found, n.ported, n.unsupported)
    unsupported = sum(1 for f in res.findings if f.rule in ("HP001", "HP008") and f.family == fam)
    assert n.unsupported == unsupported, (n.unsupported, _describe(res))
    if "HP001" in c.case.findings and any(f.family == fam for f in res.findings if f.rule == "HP001"):
        assert n.unsupported > 0


# cuDNN is not a rename: what has no one-to-one MIOpen call must be reported with the MIOpen
# function to port to. Known exceptions (unsupported names whose entry has no `alt`), each a
# table gap; an entry fails the test once it gets an alternative or no case uses it any more.
CUDNN_NO_ALT: dict[str, str] = {
    # cudnn.toml: the enum has no alt; its setter cudnnSetConvolutionMathType says "nothing:
    # MIOpen chooses tensor-core (XDLOPS) kernels itself", which applies to it too.
    "CUDNN_TENSOR_OP_MATH": "conv_forward_pipeline",
}


def test_cudnn_unsupported_names_name_a_miopen_alternative() -> None:
    cases = [c for c in CASES if c.family == "cudnn"]
    assert cases
    missing: dict[str, str] = {}
    for c in cases:
        for f in _result(c).findings:
            if f.rule == "HP001" and f.family == "cudnn" and "; consider " not in f.message:
                missing[f.message.split(" ", 1)[0]] = c.id.split("/", 1)[1]
    unexpected = {n: w for n, w in missing.items() if n not in CUDNN_NO_ALT}
    assert not unexpected, f"unsupported cuDNN names without a MIOpen alternative: {unexpected}"
    stale = sorted(set(CUDNN_NO_ALT) - set(missing))
    assert not stale, f"CUDNN_NO_ALT entries that no longer apply: {stale}"


# The expected outputs are compiled by tests/test_compile_matrix.py (with HIP 5.2 and HIP 6.4).

NOT_PACKAGED = [c for c in CASES if not c.case.compile and "not packaged" in c.case.why]
INCLUDE_DIRS = (Path("/usr/include"), Path("/usr/local/include"), Path("/opt/rocm/include"))


@pytest.mark.parametrize("c", _params(None, NOT_PACKAGED))
def test_not_packaged_headers_are_really_missing(c: LibCase) -> None:
    """A case that skips hipcc because its headers are not installed must include one that is
    not; once the library is installed, the case should be compiled instead."""
    text = c.case.expected.read_text(encoding="utf-8", errors="replace")
    headers = re.findall(r"^[ \t]*#[ \t]*include[ \t]*<([^>]+)>", text, re.M)
    missing = [h for h in headers if not any((d / h).is_file() for d in INCLUDE_DIRS)]
    assert missing, f"{c.id}: every header is installed ({headers}); set compile = true"


# ------------------------------------------------- table names vs. installed headers

# Families whose HIP headers Debian 12 packages: the family id -> the header folder.
INSTALLED = {"cusparse": Path("/usr/include/hipsparse"), "curand": Path("/usr/include/hiprand")}
# Supported names dated <= 5.2 that the header text never spells out as a whole word because a
# macro builds them; each entry says which macro.
MACRO_NAMES: dict[str, set[str]] = {
    "cusparse": set(),
    "curand": set(),
}
# Supported names another installed header declares, one the port includes in their place
# (the header map sends the CUDA header there); each must be declared by that header.
DECLARED_ELSEWHERE: dict[str, dict[str, Path]] = {
    "cusparse": {},
    "curand": {
        # curand_mtgp32dc_p_11213.h -> rocrand/rocrand_mtgp32_11213.h: the MTGP32 parameter
        # table is rocRAND's, no hipRAND header declares it.
        "mtgp32dc_params_fast_11213": Path("/usr/include/rocrand/rocrand_mtgp32_11213.h"),
    },
}


@pytest.mark.parametrize("family", sorted(INSTALLED))
def test_supported_names_are_in_installed_headers(family: str) -> None:
    folder = INSTALLED[family]
    if not folder.is_dir():
        pytest.skip(f"{folder} is not installed")
    # *_nvcc.h declare the names for HIP's NVIDIA platform only: they do not count. Comments
    # do not declare anything either.
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in sorted(folder.rglob("*")) if p.is_file() and "nvcc" not in p.name)
    text = re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))
    declared = set(re.findall(r"[A-Za-z_]\w*", text))
    path = rulesmod.rules_dir() / "api" / f"{family}.toml"
    _, names, _, _ = rulesmod.load_table(path)
    # Supported entries, and deprecated ones (hipSPARSE still declares them).
    # A qualified spelling (rocrand_device::sobol32_engine<false>) counts by its identifiers.
    wanted = sorted({w for m in names
                     if m.status in ("supported", "deprecated") and m.hip
                     and version(m.since) <= version("5.2")
                     for w in re.findall(r"[A-Za-z_]\w*", m.hip) if w not in ("false", "true")})
    assert wanted, f"{path.name} has no supported names dated 5.2"
    elsewhere = DECLARED_ELSEWHERE[family]
    allowed = MACRO_NAMES[family] | set(elsewhere)
    missing = [n for n in wanted if n not in declared and n not in allowed]
    assert not missing, (f"{len(missing)} supported {family} names (since <= 5.2) are not in "
                         f"{folder}: {missing}")
    stale = sorted(n for n in allowed if n not in wanted or n in declared)
    assert not stale, f"allow-list entries that no longer apply: {stale}"
    for name, header in elsewhere.items():
        words = set(re.findall(r"[A-Za-z_]\w*", header.read_text(encoding="utf-8", errors="replace")))
        assert name in words, f"{name} is not declared in {header} either"
