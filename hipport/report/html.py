"""The static HTML porting report: an index, a page per file, a page per rule, an effort view.

Shaped like coverage.py's HTML report. `prepare_*` functions turn a `RunResult` into plain
view-models (nothing is re-parsed or re-run); the `render_*` functions fill the templates in
`templates/` (string.Template `$names`, every value HTML-escaped unless it is `Safe` markup:
another filled template, highlighted code or rendered rule docs). All markup lives in the
templates, the small pieces in the named fragments of `fragments.html`; this module only
computes the values. Pages are named `z_<dir hash>_<name>.html` so that same-named files in
different folders never clash. `status.json` remembers a hash of each file's data and of the
globals (format, hipport version, templates, assets, rule docs): an unchanged page is not
rewritten, and pages of files no longer in the run are deleted. The folder is hipport's only
when it was empty or holds the `.hipport-report` marker, and only files a previous report
listed in `status.json` are ever deleted: a report never removes a file it did not write.

The pages open from disk: no server, no network, one CSS and one JS file of our own, and a
Content-Security-Policy that forbids inline scripts, so even a bug in escaping runs nothing.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import posixpath
import re
import string
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from hipport import __version__, registry
from hipport.buildid import build_id
from hipport.linediff import opcodes
from hipport.linemap import LineMap, line_starts
from hipport.model import (
    FileResult,
    FileStatus,
    Finding,
    RunResult,
    Span,
    ValidationResult,
)
from hipport.registry import HP
from hipport.report.headline import READY, headline, percent, state
from hipport.report.highlight import Highlighter
from hipport.report.printable import visible
from hipport.report.summary import summary
from hipport.workspace import PORTED_ROLES

FORMAT = 1
STATUS_FILE = "status.json"
MARKER = ".hipport-report"
CSS_NAME = "hipport-report.css"
JS_NAME = "hipport-report.js"
PAGE_RE = re.compile(r"^z_[0-9a-f]{16}_[A-Za-z0-9_-]+\.html$")
RULE_PAGE_RE = re.compile(r"^rule_[A-Za-z0-9_-]+\.html$")
PERSON_RULES = (HP.UNSUPPORTED_API, HP.UNKNOWN_CUDA_NAME)  # API with no HIP equivalent; unknown CUDA-looking name
MAX_SITES = 500  # sites listed per rule page / effort item


# ---------------------------------------------------------------------------- templates


class Safe(str):
    """Markup this module built from escaped parts; templates insert it as is."""


def esc(value: Any) -> str:
    """Escape for HTML text and double- or single-quoted attributes."""
    if isinstance(value, Safe):
        return value
    return html.escape(visible(str(value)), quote=True)  # bidi overrides shown, not obeyed


class Tpl:
    """A string.Template compiled once into literal / name parts; values are escaped."""

    def __init__(self, text: str, name: str = "") -> None:
        self.name = name
        self.parts: list[tuple[bool, str]] = []
        pos = 0
        for m in string.Template.pattern.finditer(text):
            self.parts.append((False, text[pos:m.start()]))
            if m.group("escaped") is not None:
                self.parts.append((False, "$"))
            elif m.group("invalid") is not None:
                raise ValueError(f"template {name}: bad placeholder at {m.start()}")
            else:
                self.parts.append((True, m.group("named") or m.group("braced")))
            pos = m.end()
        self.parts.append((False, text[pos:]))
        self.names = {p for is_name, p in self.parts if is_name}

    def __call__(self, **values: Any) -> Safe:
        missing = self.names - values.keys()
        if missing:
            raise KeyError(f"template {self.name}: no value for {', '.join(sorted(missing))}")
        return Safe("".join(esc(values[p]) if is_name else p for is_name, p in self.parts))


def _package_files(folder: str) -> dict[str, bytes]:
    base = resources.files("hipport.report").joinpath(folder)
    return {p.name: p.read_bytes() for p in sorted(base.iterdir(), key=lambda p: p.name)
            if p.is_file() and not p.name.endswith((".py", ".pyc"))}


@cache
def templates() -> dict[str, Tpl]:
    """Page templates by file stem plus the named fragments of fragments.html."""
    out: dict[str, Tpl] = {}
    for name, data in _package_files("templates").items():
        text = data.decode("utf-8")
        if name == "fragments.html":
            for m in re.finditer(r"<!--@ (\w+) -->\n(.*?)(?=\n<!--@ |\Z)", text, re.S):
                out[m.group(1)] = Tpl(m.group(2).rstrip("\n"), m.group(1))
        else:
            out[name.rsplit(".", 1)[0]] = Tpl(text, name)
    return out


@cache
def assets() -> dict[str, bytes]:
    return _package_files("static")


@cache
def globals_hash() -> str:
    """Everything outside a file's own data that its page depends on."""
    h = hashlib.sha256(f"{FORMAT}\0{build_id()}\0".encode())
    for group in (_package_files("templates"), assets()):
        for name, data in group.items():
            h.update(name.encode() + b"\0" + data + b"\0")
    for r in registry.rules().values():
        h.update(f"{r.id}\0{r.name}\0{r.summary}\0".encode())
    return h.hexdigest()[:32]


def _asset_href(name: str) -> str:
    data = assets()["report.css" if name == CSS_NAME else "report.js"]
    return f"{name}?v={hashlib.sha256(data).hexdigest()[:10]}"


# ---------------------------------------------------------------------------- view-models


