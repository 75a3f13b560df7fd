"""The report in a real browser (headless Chromium): it loads from disk, the probe stays text,
and the JS filters and sorts (from the URL fragment, and from clicks and typing)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from hipport.model import RunResult
from hipport.report import html
from tests.report.conftest import Chromium, keep_artifact
from tests.report.dom import Node, parse
from tests.report.synth import make_file, make_run

pytestmark = pytest.mark.browser


@pytest.fixture
def report(tmp_path: Path) -> tuple[RunResult, Path]:
    run = make_run(12)
    # Vary the sizes so that sorting by reference count has something to do.
    run = run.with_files([make_file(r.path, blocks=1 + (i * 5) % 12, seed=i, probe=(i == 0)) if i < 12 else r
                          for i, r in enumerate(run.files)])
    out = tmp_path / "report"
    html.write(run, out)
    return run, out


def _rows(doc: Node) -> list[Node]:
    return doc.by_id("file-table").find("tbody").find_all("tr")


def _visible(doc: Node) -> list[str]:
    return [r.find("td").text for r in _rows(doc) if "hidden" not in r.classes]


def test_index_loads_with_its_script(report: tuple[RunResult, Path], chromium: Chromium,
                                     tmp_path: Path) -> None:
    run, out = report
    doc = parse(chromium.dump_dom((out / "index.html").as_uri()))
    body = doc.find("body")
    assert body.get("data-js") == "ready"  # our JS ran (the CSP lets our own file run)
    paged = len([r for r in run.files if html._has_page(r)])  # skipped/failed: own sections
    assert body.get("data-shown") == str(paged)
    assert doc.by_id("shown").text == f"{paged} of {paged} files"
    assert doc.find("title").text == "hipport porting report"
    rows = _rows(doc)
    assert [r.find("td").text for r in rows] == [r.path for r in run.files if html._has_page(r)]
    for a in doc.by_id("file-table").find_all("a"):
        assert (out / a.get("href")).is_file()
    shot = chromium.screenshot((out / "index.html").as_uri(), tmp_path / "report-index.png")
    keep_artifact(shot)
    assert shot.stat().st_size > 10_000


def test_file_page_probe_is_inert(report: tuple[RunResult, Path], chromium: Chromium,
                                  tmp_path: Path) -> None:
    run, out = report
    page = out / html.page_name(run.files[0].path)
    dom = chromium.dump_dom(page.as_uri())
    doc = parse(dom)
    assert doc.find("body").get("data-js") == "ready"
    assert doc.find("title").text == f"{run.files[0].path} · hipport report"  # not "pwned" or "1"
    assert len(doc.find_all("script")) == 1 and not doc.find_all("img") and not doc.find_all("b")
    code = [doc.by_id(f"t{n}").find("code").text for n in (4, 5)]
    assert code[0].startswith('// </script><script>document.title="pwned"</script> <img src=x')
    assert code[1] == "// {{ x }} {% if y %} $title ${content} &amp; <b>bold</b>"
    n_lines = run.files[0].ported.count(b"\n")
    assert len(doc.find_all("div", cls="ln")) == n_lines + len(doc.find_all("div", cls="orig"))
    assert len(doc.find_all("div", cls="finding")) == len(run.files[0].findings)
    shot = chromium.screenshot(page.as_uri(), tmp_path / "report-file.png")
    keep_artifact(shot)


def test_fragment_filters_and_sorts(report: tuple[RunResult, Path], chromium: Chromium) -> None:
    run, out = report
    index = (out / "index.html").as_uri()
    doc = parse(chromium.dump_dom(index + "#filter=mod1"))
    want = [r.path for r in run.files if "mod1" in r.path]
    assert _visible(doc) == want and len(want) == 2
    assert doc.by_id("shown").text == f"2 of {len([r for r in run.files if html._has_page(r)])} files"
    assert doc.by_id("filter").get("value") is None  # set as a property; check rows instead
    # Hide files with nothing left to do (skipped and unchanged ones here).
    doc = parse(chromium.dump_dom(index + "#hide=1"))
    assert set(_visible(doc)) == {r.path for r in run.files if html._has_page(r)} - {"src/plain.cu"}
    # Sort by reference count, largest first; ties keep the table order.
    doc = parse(chromium.dump_dom(index + "#sort=found&dir=desc"))
    found = [int(r.find_all("td")[2].text) for r in _rows(doc)]
    assert found == sorted(found, reverse=True) and len(set(found)) > 3
    th = doc.by_id("file-table").find("thead").find_all("th")
    assert th[2].get("aria-sort") == "descending" and th[0].get("aria-sort") is None
    doc = parse(chromium.dump_dom(index + "#sort=path&dir=desc&filter=src/"))
    paths = _visible(doc)
    assert paths == sorted((r.path for r in run.files if "src/" in r.path and html._has_page(r)),
                           key=str.lower, reverse=True)
    # Auto % sorts by number, files without references last when ascending? first: -1.
    doc = parse(chromium.dump_dom(index + "#sort=pct&dir=asc"))
    pcts = [float(r.find_all("td")[5].get("data-v")) for r in _rows(doc)]
    assert pcts == sorted(pcts)


def test_effort_page_filters(report: tuple[RunResult, Path], chromium: Chromium) -> None:
    _, out = report
    doc = parse(chromium.dump_dom((out / "effort.html").as_uri() + "#filter=hp001"))
    rows = doc.by_id("effort-table").find("tbody").find_all("tr")
    shown = [r for r in rows if "hidden" not in r.classes]
    assert len(rows) > 3 and len(shown) == 1
    assert shown[0].find("td").text == "cudaGraphExecNodeSetParams"


HARNESS = """
(function () {
  var t = document.getElementById("file-table");
  var refs = t.tHead.rows[0].cells[2];
  refs.click();  // numbers sort largest first on the first click
  var first = Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[2].textContent; });
  refs.click();  // then smallest first
  var second = Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[2].textContent; });
  var box = document.getElementById("filter");
  box.value = "MOD2";
  box.dispatchEvent(new Event("input"));
  var out = document.createElement("pre");
  out.id = "harness";
  out.textContent = JSON.stringify({first: first, second: second, hash: location.hash,
    shown: document.getElementById("shown").textContent});
  document.body.appendChild(out);
})();
"""


def test_clicks_and_typing(report: tuple[RunResult, Path], chromium: Chromium) -> None:
    """A copy of the index with a harness script that clicks a header and types a filter."""
    import json

    run, out = report
    page = (out / "index.html").read_text()
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    page = page.replace("</body>", '<script src="harness.js" defer></script></body>')
    (out / "harness.html").write_text(page)
    (out / "harness.js").write_text(HARNESS)
    try:
        doc = parse(chromium.dump_dom((out / "harness.html").as_uri()))
    finally:
        (out / "harness.html").unlink()
        (out / "harness.js").unlink()
    res = json.loads(doc.by_id("harness").text)
    first = [int(x.replace(",", "")) for x in res["first"]]
    second = [int(x.replace(",", "")) for x in res["second"]]
    assert first == sorted(first, reverse=True) and second == sorted(second)
    assert res["hash"] == "#filter=mod2&sort=found&dir=asc"
    assert res["shown"] == f"2 of {len([r for r in run.files if html._has_page(r)])} files"


def test_chromium_is_there_when_ci_says_so() -> None:
    """scripts/setup.sh installs chromium; on CI its absence is a setup bug, not a skip."""
    import os

    if os.environ.get("CI") and shutil.which("chromium") is None:
        pytest.fail("CI=true but chromium is not installed")


FILE_HARNESS = """
(function () {
  var orig = document.querySelector(".ln.orig");
  var before = getComputedStyle(orig).display;
  var box = document.getElementById("show-orig");
  box.click();
  var after = getComputedStyle(orig).display;
  var only = document.getElementById("only-marked");
  only.click();
  var plain = document.querySelector(".ln:not(.chg):not(.warn):not(.unsup):not(.orig)");
  var out = document.createElement("pre");
  out.id = "harness";
  out.textContent = JSON.stringify({before: before, after: after, body: document.body.className,
    plain: getComputedStyle(plain).display});
  document.body.appendChild(out);
})();
"""


def test_file_page_toggles(report: tuple[RunResult, Path], chromium: Chromium) -> None:
    """The original lines are hidden until 'show original lines' is ticked; 'only changed or
    flagged lines' hides the rest."""
    import json

    run, out = report
    page = (out / html.page_name(run.files[1].path)).read_text()
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    page = page.replace("</body>", '<script src="harness.js" defer></script></body>')
    (out / "harness.html").write_text(page)
    (out / "harness.js").write_text(FILE_HARNESS)
    try:
        res = json.loads(parse(chromium.dump_dom((out / "harness.html").as_uri())).by_id("harness").text)
    finally:
        (out / "harness.html").unlink()
        (out / "harness.js").unlink()
    assert res["before"] == "none" and res["after"] == "flex"
    assert set(res["body"].split()) == {"show-orig", "only-marked"}
    assert res["plain"] == "none"


