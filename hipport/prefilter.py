"""Does a file need the parser? One scan of its bytes against everything the passes react to.

Most headers and many sources of a real tree hold no CUDA name, no launch and no warp
construct: every pass would read their tree and find nothing. `reason` says, from the bytes
(and the include closure's), why a file needs the passes, or None when none has work: the file
is then left as it is, with only what needs no tree (hipport.passes `_not_found`).

The vocabulary comes from where the passes take it, never from a list kept here: the rule
tables (rules/api: names, namespaces, qualified names' first segments, implied names, headers,
the HIP names hipaware looks for), the names scan's own patterns of CUDA-looking names, and
each sub-pass's own guard (its constants and regexes, imported from it). A guard here is never
narrower than the pass's own: a false "needs" costs a parse, a false "none" would change output.
tests/test_prefilter.py ports every fixture with and without the prefilter, byte for byte, and
benchmarks/prefilter_identity.py does the same over a real tree.

One thing only the tree knows: whether tree-sitter could parse the file (the translate pass
reports each region it could not, HP005). So a file the scan lets through is still parsed, and
one with a parse error goes through the passes; the passes are what a parse-free file saves.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache

from hipport import hipaware
from hipport.config import Config
from hipport.rules import RuleSet
from hipport.rules.targets import lacks
from hipport.source import SourceFile
from hipport.translate import (
    atomics,
    bf16,
    cgroups,
    deviceptr,
    includes,
    literals,
    macrouses,
    names,
    ptx,
    rounding,
    vectorops,
    wmma,
)
from hipport.wave64.facts.names import might_hold_hazards

# Internal switch (not an option): HIPPORT_PREFILTER=0 runs every pass on every file, which
# the identity tests and the benchmark compare against.
ENABLED = os.environ.get("HIPPORT_PREFILTER", "1") != "0"

_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$"  # [\w$], as names.py scans
_BLANK_OTHERS = bytes(c if c in _WORD_BYTES else 0x20 for c in range(256))

# Byte strings whose presence is some sub-pass's own cue to look (its early `in data` tests):
# devicecalls and includes (device code: the runtime include), cgroups, tileshfl, texfetch,
# minmax, the spaced launches, suppress (a suppression comment reports itself when unused).
_CUES = (*includes._DEVICE_CODE, cgroups.REDUCE_HEADER.encode(), b"meta_group_", b".shfl", b"tex1Dfetch",
         b"Idx.", b"Dim.", b"<< <", b"<<\t<", b"hipport:")
# Some sub-passes look for a pattern: taken as they define it.
_PATTERNS = (ptx._ASM, rounding._USE, atomics._USE, wmma._USE, vectorops._OPERATOR)
# A string literal glued to the name after it (`"%"PRIu64`): literals.py inserts a space. Its
# own search (a quote, then a letter) meets every string; the tree tells an opening quote from
# a closing one. Here comments, character and string literals (raw ones too) are lexed
# (by the regex engine, in C) and a literal followed by a name is the cue.
_LITERAL = re.compile(rb"""//(?:\\\r?\n|[^\n])*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'"""
                      rb"""|[uUL8]*R"([^()\\\s"]{0,16})\(.*?\)\1"(?P<raw>[A-Za-z]\w*)?"""
                      rb"""|"(?:\\.|[^"\\\n])*"(?P<glued>[A-Za-z]\w*)?""", re.S)
_CU_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*"[^"\n]*\.cu"')  # --rename-extensions renames it


@dataclass(frozen=True)
class Vocabulary:
    """What the passes react to, for one rule set."""

    words: frozenset[bytes]  # whole words
    generic: re.Pattern[bytes]  # names that look like CUDA APIs (the names pass reports them)
    headers: frozenset[str]  # include paths the header map rewrites


@cache
def vocabulary(rules: RuleSet) -> Vocabulary:
    words = {*rules.names, *rules.namespaces, *(k.split("::")[0] for k in rules.qualified),
             *(m.cuda for m in rules.implied), *deviceptr.HANDLES,
             *(f for lack in lacks() for f in lack.functions)}
    generic = re.compile(rb" (?:" + "|".join(names.GENERIC).encode() + rb")(?= )")
    return Vocabulary(frozenset(w.encode() for w in words), generic, frozenset(rules.headers))


def reason(src: SourceFile, config: Config, rules: RuleSet) -> str | None:
    """Why the passes must read this (C++ or CUDA) file, or None when none has work there."""
    data = src.data
    if config.wave64 and might_hold_hazards(data):
        return "wave64"
    for cue in _CUES:
        if cue in data:
            return cue.decode()
    vocab = vocabulary(rules)
    words = set((b" " + data.translate(_BLANK_OTHERS) + b" ").split())
    hit = words & vocab.words
    if hit:
        return min(hit).decode()
    if words and vocab.generic.search(b" " + b" ".join(words) + b" "):
        return "a CUDA-looking name"
    for rx in _PATTERNS:
        if rx.search(data):
            return rx.pattern.decode(errors="replace")[:40]
    if b"#" in data:
        for m in includes._INCLUDE.finditer(data):
            if m.group(2).decode("utf-8", "replace") in vocab.headers:
                return "a CUDA header"
        if config.rename_extensions and _CU_INCLUDE.search(data):
            return "an included .cu file"
    if b'"' in data and _glued(data):
        return "a glued string literal"
    if hipaware._QUICK.search(data) and hipaware.find(data, rules.names, rules.namespaces, rules.hip_names):
        return "code written for HIP"
    if _bf16(src, config):
        return "bfloat16"
    macros = macrouses.header_macros(src, config, rules)
    if macros and (b"$" in data or not words.isdisjoint(macros)):  # a use is a whole word
        return "a use of a header's macro with an unported name"
    if src.root.has_error:  # HP005 reports each region tree-sitter could not parse
        return "a parse error"
    return None


def _glued(data: bytes) -> bool:
    for m in _LITERAL.finditer(data):
        suffix = m.group("glued") or m.group("raw")
        if suffix is not None and suffix.decode() not in literals.STANDARD:
            return True
    return False


def _bf16(src: SourceFile, config: Config) -> bool:
    """Does bf16.py have stores to look at (below its floor, a bfloat16 type or an alias of one
    its headers give is named here)? Every alias chain ends at a name holding `bfloat16`."""
    if not config.floor.lacks(bf16.FLOOR):
        return False
    headers = [d for d in src.closure.found.values() if d] if src.closure is not None else []
    if b"bfloat16" not in src.data and not any(b"bfloat16" in h for h in headers):
        return False
    return any(t.encode() in src.data for t in bf16.bf16_types(src.data, headers))
