"""The file pages' own syntax highlighter: tokens over the whole file, text unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipport.model import RunResult
from hipport.report import html
from hipport.report.highlight import Highlighter
from tests.report.conftest import Chromium, file_result
from tests.report.dom import parse

CODE = (b'#include <cuda_runtime.h>\n'
        b'/* a comment\n   over two lines with "quotes" */\n'
        b'__global__ void k(float* a, int n) {  // int in a comment\n'
        b'  const char* s = "a // not a comment <b>";\n'
        b"  char c = '\\'';\n"
        b'  if (n > 0x1F) a[0] = 2.5f;\n'
        b'}\n')


def _tokens(h: Highlighter) -> list[tuple[str, bytes]]:
    return [(cls, h.data[s:e]) for s, e, cls in h.spans]


def test_tokens_of_a_cuda_file() -> None:
    toks = _tokens(Highlighter(CODE))
    assert ("tok-pp", b"#include") in toks
    assert ("tok-c", b'/* a comment\n   over two lines with "quotes" */') in toks  # one token, two lines
    assert ("tok-c", b"// int in a comment") in toks
    assert ("tok-s", b'"a // not a comment <b>"') in toks  # no comment inside a string
    assert ("tok-s", b"'\\''") in toks
    assert {b for c, b in toks if c == "tok-k"} >= {b"__global__", b"void", b"float", b"int", b"const", b"char", b"if"}
    assert ("tok-n", b"0x1F") in toks and ("tok-n", b"2.5f") in toks


@pytest.mark.parametrize("cut", range(0, len(CODE), 7))
def test_any_slice_renders_its_own_text_escaped(cut: int) -> None:
    h = Highlighter(CODE)
    import html as stdhtml

    for a, b in ((0, cut), (cut, len(CODE)), (cut // 2, cut)):
        out = h.html(a, b)
        assert "<b>" not in out  # source text is escaped
        assert stdhtml.unescape(re.sub(r"<[^>]+>", "", out)) == CODE[a:b].decode()


@pytest.mark.browser
def test_a_file_page_is_highlighted_in_chromium(tmp_path: Path, chromium: Chromium) -> None:
    text = CODE.decode().replace("cuda_runtime.h", "hip/hip_runtime.h")
    r = file_result("src/k.cu", text, edits=[("float* a", "double* a", "HP-rename")])
    out = tmp_path / "rep"
    html.write(RunResult([r]), out)
    doc = parse(chromium.dump_dom((out / html.page_name(r.path)).as_uri()))
    kinds = {s.attrs["class"] for s in doc.find_all("span") if s.attrs.get("class", "").startswith("tok-")}
    assert kinds == {"tok-pp", "tok-c", "tok-k", "tok-s", "tok-n"}
    assert doc.find_all("ins")  # the rewrite is still marked inside the highlighted line
    body = " ".join(n.text for n in doc.find_all("code"))
    assert "a // not a comment <b>" in body and "double* a" in body


def _sbs(doc_text: str) -> list[tuple[str, str, str, str]]:
    doc = parse(doc_text)
    box = doc.by_id("sbs")
    out = []
    for r in box.find_all("div", cls="sbs-row"):
        if "sbs-head" in r.attrs.get("class", ""):
            continue
        n = r.find_all("span", cls="n")
        c = r.find_all("code")
        out.append((n[0].text, c[0].text, n[1].text, c[1].text))
    return out


def test_side_by_side_pairs_every_line_once_in_order(tmp_path: Path) -> None:
    text = "a();\nfoo();\nremove_me();\nb();\nbar();\n"
    r = file_result("x.cu", text, edits=[("foo();", "x();\ny();", "split"), ("remove_me();\n", "", "drop")])
    out = tmp_path / "rep"
    html.write(RunResult([r]), out)
    rows = _sbs((out / html.page_name(r.path)).read_text())
    # foo() became two lines; remove_me() went: each stretch beside what it became
    assert [(o, p) for _, o, _, p in rows] == [("a();", "a();"), ("foo();", "x();"), ("", "y();"),
                                               ("remove_me();", ""), ("b();", "b();"), ("bar();", "bar();")]
    assert [n for n, _, _, _ in rows] == ["1", "2", "", "3", "4", "5"]
    assert [n for _, _, n, _ in rows] == ["1", "2", "3", "", "4", "5"]


@pytest.mark.browser
def test_side_by_side_toggle_in_chromium(tmp_path: Path, chromium: Chromium) -> None:
    r = file_result("src/k.cu", "int a;\ncudaFoo();\nint b;\n", edits=[("cudaFoo", "hipFoo", "HP-rename")])
    out = tmp_path / "rep"
    html.write(RunResult([r]), out)
    doc = parse(chromium.dump_dom((out / html.page_name(r.path)).as_uri()))
    assert doc.by_id("side-by-side") is not None  # the control
    rows = [r for r in doc.by_id("sbs").find_all("div", cls="sbs-row") if "sbs-head" not in r.attrs.get("class", "")]
    assert any("cudaFoo" in r.text and "hipFoo" in r.text for r in rows)
