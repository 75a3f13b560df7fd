"""Each use of a macro whose body holds an unported name carries that name's finding.

A `#define` body is not compiled until it is expanded: the build fails at every use of the
macro (clang names the use's line, "expanded from macro"), not at the definition. So each use
gets the finding the body's name got (HP001 unsupported, HP002 unknown, HP003 newer than the
floor), one per use site and name, and a check of the lines a change touches (`lint
--diff-base`, annotations) sees the use it adds. The definition keeps its own: the fix goes
there. Uses inside preprocessor lines (`#ifdef M`, another `#define`) are not expansions here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.model import Finding
from hipport.registry import HP
from hipport.source import SourceFile
from hipport.translate.lexer import code_ranges

if TYPE_CHECKING:
    from hipport.hipaware import HipAware

UNPORTED = frozenset({HP.UNSUPPORTED_API, HP.UNKNOWN_CUDA_NAME, HP.NEEDS_NEWER_ROCM})
_DEFINES = ("preproc_def", "preproc_function_def")


def uses(src: SourceFile, kept: list[Finding], hip: HipAware | None = None) -> list[Finding]:
    """The findings for the uses of the macros whose bodies hold a finding of `kept` (those left
    after branches AMD never compiles are dropped: a define there is not in effect); `hip`: code
    already written for HIP, where nothing is reported."""
    macros: dict[bytes, tuple[int, int, bool, list[Finding]]] = {}  # name -> define span, call-like, findings
    for f in kept:
        if f.rule not in UNPORTED:
            continue
        node = src.node_at(f.span.start, f.span.end)
        if node is None:
            continue
        define = node if node.type in _DEFINES else next((a for a in src.ancestors(node) if a.type in _DEFINES), None)
        name = define.child_by_field_name("name") if define is not None else None
        if define is None or name is None:
            continue
        key = src.data[name.start_byte:name.end_byte]
        got = macros.setdefault(key, (define.start_byte, define.end_byte, define.type == "preproc_function_def", []))
        got[3].append(f)
    if not macros:
        return []
    data = src.data
    added: list[Finding] = []
    for s, e in code_ranges(data):
        m = macros.get(data[s:e])
        if m is None:
            continue
        d_start, d_end, call_like, findings = m
        if s < d_end or _directive(data, s):  # in effect from its definition on
            continue
        if call_like and not data[e:e + 64].lstrip().startswith(b"("):
            continue  # a function-like macro's name alone is no expansion
        if hip and hip.covers(s, e):
            continue
        line = src.position(d_start)[0]
        macro = data[s:e].decode("utf-8", "replace")
        for f in dict((f.subject or f.message, f) for f in findings).values():  # a name once per use
            added.append(Finding(f.rule, f.severity, src.span(s, e),
                                 f"{f.message} (through macro {macro}, defined at line {line})",
                                 family=f.family, subject=f.subject))
    return added


def _directive(data: bytes, pos: int) -> bool:
    """Is `pos` on a preprocessor line (continuation lines included)?"""
    start = data.rfind(b"\n", 0, pos) + 1
    while start > 1 and data[start - 2:start] == b"\\\n":  # the line continues one above it
        start = data.rfind(b"\n", 0, start - 1) + 1
    return data[start:pos].lstrip().startswith(b"#")