@dataclass(slots=True)
class IndexRow:
    path: str
    page: str | None  # None: no page (skipped, failed, not a CUDA file)
    status: str
    role: str
    found: int
    ported: int
    unsupported: int
    wave: int
    api: int
    changes: int
    error: str | None
    person: int  # findings that need a person (HP001/HP002 and warnings or worse)
    ready: bool = False  # as the headline counts it (hipport.report.headline.state)

    @property
    def pct(self) -> float | None:
        return 100.0 * self.ported / self.found if self.found else None

    @property
    def clean(self) -> bool:
        """Nothing left to do: the file is ready, as the headline counts it (sites fixed by
        the port and notes are done)."""
        return self.ready


@dataclass(frozen=True, slots=True)
class Change:
    """A rewrite as it lies in the ported bytes: [start, end) there, and what it replaced."""

    start: int
    end: int
    rule: str
    before: str


@dataclass(slots=True)
class Hunk:
    """Original lines a..b (1-based, inclusive) became ported lines c..d (d < c: removed)."""

    a: int
    b: int
    c: int
    d: int


@dataclass(slots=True)
class Alignment:
    """How the ported file lines up with the original one."""

    changes: list[Change]
    hunks: list[Hunk]
    ported_line_of_orig: Any  # (Span) -> int


@dataclass(slots=True)
class FindingView:
    index: int
    finding: Finding
    line: int  # in the ported file (where it is shown)
    doc: registry.Rule | None
    applied: bool  # its fix is among the edits that were applied


@dataclass(slots=True)
class FileData:
    result: FileResult
    row: IndexRow
    page: str
    prev: tuple[str, str] | None = None  # (page, path)
    next: tuple[str, str] | None = None
    key: str = ""


@dataclass(slots=True)
class Site:
    path: str
    page: str | None
    line: int  # line in the original file
    anchor: int  # line in the ported file: the anchor #t<N> on the file page
    finding: Finding


@dataclass(slots=True)
class EffortItem:
    title: str
    kind: str
    rule: str
    sites: list[Site] = field(default_factory=list)

    @property
    def files(self) -> int:
        return len({s.path for s in self.sites})


def page_name(path: str) -> str:
    """`z_<16 hex of the folder>_<name>.html`, as coverage.py's flat_rootname does."""
    p = path.replace("\\", "/")
    folder, name = posixpath.split(p)
    digest = hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", name) or "_"
    return f"z_{digest}_{safe}.html"


def rule_page(rule: str) -> str:
    return "rule_" + re.sub(r"[^A-Za-z0-9_-]", "_", rule) + ".html"


def _has_page(r: FileResult) -> bool:
    return r.role in PORTED_ROLES and r.status in (FileStatus.PORTED, FileStatus.UNCHANGED)


def _row(r: FileResult, page: str | None) -> IndexRow:
    found = sum(c.found for c in r.families.values())
    ported = sum(c.ported for c in r.families.values())
    unsupported = sum(c.unsupported for c in r.families.values())
    wave = sum(1 for f in r.findings if f.rule.startswith("W"))
    person = sum(1 for f in r.findings if f.rule in PERSON_RULES)
    return IndexRow(r.path, page, r.status.value, r.role, found, ported, unsupported, wave,
                    len(r.findings) - wave, len(r.edits), r.error, person, state(r) == READY)


def _file_key(fd: FileData) -> str:
    r = fd.result
    h = hashlib.sha256()
    for part in (r.path, fd.page, r.status.value, r.role, r.output_path or "", r.error or "",
                 repr(fd.prev), repr(fd.next)):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(r.original or b"")
    h.update(b"\0ported\0" if r.ported is not None else b"\0same\0")
    h.update(r.ported or b"")
    h.update(repr([(e.start, e.end, e.replacement, e.rule) for e in r.edits]).encode())
    h.update(repr(r.findings).encode())
    h.update(repr(sorted((k, c.found, c.ported, c.unsupported) for k, c in r.families.items())).encode())
    return h.hexdigest()[:32]


def prepare_files(run: RunResult) -> tuple[list[IndexRow], list[FileData]]:
    rows: list[IndexRow] = []
    pages: list[FileData] = []
    used: dict[str, str] = {}
    for r in run.files:
        page = None
        if _has_page(r):
            page = page_name(r.path)
            if used.get(page, r.path) != r.path:  # same display path twice: keep both
                page = page[:-5] + "_" + hashlib.sha256(r.path.encode("utf-8", "surrogateescape")).hexdigest()[:6] + ".html"
            used[page] = r.path
        row = _row(r, page)
        rows.append(row)
        if page is not None:
            pages.append(FileData(r, row, page))
    for i, fd in enumerate(pages):
        fd.prev = (pages[i - 1].page, pages[i - 1].result.path) if i > 0 else None
        fd.next = (pages[i + 1].page, pages[i + 1].result.path) if i + 1 < len(pages) else None
        fd.key = _file_key(fd)
    return rows, pages


def align(r: FileResult) -> Alignment:
    """Line up original and ported bytes through the applied edits (a line diff if they disagree)."""
    orig = r.original or b""
    if r.ported is None:
        return Alignment([], [], lambda s: s.line)
    edits = sorted(r.edits, key=lambda e: (e.start, e.end))
    if not edits:
        return _align_lines(orig, r.ported)
    m = LineMap(orig, edits)  # the map validate uses too
    if m.skipped or m.ported != r.ported:  # edits that do not make these bytes: diff the lines
        return _align_lines(orig, r.ported)
    changes = [Change(ps, pe, e.rule, orig[e.start:e.end].decode("utf-8", "replace"))
               for e, (ps, pe) in zip(edits, m.rewrites, strict=True)]
    hunks: list[Hunk] = []
    spans: list[list[int]] = []
    for e in edits:
        a, b = m.original_line(e.start), m.original_line(max(e.start, e.end - 1))
        if spans and a <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    for a, b in spans:
        ps, pe = m.ported_offset(m.original_line_start(a)), m.ported_offset(m.original_line_start(b + 1))
        c = m.ported_line(ps)
        d = m.ported_line(pe - 1) if pe > ps else c - 1
        hunks.append(Hunk(a, b, c, d))

    def line_of(span: Span) -> int:
        if 0 <= span.start <= len(orig):
            return m.ported_line(m.ported_offset(span.start))
        return span.line

    return Alignment(changes, hunks, line_of)


