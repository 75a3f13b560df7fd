"""The wave64 pass: find warp-width-32 assumptions and rewrite them for 64-lane wavefronts.

`run(src, config)` returns findings for rules W001-W021 (see `registry.RULES` and
`rules/wave64/W0nn.md`). Each finding names its function (`kernel`) and the wave model of the
group of functions it belongs to (`model`: warp32, agnostic or mixed); where a rewrite exists,
`fix` holds byte-span edits on the original text (priority 10, final HIP code) that follow one
strategy per group: logical32 (keep 32-lane logical warps) or native (wave-size agnostic).
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from hipport.config import Config
from hipport.edits import keep_comments
from hipport.model import Applicability, Edit, Finding, Fix, Severity, evolve
from hipport.registry import W
from hipport.source import SourceFile
from hipport.wave64 import amdcode
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts
from hipport.wave64.registry import RULES

__all__ = ["run", "RULES"]


def run(src: SourceFile, config: Config) -> list[Finding]:
    """All wave64 findings for one file, in file order."""
    return run_facts(src, config)[0]


def run_facts(src: SourceFile, config: Config) -> tuple[list[Finding], Facts]:
    """The findings and the facts they came from (the branches AMD never compiles: `inactive`)."""
    facts = Facts(src, config)
    if facts.empty:
        return [], facts
    em = Emitter(facts)
    findings: list[Finding] = []
    for mod in _rule_modules():
        findings.extend(mod.check(facts, em))
    findings = [f if f.fix is None else evolve(f, fix=em.portable(f.fix)) for f in findings]
    if facts.inactive or facts.amd_only:
        findings = [f for f in findings if not _left_alone(facts, f)]
        findings.extend(amdcode.check(facts))  # what is wrong on AMD in code written for it
    return _canonical(_one_per_line(findings), src.data), facts


_SEVERITY = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
_APPLICABILITY = {Applicability.SAFE: 0, Applicability.REVIEW: 1, Applicability.DISPLAY: 2}


def _one_per_line(findings: list[Finding]) -> list[Finding]:
    """One report per rule per line: several sites of one rule on a line (`warp.meta_group_size()
    + warp.meta_group_rank()`) become one finding that names them all and carries all their edits
    (the fix is as safe as its least safe part)."""
    by: dict[tuple[str, int], list[Finding]] = {}
    for f in findings:
        by.setdefault((f.rule, f.span.line), []).append(f)
    if len(by) == len(findings):
        return findings
    out: list[Finding] = []
    for group in by.values():
        if len(group) == 1:
            out.append(group[0])
            continue
        group.sort(key=lambda f: f.span.start)
        first = group[0]
        messages: list[str] = []
        for f in group:
            if f.message not in messages:
                messages.append(f.message)
        fixes = [f.fix for f in group if f.fix is not None]
        fix = first.fix
        if fixes:
            titles: list[str] = []
            for x in fixes:
                if x.title not in titles:
                    titles.append(x.title)
            fix = Fix("; ".join(titles), max((x.applicability for x in fixes), key=_APPLICABILITY.__getitem__),
                      tuple(e for x in fixes for e in x.edits))
        out.append(evolve(first, message="; also ".join(messages), fix=fix,
                          severity=min((f.severity for f in group), key=_SEVERITY.__getitem__)))
    return out


# Rules about AMD code itself: a wave size of 64 for every AMD GPU, the deprecated wave-size macro.
_AMD_CODE_RULES = frozenset({W.WAVE_SIZE_64_HARDCODED, W.AMDGCN_WAVEFRONT_SIZE_MACRO})


def _left_alone(facts: Facts, f: Finding) -> bool:
    """A finding in a branch AMD never compiles, or in one the tree wrote for AMD (the constants
    there still inform the analysis of the rest): not reported, not rewritten."""
    pos = f.span.start
    if facts.inactive and facts.is_inactive(pos):
        return True
    return f.rule not in _AMD_CODE_RULES and bool(facts.amd_only) and facts.is_amd_only(pos)


@cache
def _rule_modules() -> tuple[ModuleType, ...]:
    return tuple(info.load() for info in RULES.values())


def _canonical(findings: list[Finding], data: bytes) -> list[Finding]:
    """Keep the comments inside rewritten code, make equal edits (same span and text) one
    object, so they merge when fixes are combined, and order findings by position."""
    seen: dict[tuple[int, int, str], Edit] = {}
    out = []
    for f in findings:
        if f.fix is not None:
            old = f.fix.edits
            edits = tuple(seen.setdefault((e.start, e.end, e.replacement), e)
                          for e in keep_comments(old, data))
            if type(old) is not tuple or any(a is not b for a, b in zip(edits, old, strict=True)):
                f = evolve(f, fix=evolve(f.fix, edits=edits))
        out.append(f)
    out.sort(key=lambda f: (f.span.start, f.span.end, f.rule))
    return out
