"""The HTML report without a browser: page names, escaping, marks, alignment, effort, pages."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from hipport import registry
from hipport.model import Applicability, Edit, FileStatus, Fix, RunResult, applied_fixes
from hipport.report import html
from hipport.report.headline import headline
from tests.report.conftest import file_result
from tests.report.dom import parse
from tests.report.synth import PROBE, make_run


def _page_of(out: Path, path: str) -> Path:
    return out / html.page_name(path)


def test_page_names_are_flat_and_collision_free() -> None:
    a, b = html.page_name("lib/a/util.cu"), html.page_name("lib/b/util.cu")
    assert a != b
    for name in (a, b, html.page_name("top.cuh"), html.page_name("/abs/x y/kernel.v2.cu")):
        assert html.PAGE_RE.match(name), name
    assert a.endswith("_util_cu.html") and a.startswith("z_")
    assert html.page_name("lib/a/util.cu") == a  # stable across runs


def test_layout_of_the_report(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    index = html.write(run12, out)
    assert index == out / "index.html"
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "effort.html", "rules.html", "status.json", ".gitignore",
            html.CSS_NAME, html.JS_NAME} <= names
    pages = {r.path: _page_of(out, r.path) for r in run12.files
             if r.status in (FileStatus.PORTED, FileStatus.UNCHANGED)}
    assert all(p.is_file() for p in pages.values())
    assert len([n for n in names if html.PAGE_RE.match(n)]) == len(pages)
    for rule in registry.rules():
        assert (out / html.rule_page(rule)).is_file()
    # Nothing but our own assets is referenced: no network, no CDN.
    for p in out.glob("*.html"):
        text = p.read_text()
        assert not re.search(r"""(src|href)=["'](https?:)?//""", text), p.name


