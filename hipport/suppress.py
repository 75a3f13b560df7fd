"""Suppression comments: silence findings of any rule (W and HP ids) where a person decided.

    x = __shfl_sync(mask, v, 0);  // hipport: ignore[W016]
    // hipport: ignore[W006,lane-id-mask-31]
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
    int lane = threadIdx.x & 31;  /* hipport: ignore */

A suppression names rule ids or kebab-case rule names, or nothing (every rule). A comment that
shares its line with code covers that line; a comment alone on its line covers the next line.
Comments are taken from the tree (tree-sitter `comment` nodes), never from code or strings. A
suppression that silences nothing is itself reported as HP900 (`unused-suppression`), with a fix
that deletes the comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipport.model import Applicability, Edit, Finding, Fix, Severity, Span
from hipport.registry import HP, names
from hipport.source import SourceFile

UNUSED = HP.UNUSED_SUPPRESSION
UNKNOWN = HP.UNKNOWN_SUPPRESSION_RULE
_DIRECTIVE = re.compile(r"hipport:\s*ignore\b(?:\s*\[([^\]]*)\])?")
_ONLY_DIRECTIVE = re.compile(r"^(//|/\*)\s*hipport:\s*ignore\b(\s*\[[^\]]*\])?\s*(\*/)?$")


@dataclass
class Suppression:
    start: int
    end: int
    line: int  # the line whose findings it covers
    keys: tuple[str, ...] | None  # rule ids (upper case); None = every rule
    raw_keys: tuple[str, ...] = ()
    standalone: bool = False
    unknown: tuple[str, ...] = ()  # names that are no rule (reported as HP901)
    used: set[str] = field(default_factory=set)  # keys that silenced something ("*" for all)


def _key(token: str) -> str:
    t = token.strip()
    return names().get(t.lower(), t.upper())


def parse(src: SourceFile) -> list[Suppression]:
    """The suppression comments of a file, in order."""
    data = src.data
    if b"hipport:" not in data:
        return []
    out: list[Suppression] = []
    seen: set[int] = set()
    for m in re.finditer(rb"hipport:", data):
        node = src.node_at(m.start(), m.end())
        while node is not None and node.type not in ("comment", "preproc_arg"):
            node = node.parent if node.type not in ("translation_unit",) else None
        if node is None:
            continue
        if node.type == "preproc_arg":
            # tree-sitter keeps a `//` comment in the text of `#define WARP 32 // ...` (and of
            # `#pragma`, `#error`): the comment is found by lexing that text
            found = _comment_in(data, node.start_byte, node.end_byte, m.start())
            if found is None:
                continue
            start, end = found
        else:
            start, end = node.start_byte, node.end_byte
        if start in seen:
            continue
        seen.add(start)
        text = src.slice(start, end)
        d = _DIRECTIVE.search(text)
        if d is None:
            continue
        line, _ = src.position(start)
        line_start = data.rfind(b"\n", 0, start) + 1
        standalone = not data[line_start:start].strip()
        keys: tuple[str, ...] | None = None
        raw: tuple[str, ...] = ()
        unknown: tuple[str, ...] = ()
        if d.group(1) is not None:
            raw = tuple(k.strip() for k in d.group(1).split(",") if k.strip())
            known = set(names().values())
            unknown = tuple(k for k in raw if _key(k) not in known)
            raw = tuple(k for k in raw if k not in unknown)
            keys = tuple(_key(k) for k in raw)
            if not keys and not unknown:
                keys = None
        end_line, _ = src.position(end)
        out.append(Suppression(start, end, end_line + 1 if standalone else line, keys, raw,
                               standalone, unknown=unknown))
    return out


def _comment_in(data: bytes, start: int, end: int, at: int) -> tuple[int, int] | None:
    """The comment of the preprocessor text data[start:end] that holds offset `at` (None when
    `at` lies in code or in a string or character literal)."""
    i = start
    while i < end:
        c = data[i:i + 1]
        if c in (b'"', b"'"):
            j = i + 1
            while j < end and data[j:j + 1] != c:
                j += 2 if data[j:j + 1] == b"\\" else 1
            i = j + 1
        elif data.startswith(b"//", i):
            return (i, end) if i <= at else None
        elif data.startswith(b"/*", i):
            close = data.find(b"*/", i + 2, end)
            stop = end if close == -1 else close + 2
            if i <= at < stop:
                return i, stop
            i = stop
        else:
            i += 1
    return None


def apply(src: SourceFile, findings: list[Finding]) -> list[Finding]:
    """Drop suppressed findings; report each unused suppression as HP900."""
    sups = parse(src)
    if not sups:
        return findings
    by_line: dict[int, list[Suppression]] = {}
    for s in sups:
        by_line.setdefault(s.line, []).append(s)
    kept: list[Finding] = []
    for f in findings:
        silenced = False
        for s in by_line.get(f.span.line, ()):
            if s.keys is None:
                s.used.add("*")
                silenced = True
            elif f.rule.upper() in s.keys:
                s.used.add(f.rule.upper())
                silenced = True
        if not silenced:
            kept.append(f)
    for s in sups:
        if s.unknown:
            from hipport.config import did_you_mean

            kept.extend(Finding(UNKNOWN, Severity.ERROR, src.span(s.start, s.end),
                                f"unknown rule {k!r} in a suppression{did_you_mean(k)}")
                        for k in s.unknown)
            if not s.keys:
                continue
        if s.keys is None:
            unused = [] if s.used else ["*"]
        else:
            unused = [raw for raw, k in zip(s.raw_keys, s.keys, strict=False) if k not in s.used]
        if not unused:
            continue
        whole = unused == ["*"] or len(unused) == len(s.keys or ())
        message = "unused suppression" if whole else "unused suppression: " + ", ".join(unused)
        kept.append(Finding(UNUSED, Severity.WARNING, src.span(s.start, s.end), message,
                            _removal(src, s) if whole else None))
    return kept


def _removal(src: SourceFile, s: Suppression) -> Fix | None:
    """Delete a comment that holds nothing but the directive (its whole line when it stands alone)."""
    data = src.data
    if not _ONLY_DIRECTIVE.match(src.slice(s.start, s.end).strip()):
        return None
    start, end = s.start, s.end
    if s.standalone:
        line_start = data.rfind(b"\n", 0, start) + 1
        nl = data.find(b"\n", end)
        if nl == -1 or data[end:nl].strip():
            return None
        start, end = line_start, nl + 1
    else:
        while start > 0 and data[start - 1:start] in (b" ", b"\t"):
            start -= 1
    return Fix("delete the unused suppression", Applicability.SAFE, (Edit(start, end, "", UNUSED),))


def span_of(s: Suppression, src: SourceFile) -> Span:
    return src.span(s.start, s.end)