def _align_lines(orig: bytes, ported: bytes) -> Alignment:
    a = orig.split(b"\n")
    b = ported.split(b"\n")
    hunks: list[Hunk] = []
    mapping: dict[int, int] = {}
    changes: list[Change] = []
    pstarts = line_starts(ported)
    for tag, i1, i2, j1, j2 in opcodes(a, b):  # patience diff: near-linear, unlike difflib
        for k in range(i1, i2):
            mapping[k + 1] = j1 + 1 + (k - i1 if tag == "equal" else min(k - i1, max(0, j2 - j1 - 1)))
        if tag == "equal":
            continue
        hunks.append(Hunk(i1 + 1, i2, j1 + 1, j2))
        for j in range(j1, j2):
            start = pstarts[j]
            changes.append(Change(start, start + len(b[j]), "changed", ""))
    return Alignment(changes, hunks, lambda s: mapping.get(s.line, s.line))


def prepare_findings(r: FileResult, al: Alignment) -> list[FindingView]:
    docs = registry.rules()
    out = [FindingView(i, f, al.ported_line_of_orig(f.span), docs.get(f.rule), r.fix_applied(i))
           for i, f in enumerate(r.findings)]
    out.sort(key=lambda v: (v.line, v.finding.span.column, v.index))
    return out


def _kind(rule: str) -> str:
    return {HP.UNSUPPORTED_API: "unsupported API", HP.UNKNOWN_CUDA_NAME: "unknown name"}.get(
        rule, "wave64" if rule.startswith("W") else "other")


def prepare_effort(pages: list[FileData], anchors: dict[str, dict[int, int]]) -> list[EffortItem]:
    """What is left for a person, grouped by API name (HP001/HP002) or by rule."""

    items: dict[tuple[str, str], EffortItem] = {}
    docs = registry.rules()
    for fd in pages:
        r = fd.result
        for i, f in enumerate(r.findings):
            if not r.is_open(i):
                continue  # done: fixed by the port, or right as it is (as the headline counts)
            if f.rule in PERSON_RULES:
                name = f.subject or f.rule
                key = (f.rule, name)
                title = name
            else:
                key = (f.rule, "")
                doc = docs.get(f.rule)
                title = f"{f.rule} {doc.name}" if doc else f.rule
            item = items.get(key)
            if item is None:
                item = items[key] = EffortItem(title, _kind(f.rule), f.rule)
            item.sites.append(Site(r.path, fd.page, f.span.line,
                                   anchors.get(fd.page, {}).get(i, f.span.line), f))
    return sorted(items.values(), key=lambda it: (-len(it.sites), -it.files, it.title))


# ---------------------------------------------------------------------------- rendering


def _num(n: int | float) -> str:
    return f"{n:,}" if isinstance(n, int) else f"{n:.1f}"


def _pct(part: int, whole: int) -> str:
    return percent(part, whole) if whole else "–"  # a shortfall never reads 100%


def _page(title: str, heading: str, content: str, kind: str, sub: str = "",
          body_class: str = "") -> str:
    t = templates()
    return t["base"](version=__version__, title=title, heading=heading, content=Safe(content),
                     subheading=Safe(sub), page_kind=kind, body_class=body_class,
                     css=_asset_href(CSS_NAME), js=_asset_href(JS_NAME))


def _bars(rows: Iterable[tuple[str, int, int, int]]) -> str:
    """One bar per row, by share: the whole bar is the row's CUDA references, the green part
    the share ported and the red part the share left unported (counts in the text beside)."""
    rows = list(rows)
    t = templates()
    if not rows:
        return t["no_refs"]()
    out = []
    for label, found, ported, unsupported in rows:
        pw = 100.0 * ported / found if found else 0.0
        uw = 100.0 * unsupported / found if found else 0.0
        out.append(t["bar"](label=label, pw=f"{pw:.2f}", uw=f"{uw:.2f}",
                            aria=f"{label}: {ported} of {found} ported, {unsupported} unported",
                            text=f"{ported:,}/{found:,} ({_pct(ported, found)})"))
    return t["bars"](bars=Safe("\n".join(out)))


def _folder_rows(rows: list[IndexRow], limit: int = 25) -> list[tuple[str, int, int, int]]:
    agg: dict[str, list[int]] = {}
    for row in rows:
        if not row.found:
            continue
        folder = posixpath.dirname(row.path.replace("\\", "/")) or "."
        a = agg.setdefault(folder, [0, 0, 0])
        a[0] += row.found
        a[1] += row.ported
        a[2] += row.unsupported
    items = sorted(agg.items(), key=lambda kv: (-kv[1][0], kv[0]))
    out = [(k + "/", v[0], v[1], v[2]) for k, v in items[:limit]]
    rest = items[limit:]
    if rest:
        out.append((f"{len(rest)} more folders", sum(v[0] for _, v in rest),
                    sum(v[1] for _, v in rest), sum(v[2] for _, v in rest)))
    return out


def _cells(tpl: Tpl, values: Iterable[Any]) -> Safe:
    return Safe("".join(tpl(text=v) for v in values))


