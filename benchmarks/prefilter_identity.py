"""Does the prefilter change anything? Port a tree with it and without it, compare every byte.

    python benchmarks/prefilter_identity.py PATH... [--config KEY=VALUE]...

Both runs are in this process, one file after another (-j 1), with no cache, over the same
files: per file the status, the ported bytes, the edits and findings (as the cache stores
them), references, defines and errors, and the whole JSON document of the run, must be equal.
Prints one line per tree: files, those whose parse the prefilter spared (and those it let
through only to find a parse error), the seconds of each run, and `identical: yes|no`; each
difference names the file. Exit 1 on a difference. tests/test_prefilter.py runs `compare`
over examples/ and fixtures/ with several configurations.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hipport import codec, engine, prefilter, workspace  # noqa: E402
from hipport.config import Config  # noqa: E402
from hipport.model import FileResult, RunResult  # noqa: E402
from hipport.report import jsonview  # noqa: E402


@dataclass
class Comparison:
    files: int = 0
    spared: int = 0  # ported-role files that the passes never read
    parse_errors: int = 0  # let through by a parse error alone
    seconds: dict[str, float] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences


def _run(files: list[workspace.WorkFile], config: Config, enabled: bool, counts: Comparison) -> RunResult:
    was, reason = prefilter.ENABLED, prefilter.reason

    def counting(*args: Any) -> str | None:
        why = reason(*args)
        if why is None:
            counts.spared += 1
        elif why == "a parse error":
            counts.parse_errors += 1
        return why

    prefilter.ENABLED = enabled
    prefilter.reason = counting  # type: ignore[assignment]
    try:
        t0 = time.perf_counter()
        run = engine.run(files, config, engine.EVERYTHING)
        counts.seconds["wall with" if enabled else "wall without"] = time.perf_counter() - t0
        return run
    finally:
        prefilter.ENABLED, prefilter.reason = was, reason  # type: ignore[assignment]


def _view(r: FileResult) -> tuple[Any, ...]:
    return (r.path, r.role, r.status, r.output_path, r.error, r.ported, r.original,
            codec.dumps(codec.meta_obj(replace(r, seconds=0.0))), codec.dump_detail(r.edits, r.findings),
            r.applied)


def compare(paths: list[Path], config: Config | None = None) -> Comparison:
    """Port `paths` with the prefilter and without it; what differs, file by file."""
    config = replace(config or Config(), jobs=1, cache=False)
    files = workspace.discover(paths)
    out = Comparison(files=len(files))
    without = _run(files, config, False, out)
    out.spared = out.parse_errors = 0
    with_ = _run(files, config, True, out)
    out.seconds["without"] = sum(r.seconds for r in without.files)  # the passes' own time
    out.seconds["with"] = sum(r.seconds for r in with_.files)
    for a, b in zip(without.files, with_.files, strict=True):
        if _view(a) != _view(b):
            out.differences.append(f"{a.path}: differs with the prefilter")
    doc_a, doc_b = jsonview.document(without), jsonview.document(with_)
    doc_a["summary"].pop("seconds", None)
    doc_b["summary"].pop("seconds", None)
    if doc_a != doc_b:
        out.differences.append("the JSON document differs")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                    help="a Config field (e.g. launch_syntax=ggl, rename_extensions=true, rocm=6.2)")
    args = ap.parse_args(argv)
    given: dict[str, Any] = {}
    for item in args.config:
        key, _, value = item.partition("=")
        given[key] = value.lower() in ("1", "true", "yes") if isinstance(getattr(Config(), key), bool) else value
    config = replace(Config(), **given)
    bad = 0
    for path in args.paths:
        c = compare([path], config)
        print(f"{path}: files {c.files}, parse spared {c.spared}, let through for a parse error "
              f"{c.parse_errors}, wall {c.seconds['wall without']:.2f} s without / {c.seconds['wall with']:.2f} s with "
              f"(passes {c.seconds['without']:.2f} / {c.seconds['with']:.2f}), "
              f"identical: {'yes' if c.identical else 'no'}")
        for d in c.differences[:50]:
            print("  " + d)
        bad += not c.identical
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
