"""Precision and recall of the wave64 pass on its labelled corpus, per rule and overall.

Two corpora: fixtures/wave64 (each folder's input.cu, labels in expected.json) and the held-out
fixtures/wave64/corpus (CUDA written by other authors in examples/, labels in <file>.json):
`findings` (true warp-size assumptions, each {rule, line, model}), `missed` (true ones the pass is
known not to report) and `spurious` (reports that are not warp-size assumptions). The script runs
the pass (both strategies: findings do not depend on the strategy) and scores its reports against
the truth = findings + missed. A report counts as a true positive when rule, line and model match.

With `--real DIR` it also scores real code: a labels file (`--labels`; benchmarks/wave64_labels.toml
by default: llm.c, ggml, faiss; benchmarks/wave64_labels_ml.toml: nine ML repositories, its header
says how to extract them) lists hazard lines and clean lines judged by hand in public checkouts
under DIR. A hazard reported with its rule is a true positive, one not reported a miss; a report on
a clean line, or a second report of the same rule on one line, is a false positive. Reports on
lines nobody labelled are counted as unjudged, not scored. `--context file` analyses each file
alone (no header seen); `--context project` (the default) as `hipport lint` reads it: with its
include closure, the headers beside and above it and in its repository's `include` folders (the
labels' [repos.*] tables), and the macros its HIP build defines (`hip_defines`, as `-D`).
Scores are printed per repository and per label `context` (what a verdict depends on), so the
classes still missed are visible.

    python benchmarks/wave64_accuracy.py [--verbose] [--real /work/corpora/ml
        --labels benchmarks/wave64_labels_ml.toml --context project]
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport import closure, inputs  # noqa: E402
from hipport.config import Config  # noqa: E402
from hipport.model import Included  # noqa: E402
from hipport.source import SourceFile  # noqa: E402
from hipport.wave64 import run  # noqa: E402
from hipport.wave64.registry import RULES  # noqa: E402
from hipport.workspace import role_of  # noqa: E402

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
        data = path.read_bytes()
        beside = [p for p in path.parent.iterdir() if p.suffix in (".h", ".cuh", ".hpp")] if not held_out else []
        src = SourceFile(str(path), data, closure=closure.read(str(path), data) if beside else None)
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


@dataclass
class Real:
    """The real-code score: totals, per repository (first path component), per label class,
    the notes (each miss and false positive) and the reports on unlabelled lines."""

    total: Counter[str] = field(default_factory=Counter)
    per_repo: dict[str, Counter[str]] = field(default_factory=dict)
    hazard_classes: dict[str, Counter[str]] = field(default_factory=dict)  # tp / fn per class
    clean_classes: dict[str, Counter[str]] = field(default_factory=dict)  # lines / fp per class
    notes: list[str] = field(default_factory=list)
    unjudged: int = 0

    def count(self, repo: str, cls: dict[str, Counter[str]], name: str, what: str, n: int = 1) -> None:
        self.total[what] += n
        self.per_repo.setdefault(repo, Counter())[what] += n
        cls.setdefault(name, Counter())[what] += n


def hazard_class(h: dict) -> str:
    """What a hazard's verdict depends on (its `context`), and a declaring macro from a header."""
    return h.get("context", "-") + (" +declared_by" if "declared_by" in h else "")


def analyse(base: Path, path: str, context: str, repos: dict[str, dict],
            memo: dict[str, dict[str, Included]], precise: bool = False) -> Counter[tuple[str, int]]:
    """(rule, line) -> reports of the wave64 pass on base/path. `file`: the file alone, no header
    seen; `project`: as `hipport lint` reads it, with its include closure (beside and above it, then
    the repository's include folders, made absolute under `base`). `precise`: with --precise."""
    file = base / path
    data = file.read_bytes()
    config = Config(precise=precise)
    if context == "file":
        src = SourceFile(str(file), data)
    else:
        repo = path.split("/", 1)[0]
        dirs = tuple(str(base / d) for d in repos.get(repo, {}).get("include", []))
        fi = inputs.resolve(str(file), path, role_of(file, data[:65536]), data, rel=path.split("/", 1)[-1],
                            include_dirs=dirs, memo=memo.setdefault(repo, {}))
        src = SourceFile(path, data, closure=fi.closure)
        config = replace(config, defines=tuple(repos.get(repo, {}).get("hip_defines", [])))
    return Counter((f.rule, f.span.line) for f in run(src, config))