def _wave_table(run: RunResult) -> str:
    t = templates()
    docs = registry.rules()
    counts: dict[str, dict[str, int]] = {}
    for _, f in run.findings:
        if f.rule.startswith("W"):
            c = counts.setdefault(f.rule, {})
            c[f.severity.value] = c.get(f.severity.value, 0) + 1
    if not counts:
        return t["wave_none"]()
    sevs = ("error", "warning", "info")
    rows = "".join(t["wave_row"](rule_page=rule_page(rule), rule=rule,
                                 name=docs[rule].name if rule in docs else "",
                                 cells=_cells(t["td"], (counts[rule].get(s, 0) for s in sevs)),
                                 total=sum(counts[rule].values()))
                   for rule in sorted(counts))
    totals = _cells(t["td"], (sum(c.get(s, 0) for c in counts.values()) for s in sevs))
    return t["wave_table"](head=_cells(t["th"], sevs), rows=Safe(rows), totals=totals,
                           total=sum(sum(c.values()) for c in counts.values()))


_BADGE = {"pass": "pass", "passed": "pass", "ok": "pass", "fail": "fail", "failed": "fail",
          "error": "fail", "unverified": "unverified", "skipped": "unverified"}


def _value_html(v: Any) -> Safe:
    t = templates()
    if isinstance(v, str) and v.lower() in _BADGE:
        return t["badge"](cls=_BADGE[v.lower()], text=v.upper())
    if isinstance(v, (dict, list)):
        return t["code"](text=json.dumps(v, sort_keys=True, default=str)[:300])
    return Safe(esc(v))


def _validation(result: ValidationResult | dict[str, Any] | None, section: str = "validation") -> str:
    """What `validate` left in RunResult.validation, shown from its JSON document (any plain
    document renders the same way): scalars and lists of text, then lists of records as tables."""
    if result is None:
        return ""
    v = result.to_json() if isinstance(result, ValidationResult) else result
    scalars = [(k, x) for k, x in v.items() if not isinstance(x, (list, dict))]
    # lists of text (validate's warnings) read as a list under their name
    scalars += [(k, dict(enumerate(x, 1))) for k, x in v.items() if isinstance(x, list) and x and
                all(isinstance(i, str) for i in x)]
    tables = [(k, x) for k, x in v.items() if isinstance(x, list) and x and
              all(isinstance(i, dict) for i in x)]
    maps = [(k, x) for k, x in v.items() if isinstance(x, dict)]
    t = templates()
    parts: list[str] = []
    if scalars or maps:
        items = []
        for k, x in scalars + maps:
            if isinstance(x, dict) and x and all(not isinstance(i, (dict, list)) for i in x.values()):
                inner = "".join(t["kv_item"](key=a, value=_value_html(b)) for a, b in x.items())
                items.append(t["kv_map"](key=k, items=Safe(inner)))
            else:
                items.append(t["kv"](key=k, value=_value_html(x)))
        parts.append(t["kv_list"](items=Safe("\n".join(items))))
    for k, rows in tables:
        cols: list[str] = []
        for row in rows:
            cols.extend(c for c in row if c not in cols)
        body = "".join(t["tr"](cells=Safe("".join(t["td"](text=_value_html(row.get(c, "")))
                                                  for c in cols)))
                       for row in rows[:1000])
        parts.append(t["validation_table"](name=k, head=_cells(t["th"], cols), rows=Safe(body)))
    return t[section](parts=Safe("".join("\n" + p for p in parts)))


def render_index(run: RunResult, rows: list[IndexRow], effort: list[EffortItem]) -> str:
    t = templates()
    s = summary(run)
    ref = s["references"]
    unknown = sum(1 for _, f in run.findings if f.rule == HP.UNKNOWN_CUDA_NAME)
    wave_sev: dict[str, int] = {}
    for _, f in run.findings:
        if f.rule.startswith("W"):
            wave_sev[f.severity.value] = wave_sev.get(f.severity.value, 0) + 1
    wave = sum(wave_sev.values())
    residual = ref["unsupported"] + unknown
    # The files card and the lists below count the same rows (the card said "0 failed" beside
    # "Files that failed (9)", which counted files that were only partly parsed).
    failed, unparsed = _failed_rows(rows), _unparsed_rows(rows, run)
    # The headline (hipport.report.headline, as text, JSON and SARIF give it): files ready,
    # with why the others are not; the share of references ported comes second, the figure
    # it is (every name renamed does not make a tree that builds).
    h = headline(run)
    cards = [
        t["card"](cls="ready headline", id="total-ready", value=h.share,
                  label=f"of files ready ({h.check})",
                  detail=t["ready_detail"](ready=f"{h.ready:,}", files=f"{h.files:,}",
                                           person=f"{h.person:,}", unverified=f"{h.unverified:,}",
                                           why=h.why() or "nothing open")),
        t["card"](cls="auto", id="total-auto", value=_pct(ref["ported"], ref["found"]),
                  label="of CUDA references ported automatically",
                  detail=t["auto_detail"](ported=f"{ref['ported']:,}", found=f"{ref['found']:,}",
                                          residual=f"{residual:,}",
                                          unsupported=f"{ref['unsupported']:,}",
                                          unknown=f"{unknown:,}")),
        t["card"](cls="wave", id="total-wave", value=_num(wave), label="wave64 findings",
                  detail=", ".join(f"{v:,} {k}" for k, v in sorted(wave_sev.items())) or "none"),
        t["card"](cls="files", id="total-files", value=_num(s["files_scanned"]), label="CUDA files",
                  detail=f"{s['files_changed']} changed, {len(failed)} failed, "
                         + (f"{len(unparsed)} not fully parsed, " if unparsed else "")
                         + f"{s['files_skipped']} skipped, {s['files_total']} in all"),
    ]
    row_t, nolink_t = t["index_row"], t["index_row_nolink"]
    row_html = []
    for row in rows:
        if not row.page:
            continue  # skipped and failed files have their own lists below
        pct = row.pct
        values = dict(cls=f"st-{row.status}", clean="1" if row.clean else "0", path=row.path,
                      status=row.status, found=row.found, ported=row.ported,
                      unsupported=row.unsupported, pctv="-1" if pct is None else f"{pct:.1f}",
                      pct="–" if pct is None else f"{pct:.0f}%", wave=row.wave, api=row.api,
                      changes=row.changes)
        if row.page:
            row_html.append(row_t(page=row.page, **values))
        else:
            row_html.append(nolink_t(error=row.error or row.role, **values))
    total = t["total_row"](n=len(rows), found=f"{ref['found']:,}", ported=f"{ref['ported']:,}",
                           unsupported=f"{ref['unsupported']:,}",
                           pct=_pct(ref["ported"], ref["found"]),
                           wave=sum(r.wave for r in rows), api=sum(r.api for r in rows),
                           changes=sum(r.changes for r in rows))
    note = _other_files(rows, failed, unparsed) + _run_info(run)
    fams = [(k, c["found"], c["ported"], c["unsupported"]) for k, c in
            sorted(s["families"].items(), key=lambda kv: (-kv[1]["found"], kv[0]))]
    verified = _validation(run.verification.to_json(), "verification") if run.verification is not None else ""
    content = t["index"](totals=Safe("\n".join(cards)), validation=Safe(_validation(run.validation) + verified),
                         family_chart=Safe(_bars(fams)), folder_chart=Safe(_bars(_folder_rows(rows))),
                         wave_table=Safe(_wave_table(run)), rows=Safe("\n".join(row_html)),
                         total_row=total, nfiles=f"{sum(1 for r in rows if r.page):,}", skipped_note=Safe(note))
    return _page("hipport porting report", "Porting report", content, "index")


