"""hipport.engine: one frozen RunResult, complete for what the command needs; what comes
after a run (a diff base, failed writes) makes new results; views read what the result
records (the review fixes applied) instead of inferring it."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from hipport import engine
from hipport.config import Config
from hipport.model import FileStatus
from hipport.workspace import discover
from tests.conftest import ROOT, hipport

REVIEW = ROOT / "fixtures" / "programs" / "review" / "launch_32_threads.cu"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REVIEW, src / REVIEW.name)
    return src


def test_the_text_view_reports_the_review_fixes_applied(tree: Path) -> None:
    held = hipport("port", tree, "--diff", "--no-cache")
    assert b"review fixes not applied (use --apply-review-fixes)" in held.stderr
    done = hipport("port", tree, "--diff", "--no-cache", "--apply-review-fixes")
    assert done.returncode == 0, done.stderr
    assert b"not applied" not in done.stderr
    assert b"review fixes applied (--apply-review-fixes): check them by hand" in done.stderr


def test_the_result_records_which_fixes_were_applied(tree: Path) -> None:
    files = discover([tree])
    held = engine.run(files, Config(jobs=1))
    done = engine.run(files, Config(jobs=1, apply_review_fixes=True))
    assert held.review_fixes()[0] == 0 and held.review_fixes()[1] > 0
    assert done.review_fixes() == (held.review_fixes()[1], 0)
    r = done.files[0]
    assert r.applied and all(r.findings[i].fix is not None for i in r.applied)


def test_the_result_is_frozen_and_narrow_makes_a_new_one(tree: Path) -> None:
    files = discover([tree])
    result = engine.run(files, Config(jobs=1), engine.FINDINGS)
    r = result.files[0]
    assert r.original is not None and r.findings and r.pending is None  # complete for FINDINGS
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.status = FileStatus.FAILED  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.seconds = 0  # type: ignore[misc]
    line = r.findings[0].span.line
    where = {wf.display: str(wf.path.resolve()) for wf in files}
    narrowed = engine.narrow(result, {where[r.path]: {line}}, where)
    assert {f.span.line for f in narrowed.files[0].findings} == {line}
    assert result.files[0] is r and len(r.findings) > len(narrowed.files[0].findings)  # left as it was
    assert engine.narrow(result, {where[r.path]: None}, where).files[0] is r  # a new file: all lines
    assert not engine.narrow(result, {}, where).files[0].findings  # not changed: nothing shown


def test_a_quiet_check_loads_nothing(tree: Path, tmp_path: Path) -> None:
    files = discover([tree])
    cache = tmp_path / "cache"
    engine.run(files, Config(jobs=1), engine.NOTHING, cache_dir=cache)  # fills the cache
    warm = engine.run(files, Config(jobs=1), engine.NOTHING, cache_dir=cache)
    assert warm.files[0].original is None and warm.files[0].pending  # details left in the cache
    full = engine.run(files, Config(jobs=1), engine.EVERYTHING, cache_dir=cache)
    assert full.files[0].original is not None and full.files[0].ported is not None
    assert not full.files[0].pending and full.read


def test_no_hydrate_remains() -> None:
    for p in (ROOT / "hipport").rglob("*.py"):
        assert "hydrate" not in p.read_text(encoding="utf-8"), p
