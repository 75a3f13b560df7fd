"""hipport.directives finds exactly what the line-start patterns' own finditer finds."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from hipport import closure, directives, hipaware, included, parseview
from hipport.translate import includes, macrouses
from hipport.wave64.facts import functions, headers, summaries

ROOT = Path(__file__).resolve().parent.parent
PATTERNS = [closure.INCLUDE, included.INCLUDE, hipaware.HIP_INCLUDE, hipaware._DIRECTIVE, hipaware._DEFINE,
            parseview._DEFINE, parseview._PREPROC_LINE, macrouses._DEFINE, macrouses._DEFINE_NAME,
            macrouses._DEFINE_LINES, includes._DEFINE, functions.QUAL_MACRO, headers._DEFINE,
            summaries._FUNC_MACRO]


def _texts() -> list[bytes]:
    files = [p.read_bytes() for folder in ("examples", "fixtures") for p in sorted((ROOT / folder).rglob("*"))
             if p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp") and p.is_file()]
    rng = random.Random(34)
    pieces = [b"#", b" ", b"\t", b"\n", b"\\\n", b"\\", b"define", b"include", b" X", b"(a)", b"<h.h>",
              b"for", b"32", b"__device__",
              b'"q.h"', b"\xef\xbb\xbf", b"if", b"endif", b"1", b"//c", b"/*", b"*/", b"x"]
    fuzz = [b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    return files + fuzz


def test_every_pattern_is_a_line_start_pattern() -> None:
    for rx in PATTERNS:
        assert rx.pattern.startswith((rb"^[ \t]*#", rb"^(?:\xef\xbb\xbf)?[ \t]*#")) and rx.flags & re.M, rx


@pytest.mark.parametrize("rx", PATTERNS, ids=lambda rx: rx.pattern[:40].decode(errors="replace"))
def test_matches_are_those_of_finditer(rx: re.Pattern[bytes]) -> None:
    found = 0
    for text in _texts():
        want = [(m.span(), m.groups()) for m in rx.finditer(text)]
        found += len(want)
        assert [(m.span(), m.groups()) for m in directives.finditer(rx, text)] == want, text
        first = rx.search(text)
        got = directives.search(rx, text)
        assert (got and got.span()) == (first and first.span())
    assert found  # the texts hold lines the pattern matches
