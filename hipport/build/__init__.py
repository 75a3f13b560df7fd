"""Build files: CMake list files and Makefiles ported with the sources, as edits by span.

`port` returns edits and findings like the source passes do; anything it does not
understand stays byte for byte and is reported at its line (HP013). The mappings are data
in rules/build/*.toml (see hipport.build.tables).
"""

from __future__ import annotations

import os
import re

from hipport.build import cmake, make, tables
from hipport.config import Config
from hipport.model import Edit, Finding, Severity
from hipport.source import SourceFile

RULE = "build"  # the rule id of build-file edits
_SUPPRESS = re.compile(r"#\s*hipport:\s*ignore\b(?:\s*\[([^\]]*)\])?")


def kind(path: str) -> str:
    """"cmake" or "make", by the file's name."""
    name = os.path.basename(path)
    return "cmake" if name == "CMakeLists.txt" or name.lower().endswith(".cmake") else "make"


def port(src: SourceFile, config: Config) -> tuple[list[Edit], list[Finding]]:
    # Offsets are bytes: read the file as Latin-1 (one character per byte); what is written
    # back is ASCII or a slice of the file, re-encoded the same way (see _utf8).
    text = src.data.decode("latin-1")
    t = tables.load()
    archs = config.offload_arch or ("gfx90a",)
    if kind(src.path) == "cmake":
        changes, notes = cmake.port(text, t, archs)
    else:
        changes, notes = make.port(text, t, archs)
    edits = [Edit(c.start, c.end, _utf8(c.text), RULE) for c in changes]
    findings: list[Finding] = []
    seen: set[tuple[str, int, int, str]] = set()
    for n in notes:
        key = (n.rule, n.start, n.end, n.message)
        if key in seen or _suppressed(src, n.rule, n.start):
            continue
        seen.add(key)
        findings.append(Finding(n.rule, Severity(n.severity), src.span(n.start, n.end),
                                _utf8(n.message), family="build"))
    return edits, findings


def _utf8(s: str) -> str:
    """A Latin-1 reading of file bytes, as the str that encodes back to those bytes."""
    try:
        return s.encode("latin-1").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s


def _suppressed(src: SourceFile, rule: str, offset: int) -> bool:
    """`# hipport: ignore[HP012]` (or `ignore`) on the finding's line or alone on the line above."""
    line = src.position(offset)[0]
    for n, alone in ((line, False), (line - 1, True)):
        if n < 1:
            continue
        text = src.line_text(n)
        m = _SUPPRESS.search(text)
        if not m or (alone and not text.lstrip().startswith("#")):
            continue
        ids = m.group(1)
        if ids is None or rule in {x.strip().upper() for x in ids.split(",")}:
            return True
    return False
