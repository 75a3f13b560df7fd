"""`hipport lint --format github`: one workflow-command line per finding, escaped as GitHub
Actions parses them (`::level file=…,line=…,endLine=…[,col=…,endColumn=…],title=…::message`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hipport.model import FileResult, FileStatus, Finding, RunResult, Severity, Span
from hipport.report import ViewOptions, github
from tests.conftest import hipport

LINE = re.compile(r"^::(error|warning|notice) ((?:[a-zA-Z]+=[^,:]*)(?:,[a-zA-Z]+=[^,:]*)*)::(.*)$")


def _parse(line: str) -> tuple[str, dict[str, str], str]:
    """Split a line the way the Actions runner does; values are unescaped."""
    m = LINE.match(line)
    assert m, line
    props = dict(p.split("=", 1) for p in m.group(2).split(","))
    unprop = {k: v.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n")
              .replace("%0D", "\r").replace("%25", "%") for k, v in props.items()}
    msg = m.group(3).replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
    return m.group(1), unprop, msg


def test_lint_github_lines_match_the_findings(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "k.cu").write_bytes(
        b"#include <cuda_runtime.h>\n"
        b"__global__ void k(float* x) { x[0] = __shfl_down_sync(0xffffffff, x[0], 1); }\n"
        b"int main() { float* d; cudaMalloc(&d, 4); cudaFooBar(d); return 0; }\n")
    p = hipport("lint", ".", "--format", "github", "--no-cache", "--show-fixed", cwd=root)
    assert p.returncode == 1, p.stderr.decode()
    lines = p.stdout.decode().splitlines()
    j = hipport("lint", ".", "--format", "json", "--no-cache", cwd=root)
    findings = json.loads(j.stdout)["findings"]
    assert len(lines) == len(findings) >= 2
    assert [f["fixed"] for f in findings] == [True, False]  # W001's fix is made; HP002 is open
    open_only = hipport("lint", ".", "--format", "github", "--no-cache", cwd=root).stdout.decode()
    assert open_only.splitlines() == [ln for ln in lines if not ln.startswith("::notice")]
    for line, f in zip(lines, findings, strict=True):
        level, props, msg = _parse(line)
        assert level == {"error": "error", "warning": "warning", "info": "notice"}[f["severity"]]
        assert props["file"] == "src/k.cu"  # repository-relative, as GitHub needs
        assert props["line"] == str(f["line"]) and props["endLine"] == str(f["end_line"])
        assert props["col"] == str(f["column"]) and props["endColumn"] == str(f["end_column"])
        assert props["title"].startswith(f["rule"] + " ")
        assert msg == f"[{f['rule']}] {f['message']}"


def _one(path: str, message: str, span: Span, rule: str = "HP002",
         severity: Severity = Severity.WARNING) -> str:
    f = Finding(rule, severity, span, message)
    run = RunResult([FileResult(path=path, role="cuda-source", status=FileStatus.UNCHANGED,
                                findings=[f])])
    return github.render(run, ViewOptions(show_fixed=True))


def test_escaping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = _one("dir:1/a,b%c.cu", "100% sure:\nline two\r, with ::colons", Span(0, 1, 3, 2, 3, 9))
    assert out.endswith("\n") and out.count("\n") == 1
    line = out.rstrip("\n")
    assert line == ("::warning file=dir%3A1/a%2Cb%25c.cu,line=3,endLine=3,col=2,endColumn=9,"
                    "title=HP002 unknown-cuda-name::[HP002] 100%25 sure:%0Aline two%0D, with ::colons")
    level, props, msg = _parse(line)
    assert props["file"] == "dir:1/a,b%c.cu"
    assert msg == "[HP002] 100% sure:\nline two\r, with ::colons"


def test_levels_multiline_spans_and_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    out = _one("src/a.cu", "m", Span(0, 20, 4, 7, 6, 2), "W004", Severity.ERROR)
    level, props, _ = _parse(out.strip())
    assert level == "error" and props["line"] == "4" and props["endLine"] == "6"
    assert "col" not in props and "endColumn" not in props  # GitHub rejects columns across lines
    assert _parse(_one("a.cu", "m", Span(0, 1, 1, 1, 1, 2), "HP004", Severity.INFO).strip())[0] == "notice"
    absolute = _one(str(work / "sub" / "b.cu"), "m", Span(0, 1, 1, 1, 1, 2))
    assert _parse(absolute.strip())[1]["file"] == "sub/b.cu"
    outside = _one(str(tmp_path / "other.cu"), "m", Span(0, 1, 1, 1, 1, 2))
    assert _parse(outside.strip())[1]["file"] == str(tmp_path / "other.cu")
    assert _parse(_one("W\\x.cu", "m", Span(0, 1, 1, 1, 1, 2)).strip())[1]["file"] == "W/x.cu"
    unknown = _one("a.cu", "m", Span(0, 1, 1, 1, 1, 2), "W999")
    assert _parse(unknown.strip())[1]["title"] == "W999"


def test_no_findings_no_output() -> None:
    assert github.render(RunResult([]), ViewOptions()) == ""


# Every character that must never reach a log raw: C0 controls (tab aside; CR and LF have the
# format's own escapes), DEL, C1 controls, bidirectional marks, embeddings, overrides, isolates.
HOSTILE = ([chr(c) for c in range(0x20) if chr(c) not in "\t\r\n"] + ["\x7f"]
           + [chr(c) for c in range(0x80, 0xA0)] + ["\u200e", "\u200f", "\u061c"]
           + [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)])


def test_control_and_bidi_characters_never_reach_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = "".join(HOSTILE)
    out = _one(f"d/x{text}y.cu", f"m{text}n", Span(0, 1, 1, 1, 1, 2))
    assert not set(out) & set(HOSTILE), [c for c in out if c in HOSTILE]
    level, props, msg = _parse(out.rstrip("\n"))
    shown = "".join(f"<U+{ord(c):04X}>" for c in HOSTILE)
    assert props["file"] == f"d/x{shown}y.cu" and msg == f"[HP002] m{shown}n"


def test_a_hostile_file_name_on_disk_is_escaped(tmp_path: Path) -> None:
    """A real file whose name holds a terminal escape and a right-to-left override."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a\x1b[2J\u202eb.cu").write_bytes(
        b"#include <cuda_runtime.h>\nint main() { cudaFooBar(0); return 0; }\n")
    p = hipport("lint", ".", "--format", "github", "--no-cache", cwd=root)
    assert p.returncode == 1, p.stderr.decode()
    out = p.stdout.decode()
    assert "\x1b" not in out and "\u202e" not in out
    assert _parse(out.splitlines()[0])[1]["file"] == "a<U+001B>[2J<U+202E>b.cu"
