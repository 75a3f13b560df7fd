"""GitHub Actions workflow annotations: one `::error file=…,line=…::message` line per finding.

`file=` is relative to the working folder (the checkout in CI), since GitHub attaches an
annotation to a file only by its repository path. Properties escape `%`, CR, LF, `:` and `,`;
the message escapes `%`, CR and LF, as the workflow-command format requires. Before that,
every value (file name, title, message: all may come from the tree) has its control
characters (C0 but tab, DEL, C1) and bidirectional marks, embeddings, overrides and
isolates written as `<U+202E>`, and a byte of a name that is not UTF-8 as `\\xff`, so a log
never carries a terminal escape or reorders text. A file hipport could not analyse is an
`::error` at the file (its HP010 finding, or one line naming why): never lost silently.
"""

from __future__ import annotations

from hipport import registry
from hipport.model import FileResult, FileStatus, RunResult, Severity
from hipport.registry import HP
from hipport.report import ViewOptions
from hipport.report.headline import headline
from hipport.report.printable import visible
from hipport.report.sarif import repo_path
from hipport.report.summary import summary

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(s: str) -> str:
    return visible(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _file(r: FileResult) -> str:
    path, _ = repo_path(r.path)
    return f"file={_escape_prop(path)}"


def render(run: RunResult, opts: ViewOptions) -> str:
    docs = registry.rules()
    out = []
    for r in run.files:
        if not r.findings and r.status != FileStatus.FAILED:
            continue
        where = _file(r)
        if r.status == FileStatus.FAILED and not any(f.rule == HP.UNREADABLE_FILE for f in r.findings):
            bad = docs[HP.UNREADABLE_FILE]
            title = _escape_prop(f"{bad.id} {bad.name}")  # not analysed: say so at the file
            why = f"[{bad.id}] {r.error or 'failed'}"
            out.append(f"::error {where},title={title}::{_escape_data(why)}")
        for i, f in enumerate(r.findings):
            if not (opts.show_fixed or r.is_open(i)):
                continue  # done (fixed or right as it is): an annotation asks for nothing
            s = f.span
            title = f"{f.rule} {docs[f.rule].name}" if f.rule in docs else f.rule
            props = [where, f"line={s.line}", f"endLine={max(s.end_line, s.line)}"]
            if s.end_line <= s.line:  # GitHub rejects columns on an annotation spanning lines
                props += [f"col={s.column}", f"endColumn={max(s.end_column, s.column)}"]
            props.append(f"title={_escape_prop(title)}")
            out.append(f"::{LEVEL[f.severity]} {','.join(props)}::{_escape_data(f'[{f.rule}] {f.message}')}")
    return "\n".join(out) + ("\n" if out else "")


def step_summary(run: RunResult) -> str:
    """Markdown totals for the job's step summary ($GITHUB_STEP_SUMMARY)."""
    s = summary(run)
    out = ["### hipport lint", "", *(f"{line}  " for line in headline(run).lines()), ""]
    if s["findings_by_severity"]:
        out += ["| severity | findings |", "|---|---:|"]
        out += [f"| {k} | {v} |" for k, v in s["findings_by_severity"].items()]
        out += ["", "| rule | findings |", "|---|---:|"]
        docs = registry.rules()
        out += [f"| {k} {docs[k].name if k in docs else ''} | {v} |"
                for k, v in s["findings_by_rule"].items()]
    else:
        out.append("No findings.")
    if s["files_failed"]:
        out += ["", f"{s['files_failed']} files could not be read or ported."]
    return "\n".join(out) + "\n"