def _failed_rows(rows: list[IndexRow]) -> list[IndexRow]:
    return [r for r in rows if r.status == "failed"]


def _unparsed_rows(rows: list[IndexRow], run: RunResult) -> list[IndexRow]:
    """The files with a page whose code could in part not be parsed (HP005)."""
    paths = {r.path for r in run.files if any(f.rule == HP.PARSE_ERROR for f in r.findings)}
    return [r for r in rows if r.page and r.path in paths]


def _other_files(rows: list[IndexRow], failed: list[IndexRow], unparsed: list[IndexRow]) -> str:
    """Files in their own sections: those that failed (no page), those in part not parsed
    (HP005, linked to their pages), then those skipped (not CUDA code, links, special files)."""
    skipped = [r for r in rows if not r.page and r.status != "failed"]
    t = templates()
    out = []
    if failed:
        items = [t["failed_item"](path=r.path, error=r.error or "failed") for r in failed]
        out.append(t["failed_files"](n=f"{len(items):,}", items=Safe("".join(items[:MAX_SITES]))))
    if unparsed:
        items = [t["unparsed_item"](path=r.path, page=r.page) for r in unparsed]
        out.append(t["unparsed_files"](n=f"{len(items):,}", items=Safe("".join(items[:MAX_SITES]))))
    if skipped:
        items = [t["skipped_item"](path=r.path, why=r.error or r.role) for r in skipped]
        out.append(t["skipped_files"](n=f"{len(skipped):,}", items=Safe("".join(items[:MAX_SITES]))))
    return "".join(out)


def _run_info(run: RunResult) -> str:
    import datetime

    day = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    t = templates()
    rows = "".join(t["setting"](key=k, value=v) for k, v in run.settings.items())
    return t["run_info"](version=__version__, day=day, rows=Safe(rows))


def _segments(data: bytes, ls: int, le: int, changes: list[Change], ci: int,
              hl: Highlighter) -> tuple[str, int]:
    """Escaped, highlighted HTML of ported bytes [ls, le) with the rewrites in it marked;
    returns next ci."""
    t = templates()
    out: list[str] = []
    pos = ls
    while ci < len(changes) and changes[ci].end <= ls and not (changes[ci].start == changes[ci].end == ls):
        ci += 1
    j = ci
    while j < len(changes) and changes[j].start <= le:
        c = changes[j]
        if c.start == c.end:  # a deletion: a marker where the text was
            if c.start >= pos and (c.start < le or c.start == le == len(data)):
                out.append(hl.html(pos, c.start))
                out.append(t["del"](title=f"{c.rule}: removed {c.before}"))
                pos = c.start
            j += 1
            continue
        s, e = max(c.start, pos), min(c.end, le)
        if s < e:
            out.append(hl.html(pos, s))
            title = f"{c.rule}: was {c.before}" if c.before else c.rule
            out.append(t["ins"](title=title, text=data[s:e].decode("utf-8", "replace")))
            pos = e
        if c.end > le:
            break
        j += 1
    out.append(hl.html(pos, le))
    return "".join(out), ci


