"""Print every hand-labelled wave64 line from a corpora folder, to check labels against the code.

Each [[hazard]] and [[clean]] entry of a labels file (benchmarks/wave64_labels_ml.toml by default;
the format is described in its header) is printed with the text of its line, read from
CORPORA/<path>. A label whose file or line does not exist means the corpora folder holds other
revisions than the labels were written for: each such label is reported and the exit status is 1.
`--summary` prints counts per repository, rule and context instead of the lines.

    python3 benchmarks/show_labels.py /work/corpora [--labels FILE] [--summary]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import Counter
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "wave64_labels_ml.toml"


def load(labels: Path) -> list[tuple[str, dict]]:
    """("hazard" | "clean", entry) for every label of `labels`, in file order."""
    meta = tomllib.loads(labels.read_text(encoding="utf-8"))
    return [(kind, e) for kind in ("hazard", "clean") for e in meta.get(kind, [])]


def line_of(base: Path, path: str, line: int, cache: dict[str, list[str] | None]) -> str | None:
    """Line `line` (1-based) of base/path, or None when the file or the line is missing."""
    if path not in cache:
        file = base / path
        cache[path] = file.read_text(encoding="utf-8", errors="replace").splitlines() if file.is_file() else None
    lines = cache[path]
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]


def summary(entries: list[tuple[str, dict]]) -> None:
    files: dict[str, set[str]] = {}
    per_repo: Counter[tuple[str, str]] = Counter()
    per_rule: Counter[tuple[str, str]] = Counter()
    per_context: Counter[tuple[str, str]] = Counter()
    for kind, e in entries:
        repo = e["path"].split("/", 1)[0]
        files.setdefault(repo, set()).add(e["path"])
        per_repo[(repo, kind)] += 1
        per_rule[(e.get("rule", "any"), kind)] += 1
        per_context[(e.get("context", "-"), kind)] += 1
    print(f"{'repository':<16} {'files':>5} {'hazard':>6} {'clean':>6}")
    for repo in sorted(files, key=str.lower):
        print(f"{repo:<16} {len(files[repo]):>5} {per_repo[(repo, 'hazard')]:>6} {per_repo[(repo, 'clean')]:>6}")
    print(f"{'all':<16} {sum(len(f) for f in files.values()):>5} "
          f"{sum(n for (_, k), n in per_repo.items() if k == 'hazard'):>6} "
          f"{sum(n for (_, k), n in per_repo.items() if k == 'clean'):>6}")
    for title, table in (("rule", per_rule), ("context", per_context)):
        print(f"\n{title:<18} {'hazard':>6} {'clean':>6}")
        for key in sorted({k for k, _ in table}):
            print(f"{key:<18} {table[(key, 'hazard')]:>6} {table[(key, 'clean')]:>6}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("corpora", type=Path, help="folder holding one checkout per repository")
    ap.add_argument("--labels", type=Path, default=LABELS, help="labels file (default: %(default)s)")
    ap.add_argument("--summary", action="store_true", help="print counts instead of the labelled lines")
    a = ap.parse_args()
    if not a.corpora.is_dir():
        print(f"error: {a.corpora}: not a folder", file=sys.stderr)
        return 2
    try:
        entries = load(a.labels)
    except OSError as err:
        print(f"error: {a.labels}: {err.strerror}", file=sys.stderr)
        return 2
    except tomllib.TOMLDecodeError as err:
        print(f"error: {a.labels}: {err}", file=sys.stderr)
        return 2
    if a.summary:
        summary(entries)
        return 0
    cache: dict[str, list[str] | None] = {}
    missing = 0
    for kind, e in entries:
        text = line_of(a.corpora, e["path"], e["line"], cache)
        where = f"{e['path']}:{e['line']}"
        if text is None:
            missing += 1
            print(f"error: {where}: no such file or line under {a.corpora}", file=sys.stderr)
            continue
        print(f"{kind:<6} {e.get('rule', 'any'):<9} {where}: {text.strip()}")
    if missing:
        print(f"{missing} of {len(entries)} labels not found: the corpora folder holds other revisions",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
