"""The engine: FileInputs in (hipport.inputs, read by discovery and the workers before the
passes), one frozen RunResult out, complete for what the command said it needs.

    engine.run(files, config, need) -> RunResult

Commands say what they read of the result (`Need`) and get it whole: cached edits and
findings loaded, which fixes were applied, the original and ported bytes. After a run only
pure functions make new results: `narrow` (lint --diff-base) and `RunResult.with_failed`
(writes that could not be made). The machinery (process pool, content-hash cache, run
snapshots, the output sink) is hipport.pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hipport import pipeline
from hipport.config import Config
from hipport.model import FileResult, FileStatus, RunResult, evolve
from hipport.workspace import WorkFile

if TYPE_CHECKING:
    from hipport.pipeline import Progress, Sink

ALL = "all"  # every file
CHANGED = "changed"  # the files the port changes
NONE = "none"  # none: counts and statuses only (a quiet -o DIR or --check)


@dataclass(frozen=True)
class Need:
    """What a command reads of the result: whose details and bytes (`files`: ALL, CHANGED or
    NONE), and of those the original bytes (source lines, a diff) and the ported bytes.
    `findings_only`: findings and source lines, no edits (lint: its run snapshot keeps the
    findings themselves)."""

    files: str = ALL
    original: bool = True
    ported: bool = True
    findings_only: bool = False


EVERYTHING = Need()  # views over every file: text findings with source lines, the report
NOTHING = Need(NONE, original=False, ported=False)
FINDINGS = Need(ALL, original=True, ported=False, findings_only=True)


def run(files: list[WorkFile], config: Config, need: Need = EVERYTHING, *, cache_dir: Path | None = None,
        progress: Progress | None = None, sink: Sink | None = None) -> RunResult:
    """Port `files` (with a `sink`, also write each output) and return the result, complete
    for `need`."""
    if need.findings_only:
        return pipeline.run(files, config, cache_dir=cache_dir, progress=progress, keep_original=True,
                            findings_only=True, sink=sink)
    if need.files == ALL and sink is None and need.original and need.ported:
        return pipeline.run(files, config, cache_dir=cache_dir, progress=progress, keep_original=True)
    result = pipeline.run(files, config, cache_dir=cache_dir, progress=progress, sink=sink)
    if need.files == NONE:
        return result
    which = (lambda r: True) if need.files == ALL else (lambda r: r.status == FileStatus.PORTED)
    return pipeline.complete(result, files, cache_dir, which=which, original=need.original,
                             ported=need.ported)


def narrow(result: RunResult, changed: Mapping[str, set[int] | None], where: Mapping[str, str]) -> RunResult:
    """The result with only the findings on changed lines (lint --diff-base): `changed` maps a
    file's real path to its changed lines (None: a new file, all of it); `where` a display
    path to the real path. A file git does not list has none."""
    out: list[FileResult] = []
    for r in result.files:
        path = where.get(r.path, "")
        if path in changed and changed[path] is None:
            out.append(r)  # a new file: every line is new
            continue
        keep = changed.get(path) or set()
        kept = [i for i, f in enumerate(r.findings) if f.span.line in keep]
        if len(kept) == len(r.findings):
            out.append(r)
            continue
        out.append(evolve(r, findings=[r.findings[i] for i in kept],
                          applied=tuple(n for n, i in enumerate(kept) if r.fix_applied(i))))
    return result.with_files(out)
