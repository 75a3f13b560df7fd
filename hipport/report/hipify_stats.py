"""HIPIFY's statistics of a `hipport hipify` run (`-print-stats`, `-print-stats-csv`), as
hipify-perl and hipify-clang print them: a view of the RunResult (each file's edits,
findings, API families and original bytes)."""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field

from hipport.model import FileResult, Severity
from hipport.registry import HP, FixKind


@dataclass
class Stats:
    converted: Counter[str] = field(default_factory=Counter)  # "cuda => hip"
    unconverted: Counter[str] = field(default_factory=Counter)
    by_api: Counter[str] = field(default_factory=Counter)
    replaced_bytes: int = 0
    total_bytes: int = 0
    changed_lines: int = 0
    total_lines: int = 0
    warnings: int = 0
    seconds: float = 0.0

    def add(self, other: Stats) -> None:
        for a in ("converted", "unconverted", "by_api"):
            getattr(self, a).update(getattr(other, a))
        for a in ("replaced_bytes", "total_bytes", "changed_lines", "total_lines", "warnings", "seconds"):
            setattr(self, a, getattr(self, a) + getattr(other, a))

    def rows(self) -> list[tuple[str, str]]:
        # References ported, by API family as hipport counts them (headers and names it keeps,
        # such as threadIdx, included: HIPIFY counts those too); `converted` lists the renames.
        conv, unconv = sum(self.by_api.values()), sum(self.unconverted.values())
        pct = lambda a, b: f"{100.0 * a / b:.1f}" if b else "0.0"  # noqa: E731
        return [("CONVERTED refs count", str(conv)), ("UNCONVERTED refs count", str(unconv)),
                ("CONVERSION %", pct(conv, conv + unconv) if conv + unconv else "100.0"),
                ("REPLACED bytes", str(self.replaced_bytes)), ("TOTAL bytes", str(self.total_bytes)),
                ("CHANGED lines of code", str(self.changed_lines)),
                ("TOTAL lines of code", str(self.total_lines)),
                ("CODE CHANGED (in bytes) %", pct(self.replaced_bytes, self.total_bytes)),
                ("CODE CHANGED (in lines) %", pct(self.changed_lines, self.total_lines)),
                ("WARNINGS", str(self.warnings)),
                ("TIME ELAPSED s", f"{self.seconds:.2f}")]


def stats_of(res: FileResult, data: bytes, titles: dict[str, str], seconds: float) -> Stats:
    s = Stats(total_bytes=len(data), total_lines=data.count(b"\n") + (not data.endswith(b"\n") and bool(data)),
              seconds=seconds)
    lines: set[int] = set()
    for e in res.edits:
        if e.rule == FixKind.RENAME and e.end > e.start:
            old = data[e.start:e.end].decode("utf-8", "replace")
            s.converted[f"{old} => {e.replacement}" if e.replacement else old] += 1
        if e.end > e.start or e.replacement:
            s.replaced_bytes += max(e.end - e.start, len(e.replacement.encode("utf-8", "surrogateescape")))
            first = data.count(b"\n", 0, e.start)
            lines.update(range(first, first + data.count(b"\n", e.start, e.end) + 1))
    s.changed_lines = len(lines)
    for fam, c in res.families.items():
        if c.ported:
            s.by_api[titles.get(fam, fam)] += c.ported
    for f in res.findings:
        if f.rule in (HP.UNSUPPORTED_API, HP.UNKNOWN_CUDA_NAME, HP.UNMAPPED_HEADER):
            s.unconverted[f.subject or f.message.split(" ", 1)[0]] += 1  # HP008 names a header
        if f.severity in (Severity.WARNING, Severity.ERROR):
            s.warnings += 1
    return s


def render_stats(name: str, s: Stats) -> str:
    out = [f"[HIPIFY] info: {name} statistics:"]
    out += [f"  {k}: {v}" for k, v in s.rows()]
    for title, counter in (("CONVERTED refs by API", s.by_api), ("CONVERTED refs by names", s.converted),
                           ("UNCONVERTED refs by names", s.unconverted)):
        if counter:
            out.append(f"[HIPIFY] info: {title}:")
            out += [f"  {k}: {v}" for k, v in sorted(counter.items())]
    return "\n".join(out) + "\n"


def render_csv(name: str, s: Stats) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";", lineterminator="\n")
    w.writerow([name, "Value"])
    w.writerows(s.rows())
    for title, counter in (("CONVERTED refs by API", s.by_api), ("CONVERTED refs by names", s.converted),
                           ("UNCONVERTED refs by names", s.unconverted)):
        if counter:
            w.writerow([title, "Count"])
            w.writerows(sorted(counter.items()))
    return buf.getvalue()
