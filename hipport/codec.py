"""Results as plain JSON data, checked field by field when read back.

The cache stores what this module writes, never pickles: a cache folder may have been
written by anything (another version, a damaged disk, someone's crafted file), so reading it
must not be able to run code, and a value of the wrong shape must not reach the passes or a
write. Every object is a positional JSON array (compact, and cheap to check); `load_*`
raises `Invalid` on anything that is not exactly what `dump_*` makes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from hipport.model import (
    Applicability,
    Edit,
    FamilyCount,
    FileResult,
    FileStatus,
    Finding,
    Fix,
    Severity,
    Span,
    evolve,
)

# Bump when the shape of any array below changes, or what it means (3: a result names its
# file by the path from the tree's root, and a source's rows list the headers it read: rows
# of 2 would be trusted without them; 4: a finding says whether its fix was made). It is part of every key (pipeline.salt_of).
FORMAT = 4

_SEVERITY = {s.value: s for s in Severity}
_APPLICABILITY = {a.value: a for a in Applicability}
_STATUS = {s.value: s for s in FileStatus}


class Invalid(ValueError):
    """Data that this version of hipport did not write."""


# A name's bytes that are not UTF-8 reach Python as surrogate escapes (`os.fsdecode`), and so
# do such bytes of source text the passes quote; no UTF-8 text (SQLite's, a file's) can hold one.
SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(obj: Any) -> str:
    """Compact JSON that any UTF-8 store holds: a surrogate is written as its JSON escape
    (`\\udcff`), which loads back as the same string."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    if text.isascii():  # the common case, at no cost
        return text
    try:
        text.encode("utf-8")  # a few ms for megabytes of findings; a regex search takes more
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":"))
    return text


def _str(v: Any) -> str:
    if type(v) is not str:
        raise Invalid(f"expected a string, got {type(v).__name__}")
    return v


def _opt_str(v: Any) -> str | None:
    return None if v is None else _str(v)


def _int(v: Any) -> int:
    if type(v) is not int or v < 0:
        raise Invalid(f"expected a count, got {v!r:.40}")
    return v


def _list(v: Any, n: int | None = None) -> list[Any]:
    if type(v) is not list or (n is not None and len(v) != n):
        raise Invalid(f"expected an array of {n}" if n else "expected an array")
    return v


# --- dump: model -> JSON-ready lists -------------------------------------------------------

def _span(s: Span | None) -> list[int] | None:
    return None if s is None else [s.start, s.end, s.line, s.column, s.end_line, s.end_column]


def _edit(e: Edit) -> list[Any]:
    return [e.start, e.end, e.replacement, e.rule, e.priority, _span(e.span)]


def _finding(f: Finding) -> list[Any]:
    fix = None if f.fix is None else [f.fix.title, f.fix.applicability.value,
                                      [_edit(e) for e in f.fix.edits]]
    return [f.rule, f.severity.value, _span(f.span), f.message, fix, f.kernel, f.model, f.family, f.subject,
            f.fixed]


def meta_obj(r: FileResult, path: str | None = None) -> list[Any]:
    """A result without its edits, findings and bytes: what every run loads. `path`: the
    name to store it by (the cache keeps paths relative to the tree's root, not as one
    run's working folder shows them), else its own."""
    return [r.path if path is None else path, r.role, r.status.value, r.output_path,
            {k: [c.found, c.ported, c.unsupported] for k, c in r.families.items()},
            r.defines, r.error, r.seconds, r.digest, r.pending]


def dump_meta(r: FileResult, path: str | None = None) -> str:
    return dumps(meta_obj(r, path))


def dump_detail(edits: Sequence[Edit], findings: Sequence[Finding]) -> str:
    """The details that only some commands load: edits and findings."""
    return dumps([[_edit(e) for e in edits], [_finding(f) for f in findings]])


# --- load: JSON -> model, every field checked ------------------------------------------------

# The loaders below run once per finding of a whole tree on a warm `lint`: the checks are
# written out (no helper call per field), which makes them several times faster.

