"""Does a file need the passes? One scan of its bytes against everything they react to.

Some headers and sources of a real tree hold no CUDA name, no launch and no warp construct
(C++ files without a CUDA hint are not even read: hipport.workspace): every pass would read
their tree and find nothing. `reason` says, from the bytes
(and the include closure's), why a file needs the passes, or None when none has work: the file
is then left as it is, with only what needs no tree (hipport.passes `_not_found`). Where a file
needs them, each sub-pass's own first test (a substring, a literal-first pattern) already
keeps it from work it has none of.

The vocabulary comes from where the passes take it, never from a list kept here: the rule
tables (rules/api: names, namespaces, qualified names' first segments, implied names, headers),
the names scan's own patterns of CUDA-looking names, hipaware's own search for code written
for HIP, and each sub-pass's own guard (its constants and regexes, imported from it). A guard here is never
narrower than the pass's own: a false "needs" costs a parse, a false "none" would change output.
tests/test_prefilter.py ports every fixture with and without the prefilter, byte for byte, and
benchmarks/prefilter_identity.py does the same over a real tree.

Two things only the tree knows: whether tree-sitter could parse the file (the translate pass
reports each region it could not, HP005) and whether a quote followed by a name closes a
string (literals.py). So a file the scan lets through is still parsed, and one with a parse
error or a glued literal goes through the passes; the passes are what such a file saves.
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
)
from hipport.wave64.facts.names import might_hold_hazards

# Internal switch (not an option): HIPPORT_PREFILTER=0 runs every pass on every file, which
# the identity tests and the benchmark compare against.
ENABLED = os.environ.get("HIPPORT_PREFILTER", "1") != "0"

_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$"  # [\w$], as names.py scans
_BLANK_OTHERS = bytes(c if c in _WORD_BYTES else 0x20 for c in range(256))
_BLANK_NON_WORD = bytes(c if c in _WORD_BYTES[:-1] else 0x20 for c in range(256))  # [\w] alone

# Byte strings whose presence is some sub-pass's own cue to look (its early `in data` tests):
# devicecalls and includes (device code: the runtime include), cgroups, tileshfl, texfetch,
# minmax, the spaced launches, suppress (a suppression comment reports itself when unused).
_CUES = (*includes.DEVICE_CODE, cgroups.REDUCE_HEADER.encode(), b"meta_group_", b".shfl", b"tex1Dfetch",
         b"Idx.", b"Dim.", b"<< <", b"<<\t<", b"hipport:")
# Some sub-passes look for a pattern, each behind its own cheaper test (a substring; None: the
# pattern finds whole words, so it is searched in the file's words, a fraction of its bytes).
_PATTERNS: tuple[tuple[bytes | None, re.Pattern[bytes]], ...] = (
    (None, ptx.ASM), (None, rounding.USE), (b"_system", atomics.USE), (b"operator", vectorops.OPERATOR))
# wmma.py looks no further than this (`wmma::` of another library is not CUDA's).
_WMMA = (b"wmma", (b"nvcuda", b"mma.h"))
# hipaware.find looks no further unless its quick pattern (an alternation of literals) matches:
# the same literals, found by substring search.
_HIP_QUICK = tuple(t.encode() for t in hipaware.QUICK.pattern.decode().split("|"))
assert all(re.fullmatch(r"\w+", t.decode()) for t in _HIP_QUICK), "hipaware.QUICK is no longer plain literals"
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


def _words(data: bytes) -> set[bytes]:
    """The file's words as the names scan splits them ([\\w$]+); with a `$` in the file, also
    as `\\b` splits them (what some passes' regexes take): never fewer than any pass sees."""
    words = set(data.translate(_BLANK_OTHERS).split())
    if b"$" in data:
        words.update(data.translate(_BLANK_NON_WORD).split())
    return words


def reason(src: SourceFile, config: Config, rules: RuleSet) -> str | None:
    """Why the passes must read this (C++ or CUDA) file; None: no pass has work in it."""
    data = src.data
    if config.wave64 and might_hold_hazards(data):
        return "wave64"
    for cue in _CUES:
        if cue in data:
            return cue.decode()
    vocab = vocabulary(rules)
    words = _words(data)
    hit = words & vocab.words
    if hit:
        return min(hit).decode()
    joined = b" " + b" ".join(words) + b" "
    if vocab.generic.search(joined):
        return "a CUDA-looking name"
    for guard, rx in _PATTERNS:
        if rx.search(joined) if guard is None else guard in data and rx.search(data):
            return rx.pattern.decode(errors="replace")[:40]
    if _WMMA[0] in data and any(t in data for t in _WMMA[1]):
        return "WMMA"
    if b"#" in data:
        for m in includes.INCLUDE.finditer(data):
            if m.group(2).decode("utf-8", "replace") in vocab.headers:
                return "a CUDA header"
        if config.rename_extensions and _CU_INCLUDE.search(data):
            return "an included .cu file"
    if any(t in data for t in _HIP_QUICK) and hipaware.find(data, rules.names, rules.namespaces, rules.hip_names):
        return "code written for HIP"
    if _bf16(src, config):
        return "bfloat16"
    macros = macrouses.header_macros(src, config, rules)
    if macros and not words.isdisjoint(macros):  # a use is a whole word
        return "a use of a header's macro with an unported name"
    # What only the tree knows: parsed here, and kept for the passes if they run.
    if src.root.has_error:  # HP005 reports each region tree-sitter could not parse
        return "a parse error"
    if b'"' in data and literals.sites(src):
        return "a glued string literal"
    return None


def _bf16(src: SourceFile, config: Config, exact: bool = True) -> bool:
    """Does bf16.py have stores to look at (below its floor, a bfloat16 type or an alias of one
    its headers give is named here)? Every alias chain ends at a name holding `bfloat16`, so
    without one in the file or its headers it has none; `exact`: with one, read the aliases
    (else leave that to the pass, which reads them anyway)."""
    if not config.floor.lacks(bf16.FLOOR):
        return False
    headers = [d for d in src.closure.found.values() if d] if src.closure is not None else []
    if b"bfloat16" not in src.data and not any(b"bfloat16" in h for h in headers):
        return False
    return not exact or any(t.encode() in src.data for t in bf16.bf16_types(src.data, headers))
