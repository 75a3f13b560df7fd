"""Suppression comments: `// hipport: ignore[...]` on the line or alone on the line above."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport.model import Finding, Severity
from hipport.source import SourceFile
from hipport.suppress import UNUSED, apply, parse


def src(text: str) -> SourceFile:
    return SourceFile("t.cu", text.encode())


def at(s: SourceFile, line: int, rule: str) -> Finding:
    start = s._line_starts[line - 1]
    return Finding(rule, Severity.WARNING, s.span(start, start + 1), "x")




def code(comment: str, above: str = "") -> SourceFile:
    body = "__global__ void k(float* p) {\n" + (f"  {above}\n" if above else "")
    body += f"  int lane = threadIdx.x & 31;{(' ' + comment) if comment else ''}\n  p[lane] = 0;\n}}\n"
    return src(body)


@pytest.mark.parametrize("comment", [
    pytest.param("// hipport: ignore[W004]", id="by-id"),
    pytest.param("// hipport: ignore[lane-id-mask-31]", id="by-name"),
    pytest.param("// hipport: ignore[W006, lane-id-mask-31]", id="list-with-spaces"),
    pytest.param("// hipport: ignore", id="every-rule"),
    pytest.param("/* hipport: ignore[w004] */", id="block-comment-lower-case-id"),
])
def test_same_line(comment: str) -> None:
    s = code(comment)
    out = apply(s, [at(s, 2, "W004")])
    assert [f.rule for f in out if f.rule != UNUSED] == []


def test_line_above() -> None:
    s = code("", above="// hipport: ignore[W004]")
    assert apply(s, [at(s, 3, "W004")]) == []


def test_a_trailing_comment_does_not_cover_the_next_line() -> None:
    s = code("// hipport: ignore[W004]")
    out = apply(s, [at(s, 3, "W004")])
    assert [f.rule for f in out] == ["W004", UNUSED]


def test_other_rules_are_kept() -> None:
    s = code("// hipport: ignore[W004]")
    out = apply(s, [at(s, 2, "W004"), at(s, 2, "W005")])
    assert [f.rule for f in out] == ["W005"]


def test_api_rules_too() -> None:
    s = code("// hipport: ignore[HP001]")
    assert apply(s, [at(s, 2, "HP001")]) == []
    s = code("// hipport: ignore[unsupported-api]")
    assert apply(s, [at(s, 2, "HP001")]) == []


def test_unused_suppression_is_reported() -> None:
    s = code("// hipport: ignore[W006]")
    out = apply(s, [at(s, 2, "W004")])
    assert [f.rule for f in out] == ["W004", UNUSED]
    hp = out[1]
    assert hp.severity == Severity.WARNING and hp.message == "unused suppression"
    assert hp.span.line == 2 and s.text(s.root.descendant_for_byte_range(hp.span.start, hp.span.end)).startswith("//")


def test_partly_unused_list_names_the_unused_keys() -> None:
    s = code("// hipport: ignore[W004,W006]")
    out = apply(s, [at(s, 2, "W004")])
    assert [(f.rule, f.message) for f in out] == [(UNUSED, "unused suppression: W006")]


def test_unused_blanket_suppression() -> None:
    s = code("// hipport: ignore")
    assert [f.message for f in apply(s, [])] == ["unused suppression"]


def test_fix_deletes_an_unused_comment() -> None:
    from hipport.edits import apply_edits, resolve
    s = code("", above="// hipport: ignore[W006]")
    (hp,) = apply(s, [])
    assert hp.fix is not None
    out = apply_edits(s.data, resolve(list(hp.fix.edits))[0]).decode()
    assert "hipport" not in out and out.count("\n") == s.data.count(b"\n") - 1
    t = code("// hipport: ignore[W006]")
    (hp,) = apply(t, [])
    assert apply_edits(t.data, resolve(list(hp.fix.edits))[0]).decode() == code("").data.decode()


@pytest.mark.parametrize("text", [
    pytest.param('const char* s = "// hipport: ignore[W004]";\n', id="inside-a-string"),
    pytest.param("int hipport_ignore = 0;  // not a directive: hipport ignore\n", id="no-colon"),
])
def test_only_comments_count(text: str) -> None:
    assert parse(src(text)) == []


def test_no_directive_is_a_fast_no_op() -> None:
    s = src("__global__ void k() {}\n")
    f = [at(s, 1, "W004")]
    assert apply(s, f) is f


def test_end_to_end_with_the_wave64_pass() -> None:
    from hipport.config import Config
    from hipport.wave64 import run
    text = ("#include <hip/hip_runtime.h>\n__global__ void k(float* p) {\n"
            "  // hipport: ignore[shuffle-loop-from-16]\n"
            "  for (int o = 16; o > 0; o >>= 1) p[0] += __shfl_down(p[0], o);\n"
            "  int lane = threadIdx.x & 31;  // hipport: ignore[W004]\n  p[lane] = 0;\n}\n")
    s = src(text)
    found = run(s, Config())
    assert {f.rule for f in found} >= {"W004", "W006"}
    assert [f.rule for f in apply(s, found) if f.rule in ("W004", "W006", UNUSED)] == []


def test_a_suppression_on_a_preprocessor_line_covers_it_or_is_unused(tmp_path: Path) -> None:
    """tree-sitter keeps `// ...` in the text of `#define WARP 32 // ...` (no comment node): the
    suppression was neither applied nor reported unused. A `//` in a string is still no comment."""
    from hipport.edits import apply_edits, resolve
    from tests.conftest import hipport

    (tmp_path / "k.cu").write_text(
        "#define WARP 32  // hipport: ignore[W008]\n"
        '#define S "// hipport: ignore"\n'
        "#pragma unroll /* hipport: ignore[W006] */\n"
        "__global__ void k(float* a) {\n  a[threadIdx.x % WARP] = __shfl_xor(a[0], 1);\n}\n")
    r = hipport("lint", tmp_path, "--format", "json", "--no-cache")
    found = [(f["line"], f["rule"]) for f in json.loads(r.stdout)["findings"]]
    assert (1, "W008") not in found and (1, "HP900") not in found and (2, "HP900") not in found
    assert (3, "HP900") in found and (5, "W004") in found
    s = src("#define WARP 64  // hipport: ignore[W008]\n")
    (hp,) = apply(s, [])
    assert hp.rule == UNUSED and hp.fix is not None
    assert apply_edits(s.data, resolve(list(hp.fix.edits))[0]) == b"#define WARP 64\n"
