"""Compiler-style findings (`path:line:col: severity: [RULE] message`) and a summary table."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hipport.model import FileResult, Finding, RunResult, Severity
from hipport.report import ViewOptions
from hipport.report.summary import summary

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _line(r: FileResult, line: int) -> str | None:
    if r.original is None:
        return None
    lines = r.original.split(b"\n")
    if 0 < line <= len(lines):
        return lines[line - 1].rstrip(b"\r").decode("utf-8", "replace")
    return None


def finding_text(r: FileResult, f: Finding, opts: ViewOptions) -> Text:
    s = f.span
    t = Text()
    t.append(f"{r.path}:{s.line}:{s.column}: ", style="bold")
    t.append(f"{f.severity.value}: ", style=STYLE[f.severity])
    t.append(f"[{f.rule}] ", style="bold")
    t.append(f.message)
    if f.kernel:
        t.append(f" (kernel {f.kernel}" + (f", model {f.model})" if f.model else ")"), style="dim")
    src = _line(r, s.line) if opts.show_source else None
    if src is not None:
        t.append("\n    " + src.expandtabs(4))
        width = max(1, (s.end_column - s.column) if s.end_line == s.line else 1)
        pad = len(src[:s.column - 1].expandtabs(4))
        t.append("\n    " + " " * pad + "^" + "~" * (width - 1), style="green")
    if f.fix is not None:
        t.append(f"\n    fix ({f.fix.applicability.value}): {f.fix.title}", style="dim")
    return t


def summary_table(run: RunResult) -> Table:
    s = summary(run)
    t = Table(title="hipport summary", show_header=True, header_style="bold")
    t.add_column("API family")
    t.add_column("found", justify="right")
    t.add_column("ported", justify="right")
    t.add_column("left unported", justify="right")
    for name, c in s["families"].items():
        t.add_row(name, str(c["found"]), str(c["ported"]), str(c["unsupported"]))
    ref = s["references"]
    t.add_row("total", str(ref["found"]), str(ref["ported"]), str(ref["unsupported"]), style="bold")
    return t


def render(run: RunResult, opts: ViewOptions) -> str:
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=opts.color, no_color=not opts.color, width=100,
                  highlight=False, soft_wrap=True)
    for r in run.files:
        if r.error:
            con.print(Text(f"{r.path}: {'skipped' if r.status.value == 'skipped' else 'error'}: "
                           f"{r.error}", style="red" if r.status.value == "failed" else "dim"))
        for f in r.findings:
            con.print(finding_text(r, f, opts))
    s = summary(run)
    held = sum(1 for _, f in run.findings if f.fix and f.fix.applicability.value == "review")
    con.print(summary_table(run))
    con.print(f"{s['files_scanned']} files scanned, {s['files_changed']} changed, "
              f"{s['files_failed']} failed, {s['cached']} from cache, {s['seconds']:.2f}s")
    if s["findings_by_rule"]:
        con.print("findings: " + ", ".join(f"{k} {v}" for k, v in s["findings_by_rule"].items()))
    if held:
        con.print(f"{held} review fixes not applied (use --apply-review-fixes)")
    return buf.getvalue()