def _side_by_side(orig: bytes, data: bytes, hunks: list[Hunk]) -> str:
    """Original and port in two columns, row by row: unchanged lines pair up, and the lines
    of each rewritten stretch sit beside the lines they became (blank where one side has
    fewer)."""
    t = templates()["sbs_row"]
    ho, hp = Highlighter(orig), Highlighter(data)
    ostarts, pstarts = line_starts(orig), line_starts(data)

    def count(starts: Sequence[int], blob: bytes) -> int:
        n = len(starts) - (1 if blob.endswith(b"\n") or not blob else 0)
        return max(n, 1 if blob else 0)

    no, np_ = count(ostarts, orig), count(pstarts, data)

    def code(h: Highlighter, starts: Sequence[int], blob: bytes, n: int | None) -> str:
        if n is None:
            return ""
        s = starts[n - 1]
        e = starts[n] - 1 if n < len(starts) else len(blob)
        return h.html(s, e)

    rows: list[str] = []

    def row(o: int | None, p: int | None, cls: str) -> None:
        rows.append(t(cls=cls, on="" if o is None else o, pn="" if p is None else p,
                      ocode=Safe(code(ho, ostarts, orig, o)), pcode=Safe(code(hp, pstarts, data, p))))

    o = p = 1
    for h in sorted(hunks, key=lambda h: (h.c, h.a)):
        while o < h.a and p < h.c and o <= no and p <= np_:
            row(o, p, "")
            o, p = o + 1, p + 1
        for k in range(o, min(h.a, no + 1)):  # the two sides out of step (should not happen): each alone
            row(k, None, "")
        for k in range(p, min(h.c, np_ + 1)):
            row(None, k, "")
        o, p = max(o, h.a), max(p, h.c)
        olines = list(range(h.a, h.b + 1))
        plines = list(range(h.c, h.d + 1))
        for k in range(max(len(olines), len(plines))):
            row(olines[k] if k < len(olines) else None, plines[k] if k < len(plines) else None, "chg")
        o, p = max(o, h.b + 1), max(p, h.d + 1)
    while o <= no or p <= np_:
        row(o if o <= no else None, p if p <= np_ else None, "")
        o, p = o + 1, p + 1
    return "\n".join(rows)


def _finding_html(v: FindingView, t: dict[str, Tpl]) -> str:
    f = v.finding
    fix = ""
    if f.fix is not None:
        edits = "".join(t["fix_edit"](line=e.span.line if e.span else "?",
                                      column=e.span.column if e.span else "?",
                                      replacement=e.replacement or "(remove)")
                        for e in f.fix.edits)
        state = " (applied)" if v.applied else " (not applied)"
        fix = t["fix"](applicability=f.fix.applicability.value, title=f.fix.title, state=state,
                       edits=Safe(edits))
    kernel = ""
    if f.kernel:
        kernel = f" · kernel {f.kernel}" + (f" ({f.model})" if f.model else "")
    doc = v.doc
    pos = f"line {v.line}, column {f.span.column}"
    if v.line != f.span.line:
        pos += f" (line {f.span.line} of the original)"
    return t["finding"](severity=f.severity.value, idx=v.index, rule=f.rule,
                        rule_page=rule_page(f.rule), pos=pos,
                        kernel=kernel, message=f.message,
                        summary=(doc.summary if doc and doc.summary else ""),
                        rule_name=(doc.name if doc else f.rule), fix=Safe(fix))


def render_file(fd: FileData) -> tuple[str, dict[int, int]]:
    """The page of one file; also returns finding index -> ported line (anchors)."""
    t = templates()
    r = fd.result
    orig = r.original or b""
    data = r.ported if r.ported is not None else orig
    al = align(r)
    views = prepare_findings(r, al)
    anchors = {v.index: v.line for v in views}
    by_line: dict[int, list[FindingView]] = {}
    for v in views:
        by_line.setdefault(v.line, []).append(v)
    cls_of: dict[int, str] = {}
    for v in views:
        if v.finding.rule in PERSON_RULES:
            cls_of[v.line] = "unsup"
        else:
            cls_of.setdefault(v.line, "warn")
    hunk_at = {h.c: h for h in al.hunks}
    removed_before = {h.c: h for h in al.hunks if h.d < h.c}
    changed_lines: set[int] = set()
    for h in al.hunks:
        changed_lines.update(range(h.c, h.d + 1))
    ostarts = line_starts(orig)
    pstarts = line_starts(data)
    nlines = len(pstarts) - (1 if data.endswith(b"\n") or not data else 0)
    nlines = max(nlines, 1 if data else 0)

    def orig_rows(h: Hunk) -> str:
        rows = []
        for n in range(h.a, h.b + 1):
            s = ostarts[n - 1]
            e = ostarts[n] - 1 if n < len(ostarts) else len(orig)
            rows.append(t["orig_line"](n=n, code=orig[s:e].decode("utf-8", "replace")))
        return "\n".join(rows)

    line_t = t["line"]
    hl = Highlighter(data)
    out: list[str] = []
    ci = 0
    changes = al.changes
    for n in range(1, nlines + 1):
        if n in hunk_at or n in removed_before:
            out.append(orig_rows(hunk_at.get(n) or removed_before[n]))
        ls = pstarts[n - 1]
        le = pstarts[n] - 1 if n < len(pstarts) else len(data)
        code, ci = _segments(data, ls, le, changes, ci, hl)
        cls = cls_of.get(n, "")
        if n in changed_lines:
            cls = (cls + " chg").strip()
        out.append(line_t(n=n, cls=cls, code=Safe(code)))
        for v in by_line.get(n, ()):
            out.append(_finding_html(v, t))
    for v in views:  # findings past the end (should not happen): still shown
        if v.line > nlines:
            out.append(_finding_html(v, t))
    # Stats, family table and a list of findings at the top.
    row = fd.row
    stats = "".join(t["stat"](value=v, label=k) for k, v in (
        ("status", row.status), ("CUDA references", row.found), ("ported", row.ported),
        ("unported", row.unsupported), ("auto", _pct(row.ported, row.found)),
        ("edits", row.changes), ("wave64 findings", row.wave), ("other findings", row.api)))
    fam_rows = "".join(t["family_row"](name=k, found=c.found, ported=c.ported, unsupported=c.unsupported)
                       for k, c in sorted(r.families.items()))
    families = t["families"](rows=Safe(fam_rows)) if fam_rows else ""
    if views:
        items = "".join(t["finding_item"](severity=v.finding.severity.value, line=v.line,
                                          rule=v.finding.rule, rule_page=rule_page(v.finding.rule),
                                          message=v.finding.message) for v in views)
        flist = t["finding_list"](n=len(views), items=Safe(items))
    else:
        flist = t["no_findings"]()
    prev_link = t["prev_link"](page=fd.prev[0], path=fd.prev[1]) if fd.prev else t["prev_none"]()
    next_link = t["next_link"](page=fd.next[0], path=fd.next[1]) if fd.next else t["next_none"]()
    content = t["file"](prev_link=prev_link, next_link=next_link, stats=t["stats"](items=Safe(stats)),
                        families=Safe(families), finding_list=flist,
                        lines=Safe("\n".join(out)),
                        side_by_side=Safe(_side_by_side(orig, data, al.hunks) if r.ported is not None else ""))
    out_path = f" → {r.output_path}" if r.output_path and r.output_path != r.path else ""
    sub = t["file_sub"](role=r.role, output=out_path)
    return _page(f"{r.path} · hipport report", r.path, content, "file", sub), anchors


