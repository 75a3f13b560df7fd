"""Golden cases for the translator: fixtures/translate/<case>/ holds a CUDA input and the HIP
output hipport must produce for it, byte for byte, checked by hand.

Each case folder has `input.<ext>` and `expected.<ext>` (same extension) and an optional
`case.toml`:

    config = { launch_syntax = "ggl", wave64 = false }   # Config field overrides
    findings = ["HP001"]          # rule ids that must be reported for the input
    absent_findings = ["HP002"]   # rule ids that must not be reported
    role = "cuda-source"          # override the role the file name and content give
    compile = false               # do not compile the output with the host's HIP (5.2) ...
    why = "..."                   # ... and say why (required with compile = false)
    not_hip64 = "..."             # why the output is not compiled with the HIP 6.4 root
    not_hip64 = { "5.2" = "..." }   # ... only the port at that floor (--rocm)
    xfail = "<the bug>"           # the tool is wrong: the output check is a strict xfail
    xfail = { output = "...", idempotent = "...", findings = "..." }   # per check

Other files in a case folder (headers the expected output includes) are there for the compiler:
tests/test_compile_matrix.py compiles each case's port at --rocm 5.2 (HIP 5.2 and the HIP 6.4
root) and at --rocm 6.4 (the root).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hipport.config import Config
from hipport.passes import port_bytes
from hipport.workspace import PORTED_ROLES, role_of
from tests.conftest import ROOT

CASES_DIR = ROOT / "fixtures" / "translate"
CASE_KEYS = {"config", "findings", "absent_findings", "role", "compile", "why", "not_hip64", "xfail"}
CHECKS = ("output", "idempotent", "findings")


@dataclass(frozen=True)
class Case:
    name: str
    input: Path
    expected: Path
    config: Config
    role: str | None
    findings: tuple[str, ...]
    absent: tuple[str, ...]
    compile: bool
    why: str
    xfail: dict[str, str] = field(default_factory=dict)
    # why the port is not compiled with the HIP 6.4 root, per floor ("*": any) (tests/test_compile_matrix.py)
    not_hip64: dict[str, str] = field(default_factory=dict)


def _config(overrides: dict[str, Any]) -> Config:
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items()}
    return Config(**values)


def _load(folder: Path) -> Case:
    inputs = sorted(folder.glob("input.*"))
    assert len(inputs) == 1, f"{folder.name}: expected exactly one input.* file, found {inputs}"
    inp = inputs[0]
    expected = folder / ("expected" + inp.name[len("input"):])
    assert expected.is_file(), f"{folder.name}: {expected.name} is missing"
    meta: dict[str, Any] = {}
    if (folder / "case.toml").is_file():
        meta = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    unknown = set(meta) - CASE_KEYS
    assert not unknown, f"{folder.name}/case.toml: unknown key(s) {sorted(unknown)}"
    compile_ = meta.get("compile", True)
    assert compile_ or meta.get("why"), f"{folder.name}: compile = false needs a `why`"
    xf = meta.get("xfail", {})
    if isinstance(xf, str):
        xf = {"output": xf}
    assert set(xf) <= set(CHECKS), f"{folder.name}: xfail keys must be among {CHECKS}"
    not64 = meta.get("not_hip64", {})
    if isinstance(not64, str):
        not64 = {"*": not64}
    assert all(isinstance(v, str) and v for v in not64.values()), f"{folder.name}: not_hip64 needs a why"
    return Case(folder.name, inp, expected, _config(meta.get("config", {})), meta.get("role"),
                tuple(meta.get("findings", ())), tuple(meta.get("absent_findings", ())),
                compile_, meta.get("why", ""), xf, not64)


def load_cases() -> list[Case]:
    return [_load(d) for d in sorted(CASES_DIR.iterdir()) if d.is_dir()]


CASES = load_cases()


def _params(check: str) -> list[Any]:
    out = []
    for c in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail[check])] if check in c.xfail else []
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


def _port(case: Case, path: Path) -> tuple[bytes, list[str], str]:
    """(output bytes, rule ids reported, role) for one file, as `hipport port` would do it."""
    data = path.read_bytes()
    role = case.role or role_of(path, data[:65536])
    if role not in PORTED_ROLES:
        return data, [], role
    res = port_bytes(f"{case.name}/{path.name}", role, data, case.config, **in_its_folder(path, data))
    assert res.error is None, f"{case.name}: {res.error}"
    return (res.ported if res.ported is not None else data), [f.rule for f in res.findings], role


def in_its_folder(path: Path, data: bytes) -> dict:
    """The closure and tree of a fixture file, as `hipport port` on its folder reads them (its
    headers beside it; --rename-extensions renames the .cu files of that tree)."""
    from hipport import closure

    return {"closure": closure.read(str(path.resolve()), data), "root": str(path.parent.resolve())}


def test_cases_are_there() -> None:
    assert len(CASES) >= 40
    for c in CASES:
        if not c.config.wave64:
            continue
        # Every case but a deliberate interplay case runs the translator alone.
        assert "interplay" in c.name, f"{c.name}: set config = {{ wave64 = false }}"


@pytest.mark.parametrize("case", _params("output"))
def test_port_matches_expected(case: Case) -> None:
    out, _, _ = _port(case, case.input)
    expected = case.expected.read_bytes()
    if out != expected:
        # A readable diff first; the byte comparison below is the real check.
        assert out.decode("utf-8", "replace") == expected.decode("utf-8", "replace")
    assert out == expected


@pytest.mark.parametrize("case", _params("idempotent"))
def test_porting_expected_changes_nothing(case: Case) -> None:
    out, _, _ = _port(case, case.expected)
    expected = case.expected.read_bytes()
    if out != expected:
        assert out.decode("utf-8", "replace") == expected.decode("utf-8", "replace")
    assert out == expected


@pytest.mark.parametrize("case", _params("findings"))
def test_findings(case: Case) -> None:
    _, rules, role = _port(case, case.input)
    if case.findings:
        assert role in PORTED_ROLES
    missing = [r for r in case.findings if r not in rules]
    assert not missing, f"missing findings {missing}; reported {rules}"
    present = [r for r in case.absent if r in rules]
    assert not present, f"findings that must not be reported: {present}"


# The expected outputs are compiled by tests/test_compile_matrix.py (with HIP 5.2 and HIP 6.4).