def _load_span(v: Any) -> Span:
    if type(v) is not list or len(v) != 6:
        raise Invalid("expected a span")
    a, b, c, d, e, f = v
    if not (type(a) is int and type(b) is int and type(c) is int and type(d) is int
            and type(e) is int and type(f) is int) or a < 0 or b < a or c < 0 or d < 0 \
            or e < 0 or f < 0:
        raise Invalid("a malformed span")
    return Span(a, b, c, d, e, f)


def _load_edit(v: Any) -> Edit:
    if type(v) is not list or len(v) != 6:
        raise Invalid("expected an edit")
    start, end, replacement, rule, priority, span = v
    if not (type(start) is int and type(end) is int and type(priority) is int
            and type(replacement) is str and type(rule) is str) or start < 0 or end < start:
        raise Invalid("a malformed edit")
    return Edit(start, end, replacement, rule, priority, None if span is None else _load_span(span))


def _load_finding(v: Any) -> Finding:
    if type(v) is not list or len(v) != 10:
        raise Invalid("expected a finding")
    rule, severity, span, message, fix, kernel, model, family, subject, fixed = v
    sev = _SEVERITY.get(severity) if type(severity) is str else None
    if sev is None:
        raise Invalid(f"unknown severity {severity!r:.20}")
    if not (type(rule) is str and type(message) is str and (kernel is None or type(kernel) is str)
            and (model is None or type(model) is str) and (family is None or type(family) is str)
            and (subject is None or type(subject) is str) and type(fixed) is bool):
        raise Invalid("a malformed finding")
    f = None
    if fix is not None:
        if type(fix) is not list or len(fix) != 3:
            raise Invalid("expected a fix")
        title, applicability, edits = fix
        app = _APPLICABILITY.get(applicability) if type(applicability) is str else None
        if app is None or type(title) is not str or type(edits) is not list:
            raise Invalid(f"a malformed fix {applicability!r:.20}")
        f = Fix(title, app, tuple([_load_edit(e) for e in edits]))
    return Finding(rule, sev, _load_span(span), message, f, kernel, model, family, subject, fixed)


def load_meta_obj(v: Any) -> FileResult:
    path, role, status, output, families, defines, error, seconds, digest, pending = _list(v, 10)
    st = _STATUS.get(status) if type(status) is str else None
    if st is None:
        raise Invalid(f"unknown file status {status!r:.20}")
    if type(families) is not dict or type(seconds) not in (int, float):
        raise Invalid("a malformed result")
    fams = {}
    for name, counts in families.items():
        found, ported, unsupported = _list(counts, 3)
        fams[name] = FamilyCount(_int(found), _int(ported), _int(unsupported))
    return FileResult(path=_str(path), role=_str(role), status=st, output_path=_opt_str(output),
                      families=fams, defines=tuple(_str(d) for d in _list(defines)),
                      error=_opt_str(error), seconds=float(seconds), digest=_str(digest),
                      pending=_opt_str(pending))


def load_meta(text: str | bytes) -> FileResult:
    return load_meta_obj(_parse(text))


def load_detail(text: str | bytes) -> tuple[list[Edit], list[Finding]]:
    edits, findings = _list(_parse(text), 2)
    return [_load_edit(e) for e in _list(edits)], [_load_finding(f) for f in _list(findings)]


def load_files(text: str | bytes) -> list[FileResult]:
    return [load_meta_obj(v) for v in _list(_parse(text))]


def dump_with_findings(results: list[FileResult], paths: list[str] | None = None) -> str:
    """Results with their findings (not their edits): what `lint` shows; `paths`: the names
    to store them by (`meta_obj`)."""
    names = paths if paths is not None else [None] * len(results)
    return dumps([[meta_obj(r, p), [_finding(f) for f in r.findings]] for r, p in zip(results, names, strict=True)])


def load_with_findings(text: str | bytes) -> list[FileResult]:
    out = []
    for v in _list(_parse(text)):
        meta, findings = _list(v, 2)
        out.append(evolve(load_meta_obj(meta), findings=[_load_finding(f) for f in _list(findings)]))
    return out


def _parse(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and undecodable bytes
        raise Invalid(f"not JSON: {e}") from None
