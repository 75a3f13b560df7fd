"""Compiler-style findings (`path:line:col: severity: [RULE] message`) and a summary table."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from hipport import registry
from hipport.model import FileResult, Finding, RunResult, Severity
from hipport.report import ViewOptions
from hipport.report.headline import headline
from hipport.report.printable import printable
from hipport.report.summary import summary

# ANSI colours for a terminal; findings are plain strings (rich per finding is too slow on
# big trees), the summary table is rich.
COLOR = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[33m", Severity.INFO: "\x1b[36m"}
# Compilers call the mildest level a note; JSON, config and --fail-on keep the name `info`.
LABEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
BOLD, DIM, GREEN, RESET = "\x1b[1m", "\x1b[2m", "\x1b[32m", "\x1b[0m"


def finding_text(r: FileResult, f: Finding, opts: ViewOptions, lines: list[bytes] | None,
                 path: str | None = None, i: int | None = None) -> str:
    """One finding, compiler style. `path` is the file's name made printable (once per file:
    this runs for every finding of a tree)."""
    color = opts.color

    def c(code: str, text: str) -> str:
        return f"{code}{text}{RESET}" if color else text

    s = f.span
    where = f"{path if path is not None else printable(r.path)}:{s.line}:{s.column}:"
    sev = f.severity
    head = (f"{BOLD}{where}{RESET} {COLOR[sev]}{LABEL[sev]}:{RESET} {BOLD}[{f.rule}]{RESET} "
            if color else f"{where} {LABEL[sev]}: [{f.rule}] ")
    out = [head, printable(f.message)]
    if f.kernel:
        out.append(c(DIM, printable(f" (kernel {f.kernel}" + (f", model {f.model})" if f.model else ")"))))
    if opts.show_source and lines is not None and 0 < s.line <= len(lines):
        src = printable(lines[s.line - 1].rstrip(b"\r").decode("utf-8", "replace"))
        width = max(1, (s.end_column - s.column) if s.end_line == s.line else 1)
        head_src = src[:s.column - 1]
        pad = len(head_src.expandtabs(4)) if "\t" in head_src else len(head_src)
        out.append("\n    " + (src.expandtabs(4) if "\t" in src else src))
        out.append("\n    " + " " * pad + c(GREEN, "^" + "~" * (width - 1)))
    if f.fix is not None:
        made = "fixed" if f.fixed or (i is not None and r.fix_applied(i)) else "fix"
        out.append("\n    " + c(DIM, f"{made} ({f.fix.applicability.value}): {printable(f.fix.title)}"))
    return "".join(out)


def summary_table(run: RunResult, s: dict | None = None) -> Table:
    s = s or summary(run)
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




def statistics(run: RunResult) -> str:
    """One row per rule, largest first, as `ruff --statistics`: count, id, name, and how many
    are open (error or warning), fixed by the port, and notes (right as they are, or said for
    the record: a region not parsed)."""
    docs = registry.rules()
    rows: dict[str, list[int]] = {}
    for r in run.files:
        for i, f in enumerate(r.findings):
            row = rows.setdefault(f.rule, [0, 0, 0, 0])
            row[0] += 1
            row[1 if r.is_open(i) else 2 if f.fixed or r.fix_applied(i) else 3] += 1
    if not rows:
        return ""
    order = sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[0]))
    width = max(len(str(n[0])) for _, n in order)
    name = max(len(docs[k].name) if k in docs else 0 for k, _ in order)
    out = []
    for rule, (n, open_, fixed, notes) in order:
        state = ", ".join(f"{k} {what}" for k, what in ((open_, "open"), (fixed, "fixed"),
                                                         (notes, "note" if notes == 1 else "notes")) if k)
        out.append(f"{n:>{width}}  {rule:<5}  {(docs[rule].name if rule in docs else ''):<{name}}  {state}")
    return "\n".join(out) + "\n"


def render(run: RunResult, opts: ViewOptions) -> str:
    buf = io.StringIO()
    hidden = 0
    for r in run.files:
        if r.error:
            kind = "skipped" if r.status.value == "skipped" else "error"
            buf.write(f"{printable(r.path)}: {kind}: {printable(r.error)}\n")
        if not r.findings:
            continue
        if opts.statistics:
            continue
        # Sites that are done (fixed by the port, or right as they are) are shown only with
        # --show-fixed, so that what a person must do is not lost among them.
        show = [i for i in range(len(r.findings)) if opts.show_fixed or r.is_open(i)]
        hidden += len(r.findings) - len(show)
        if not show:
            continue
        lines = r.original.split(b"\n") if r.original is not None else None
        path = printable(r.path)
        buf.write("\n".join([finding_text(r, r.findings[i], opts, lines, path, i) for i in show]) + "\n")
    if opts.statistics:
        buf.write(statistics(run))
    if not opts.summary:
        return buf.getvalue()
    con = Console(file=buf, force_terminal=opts.color, no_color=not opts.color, width=100,
                  highlight=False, soft_wrap=True)
    s = summary(run)
    done, held = run.review_fixes()  # as the result records them: a view infers nothing
    con.print(summary_table(run, s))
    changed = "changed" if opts.writes else "would change"  # lint, --diff, --check write nothing
    con.print(f"{s['files_scanned']} files scanned, {s['files_changed']} {changed}, "
              f"{s['files_failed']} failed, {s['cached']} from cache, {s['seconds']:.2f}s")
    for line in headline(run).lines():
        con.print(line)
    if done:
        con.print(f"{done} review fixes applied (--apply-review-fixes): check them by hand")
    if held:
        con.print(f"{held} review fixes not applied (use --apply-review-fixes)")
    if hidden:
        con.print(f"{hidden} notes not shown: sites fixed, right as they are, or said for the record "
                  "(--show-fixed shows them, --statistics counts every rule)")
    return buf.getvalue()
