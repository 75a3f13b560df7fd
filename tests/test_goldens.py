"""The commands' outputs over examples/ and a fixture sample match tests/golden/ (refresh with
`python3 -m tests.golden` when an output is meant to change, and say why in the commit)."""

from __future__ import annotations

import difflib
import shutil

import pytest

from tests import golden


@pytest.fixture(scope="module")
def captured() -> dict[str, str]:
    return golden.capture()


@pytest.mark.parametrize("case", golden.CASES, ids=lambda c: c.name)
def test_matches_golden(case: golden.Case, captured: dict[str, str]) -> None:
    if case.needs and shutil.which(case.needs) is None:
        pytest.skip(f"{case.needs} is not installed")
    want = (golden.GOLDEN / f"{case.name}.txt").read_bytes().decode("utf-8", "surrogateescape")
    got = captured[case.name]
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            "golden", "now", n=2))
        pytest.fail(f"{case.name} differs from tests/golden/{case.name}.txt:\n{diff[:6000]}")