def test_file_page_filters_findings_by_severity_and_rule(tmp_path: Path, chromium: Chromium) -> None:
    from dataclasses import replace

    from hipport.model import Severity
    from tests.report.conftest import file_result

    text = "int a = lane & 31;\nint b = __shfl(v, 1);\nint c = cudaFoo();\nint d = __ballot(p);\n"
    r = file_result("src/k.cu", text, findings=[("lane & 31", "W004", "lane"), ("__shfl", "W016", "width"),
                                                 ("cudaFoo", "HP002", "unknown"), ("__ballot", "W002", "mask")])
    sev = [Severity.INFO, Severity.WARNING, Severity.WARNING, Severity.ERROR]
    r = replace(r, findings=[replace(f, severity=s) for f, s in zip(r.findings, sev, strict=True)])
    out = tmp_path / "rep"
    html.write(RunResult([r]), out)
    uri = (out / html.page_name(r.path)).as_uri()

    def shown(fragment: str) -> list[str]:
        doc = parse(chromium.dump_dom(uri + fragment))
        return [d.get("data-rule") for d in doc.find_all("div", cls="finding") if "hidden" not in d.attrs]

    assert shown("") == ["W004", "W016", "HP002", "W002"]
    assert shown("#sev=warning") == ["W016", "HP002", "W002"]
    assert shown("#sev=error") == ["W002"]
    assert shown("#rule=w0") == ["W004", "W016", "W002"]
    assert shown("#sev=warning&rule=HP") == ["HP002"]
    doc = parse(chromium.dump_dom(uri + "#sev=error"))
    assert doc.by_id("findings-shown").text == "1 of 4 findings"