def test_index_totals_rows_and_links(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    doc = parse(html.write(run12, out).read_text())
    rows = doc.by_id("file-table").find("tbody").find_all("tr")
    links = [r.find("a") for r in rows if r.find("a")]
    assert len(rows) == len(links) == 15  # 12 + two util.cu + plain.cu: the files with pages
    for a in links:
        assert (out / a.get("href")).is_file()
    failed = doc.by_id("failed-files").find_all("li")
    assert [li.text for li in failed] == [f"{r.path}: internal error: <boom> & friends"
                                          for r in run12.files if r.status == FileStatus.FAILED]
    skipped = doc.by_id("skipped-files").find_all("li")
    assert len(skipped) == len(run12.files) - 15 - len(failed)
    assert "hipport" in doc.by_id("run-info").text
    refs = sum(c.found for r in run12.files for c in r.families.values())
    ported = sum(c.ported for r in run12.files for c in r.families.values())
    unsupported = sum(c.unsupported for r in run12.files for c in r.families.values())
    unknown = sum(1 for _, f in run12.findings if f.rule == "HP002")
    wave = sum(1 for _, f in run12.findings if f.rule.startswith("W"))
    card = {c.get("id"): c.find("span", cls="v").text for c in doc.find_all("div", cls="card")}
    # The headline first: files ready, as text, JSON and SARIF give it; API coverage second.
    assert list(card) == ["total-ready", "total-auto", "total-wave", "total-files"]
    h = headline(run12)
    assert card["total-ready"] == h.share and h.check in doc.by_id("total-ready").text
    assert doc.by_id("ready-files").text == f"{h.ready:,}" and h.ready < h.files
    assert doc.by_id("ready-person").text == f"{h.person:,}"
    assert doc.by_id("total-refs").text == f"{refs:,}"
    assert card["total-auto"] == f"{min(100 * ported / refs, 99.9):.1f}%"  # a shortfall is never 100%
    assert doc.by_id("total-person").text == f"{unsupported + unknown:,}"  # beside it
    assert card["total-wave"] == f"{wave:,}"
    assert card["total-files"] == "16"  # CUDA files: everything but docs/notes.txt
    # Wave64 table: per rule and severity, and the grand total.
    wt = doc.by_id("wave-table")
    body = {r.find("a").text: [td.text for td in r.find_all("td")[1:]] for r in wt.find("tbody").find_all("tr")}
    assert set(body) == {"W003", "W006"}
    assert int(body["W003"][-1]) + int(body["W006"][-1]) == wave
    # Charts: one bar per family and per folder, as SVG (no inline styles: the CSP forbids them).
    fam = doc.by_id("chart-family").find_all("div", cls="bar-row")
    assert [b.find("span", cls="label").text for b in fam] == ["runtime", "graph", "headers"]
    assert len(doc.by_id("chart-folder").find_all("svg")) == 10
    # Bars by share: the ported part's width is the row's ported share, whatever its count.
    for b in fam:
        ported, found = (int(x.replace(",", "")) for x in b.find("span", cls="num").text.split(" ")[0].split("/"))
        width = float(b.find("rect", cls="p").attrs["width"])
        assert abs(width - 100.0 * ported / found) < 0.01, (width, ported, found)
    assert all("style" not in n.attrs for n in doc.iter())


def test_index_rows_stay_small(tmp_path: Path) -> None:
    run = make_run(200)
    index = html.write(run, tmp_path / "rep")
    size = index.stat().st_size
    assert size / len(run.files) < 450, size  # per-file data lives on the file pages


def test_probe_is_escaped_everywhere(tmp_path: Path, run12: RunResult) -> None:
    """Source text with </script>, tags and template syntax renders as text and runs nothing."""
    nasty = "src/<script>alert(1)</script>/{{x}}$title.cu"
    f = file_result(nasty, "// </script><b>x</b> {% raw %} ${content} $heading\n"
                           "cudaFoo(1);\n",
                    edits=[("cudaFoo", "hipFoo</script>", "rename")],
                    findings=[("cudaFoo", "HP002", "cudaFoo <img src=x onerror=alert(1)> {{ y }}")])
    run12 = replace(run12, _files=(*run12.files, f),
                    validation={"status": "<script>bad()</script>", "runs": [{"name": "</td><script>"}]})
    out = tmp_path / "rep"
    html.write(run12, out)
    for p in out.glob("*.html"):
        text = p.read_text()
        scripts = re.findall(r"<script\b[^>]*>", text)
        assert scripts == [f'<script src="{html._asset_href(html.JS_NAME)}" defer>'], p.name
        assert "<img" not in text and "onerror=alert" not in text.replace("onerror=alert(1)&gt;", "")
        assert "<b>" not in text
    page = _page_of(out, nasty).read_text()
    assert "// &lt;/script&gt;&lt;b&gt;x&lt;/b&gt; {% raw %} ${content} $heading" in page
    assert "hipFoo&lt;/script&gt;" in page
    assert "cudaFoo &lt;img src=x onerror=alert(1)&gt; {{ y }}" in page
    first = _page_of(out, run12.files[0].path).read_text()
    for line in PROBE.splitlines():
        assert html.esc(line) in first
    index = (out / "index.html").read_text()
    assert html.esc(nasty) in index and "&lt;script&gt;bad()&lt;/script&gt;" in index


def test_every_page_has_a_strict_csp(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    html.write(run12, out)
    for p in out.glob("*.html"):
        assert "script-src 'self'; style-src 'self'" in p.read_text(), p.name


def test_changes_are_marked_and_findings_sit_at_their_line(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    html.write(run12, out)
    r = run12.files[1]
    doc = parse(_page_of(out, r.path).read_text())
    ins = doc.find_all("ins")
    assert len(ins) == len(r.edits)
    titles = {i.get("title") for i in ins}
    assert "rename: was cudaMalloc" in titles and "include: was cuda_runtime.h" in titles
    assert ins[0].text == "hip/hip_runtime.h"
    ported = r.ported.decode().splitlines()
    for n, line in enumerate(ported, 1):  # the page shows every ported line, in order
        assert doc.by_id(f"t{n}").find("code").text == line
    assert doc.by_id(f"t{len(ported) + 1}") is None
    for i, f in enumerate(r.findings):
        box = doc.by_id(f"f{i}")
        assert box is not None and f.message == box.find("p", cls="msg").text
        # The box follows its line (after any other boxes of the same line).
        prev = box
        while "finding" in prev.classes:
            prev = _previous(prev)
        assert prev.get("id") == f"t{f.span.line}"
        assert box.find("a", cls="rule").get("href") == html.rule_page(f.rule)
        if f.rule in registry.rules():
            assert registry.rules()[f.rule].summary in box.find("p", cls="why").text
    w3 = next(i for i, f in enumerate(r.findings) if f.rule == "W003")
    fix = doc.by_id(f"f{w3}").find("div", cls="fix")
    assert "review fix" in fix.text and "pass width 32" in fix.text and "(not applied)" in fix.text
    assert fix.find("code").text == ", 32"
    # Line classes: changed, flagged, needs a person.
    hp1 = next(f for f in r.findings if f.rule == "HP001")
    assert "unsup" in doc.by_id(f"t{hp1.span.line}").classes
    w6 = next(f for f in r.findings if f.rule == "W006")
    assert "warn" in doc.by_id(f"t{w6.span.line}").classes
    assert "chg" in doc.by_id("t1").classes and not doc.by_id("t2").classes - {"ln"}
    # The original of each changed line is there, for the toggle.
    origs = doc.find_all("div", cls="orig")
    assert origs[0].find("code").text == "#include <cuda_runtime.h>"
    assert origs[0].next_element().get("id") == "t1"


def _previous(node):  # the previous sibling element
    sibs = [c for c in node.parent.children if not isinstance(c, str)]
    return sibs[sibs.index(node) - 1]


def test_alignment_when_lines_are_added_and_removed(tmp_path: Path) -> None:
    text = "a();\nfoo();\nremove_me();\nb();\nbar();\n"
    f = file_result("x.cu", text,
                    edits=[("foo();", "x();\ny();", "split"), ("remove_me();\n", "", "drop")],
                    findings=[("bar", "HP001", "bar has no HIP equivalent"),
                              ("a()", "W004", "lane")])
    run = RunResult([f])
    out = tmp_path / "rep"
    html.write(run, out)
    doc = parse(_page_of(out, "x.cu").read_text())
    assert [doc.by_id(f"t{n}").find("code").text for n in range(1, 6)] == \
        ["a();", "x();", "y();", "b();", "bar();"]
    hp1 = next(n for n in doc.find_all("div", cls="finding") if "HP001" in n.text)
    assert _previous(hp1).get("id") == "t5"
    assert "line 5, column 1 (line 5 of the original)" not in hp1.text  # same line number
    assert "unsup" in doc.by_id("t5").classes
    # Original lines 2-3 became ported lines 2-3 (one split, one removed).
    origs = doc.find_all("div", cls="orig")
    assert [o.find("code").text for o in origs] == ["foo();", "remove_me();"]
    assert {"chg"} <= doc.by_id("t2").classes and "chg" in doc.by_id("t3").classes
    assert "chg" not in doc.by_id("t4").classes
    # A finding after an added line reports both positions.
    g = file_result("y.cu", "foo();\nbar();\n", edits=[("foo();", "x();\ny();", "split")],
                    findings=[("bar", "HP001", "bar has no HIP equivalent")])
    html.write(RunResult([g]), out)
    box = parse(_page_of(out, "y.cu").read_text()).find("div", cls="finding")
    assert "line 3, column 1 (line 2 of the original)" in box.text
    assert _previous(box).get("id") == "t3"


def test_edits_that_disagree_with_the_bytes_fall_back_to_a_line_diff(tmp_path: Path) -> None:
    f = file_result("z.cu", "one\ntwo\nthree\n", findings=[("three", "HP001", "m")])
    f = replace(f, ported=b"one\nTWO\nextra\nthree\n", status=FileStatus.PORTED)  # edits not recorded
    out = tmp_path / "rep"
    html.write(RunResult([f]), out)
    doc = parse(_page_of(out, "z.cu").read_text())
    assert "chg" in doc.by_id("t2").classes and "chg" in doc.by_id("t3").classes
    assert _previous(doc.find("div", cls="finding")).get("id") == "t4"


def test_effort_groups_and_orders_what_is_left(tmp_path: Path, run12: RunResult) -> None:
    safe = file_result("safe.cu", "x & 31;\ny & 31;\n", findings=[
        ("x & 31", "W004", "lane"), ("y & 31", "W004", "lane")])
    e = Edit(0, 6, "x & 63", "W004")
    safe = replace(safe, findings=(replace(safe.findings[0], fix=Fix("t", Applicability.SAFE, (e,))),
                                   *safe.findings[1:]))
    safe = replace(safe, edits=[e], applied=applied_fixes([e], safe.findings))  # as the engine records it
    run12 = replace(run12, _files=(*run12.files, safe))
    out = tmp_path / "rep"
    html.write(run12, out)
    doc = parse((out / "effort.html").read_text())
    rows = doc.by_id("effort-table").find("tbody").find_all("tr")
    items = [(r.find_all("td")[0].text, r.find_all("td")[1].text, int(r.find_all("td")[2].text))
             for r in rows]
    counts = [n for _, _, n in items]
    assert counts == sorted(counts, reverse=True)
    by = {t: (k, n) for t, k, n in items}
    n_hp1 = sum(1 for _, f in run12.findings if f.rule == "HP001")
    assert by["cudaGraphExecNodeSetParams"] == ("unsupported API (HP001)", n_hp1)
    fancy = {f.message.split()[0] for _, f in run12.findings if f.rule == "HP002"}
    assert fancy and all(by[name][0] == "unknown name (HP002)" for name in fancy)
    # W003 (review fix, not applied) is left for a person; W004's applied fix is not, its other site is.
    w3 = next(t for t in by if t.startswith("W003"))
    assert by[w3][1] == sum(1 for _, f in run12.findings if f.rule == "W003")
    w4 = next(t for t in by if t.startswith("W004"))
    assert by[w4][1] == 1
    # Each site links to its line on its file page.
    first = rows[0].find("ul", cls="sites").find("a")
    page, anchor = first.get("href").split("#")
    assert (out / page).is_file() and parse((out / page).read_text()).by_id(anchor) is not None


def test_applied_review_fix_is_not_left_for_a_person(tmp_path: Path) -> None:
    text = "v = __shfl_down(v, 16);\n"
    f = file_result("k.cu", text, findings=[("__shfl_down(v, 16)", "W008", "width")])
    close = text.index(")")
    e = Edit(close, close, ", 32", "W008", priority=1)
    f = replace(f, findings=(replace(f.findings[0], fix=Fix("width 32", Applicability.REVIEW, (e,))),))
    f = replace(f, edits=[e], ported=text.replace("16)", "16, 32)").encode(), status=FileStatus.PORTED,
                applied=applied_fixes([e], f.findings))  # as the engine records it
    out = tmp_path / "rep"
    html.write(RunResult([f]), out)
    assert not parse((out / "effort.html").read_text()).by_id("effort-table").find("tbody").find_all("tr")
    assert "(applied)" in _page_of(out, "k.cu").read_text()


def test_rule_pages_render_docs_and_sites(tmp_path: Path, run12: RunResult,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    md = tmp_path / "W006.md"
    md.write_text("# W006: shuffle-loop-from-16\n\n## What it does\n\nFinds `x & 31` <script>x</script>.\n\n"
                  "## Example\n\n```cuda\nint lane = threadIdx.x & 31; // </code></pre><script>\n```\n\n"
                  "- one **bold**\n- two [more](W004.md) [bad](javascript:alert(1))\n")
    docs = dict(registry.rules())
    docs["W006"] = registry.Rule("W006", "shuffle-loop-from-16", "Finds lanes.", md)
    monkeypatch.setattr(registry, "rules", lambda: docs)
    out = tmp_path / "rep"
    html.write(run12, out)
    page = (out / "rule_W006.html").read_text()
    doc = parse(page).by_id("doc")
    assert doc.find("h2").text == "W006: shuffle-loop-from-16"
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    code = doc.find("pre").find("code")
    assert code.get("class") == "lang-cuda" and code.text.rstrip("\n").endswith("// </code></pre><script>")
    assert [li.text for li in doc.find("ul").find_all("li")] == ["one bold", "two more bad"]
    assert doc.find("a").get("href") == "rule_W004.html"
    assert len(doc.find_all("a")) == 1  # the javascript: link is text only
    sites = parse(page).by_id("sites").find_all("li")
    assert len(sites) == sum(1 for _, f in run12.findings if f.rule == "W006")
    # A rule the docs do not know still gets a page; the rules index lists counts.
    first = run12.files[0]
    new = type(first.findings[0])("W999", first.findings[0].severity, first.findings[0].span, "new rule")
    run12 = run12.with_files([replace(first, findings=(*first.findings, new)), *run12.files[1:]])
    html.write(run12, out)
    assert (out / "rule_W999.html").is_file()
    rules = parse((out / "rules.html").read_text()).by_id("rule-table").find("tbody").find_all("tr")
    counts = {r.find("a").text: r.find_all("td")[2].text for r in rules}
    assert counts["W999"] == "1" and counts["HP001"] == str(
        sum(1 for _, f in run12.findings if f.rule == "HP001"))


def test_markdown_is_commonmark_with_tables_and_safe_links() -> None:
    out = html.render_markdown("# T\n\npara *em* and `a<b` **b**\nmore\n\n1. x\n2. y\n\n"
                               "| a | b |\n|---|---|\n| `1` | <i> |\n\n> quote\n")
    flat = out.replace("\n", "")
    assert flat == ("<h2>T</h2><p>para <em>em</em> and <code>a&lt;b</code> <strong>b</strong>more</p>"
                    "<ol><li>x</li><li>y</li></ol>"
                    "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td><code>1</code></td>"
                    "<td>&lt;i&gt;</td></tr></tbody></table><blockquote><p>quote</p></blockquote>")
    assert html.render_markdown("[x](https://e.org/a?b=1&c=2)") == '<p><a href="https://e.org/a?b=1&amp;c=2">x</a></p>'
    assert html.render_markdown("[x](data:text/html,<script>)") == "<p>x</p>"
    assert html.render_markdown("[W6](../wave64/W006.md#fix)") == '<p><a href="rule_W006.html#fix">W6</a></p>'
    assert "<script" not in html.render_markdown("<script>alert(1)</script>")


def test_templates_escape_by_default() -> None:
    t = html.Tpl("<p title=\"$a\">$b $$ ${c}</p>")
    assert t(a='"><x', b="<b>", c=html.Safe("<i>ok</i>")) == \
        '<p title="&quot;&gt;&lt;x">&lt;b&gt; $ <i>ok</i></p>'
    with pytest.raises(KeyError):
        t(a=1, b=2)
    assert "line" in html.templates() and "index" in html.templates()


def test_markup_lives_in_the_templates() -> None:
    """html.py computes values; tags come from templates (the markdown renderer's own hooks
    aside), and every fragment is used, so a template edit is the one place markup changes."""
    code = Path(html.__file__).read_text(encoding="utf-8")
    tags = re.findall(r"</?(?:div|span|table|thead|tbody|tfoot|tr|td|th|ul|li|dl|dt|dd|p|section|h[1-6]"
                      r"|code|svg|nav)\b", code)
    assert tags == [], tags
    pages = {p.name.rsplit(".", 1)[0] for p in Path(html.__file__).parent.joinpath("templates").glob("*.html")}
    unused = [n for n in html.templates() if n not in pages and f'"{n}"' not in code]
    assert unused == [], unused


def test_validation_section(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    html.write(run12, out)
    assert parse((out / "index.html").read_text()).by_id("validation") is None
    run12 = replace(run12, validation={"gpu": "MI300X", "summary": {"pass": 3, "fail": 1},
                        "programs": [{"name": "argmax", "result": "PASS"},
                                     {"name": "ballot", "result": "fail", "detail": "lane 40"},
                                     {"name": "scan", "result": "unverified"}]})
    html.write(run12, out)
    v = parse((out / "index.html").read_text()).by_id("validation")
    badges = [b.text for b in v.find_all("span", cls="badge")]
    assert badges == ["PASS", "FAIL", "UNVERIFIED"]
    assert "MI300X" in v.text and "lane 40" in v.text


def test_validation_section_names_the_toolchains_and_shows_warnings(tmp_path: Path, run12: RunResult) -> None:
    """validate's `toolchains` (records) is a table and its `warnings` (text) a list."""
    out = tmp_path / "rep"
    run12 = replace(run12, validation={"failed": False,
                        "toolchains": [{"name": "hip-6.4", "hip_version": "6.4.43484", "root": "/opt/hipport/hip-6.4"}],
                        "warnings": ["hip-5.2 is HIP 5.2, older than the floor (--rocm 6.4) <b>"],
                        "errors": [{"file": "a.cu", "line": 3, "where": "hip-6.4 gfx90a"}]})
    html.write(run12, out)
    v = parse((out / "index.html").read_text()).by_id("validation")
    assert "hip-6.4" in v.text and "/opt/hipport/hip-6.4" in v.text and "hip-6.4 gfx90a" in v.text
    assert "older than the floor (--rocm 6.4) <b>" in v.text  # as text: escaped in the page
    assert "(--rocm 6.4) &lt;b&gt;" in (out / "index.html").read_text()


def test_incremental_rerender(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    first = html.write_report(run12, out)
    assert len(first.written) == 15 and not first.reused
    mtimes = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    again = html.write_report(run12, out)
    assert again.written == [] and len(again.reused) == 15
    # Nothing at all changed on disk: not even the index or status.json were rewritten.
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == mtimes
    # Change one file: only its page is rendered.
    from tests.report.synth import make_file
    files = list(run12.files)
    files[4] = make_file(files[4].path, blocks=2, seed=7)
    run12 = replace(run12, _files=tuple(files))
    third = html.write_report(run12, out)
    assert third.written == [html.page_name(run12.files[4].path)]
    status = json.loads((out / "status.json").read_text())
    assert status["version"] and status["globals"] == html.globals_hash()
    assert len(status["files"]) == 15
    # A page deleted by hand comes back.
    victim = out / html.page_name(run12.files[6].path)
    victim.unlink()
    assert html.write_report(run12, out).written == [victim.name]
    # Drop a file: its page goes; its neighbours' prev/next links change, so they re-render.
    gone = files.pop(8)
    run12 = replace(run12, _files=tuple(files))
    fourth = html.write_report(run12, out)
    assert fourth.removed == [html.page_name(gone.path)]
    assert not (out / html.page_name(gone.path)).exists()
    assert sorted(fourth.written) == sorted(html.page_name(run12.files[i].path) for i in (7, 8))
    assert len(json.loads((out / "status.json").read_text())["files"]) == 14


def test_globals_change_rerenders_everything(tmp_path: Path, run12: RunResult,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "rep"
    html.write_report(run12, out)
    monkeypatch.setattr(html, "__version__", "99.0")
    assert len(html.write_report(run12, out).written) == 15
    assert json.loads((out / "status.json").read_text())["version"] == "99.0"
    (out / "status.json").write_text("{not json")
    assert len(html.write_report(run12, out).written) == 15
    html.globals_hash.cache_clear()
    monkeypatch.setattr(html, "_package_files", lambda folder, real=html._package_files: {
        **real(folder), **({"extra.html": b"x"} if folder == "templates" else {})})
    try:
        assert len(html.write_report(run12, out).written) == 15
    finally:
        html.globals_hash.cache_clear()


def test_a_folder_of_someone_elses_files_is_refused(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.html").write_text("mine")
    with pytest.raises(html.NotReportFolder):
        html.write(run12, out)
    assert [p.name for p in out.iterdir()] == ["notes.html"]


def test_only_files_a_report_listed_are_removed(tmp_path: Path, run12: RunResult) -> None:
    out = tmp_path / "rep"
    html.write(run12, out)
    assert (out / html.MARKER).is_file() and (out / ".gitignore").is_file()
    (out / "notes.html").write_text("mine")
    page = next(p.name for p in out.glob("z_*.html"))
    (out / "z_0123456789abcdef_user.html").write_text("named like a page, never listed")
    html.write(RunResult([r for r in run12.files if html.page_name(r.path) != page]), out)
    assert (out / "notes.html").read_text() == "mine"
    assert (out / "z_0123456789abcdef_user.html").is_file()
    assert not (out / page).exists()  # the page of a file no longer in the run goes


@pytest.mark.slow
def test_a_thousand_files_render_in_seconds(tmp_path: Path) -> None:
    import time

    run = make_run(1000)
    out = tmp_path / "rep"
    t0 = time.perf_counter()
    first = html.write_report(run, out)
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = html.write_report(run, out)
    t_again = time.perf_counter() - t0
    assert len(first.written) == 1003 and again.written == []
    # benchmarks/report_speed.py measures ~2.5 s and ~0.5 s on a 2-core machine; leave room.
    assert t_first < 30 and t_again < 10 and t_again < t_first
    assert (out / "index.html").stat().st_size < 400_000
