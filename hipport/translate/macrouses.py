"""Each use of a macro whose body holds an unported name carries that name's finding.

A `#define` body is not compiled until it is expanded: the build fails at every use of the
macro (clang names the use's line, "expanded from macro"), not at the definition. So each use
gets the finding the body's name got (HP001 unsupported, HP002 unknown, HP003 newer than the
floor), one per use site and name, and a check of the lines a change touches (`lint
--diff-base`, annotations) sees the use it adds. The definition keeps its own: the fix goes
there. Uses inside preprocessor lines (`#ifdef M`, another `#define`) are not expansions here.

The macros of the headers a file includes (its include closure, hipport.closure) count too:
each header is ported once per process and content to learn them; a header's define inside a
conditional other than its include guard is left out (the branch may be one AMD never
compiles, which only the header's own analysis knows).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hipport import closure as closuremod
from hipport import directives
from hipport.config import Config
from hipport.model import Finding
from hipport.registry import HP
from hipport.source import Node, SourceFile
from hipport.translate.lexer import code_ranges

if TYPE_CHECKING:
    from hipport.hipaware import HipAware
    from hipport.rules import RuleSet

UNPORTED = frozenset({HP.UNSUPPORTED_API, HP.UNKNOWN_CUDA_NAME, HP.NEEDS_NEWER_ROCM})
_DEFINES = ("preproc_def", "preproc_function_def")
_CONDITIONALS = ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else", "preproc_elifdef")
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]", re.M)
_DEFINE_NAME = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


@dataclass(frozen=True, slots=True)
class Macro:
    start: int  # the define's bytes in the file that defines it
    end: int
    call_like: bool
    where: str  # "line 3" (this file) or "k.cuh:3"
    findings: tuple[Finding, ...]


def uses(src: SourceFile, kept: list[Finding], hip: HipAware | None = None) -> list[Finding]:
    """The findings for the uses of the macros whose bodies hold a finding of `kept` (those left
    after branches AMD never compiles are dropped: a define there is not in effect); `hip`: code
    already written for HIP, where nothing is reported."""
    macros = _macros(src, kept, "line {line}", guarded_only=False)
    return _at_uses(src, macros, hip, own=True) if macros else []


def header_uses(src: SourceFile, config: Config, rules: RuleSet, hip: HipAware | None = None) -> list[Finding]:
    """The findings for the uses, in `src`, of the macros its headers define with an unported
    name in the body; a macro `src` defines itself is its own."""
    macros = header_macros(src, config, rules)
    if not macros:
        return []
    own = {m.group(1) for m in directives.finditer(_DEFINE_NAME, src.data)}
    macros = {k: v for k, v in macros.items() if k not in own}
    return _at_uses(src, macros, hip, own=False) if macros else []


def header_macros(src: SourceFile, config: Config, rules: RuleSet) -> dict[bytes, Macro]:
    """The macros the headers of `src` define with an unported name in the body (none: no use
    of a header's macro in `src` carries a finding; hipport.prefilter asks this too)."""
    cl = src.closure
    if cl is None or not cl.found:
        return {}
    macros: dict[bytes, Macro] = {}
    for path, data in cl.found.items():
        if data is None or path == cl.path or not directives.search(_DEFINE, data):
            continue
        for name, m in _header_macros(path, data, config, rules).items():
            macros.setdefault(name, m)  # the nearer header (met first) wins
    return macros


# A header's macros with unported names, by (path, content digest, configuration).
_HEADERS: dict[tuple[str, bytes, Config], dict[bytes, Macro]] = {}


def _header_macros(path: str, data: bytes, config: Config, rules: RuleSet) -> dict[bytes, Macro]:
    key = (path, closuremod.digest(data), config)
    got = _HEADERS.get(key)
    if got is None:
        from hipport import translate  # the pass this module belongs to

        if not _suspect(data, config, rules):  # most headers: no define body names anything unported
            _HEADERS[key] = {}
            return {}
        try:
            hsrc = SourceFile(path, data)
            ctx = translate.run(hsrc, config, rules)
        except Exception:  # a header the port cannot read: its own run says so
            got = {}
        else:
            found = [*ctx.findings, *(f for f in ctx.unknown if f.subject not in ctx.defines)]
            got = _macros(hsrc, found, f"{os.path.basename(path)}:{{line}}", guarded_only=True)
        if len(_HEADERS) > 512:
            _HEADERS.clear()
        _HEADERS[key] = got
    return got


_DEFINE_LINES = re.compile(rb"^[ \t]*#[ \t]*define[ \t](?:[^\n\\]|\\.)*", re.M | re.S)


def _suspect(data: bytes, config: Config, rules: RuleSet) -> bool:
    """Does a define body of `data` name what the tables do not map, map as unsupported, or
    map to a HIP name newer than the floor? (Only then is the header ported to learn which.)"""
    from hipport.translate.names import scanner

    bodies = b"\n".join(m.group(0) for m in directives.finditer(_DEFINE_LINES, data))
    for _, _, name in scanner(rules).find(bodies):
        m = rules.names.get(name)
        if m is None or m.status == "unsupported" or config.floor.lacks(m.since):
            return True
    return False


def _macros(src: SourceFile, kept: list[Finding], where: str, guarded_only: bool) -> dict[bytes, Macro]:
    """Macro name -> its define and the findings of `kept` in its body."""
    spans: dict[bytes, tuple[Node, list[Finding]]] = {}
    for f in kept:
        if f.rule not in UNPORTED:
            continue
        node = src.node_at(f.span.start, f.span.end)
        if node is None:
            continue
        up = [node, *src.ancestors(node)]
        define = next((a for a in up if a.type in _DEFINES), None)
        name = define.child_by_field_name("name") if define is not None else None
        if define is None or name is None:
            continue
        if guarded_only and any(a.type in _CONDITIONALS and not _guard(src, a) for a in up):
            continue
        spans.setdefault(src.data[name.start_byte:name.end_byte], (define, []))[1].append(f)
    return {k: Macro(d.start_byte, d.end_byte, d.type == "preproc_function_def",
                     where.format(line=src.position(d.start_byte)[0]), tuple(fs))
            for k, (d, fs) in spans.items()}


def _guard(src: SourceFile, node: Node) -> bool:
    """An include guard: `#ifndef X` whose first child defines X."""
    if node.type != "preproc_ifdef" or not src.data[node.start_byte:node.end_byte].lstrip().startswith(b"#ifndef"):
        return False
    name = node.child_by_field_name("name")
    first = next((c for c in node.named_children if c.type in _DEFINES), None)
    inner = first.child_by_field_name("name") if first is not None else None
    return name is not None and inner is not None and src.text(name) == src.text(inner)


def _at_uses(src: SourceFile, macros: dict[bytes, Macro], hip: HipAware | None, own: bool) -> list[Finding]:
    data = src.data
    added: list[Finding] = []
    # A use is a token that spells a macro's name: none past the name's last occurrence, and
    # none at all (the lexer's pass over the file spared) where no name occurs.
    last = max(data.rfind(name) for name in macros)
    if last < 0:
        return added
    for s, e in code_ranges(data, until=last + 1):
        m = macros.get(data[s:e])
        if m is None:
            continue
        if own and s < m.end or _directive(data, s):  # in effect from its definition on
            continue
        if m.call_like and not data[e:e + 64].lstrip().startswith(b"("):
            continue  # a function-like macro's name alone is no expansion
        if hip and hip.covers(s, e):
            continue
        macro = data[s:e].decode("utf-8", "replace")
        for f in dict((f.subject or f.message, f) for f in m.findings).values():  # a name once per use
            added.append(Finding(f.rule, f.severity, src.span(s, e),
                                 f"{f.message} (through macro {macro}, defined at {m.where})",
                                 family=f.family, subject=f.subject))
    return added


def _directive(data: bytes, pos: int) -> bool:
    """Is `pos` on a preprocessor line (continuation lines included)?"""
    start = data.rfind(b"\n", 0, pos) + 1
    while start > 1 and data[start - 2:start] == b"\\\n":  # the line continues one above it
        start = data.rfind(b"\n", 0, start - 1) + 1
    return data[start:pos].lstrip().startswith(b"#")