@pytest.mark.slow
def test_a_five_thousand_file_report_stays_usable(tmp_path: Path, chromium: Chromium) -> None:
    """5,000 files (issue 18): the index loads with its script, lists every file with a page that
    exists, the headline counts them all, and a filter from the fragment finds one file among
    them; per-file data stays on the file pages, so the index stays small."""
    run = make_run(5000, blocks=1, probe_at=None)
    out = tmp_path / "report"
    html.write(run, out)
    index = out / "index.html"
    assert index.stat().st_size < 3 * 1024 * 1024  # about 240 bytes a file
    paged = [r.path for r in run.files if html._has_page(r)]
    doc = parse(chromium.dump_dom(index.as_uri()))
    body = doc.find("body")
    assert body.get("data-js") == "ready" and body.get("data-shown") == str(len(paged))
    assert doc.by_id("shown").text == f"{len(paged)} of {len(paged)} files"
    rows = _rows(doc)
    assert [r.find("td").text for r in rows] == paged
    for a in rows[::997]:  # spot checks across the table: the links lead to written pages
        assert (out / a.find("a").get("href")).is_file()
    doc = parse(chromium.dump_dom(index.as_uri() + "#filter=kernels_4321.cu"))
    assert _visible(doc) == [p for p in paged if p.endswith("/kernels_4321.cu")]
    shot = chromium.screenshot(index.as_uri(), tmp_path / "report-5000.png")
    keep_artifact(shot)
    assert shot.stat().st_size > 10_000