def render_markdown(text: str) -> str:
    """Rule docs as HTML: CommonMark and tables by markdown-it-py, raw HTML off (shown as
    text), headings one level down (the page has its own h1), links only to rule pages,
    http(s) and anchors; any other link is its label alone."""
    return _markdown().render(text, {"links": []}).rstrip("\n")


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "langPrefix": "lang-"}).enable("table")

    def heading_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        level = min(6, int(tokens[idx].tag[1]) + 1)
        return f"<h{level}>"

    def heading_close(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return f"</h{min(6, int(tokens[idx].tag[1]) + 1)}>\n"

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        href = _link(str(tokens[idx].attrGet("href") or ""))
        env["links"].append(href is not None)
        return f'<a href="{esc(href)}">' if href is not None else ""

    def link_close(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return "</a>" if env["links"].pop() else ""

    for name, fn in (("heading_open", heading_open), ("heading_close", heading_close),
                     ("link_open", link_open), ("link_close", link_close)):
        md.add_render_rule(name, fn)
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # _link decides
    return md


_RULE_LINK = re.compile(r"^(?:\.\./)?(?:(?:wave64|docs)/)?([A-Z]{1,3}\d{3})\.md(#[\w-]*)?$")


def _link(url: str) -> str | None:
    url = url.strip()
    m = _RULE_LINK.match(url)
    if m:
        return rule_page(m.group(1)) + (m.group(2) or "")
    if re.match(r"^(https?://|#)", url):
        return url
    return None  # anything else (javascript:, data:, relative files) becomes plain text


def _sites_html(sites: list[Site]) -> str:
    t = templates()["site"]
    items = []
    for s in sites[:MAX_SITES]:
        href = f"{s.page}#t{s.anchor}" if s.page else "index.html"
        items.append(t(href=href, path=s.path, line=s.line, message=s.finding.message))
    more = templates()["more_sites"](n=f"{len(sites) - MAX_SITES:,}") if len(sites) > MAX_SITES else ""
    return "".join(items) + more


def render_rule(doc: registry.Rule, sites: list[Site]) -> str:
    t = templates()
    body = _sites_html(sites)
    sites_html = t["sites"](items=Safe(body)) if sites else t["no_sites"]()
    content = t["rule"](rule_id=doc.id, rule_name=doc.name,
                        count=f"{len(sites):,} finding{'s' if len(sites) != 1 else ''}",
                        doc=Safe(render_markdown(doc.text)), sites=Safe(sites_html))
    return _page(f"{doc.id} {doc.name} · hipport report", f"{doc.id}: {doc.name}", content, "rule")


def render_rules(docs: dict[str, registry.Rule], counts: dict[str, int]) -> str:
    t = templates()
    rows = "\n".join(t["rule_row"](page=rule_page(d.id), rule=d.id, name=d.name,
                                   count=counts.get(d.id, 0), summary=d.summary)
                     for d in docs.values())
    return _page("Rules · hipport report", "Rules", t["rules"](rows=Safe(rows)), "rules")


def render_effort(items: list[EffortItem]) -> str:
    t = templates()
    rows = []
    for it in items:
        rows.append(t["effort_row"](rule_page=rule_page(it.rule), title=it.title,
                                    kind=f"{it.kind} ({it.rule})", sites=len(it.sites),
                                    files=it.files, nsites=f"{len(it.sites):,}",
                                    items=Safe(_sites_html(it.sites))))
    nsites = sum(len(i.sites) for i in items)
    summary_text = (f"{len(items):,} items, {nsites:,} sites." if items
                    else "Nothing is left: every site was ported automatically.")
    content = t["effort"](rows=Safe("\n".join(rows)), nitems=f"{len(items):,}",
                          summary=summary_text)
    return _page("Effort · hipport report", "What is left for a person", content, "effort")


# ---------------------------------------------------------------------------- writing


@dataclass
class WriteStats:
    index: Path
    written: list[str] = field(default_factory=list)  # file pages rendered this time
    reused: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def _write_if_changed(path: Path, text: str | bytes) -> bool:
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass
    from hipport.workspace import write_atomic

    write_atomic(str(path), data)
    return True


def _read_status(out: Path) -> dict[str, Any]:
    try:
        st = json.loads((out / STATUS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(st, dict) or st.get("format") != FORMAT or st.get("version") != __version__ \
            or st.get("globals") != globals_hash() or not isinstance(st.get("files"), dict):
        return {}
    return st


def _sites(pages: list[FileData], anchors: dict[str, dict[int, int]]) -> dict[str, list[Site]]:
    out: dict[str, list[Site]] = {}
    for fd in pages:
        a = anchors.get(fd.page, {})
        for i, f in enumerate(fd.result.findings):
            out.setdefault(f.rule, []).append(Site(fd.result.path, fd.page, f.span.line,
                                                   a.get(i, f.span.line), f))
    return out


def _owned(out: Path) -> set[str]:
    """The pages a previous report here wrote (whatever its version): the only files that
    may be deleted as stale."""
    try:
        st = json.loads((out / STATUS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    pages = st.get("pages") if isinstance(st, dict) else None
    if not isinstance(pages, list):
        return set()
    return {p for p in pages if isinstance(p, str) and (PAGE_RE.match(p) or RULE_PAGE_RE.match(p))}


class NotReportFolder(Exception):
    """The output folder holds files that no hipport report wrote."""


def check_folder(out_dir: Path | str, inputs: list[Path]) -> Path:
    """The report folder's real path, before anything is written; exit 2 (HipportError)
    when it holds an input or someone else's files."""
    from hipport.errors import HipportError

    out = Path(os.path.realpath(out_dir))
    for p in inputs:  # the report may sit inside an input (it is skipped), never hold one
        if Path(os.path.realpath(p)).is_relative_to(out):
            raise HipportError(f"the report folder holds the input {p}; choose a folder "
                               "outside the inputs", out_dir)
    try:
        _refuse_foreign(out)
    except NotReportFolder as e:
        raise HipportError(str(e)) from None
    return out


def _refuse_foreign(out: Path) -> None:
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise NotReportFolder(f"{out} is not a folder")
    if out.is_dir() and not (out / MARKER).is_file() and any(out.iterdir()):
        raise NotReportFolder(f"{out} is not empty and no hipport report was written there; "
                              "choose a new or empty folder")


def claim(out: Path) -> None:
    """Make `out` a report folder, or refuse one that holds someone else's files."""
    _refuse_foreign(out)
    out.mkdir(parents=True, exist_ok=True)
    if not (out / MARKER).is_file():
        _write_if_changed(out / MARKER, "This folder holds a hipport report; hipport may "
                          "rewrite or delete the report files it lists in status.json.\n")
        _write_if_changed(out / ".gitignore", "# Created by hipport: the report is generated.\n*\n")


def write(run: RunResult, out_dir: Path | str, progress: Callable[..., None] | None = None) -> Path:
    """Write (or bring up to date) the report in `out_dir`; returns the index path."""
    return write_report(run, Path(out_dir), progress).index


def write_report(run: RunResult, out: Path, progress: Callable[..., None] | None = None) -> WriteStats:
    """`progress(done, total, current)`: told after each file page (the UI's progress bar;
    on 2,000 files the pages take seconds)."""
    claim(out)
    owned = _owned(out)
    stats = WriteStats(out / "index.html")
    old = _read_status(out).get("files", {})
    rows, pages = prepare_files(run)
    anchors: dict[str, dict[int, int]] = {}
    status_files: dict[str, Any] = {}
    for n, fd in enumerate(pages, 1):
        if progress is not None:
            progress(n - 1, len(pages), fd.result.path)
        prev = old.get(fd.page)
        target = out / fd.page
        if (isinstance(prev, dict) and prev.get("key") == fd.key and target.is_file()
                and isinstance(prev.get("anchors"), dict)):
            anchors[fd.page] = {int(k): int(v) for k, v in prev["anchors"].items()}
            stats.reused.append(fd.page)
        else:
            text, anchors[fd.page] = render_file(fd)
            _write_if_changed(target, text)
            stats.written.append(fd.page)
        status_files[fd.page] = {"path": fd.result.path, "key": fd.key,
                                 "anchors": {str(k): v for k, v in anchors[fd.page].items()}}
    if progress is not None:
        progress(len(pages), len(pages), "rule, effort and index pages")
    docs = dict(registry.rules())
    sites = _sites(pages, anchors)
    for rule in sites:
        if rule not in docs:  # a rule the docs do not know yet still gets a page
            docs[rule] = registry.Rule(rule, rule, "", None)
    effort = prepare_effort(pages, anchors)
    keep = {fd.page for fd in pages} | {rule_page(r) for r in docs}
    for doc in docs.values():
        _write_if_changed(out / rule_page(doc.id), render_rule(doc, sites.get(doc.id, [])))
    counts = {k: len(v) for k, v in sites.items()}
    _write_if_changed(out / "rules.html", render_rules(docs, counts))
    _write_if_changed(out / "effort.html", render_effort(effort))
    for name, data in ((CSS_NAME, assets()["report.css"]), (JS_NAME, assets()["report.js"])):
        _write_if_changed(out / name, data)
    for name in sorted(owned - keep):
        try:
            (out / name).unlink()
        except FileNotFoundError:
            continue
        stats.removed.append(name)
    _write_if_changed(out / "index.html", render_index(run, rows, effort))
    status = {"format": FORMAT, "version": __version__, "globals": globals_hash(),
              "files": status_files, "pages": sorted(keep)}
    _write_if_changed(out / STATUS_FILE, json.dumps(status, indent=1, sort_keys=True) + "\n")
    return stats


__all__ = ["write", "write_report", "render_markdown", "page_name", "prepare_files", "align",
           "Safe", "esc", "Tpl", "templates"]
