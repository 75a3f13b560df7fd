"""Does the prefilter change anything? Port a tree with it and without it, compare every byte.

    python benchmarks/prefilter_identity.py PATH... [--config KEY=VALUE]... [--rounds N]

Both runs are in this process, one file after another (-j 1), with no cache, over the same
files: per file the status, the ported bytes, the edits and findings (as the cache stores
them), references, defines and errors, and the whole JSON document of the run, must be equal.
Prints one line per tree: files, the files whose passes the prefilter spared (and those it let
through only for a parse error), and `identical: yes|no`; each difference names the file.
Exit 1 on a difference. tests/test_prefilter.py runs `compare` over the repository's trees
with several configurations.

`--rounds N` also times the passes (CPU seconds) over the tree's C++ and CUDA files with the
prefilter and without, file by file in alternating order, after a round that fills every
per-process memo, so that neither side pays for warming them; the share of the spared files
and what the prefilter itself took are shown apart. (Two runs one after the other would
credit the second with the first one's memos.)
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
        return engine.run(files, config, engine.EVERYTHING)
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
    for a, b in zip(without.files, with_.files, strict=True):
        if _view(a) != _view(b):
            out.differences.append(f"{a.path}: differs with the prefilter")
    doc_a, doc_b = jsonview.document(without), jsonview.document(with_)
    doc_a["summary"].pop("seconds", None)
    doc_b["summary"].pop("seconds", None)
    if doc_a != doc_b:
        out.differences.append("the JSON document differs")
    return out


def timing(path: Path, config: Config, rounds: int) -> dict[str, float]:
    """CPU seconds of the passes with and without the prefilter (see the module's doc)."""
    from hipport import inputs, passes
    from hipport import rules as rulesmod
    from hipport.source import SourceFile

    config = replace(config, jobs=1, cache=False)
    work = []
    memo: dict[str, Any] = {}
    for wf in workspace.discover([path]):
        role = workspace.role_by_name(wf.file)
        if wf.kind != workspace.REGULAR or role == workspace.BUILD or (role is not None and role not in workspace.PORTED_ROLES):
            continue
        data, _ = workspace.read_regular(wf.file)
        role = role or workspace.role_of(wf.file, data[:65536])
        if role in workspace.PORTED_ROLES and role != workspace.BUILD:
            work.append(inputs.resolve(wf.file, wf.display, role, data, rel=wf.rel, memo=memo))
    rules = rulesmod.for_config(config)
    spared = [prefilter.reason(SourceFile(i.display, i.data, closure=i.closure), config, rules) is None for i in work]
    for inp in work:  # fills the memos (headers' macros and aliases, wave64's header facts)
        passes.port(inp, config)
    out = dict.fromkeys(("without", "with", "spared without", "spared with", "prefilter"), 0.0)
    reason, was = prefilter.reason, prefilter.ENABLED

    def timed(*args: Any) -> str | None:
        t = time.process_time()
        try:
            return reason(*args)
        finally:
            out["prefilter"] += time.process_time() - t

    prefilter.reason = timed  # type: ignore[assignment]
    try:
        for n in range(rounds):
            for i, inp in enumerate(work):
                for on in (False, True) if (i + n) % 2 else (True, False):
                    prefilter.ENABLED = on
                    t = time.process_time()
                    passes.port(inp, config)
                    dt = time.process_time() - t
                    out["with" if on else "without"] += dt
                    if spared[i]:
                        out["spared with" if on else "spared without"] += dt
    finally:
        prefilter.reason, prefilter.ENABLED = reason, was  # type: ignore[assignment]
    out["files"], out["spared"] = len(work), sum(spared)
    return {k: v / rounds if k not in ("files", "spared") else v for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                    help="a Config field (e.g. launch_syntax=ggl, rename_extensions=true, rocm=6.2)")
    ap.add_argument("--rounds", type=int, default=0, help="also time the passes, N rounds (see above)")
    args = ap.parse_args(argv)
    given: dict[str, Any] = {}
    for item in args.config:
        key, _, value = item.partition("=")
        given[key] = value.lower() in ("1", "true", "yes") if isinstance(getattr(Config(), key), bool) else value
    config = replace(Config(), **given)
    bad = 0
    for path in args.paths:
        c = compare([path], config)
        print(f"{path}: files {c.files}, passes spared {c.spared}, let through for a parse error "
              f"{c.parse_errors}, identical: {'yes' if c.identical else 'no'}")
        for d in c.differences[:50]:
            print("  " + d)
        if args.rounds:
            t = timing(path, config, args.rounds)
            print(f"  passes over {t['files']:.0f} C++/CUDA files, CPU s per round: without {t['without']:.2f}, "
                  f"with {t['with']:.2f} (the prefilter itself {t['prefilter']:.2f}); the {t['spared']:.0f} "
                  f"spared files: {t['spared without']:.2f} without, {t['spared with']:.2f} with")
        bad += not c.identical
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
