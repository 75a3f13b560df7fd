"""GitHub Actions workflow annotations: one `::error file=…,line=…::message` line per finding."""

from __future__ import annotations

from hipport.model import RunResult, Severity
from hipport.report import ViewOptions

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render(run: RunResult, opts: ViewOptions) -> str:
    out = []
    for r, f in run.findings:
        s = f.span
        props = (f"file={_escape_prop(r.path)},line={s.line},col={s.column},"
                 f"endLine={s.end_line},endColumn={s.end_column},title={_escape_prop(f.rule)}")
        out.append(f"::{LEVEL[f.severity]} {props}::{_escape_data(f'[{f.rule}] {f.message}')}")
    return "\n".join(out) + ("\n" if out else "")
