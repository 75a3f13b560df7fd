"""Precise mode on the labelled real code (issue 31): the wave64 accuracy score
(benchmarks/wave64_accuracy.py's score_real, project context) with and without --precise, and
what changes: per file the findings gained and lost, the notes (misses, false positives) that
appear or go, and the TP / FP / FN totals.

    python3 benchmarks/precise.py --real /work/corpora/ml --labels benchmarks/wave64_labels_ml.toml

Needs the libclang package (pip install 'hipport[precise]')."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport import precise  # noqa: E402


def accuracy() -> ModuleType:
    """benchmarks/wave64_accuracy.py, loaded once (its dataclasses look their module up)."""
    if "wave64_accuracy" not in sys.modules:
        spec = importlib.util.spec_from_file_location("wave64_accuracy", ROOT / "benchmarks" / "wave64_accuracy.py")
        assert spec is not None and spec.loader is not None
        sys.modules["wave64_accuracy"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["wave64_accuracy"]


def per_file(wa: ModuleType, base: Path, labels: Path, on: bool) -> dict[str, Counter[tuple[str, int]]]:
    """(rule, line) -> reports of each labelled file."""
    meta = tomllib.loads(labels.read_text(encoding="utf-8"))
    repos = {r.get("folder", name): r for name, r in meta.get("repos", {}).items()}
    paths = sorted({x["path"] for x in [*meta.get("hazard", []), *meta.get("clean", [])]})
    memo: dict = {}
    return {p: wa.analyse(base, p, "project", repos, memo, on) for p in paths}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--real", type=Path, required=True, metavar="DIR", help="the labelled code's folder")
    ap.add_argument("--labels", type=Path, required=True, metavar="FILE", help="its labels (TOML)")
    a = ap.parse_args()
    if not a.real.is_dir() or not a.labels.is_file():
        print(f"error: --real {a.real} must be a folder and --labels {a.labels} a file", file=sys.stderr)
        return 2
    if not precise.available():
        print("error: precise mode needs the libclang package (pip install 'hipport[precise]')", file=sys.stderr)
        return 2
    wa = accuracy()
    scores, times, files = {}, {}, {}
    for on in (False, True):
        t0 = time.perf_counter()
        files[on] = per_file(wa, a.real, a.labels, on)
        times[on] = time.perf_counter() - t0
        scores[on] = wa.score_real(a.real, a.labels, "project", on)
    print(f"{len(files[False])} labelled files; analysis {times[False]:.1f}s default, {times[True]:.1f}s precise")
    for on in (False, True):
        t = scores[on].total
        print(f"  {'precise' if on else 'default':<8} {t['tp']:>4} TP {t['fp']:>4} FP {t['fn']:>4} FN  "
              f"precision {wa.ratio(t['tp'], t['tp'] + t['fp']).strip()}, "
              f"recall {wa.ratio(t['tp'], t['tp'] + t['fn']).strip()}; "
              f"{scores[on].unjudged} reports on unlabelled lines")
    changed = 0
    for path in files[False]:
        before, after = files[False][path], files[True][path]
        gained, lost = sorted((after - before).elements()), sorted((before - after).elements())
        if gained or lost:
            changed += 1
            print(f"{path}:")
            for rule, line in gained:
                print(f"  + {rule} line {line}")
            for rule, line in lost:
                print(f"  - {rule} line {line}")
    print(f"{changed} files changed")
    old, new = set(scores[False].notes), set(scores[True].notes)
    for n in sorted(new - old):
        print(f"  new: {n}")
    for n in sorted(old - new):
        print(f"  gone: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
