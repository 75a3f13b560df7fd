"""Build files: CMake list files and Makefiles ported with the sources, as edits by span.

`port` returns edits and findings like the source passes do; anything it does not
understand stays byte for byte and is reported at its line (HP013). The mappings are data
in rules/build/*.toml (see hipport.build.tables).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

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


def port(src: SourceFile, config: Config, included: Sequence[bytes] = (),
         root: str | None = None) -> tuple[list[Edit], list[Finding]]:
    """Edits and findings of one build file; `included`: the contents of the files a Makefile
    includes (`includes.read`), whose variables its port learns from; `root`: the tree's
    folder, which an include's redirect never leaves (default: the file's own folder)."""
    # Offsets are bytes: read the file as Latin-1 (one character per byte); what is written
    # back is ASCII or a slice of the file, re-encoded the same way (see _utf8).
    text = src.data.decode("latin-1")
    t = tables.load()
    archs = config.offload_arch or ("gfx90a",)
    if kind(src.path) == "cmake":
        changes, notes = cmake.port(text, t, archs)
    else:
        folder = os.path.dirname(os.path.abspath(src.path))
        changes, notes = make.port(text, t, archs, lambda inc: own_copy(src.path, inc, root),
                                   lambda name: _regular(os.path.join(folder, name)),
                                   [d.decode("latin-1") for d in included])
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


def own_copy(makefile: str, include: str, root: str | None = None, levels: int = 6) -> str | None:
    """The tree's own copy of a file a Makefile includes by an absolute or home path: the
    longest tail of that path (two parts at least: `common/make.config`) that exists as a
    regular file in the Makefile's folder or one of the `levels` above, never above `root`
    (the tree's folder; default the Makefile's own) nor through a link out of it, relative
    to the Makefile's folder. Only existence is looked at; nothing is read."""
    parts = [p for p in include.replace("\\", "/").split("/") if p not in ("", "~", ".", "..")]
    here = os.path.realpath(os.path.dirname(os.path.abspath(makefile)))  # as make -C finds it
    top = os.path.realpath(root) if root is not None else here
    if os.path.commonpath([top, here]) != top:
        return None
    for k in range(len(parts) - 1):
        tail = os.path.join(*parts[k:])
        d = here
        for _ in range(levels + 1):
            cand = os.path.join(d, tail)
            if os.path.isfile(cand) and not os.path.islink(cand) \
                    and os.path.commonpath([top, os.path.realpath(cand)]) == top:
                return os.path.relpath(cand, here).replace(os.sep, "/")
            if d == top:
                break  # the tree's folder: the redirect goes no higher
            d = os.path.dirname(d)
    return None


def _regular(path: str) -> bool:
    return os.path.isfile(path) and not os.path.islink(path)


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