def score_real(base: Path, labels: Path = LABELS, context: str = "project", precise: bool = False) -> Real:
    """TP / FP / FN over the hand-labelled lines of real code under `base`, each file analysed
    with `context` ("file" or "project"), and with precise mode when `precise`."""
    meta = tomllib.loads(labels.read_text(encoding="utf-8"))
    repos: dict[str, dict] = {r.get("folder", name): r for name, r in meta.get("repos", {}).items()}
    hazards: dict[tuple[str, int], list[dict]] = {}
    clean: dict[tuple[str, int], list[dict]] = {}
    for h in meta.get("hazard", []):
        hazards.setdefault((h["path"], h["line"]), []).append(h)
    for c in meta.get("clean", []):
        clean.setdefault((c["path"], c["line"]), []).append(c)
    missing = sorted({p for p, _ in [*hazards, *clean] if not (base / p).is_file()})
    if missing:
        raise SystemExit(f"error: {base}: labelled files not found: {', '.join(missing[:5])}")
    out = Real()
    memo: dict[str, dict[str, Included]] = {}
    for path in sorted({p for p, _ in [*hazards, *clean]}):
        repo = path.split("/", 1)[0]
        out.per_repo.setdefault(repo, Counter())
        got = analyse(base, path, context, repos, memo, precise)
        lines = {ln for (p, ln) in [*hazards, *clean] if p == path}
        for (_rule, line), n in got.items():
            if line not in lines:
                out.unjudged += n
        for (p, line), hs in hazards.items():
            if p != path:
                continue
            for h in hs:
                ids = h["rule"].split("|")
                n = sum(got[(r, line)] for r in ids)
                cls = hazard_class(h)
                if n:
                    out.count(repo, out.hazard_classes, cls, "tp")
                    if n > 1:  # one report per rule per line
                        out.count(repo, out.hazard_classes, cls, "fp", n - 1)
                        out.notes.append(f"{path}:{line} {h['rule']}: reported {n} times [{cls}]")
                else:
                    out.count(repo, out.hazard_classes, cls, "fn")
                    out.notes.append(f"{path}:{line} {h['rule']}: missed [{cls}] ({h['why']})")
        for (p, line), cs in clean.items():
            if p != path:
                continue
            for c in cs:
                ids = c["rule"].split("|") if "rule" in c else None
                cls = c.get("context", "-")
                out.clean_classes.setdefault(cls, Counter())["lines"] += 1
                bad = [(r, n) for (r, ln), n in got.items() if ln == line and (ids is None or r in ids)]
                if bad:
                    out.clean_classes[cls]["flagged"] += 1
                for r, n in bad:
                    out.count(repo, out.clean_classes, cls, "fp", n)
                    out.notes.append(f"{path}:{line} {r}: false positive [{cls}] ({c['why']})")
    return out


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


def report_real(r: Real, title: str, verbose: bool) -> None:
    t = r.total
    print(f"{title}: precision {ratio(t['tp'], t['tp'] + t['fp']).strip()}, "
          f"recall {ratio(t['tp'], t['tp'] + t['fn']).strip()} "
          f"({t['tp']} TP, {t['fp']} FP, {t['fn']} FN; {r.unjudged} reports on unlabelled lines)")
    print(f"  {'repository':<16} {'TP':>5} {'FP':>4} {'FN':>4}  {'precision':>9}  {'recall':>7}")
    for repo in sorted(r.per_repo, key=str.lower):
        c = r.per_repo[repo]
        print(f"  {repo:<16} {c['tp']:>5} {c['fp']:>4} {c['fn']:>4}  "
              f"{ratio(c['tp'], c['tp'] + c['fp']):>9}  {ratio(c['tp'], c['tp'] + c['fn']):>7}")
    print(f"  {'hazard context':<30} {'TP':>5} {'FN':>4} {'dup':>4}  {'recall':>7}")
    for name in sorted(r.hazard_classes, key=lambda k: (-r.hazard_classes[k]["fn"], k)):
        c = r.hazard_classes[name]
        print(f"  {name:<30} {c['tp']:>5} {c['fn']:>4} {c['fp']:>4}  {ratio(c['tp'], c['tp'] + c['fn']):>7}")
    print(f"  {'clean context':<30} {'lines':>5} {'hit':>4} {'FP':>4}")
    for name in sorted(r.clean_classes, key=lambda k: (-r.clean_classes[k]["fp"], k)):
        c = r.clean_classes[name]
        print(f"  {name:<30} {c['lines']:>5} {c['flagged']:>4} {c['fp']:>4}")
    if verbose:
        for n in r.notes:
            print("  " + n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--verbose", action="store_true", help="list every false positive and miss")
    ap.add_argument("--real", type=Path, metavar="DIR",
                    help="also score the hand-labelled real code of --labels under DIR")
    ap.add_argument("--labels", type=Path, default=LABELS, metavar="FILE",
                    help="labels of the real code (default: benchmarks/wave64_labels.toml)")
    ap.add_argument("--context", choices=("file", "project"), default="project",
                    help="real code: each file alone, or with its headers and the repository's include "
                         "folders as hipport lint reads it (default: %(default)s)")
    a = ap.parse_args()
    if a.real is not None and not a.real.is_dir():
        print(f"error: --real {a.real}: not a folder", file=sys.stderr)
        return 2
    if a.real is not None:  # bad labels: one line, before the fixtures are scored
        try:
            tomllib.loads(a.labels.read_text(encoding="utf-8"))
        except OSError as err:
            print(f"error: --labels {a.labels}: {err.strerror}", file=sys.stderr)
            return 2
        except tomllib.TOMLDecodeError as err:
            print(f"error: --labels {a.labels}: {err}", file=sys.stderr)
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
        print()
        report_real(score_real(a.real, a.labels, a.context),
                    f"real code ({a.labels.name}, under {a.real}, context {a.context})", a.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
