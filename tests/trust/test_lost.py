"""Nothing is silently lost. A name that is not UTF-8 is written in every format as the file
system gives it (its bytes percent-encoded in URIs, `\\xff` in text), never a crash; a file
hipport cannot analyse is reported in every format, with exit 1 and every other file done.
Deep nesting is analysed (thousands of `#if`; hipport's walks no longer recurse per level), so
a file its walks cannot follow is made by a fault: the real CLI runs with its walk raising
RecursionError on one file, as a walk deeper than Python allows would.

Every run has `PYTHONIOENCODING=utf-8:strict`, as under a UTF-8 locale other than C.UTF-8:
a surrogate escape that reached stdout would end the run there."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import unquote_to_bytes, urljoin, urlparse

import jsonschema
import pytest

from hipport.model import FileResult, FileStatus, RunResult
from hipport.report import ViewOptions, github, sarif
from hipport.report.html import PAGE_RE
from tests.conftest import hipport, needs_hipcc
from tests.test_sarif import _errors, schema_validator
from tests.trust.conftest import KERNEL

STRICT = {"PYTHONIOENCODING": "utf-8:strict"}
ODD = b"odd\xff\xfe.cu"  # Latin-1 bytes in a name: not UTF-8
SHOWN = b"odd\\xff\\xfe.cu"  # how text shows it
URI = "src/odd%FF%FE.cu"
BROKEN = KERNEL.replace(b"cudaFree(d);", b"cudaFree(d); cudaNotAThing(d);")
# Loaded at start-up (sitecustomize) by the runs of the `deep_tree` tests: the passes' walk
# fails on deep.cu as one deeper than Python's recursion allows would, every time it is tried.
FAULT = """
import hipport.passes as passes

_walk = passes._port_bytes


def _fails_on_deep(display, *args, **kwargs):
    if display.endswith("deep.cu"):
        raise RecursionError("maximum recursion depth exceeded")
    return _walk(display, *args, **kwargs)


