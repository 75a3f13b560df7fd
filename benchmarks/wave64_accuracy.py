"""Precision and recall of the wave64 pass on its labelled corpus, per rule and overall.

Two corpora: fixtures/wave64 (each folder's input.cu, labels in expected.json) and the held-out
fixtures/wave64/corpus (CUDA written by other authors in examples/, labels in <file>.json):
`findings` (true warp-size assumptions, each {rule, line, model}), `missed` (true ones the pass is
known not to report) and `spurious` (reports that are not warp-size assumptions). The script runs
the pass (both strategies: findings do not depend on the strategy) and scores its reports against
the truth = findings + missed. A report counts as a true positive when rule, line and model match.

With `--real DIR` it also scores real code: benchmarks/wave64_labels.toml lists hazard lines and
clean lines judged by hand in public checkouts under DIR (llm.c, ggml, faiss). A hazard reported
with its rule is a true positive, one not reported a miss; a report on a clean line, or a second
report of the same rule on one line, is a false positive. Reports on lines nobody labelled are
counted as unjudged, not scored.

    python benchmarks/wave64_accuracy.py [--verbose] [--real /work/corpora]
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport.config import Config  # noqa: E402
from hipport.source import SourceFile  # noqa: E402
from hipport.wave64 import run  # noqa: E402
from hipport.wave64.registry import RULES  # noqa: E402

CORPUS = ROOT / "fixtures" / "wave64"
LABELS = ROOT / "benchmarks" / "wave64_labels.toml"


def cases(held_out: bool) -> list[tuple[str, Path, dict]]:
    """(name, source, labels): the fixtures, or the held-out files of fixtures/wave64/corpus."""
    if held_out:
        return [(p.name, p, json.loads(p.with_name(p.name + ".json").read_text()))
                for p in sorted((CORPUS / "corpus").iterdir()) if p.suffix in (".cu", ".cuh")]
    return [(d.name, d / "input.cu", json.loads((d / "expected.json").read_text()))
            for d in sorted(CORPUS.iterdir()) if (d / "expected.json").is_file()]


def score(held_out: bool = False) -> tuple[dict[str, Counter[str]], list[str]]:
    per_rule: dict[str, Counter[str]] = {rid: Counter() for rid in RULES}
    notes: list[str] = []
    for name, path, meta in cases(held_out):
        rocm = meta.get("config", {}).get("rocm", "5.2")
        src = SourceFile(str(path), path.read_bytes())
        for strategy in ("logical32", "native"):
            truth = Counter((x["rule"], x["line"], x["model"]) for x in meta["findings"] + meta.get("missed", [])
                            if x.get("strategy", strategy) == strategy)  # a label may hold under one only
            got = Counter((f.rule, f.span.line, f.model)
                          for f in run(src, replace(Config(), wave_strategy=strategy, rocm=rocm)))
            for key in set(got) | set(truth):
                tp = min(got[key], truth[key])
                per_rule[key[0]]["tp"] += tp
                per_rule[key[0]]["fp"] += got[key] - tp
                per_rule[key[0]]["fn"] += truth[key] - tp
                if strategy == "logical32" and got[key] != truth[key]:
                    what = "false positive" if got[key] > truth[key] else "missed"
                    notes.append(f"{name}:{key[1]} {key[0]} ({key[2]}): {what}")
    return per_rule, notes


def score_real(base: Path, labels: Path = LABELS) -> tuple[Counter[str], list[str], int]:
    """TP / FP / FN over the hand-labelled lines of real code under `base`, the notes, and the
    number of reports on unlabelled lines of the labelled files."""
    meta = tomllib.loads(labels.read_text())
    hazards: dict[tuple[str, int], list[dict]] = {}
    clean: dict[tuple[str, int], list[dict]] = {}
    for h in meta.get("hazard", []):
        hazards.setdefault((h["path"], h["line"]), []).append(h)
    for c in meta.get("clean", []):
        clean.setdefault((c["path"], c["line"]), []).append(c)
    missing = sorted({p for p, _ in [*hazards, *clean] if not (base / p).is_file()})
    if missing:
        raise SystemExit(f"error: {base}: labelled files not found: {', '.join(missing[:5])}")
    total: Counter[str] = Counter()
    notes: list[str] = []
    unjudged = 0
    for path in sorted({p for p, _ in [*hazards, *clean]}):
        file = base / path
        got: Counter[tuple[str, int]] = Counter(
            (f.rule, f.span.line) for f in run(SourceFile(str(file), file.read_bytes()), Config()))
        lines = {ln for (p, ln) in [*hazards, *clean] if p == path}
        for (_rule, line), n in got.items():
            if line not in lines:
                unjudged += n
        for (p, line), hs in hazards.items():
            if p != path:
                continue
            for h in hs:
                ids = h["rule"].split("|")
                n = sum(got[(r, line)] for r in ids)
                if n:
                    total["tp"] += 1
                    total["fp"] += n - 1
                    if n > 1:
                        notes.append(f"{path}:{line} {h['rule']}: reported {n} times")
                else:
                    total["fn"] += 1
                    notes.append(f"{path}:{line} {h['rule']}: missed ({h['why']})")
        for (p, line), cs in clean.items():
            if p != path:
                continue
            for c in cs:
                ids = c["rule"].split("|") if "rule" in c else None
                bad = [(r, n) for (r, ln), n in got.items() if ln == line and (ids is None or r in ids)]
                for r, n in bad:
                    total["fp"] += n
                    notes.append(f"{path}:{line} {r}: false positive ({c['why']})")
    return total, notes, unjudged


def ratio(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f}%" if b else "   n/a"


def report(title: str, per_rule: dict[str, Counter[str]], notes: list[str], verbose: bool) -> None:
    print(title)
    print(f"  {'rule':<6} {'name':<30} {'TP':>5} {'FP':>4} {'FN':>4}  {'precision':>9}  {'recall':>7}")
    total: Counter[str] = Counter()
    for rid, c in per_rule.items():
        total += c
        if not (c["tp"] or c["fp"] or c["fn"]):
            continue
        print(f"  {rid:<6} {RULES[rid].name:<30} {c['tp']:>5} {c['fp']:>4} {c['fn']:>4}  "
              f"{ratio(c['tp'], c['tp'] + c['fp']):>9}  {ratio(c['tp'], c['tp'] + c['fn']):>7}")
    print(f"  {'all':<37} {total['tp']:>5} {total['fp']:>4} {total['fn']:>4}  "
          f"{ratio(total['tp'], total['tp'] + total['fp']):>9}  {ratio(total['tp'], total['tp'] + total['fn']):>7}")
    if verbose:
        for n in notes:
            print("  " + n)
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--verbose", action="store_true", help="list every false positive and miss")
    ap.add_argument("--real", type=Path, metavar="DIR",
                    help="also score the hand-labelled real code (benchmarks/wave64_labels.toml) under DIR")
    a = ap.parse_args()
    if a.real is not None and not a.real.is_dir():
        print(f"error: --real {a.real}: not a folder", file=sys.stderr)
        return 2
    report("fixtures/wave64 (positive and lookalike cases, realistic kernels, hard cases)", *score(), a.verbose)
    report("held out: examples/ of this repository, labelled by hand (fixtures/wave64/corpus)",
           *score(held_out=True), a.verbose)
    total: Counter[str] = Counter()
    for part in (score()[0], score(held_out=True)[0]):
        for c in part.values():
            total += c
    print(f"overall: precision {ratio(total['tp'], total['tp'] + total['fp']).strip()}, "
          f"recall {ratio(total['tp'], total['tp'] + total['fn']).strip()} "
          f"({total['tp']} TP, {total['fp']} FP, {total['fn']} FN; both strategies counted)")
    if a.real is not None:
        t, notes, unjudged = score_real(a.real)
        print()
        print(f"real code ({LABELS.name}, under {a.real}): precision "
              f"{ratio(t['tp'], t['tp'] + t['fp']).strip()}, recall {ratio(t['tp'], t['tp'] + t['fn']).strip()} "
              f"({t['tp']} TP, {t['fp']} FP, {t['fn']} FN; {unjudged} reports on unlabelled lines)")
        if a.verbose:
            for n in notes:
                print("  " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
