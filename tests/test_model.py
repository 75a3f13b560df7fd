"""The data model's own pickling and `evolve`: the pool and the cache carry every result through them."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from hipport.model import (
    Applicability,
    Edit,
    FamilyCount,
    FileResult,
    FileStatus,
    Finding,
    Fix,
    Severity,
    Span,
    evolve,
)

SPAN = Span(3, 9, 1, 4, 1, 10)
EDIT = Edit(3, 9, "hipMalloc", "HP-rename", 0, SPAN)
FIX = Fix("use a 64-bit mask", Applicability.REVIEW, (EDIT, Edit(0, 0, "x", "W001", 10)))
FINDING = Finding("W001", Severity.WARNING, SPAN, "a message", FIX, "kern", "warp32", "runtime", "cudaFoo")
RESULT = FileResult("a.cu", "cuda-source", FileStatus.PORTED, "a.cu", [EDIT], [FINDING],
                    {"runtime": FamilyCount(2, 1, 1)}, b"new", b"old", ["helper"], None, 0.5, "k", None)


@pytest.mark.parametrize("obj", [SPAN, EDIT, FIX, FINDING, FamilyCount(1, 2, 3), RESULT],
                         ids=lambda o: type(o).__name__)
def test_every_model_class_survives_pickling_field_for_field(obj: object) -> None:
    back = pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back) is type(obj)
    assert dataclasses.astuple(back) == dataclasses.astuple(obj)  # type: ignore[call-overload]


def test_edit_span_survives_pickling_though_equality_ignores_it() -> None:
    back = pickle.loads(pickle.dumps(EDIT))
    assert back.span == SPAN


@pytest.mark.parametrize(("obj", "changes"), [
    (EDIT, {"span": None}),
    (FINDING, {"fix": None, "severity": Severity.ERROR}),
    (FIX, {"edits": ()}),
    (RESULT, {"ported": None, "original": None, "edits": [], "findings": []}),
], ids=lambda v: type(v).__name__ if not isinstance(v, dict) else ",".join(v))
def test_evolve_is_dataclasses_replace(obj: object, changes: dict[str, object]) -> None:
    got = evolve(obj, **changes)
    want = dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    assert dataclasses.astuple(got) == dataclasses.astuple(want)  # type: ignore[call-overload]
    assert got is not obj


def test_evolve_rejects_a_field_the_class_lacks() -> None:
    with pytest.raises(KeyError):
        evolve(EDIT, colour="red")