passes._port_bytes = _fails_on_deep
"""


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.Draft4Validator:
    return schema_validator()


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    p = hipport(*args, cwd=cwd, env={**STRICT, **(env or {})})
    assert b"Traceback" not in p.stderr and b"internal error" not in p.stderr, p.stderr.decode(errors="replace")
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def odd_tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)  # the repository top SARIF URIs are relative to
    (root / "src").mkdir()
    try:
        with open(os.path.join(os.fsencode(root / "src"), ODD), "wb") as f:
            f.write(BROKEN)
    except OSError as e:
        pytest.skip(f"this file system refuses a name that is not UTF-8 ({e.strerror})")
    (root / "src" / "plain.cu").write_bytes(KERNEL)
    return root


def odd_path(root: Path) -> bytes:
    return os.path.join(os.fsencode(root / "src"), ODD)


def _uri_target(base: str, uri: str) -> bytes:
    return unquote_to_bytes(urlparse(urljoin(base, uri)).path)


@pytest.mark.parametrize("cache", [["--no-cache"], []], ids=["no-cache", "cold-then-warm-cache"])
def test_a_name_that_is_not_utf8_in_every_lint_format(odd_tree: Path, sarif_validator, cache: list[str]) -> None:
    for _ in range(1 if cache else 2):  # the cache stores the name and answers with it again
        rc, out, _ = run("lint", ".", "--format", "text", *cache, cwd=odd_tree)
        assert rc == 1 and b"src/" + SHOWN + b":3:" in out and b"[HP002]" in out
        out.decode("utf-8")  # all of it UTF-8: the name's bytes are shown escaped

        rc, out, _ = run("lint", ".", "--format", "json", *cache, cwd=odd_tree)
        doc = json.loads(out)
        paths = {f["path"] for f in doc["findings"]}
        assert rc == 1 and {os.fsencode(p) for p in paths} == {b"src/" + ODD, b"src/plain.cu"}
        assert {os.fsencode(f["path"]) for f in doc["files"]} == {b"src/" + ODD, b"src/plain.cu"}

        rc, out, _ = run("lint", ".", "--format", "sarif", *cache, cwd=odd_tree)
        doc = json.loads(out)
        assert rc == 1 and _errors(sarif_validator, doc) == []
        sarif_run = doc["runs"][0]
        base = sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif_run["results"]}
        assert uris == {URI, "src/plain.cu"}
        assert _uri_target(base, URI) == odd_path(odd_tree)  # the URI names the file's own bytes
        assert sarif_run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]

        rc, out, _ = run("lint", ".", "--format", "github", *cache, cwd=odd_tree)
        assert rc == 1 and b"::warning file=src/" + SHOWN + b",line=3," in out
        out.decode("utf-8")


def test_a_name_that_is_not_utf8_in_every_port_mode(odd_tree: Path, tmp_path: Path) -> None:
    rc, out, err = run("port", ".", "--check", cwd=odd_tree)
    assert rc == 1 and b"src/" + SHOWN + b": would be changed" in err
    rc, out, _ = run("port", ".", "--diff", cwd=odd_tree)
    assert rc == 0 and b'+++ "b/src/odd\\377\\376.cu"\n' in out  # git's quoting of the bytes
    rc, out, _ = run("port", ".", "--diff", "--format", "json", cwd=odd_tree)
    assert rc == 0
    mirror = tmp_path / "mirror"
    rc, out, _ = run("port", ".", "-o", mirror, cwd=odd_tree)
    assert rc == 0 and b"src/" + SHOWN in out
    with open(os.path.join(os.fsencode(mirror / "src"), ODD), "rb") as f:
        assert b"hipFree(d)" in f.read()  # written under the same bytes
    rc, out, _ = run("port", ".", "--in-place", "--format", "json", cwd=odd_tree)
    assert rc == 0 and {os.fsencode(f["path"]) for f in json.loads(out)["files"]} >= {b"src/" + ODD}
    with open(odd_path(odd_tree), "rb") as f:
        assert b"hipFree(d)" in f.read()


def test_a_name_that_is_not_utf8_in_the_report(odd_tree: Path, tmp_path: Path) -> None:
    rep = tmp_path / "rep"
    rc, out, _ = run("report", ".", "-o", rep, cwd=odd_tree)
    assert rc == 0 and out == os.fsencode(rep / "index.html") + b"\n"
    pages = sorted(p.name for p in rep.glob("z_*.html"))
    assert len(pages) == 2 and all(PAGE_RE.match(p) for p in pages)  # safe page names
    text = {p.name: p.read_bytes().decode("utf-8") for p in rep.glob("*.html")}  # all UTF-8
    assert "src/odd\\xff\\xfe.cu" in text["index.html"]
    assert any("odd\\xff\\xfe.cu" in t for name, t in text.items() if name.startswith("z_"))


def test_hipify_stats_of_a_file_whose_name_is_not_utf8(odd_tree: Path) -> None:
    src = odd_tree / "src"
    rc, out, err = run("hipify", "-print-stats-csv", os.fsdecode(ODD), cwd=src)
    assert rc == 0, err
    with open(os.path.join(os.fsencode(src), ODD + b".csv"), "rb") as f:
        assert b"file '" + ODD + b"'" in f.read()  # the name as the file system has it


@pytest.mark.hipcc
@needs_hipcc
def test_validate_sarif_places_an_error_in_a_file_whose_name_is_not_utf8(odd_tree: Path, sarif_validator) -> None:
    rc, out, _ = run("validate", "src", "--no-cache", "--offload-arch", "gfx90a", "--format", "sarif",
                     cwd=odd_tree)
    doc = json.loads(out)
    assert rc == 1 and _errors(sarif_validator, doc) == []
    sarif_run = doc["runs"][0]
    at = [r["locations"][0]["physicalLocation"] for r in sarif_run["results"] if r.get("locations")]
    ours = [p for p in at if p["artifactLocation"].get("uri") == URI]
    assert ours and ours[0]["region"]["startLine"] == 3  # the original file and line, not the copy
    base = sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert _uri_target(base, URI) == odd_path(odd_tree)
    rc, out, _ = run("validate", "src", "--no-cache", "--offload-arch", "gfx90a", cwd=odd_tree)
    assert rc == 1 and SHOWN in out


# --- nesting ------------------------------------------------------------------------------

def _nested_if(n: int) -> bytes:
    return (b"".join(b"#if A%d\n" % i for i in range(n))
            + b"__global__ void k(float* a) { a[0] = __shfl_down_sync(0xffffffff, a[0], 16); }\n"
            + b"#endif\n" * n)


def test_thousands_of_nested_ifs_and_brackets_are_analysed(tmp_path: Path) -> None:
    src = tmp_path / "s"
    src.mkdir()
    (src / "ifs.cu").write_bytes(_nested_if(3000))
    (src / "parens.cu").write_bytes(b"__global__ void k(float* a) { a[0] = " + b"(" * 3000
                                    + b"__shfl_down_sync(0xffffffff, a[0], 16)" + b")" * 3000 + b"; }\n")
    rc, out, _ = run("lint", ".", "--no-cache", "--format", "json", "--fail-on", "info", cwd=src)
    doc = json.loads(out)
    assert rc == 1 and all(f["status"] != "failed" for f in doc["files"])  # W001: fixed, a note
    found = {(f["path"], f["rule"], f["line"]) for f in doc["findings"]}
    assert ("ifs.cu", "W001", 3001) in found and ("parens.cu", "W001", 1) in found
    assert not any(f["rule"] == "HP010" for f in doc["findings"])


@pytest.fixture
def deep_tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "deep.cu").write_bytes(b"__global__ void k(float* a) { a[0] = " + b"(" * 50
                                   + b"__shfl_down_sync(0xffffffff, a[0], 16)" + b")" * 50 + b"; }\n")
    (root / "ok.cu").write_bytes(KERNEL)
    fault = tmp_path / "fault"
    fault.mkdir()
    (fault / "sitecustomize.py").write_text(FAULT)
    return root


def deep(*args: str | Path, cwd: Path) -> tuple[int, bytes, bytes]:
    """`run` with the fault that fails the walk over deep.cu (FAULT)."""
    paths = [str(cwd.parent / "fault"), *filter(None, [os.environ.get("PYTHONPATH")])]
    return run(*args, cwd=cwd, env={"PYTHONPATH": os.pathsep.join(paths)})


def test_a_file_nested_too_deeply_is_reported_in_every_lint_format(deep_tree: Path, sarif_validator) -> None:
    rc, out, _ = deep("lint", ".", "--no-cache", "--format", "text", "--show-fixed", cwd=deep_tree)
    assert rc == 1 and b"deep.cu: error: nested too deeply" in out
    assert b"deep.cu:1:1: error: [HP010] not analysed" in out and b"ok.cu:2:" in out  # the rest done

    rc, out, _ = deep("lint", ".", "--no-cache", "--format", "json", "--fail-on", "never", cwd=deep_tree)
    doc = json.loads(out)
    assert rc == 1  # not analysed fails the run whatever --fail-on says
    files = {f["path"]: f for f in doc["files"]}
    assert files["deep.cu"]["status"] == "failed" and "nested too deeply" in files["deep.cu"]["error"]
    assert [f["rule"] for f in doc["findings"] if f["path"] == "deep.cu"] == ["HP010"]
    assert any(f["path"] == "ok.cu" and f["rule"] == "W001" for f in doc["findings"])

    rc, out, _ = deep("lint", ".", "--no-cache", "--format", "sarif", cwd=deep_tree)
    doc = json.loads(out)
    assert rc == 1 and _errors(sarif_validator, doc) == []
    inv = doc["runs"][0]["invocations"]
    assert len(inv) == 1 and inv[0]["executionSuccessful"] is False
    [note] = inv[0]["toolExecutionNotifications"]
    assert note["level"] == "error" and "nested too deeply" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "deep.cu",
                                                                            "uriBaseId": "%SRCROOT%"}
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"]} == {"deep.cu", "ok.cu"}

    rc, out, _ = deep("lint", ".", "--no-cache", "--format", "github", "--show-fixed", cwd=deep_tree)
    lines = out.decode().splitlines()
    assert rc == 1 and lines[0].startswith("::error file=deep.cu,line=1,") and "HP010" in lines[0]
    assert any(ln.startswith("::notice file=ok.cu,") for ln in lines)  # the rest done: W001 fixed


def test_a_file_nested_too_deeply_fails_port_and_report_and_the_rest_is_done(deep_tree: Path,
                                                                              tmp_path: Path) -> None:
    before = (deep_tree / "deep.cu").read_bytes()
    rc, out, _ = deep("port", ".", "--check", "--no-cache", cwd=deep_tree)
    assert rc == 1 and b"deep.cu: error: nested too deeply" in out
    rc, out, _ = deep("port", ".", "--diff", "--no-cache", cwd=deep_tree)
    assert rc == 1 and b"+++ b/ok.cu" in out and b"deep.cu" not in out
    rc, out, _ = deep("port", ".", "-o", tmp_path / "mirror", "--no-cache", cwd=deep_tree)
    assert rc == 1 and b"deep.cu: error: nested too deeply" in out
    assert b"hipMalloc" in (tmp_path / "mirror" / "ok.cu").read_bytes()
    rc, out, _ = deep("port", ".", "--in-place", "--no-cache", "--format", "json", cwd=deep_tree)
    assert rc == 1 and {f["path"]: f["status"] for f in json.loads(out)["files"]} == \
        {"deep.cu": "failed", "ok.cu": "ported"}
    assert (deep_tree / "deep.cu").read_bytes() == before  # left unchanged
    assert b"hipMalloc" in (deep_tree / "ok.cu").read_bytes()

    rep = tmp_path / "rep"
    rc, _, err = deep("report", ".", "-o", rep, "--no-cache", cwd=deep_tree)
    index = (rep / "index.html").read_text(encoding="utf-8")
    assert rc == 1 and b"deep.cu: error: nested too deeply" in err
    assert 'id="failed-files"' in index and "deep.cu: nested too deeply" in index
    assert "Files that failed (1)" in index and "1 failed," in index  # one count, in both places


def test_validate_reports_a_file_it_could_not_port(deep_tree: Path, sarif_validator) -> None:
    rc, out, _ = deep("validate", ".", "--no-cache", "--no-compile", "--format", "json", cwd=deep_tree)
    doc = json.loads(out)
    assert rc == 1 and doc["failed"] is True and doc["summary"]["not_ported"] == 1
    assert doc["errors"][0]["file"] == "deep.cu" and doc["errors"][0]["category"] == "port"
    assert [r["failure"] for r in doc["table"] if r["file"] == "deep.cu"][0].startswith("not ported: nested")
    rc, out, _ = deep("validate", ".", "--no-cache", "--no-compile", "--format", "sarif", cwd=deep_tree)
    doc = json.loads(out)
    assert rc == 1 and _errors(sarif_validator, doc) == []
    [inv] = doc["runs"][0]["invocations"]
    assert inv["executionSuccessful"] is False
    assert inv["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"] \
        == {"uri": "deep.cu", "uriBaseId": "%SRCROOT%"}
    rc, out, _ = deep("validate", ".", "--no-cache", "--no-compile", cwd=deep_tree)
    assert rc == 1 and b"deep.cu: not ported (HP010): nested too deeply" in out and b"FAILED" in out


def test_a_failure_without_a_finding_is_still_an_annotation_and_a_notification(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sarif_validator) -> None:
    """A file that failed after the passes (changed on disk while hipport ran) has no HP010
    finding: github and SARIF still name it at the file."""
    monkeypatch.chdir(tmp_path)
    run_ = RunResult([FileResult(path="a.cu", role="cuda-source", status=FileStatus.FAILED,
                                 error="changed on disk while hipport ran; left as it is, run again"),
                      FileResult(path="b.cu", role="cuda-source")])
    assert github.render(run_, ViewOptions()) == (
        "::error file=a.cu,title=HP010 unreadable-file::[HP010] changed on disk while hipport ran; "
        "left as it is, run again\n")
    doc = json.loads(sarif.render(run_, ViewOptions()))
    assert _errors(sarif_validator, doc) == []
    [inv] = doc["runs"][0]["invocations"]
    assert inv["executionSuccessful"] is False and len(inv["toolExecutionNotifications"]) == 1
    assert "changed on disk" in inv["toolExecutionNotifications"][0]["message"]["text"]


def test_sarif_writes_bytes_of_source_that_are_not_utf8_as_escapes_or_base64(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sarif_validator) -> None:
    """Messages quote source text; a Latin-1 byte in it must not reach the log as a lone
    surrogate. A safe fix's inserted text keeps its bytes exactly (base64)."""
    from hipport.model import Applicability, Edit, Finding, Fix, Severity, Span

    monkeypatch.chdir(tmp_path)
    edit = Edit(0, 3, "x\udce9", "W001", span=Span(0, 3, 1, 1, 1, 4))
    f = Finding("W001", Severity.ERROR, Span(0, 3, 1, 1, 1, 4), "`\udce9` is odd",
                Fix("write x\udce9", Applicability.SAFE, (edit,)), kernel="k\udce9")
    run_ = RunResult([FileResult(path="a\udcff.cu", role="cuda-source", findings=[f],
                                 original=b"\xe9\xe9\xe9\n")])
    text = sarif.render(run_, ViewOptions())
    assert "\\udc" not in text  # no JSON escape of a lone surrogate anywhere
    doc = json.loads(text)
    assert _errors(sarif_validator, doc) == []
    [res] = doc["runs"][0]["results"]
    assert res["message"]["text"] == "`\\xe9` is odd" and res["properties"]["kernel"] == "k\\xe9"
    change = res["fixes"][0]["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "a%FF.cu"
    assert change["replacements"][0]["insertedContent"] == {"binary": "eOk="}  # b"x\xe9"
