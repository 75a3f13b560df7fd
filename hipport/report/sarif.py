"""SARIF 2.1.0 as GitHub code scanning accepts it: rules with help, results with fingerprints.

Paths become URIs: relative to the working folder (repository-relative when run from the
repository root, as in CI) with `%SRCROOT%` as their base, the bytes of the name
percent-encoded (a name that is not UTF-8 keeps its bytes: `a%FF.cu`); a file outside the
working folder gets an absolute `file://` URI. Columns are UTF-16 code units, as `columnKind`
says (hipport's own columns count bytes, so they are converted where the line is known).

A file hipport could not analyse is a `toolExecutionNotifications` entry of the invocation (at
the file, naming why), and `executionSuccessful` is false: the log says which files' results
it lacks. Text never holds a lone surrogate (a byte of a name or line that is not UTF-8): it
is written `\\xff`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hipport import __version__, registry
from hipport.model import Applicability, Edit, FileResult, FileStatus, RunResult, Severity, Span
from hipport.registry import HP
from hipport.report import ViewOptions
from hipport.report.headline import headline
from hipport.report.printable import SURROGATE, no_surrogates
from hipport.workspace import repository_top

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
HELP_BASE = "https://github.com/hipport/hipport/blob/main/rules/"
SRCROOT = "%SRCROOT%"
MAX_DESCRIPTION = 1024  # GitHub's limit for shortDescription


def repo_path(path: str, cwd: str | None = None) -> tuple[str, bool]:
    """(posix path relative to the repository top above `cwd`, True) when the file is in
    it, else (absolute, False)."""
    p = path.replace("\\", "/")
    base = str(repository_top(Path(cwd) if cwd else None))
    full = os.path.abspath(p)
    try:
        rel = os.path.relpath(full, base)
    except ValueError:  # another drive on Windows
        return Path(full).as_posix(), False
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return Path(full).as_posix(), False
    return Path(rel).as_posix(), True


def artifact_location(path: str, cwd: str | None = None) -> dict[str, str]:
    rel, inside = repo_path(path, cwd)
    if inside:  # the name's bytes, as the file system has them
        return {"uri": quote(os.fsencode(rel), safe="/"), "uriBaseId": SRCROOT}
    return {"uri": Path(rel).as_uri()}


def _text(s: str, limit: int = MAX_DESCRIPTION) -> str:
    return s if len(s) <= limit else s[:limit - 1] + "…"


def _rule(r: registry.Rule) -> dict[str, Any]:
    short = _text(r.summary or r.name)
    folder = "wave64" if r.id.startswith("W") else "docs"
    return {
        "id": r.id, "name": r.name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": r.summary or r.name},
        "help": {"text": r.text, "markdown": r.text},
        "helpUri": f"{HELP_BASE}{folder}/{r.id}.md",
        "properties": {"tags": ["wave64" if r.id.startswith("W") else "hip-port"]},
    }


def _rules(extra: set[str]) -> list[dict[str, Any]]:
    docs = registry.rules()
    out = [_rule(r) for r in docs.values()]
    for rid in sorted(extra - docs.keys()):  # every ruleId a result names must be described
        out.append(_rule(registry.Rule(rid, rid.lower(), f"hipport rule {rid}", None)))
    return out


def _fingerprint(path: str, rule: str, line_text: str, n: int) -> str:
    h = hashlib.sha256(f"{path}\0{rule}\0{line_text.strip()}\0{n}".encode()).hexdigest()
    return h[:32]


class _Lines:
    """The original lines of one file, to turn byte columns into UTF-16 columns."""

    def __init__(self, r: FileResult) -> None:
        self.lines = r.original.split(b"\n") if r.original is not None else None

    def text(self, line: int) -> str:
        if self.lines is None or not 0 < line <= len(self.lines):
            return ""
        return self.lines[line - 1].rstrip(b"\r").decode("utf-8", "replace")

    def utf16(self, line: int, column: int) -> int:
        if self.lines is None or not 0 < line <= len(self.lines):
            return column
        head = self.lines[line - 1][:max(0, column - 1)]
        if head.isascii():
            return column
        return len(head.decode("utf-8", "replace").encode("utf-16-le")) // 2 + 1


def _region(s: Span, lines: _Lines) -> dict[str, int]:
    start_col = lines.utf16(s.line, s.column)
    end_line = max(s.end_line, s.line)
    end_col = lines.utf16(end_line, s.end_column) if s.end_line >= s.line else start_col
    if end_line == s.line:
        end_col = max(end_col, start_col)
    return {"startLine": s.line, "startColumn": start_col, "endLine": end_line, "endColumn": end_col}


def _content(text: str) -> dict[str, str]:
    """Inserted text; as bytes (base64) where it holds bytes that are not UTF-8."""
    if SURROGATE.search(text):
        return {"binary": base64.b64encode(text.encode("utf-8", "surrogateescape")).decode("ascii")}
    return {"text": text}


def _fix(title: str, edits: tuple[Edit, ...], loc: dict[str, str]) -> dict[str, Any]:
    """A safe fix as SARIF artifact changes: byte ranges of the original file replaced."""
    return {"description": {"text": no_surrogates(title)},
            "artifactChanges": [{"artifactLocation": loc, "replacements": [
                {"deletedRegion": {"byteOffset": e.start, "byteLength": e.end - e.start},
                 "insertedContent": _content(e.replacement)} for e in sorted(edits, key=lambda e: e.start)]}]}


def _notifications(run: RunResult, index: dict[str, int]) -> list[dict[str, Any]]:
    """One error per file hipport could not analyse (unreadable, nested too deeply, an
    internal error, changed while it ran), at the file: its results are not in the log."""
    return [{"level": "error",
             "message": {"text": no_surrogates(f"{r.error or 'failed'}; this file's results are not "
                                               "in this log")},
             "locations": [{"physicalLocation": {"artifactLocation": artifact_location(r.path)}}],
             "associatedRule": {"id": HP.UNREADABLE_FILE, "index": index[HP.UNREADABLE_FILE]}}
            for r in run.files if r.status == FileStatus.FAILED]


def render(run: RunResult, opts: ViewOptions) -> str:
    rules = _rules({f.rule for _, f in run.findings})
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    seen: dict[tuple[str, str, str], int] = {}
    cache: dict[int, _Lines] = {}
    relative = False
    for r, f in run.findings:
        lines = cache.get(id(r))
        if lines is None:
            lines = cache[id(r)] = _Lines(r)
        s = f.span
        line_text = lines.text(s.line)
        loc = artifact_location(r.path)
        relative = relative or "uriBaseId" in loc
        k = (r.path, f.rule, line_text.strip())
        seen[k] = seen.get(k, 0) + 1
        res: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": LEVEL[f.severity],
            "message": {"text": no_surrogates(f.message)},
            "locations": [{"physicalLocation": {"artifactLocation": loc,
                                                "region": _region(s, lines)}}],
            "partialFingerprints": {"primaryLocationLineHash/v1":
                                    _fingerprint(loc["uri"], f.rule, line_text, seen[k])},
        }
        props: dict[str, Any] = {k2: no_surrogates(v) for k2, v in (("kernel", f.kernel), ("model", f.model),
                                                                    ("family", f.family)) if v}
        if f.fixed:
            props["fixed"] = True  # the port made the fix: the site is done (level note)
        if f.fix is not None:
            props["fixApplicability"] = f.fix.applicability.value
            props["fixTitle"] = no_surrogates(f.fix.title)
            if f.fix.applicability == Applicability.SAFE and f.fix.edits:
                res["fixes"] = [_fix(f.fix.title, f.fix.edits, loc)]
        if props:
            res["properties"] = props
        results.append(res)
    notes = _notifications(run, index)
    relative = relative or any("uriBaseId" in n["locations"][0]["physicalLocation"]["artifactLocation"]
                               for n in notes)
    run_doc: dict[str, Any] = {
        "tool": {"driver": {"name": "hipport", "version": __version__,
                            "informationUri": "https://github.com/hipport/hipport",
                            "rules": rules}},
        "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}],
        "results": results,
        "columnKind": "utf16CodeUnits",
        "properties": {"headline": headline(run).to_json()},  # as text, JSON and the report say it
    }
    if relative:
        base = repository_top().as_uri().rstrip("/") + "/"
        run_doc["originalUriBaseIds"] = {SRCROOT: {"uri": base}}
    doc = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run_doc]}
    return json.dumps(doc, indent=2) + "\n"
