"""What the translate sub-passes share while porting one file: inputs and collected output."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hipport import hipaware
from hipport.config import Config
from hipport.floor import RocmFloor
from hipport.model import Edit, FamilyCount, Finding, Severity
from hipport.registry import HP
from hipport.rules import Mapping, RuleSet
from hipport.source import Node, SourceFile


@dataclass
class Context:
    src: SourceFile
    config: Config
    rules: RuleSet
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    families: dict[str, FamilyCount] = field(default_factory=dict)
    defines: set[str] = field(default_factory=set)  # names this file defines itself
    unknown: list[Finding] = field(default_factory=list)  # HP002, settled across files later
    aliases: dict[str, str] | None = None  # namespace aliases, read on first need
    # Below a ROCm 6.0 floor, where cuBLAS enums get hipSOLVER's spelling (translate/solver.py):
    # "only" (the file uses cuSOLVER and calls no cuBLAS function), "calls" (cuSOLVER calls'
    # arguments only) or None (nowhere).
    solver: str | None = None
    solver_vars: dict[str, Mapping] = field(default_factory=dict)  # hipBLAS-typed enum variables
    # Another table's names that a library this file uses spells its own way (overrides.py).
    overrides: dict[str, Mapping] = field(default_factory=dict)
    # Code already written for HIP (hipport/hipaware.py): nothing in it is edited, counted or
    # reported.
    hip: hipaware.HipAware = hipaware.NONE
    # Work that needs every other edit made first (an argument moved with the renames inside
    # it: translate/args.py `order`), run once the sub-passes are done.
    later: list[Callable[[], None]] = field(default_factory=list)
    # The variables each function declares (translate/args.py), by function node id: read in
    # one walk per function, not one per call that asks.
    declared: dict[int, dict[str, list[tuple[Node, Node]]]] = field(default_factory=dict)
    # Macros the HIP names written need defined before the includes (Mapping.define).
    wanted_defines: set[str] = field(default_factory=set)

    _floor: RocmFloor | None = field(default=None, repr=False)

    @property
    def floor(self) -> RocmFloor:
        if self._floor is None:  # (Config.floor looks the floor up at each call; a file asks it per name)
            self._floor = self.config.floor
        return self._floor

    def edit(self, start: int, end: int, text: str, rule: str, priority: int = 0) -> None:
        if self.hip and self.hip.covers(start, end):
            return
        self.edits.append(Edit(start, end, text, rule, priority))

    def report(self, rule: str, severity: Severity, start: int, end: int, message: str,
               family: str | None = None, subject: str | None = None) -> None:
        if self.hip and self.hip.covers(start, end):
            return
        self.findings.append(Finding(rule, severity, self.src.span(start, end), message,
                                     family=family, subject=subject))

    def count(self, m: Mapping, start: int, end: int) -> None:
        """Count one reference to a mapped name and report what a person must know."""
        if self.hip and self.hip.covers(start, end):
            return
        c = self.families.get(m.family)
        if c is None:
            c = self.families[m.family] = FamilyCount()
        c.found += 1
        if m.status == "unsupported":
            c.unsupported += 1
            alt = f"; consider {m.alt}" if m.alt else ""
            note = f" ({m.note})" if m.note else ""
            # The name stays in the port, which will not build; a macro (`__CUDA_ARCH__` in an
            # `#if`) compiles and may pick the other branch: a person must look.
            self.report(HP.UNSUPPORTED_API, Severity.WARNING if m.kind == "macro" else Severity.ERROR,
                        start, end, f"{m.cuda} has no HIP equivalent{alt}{note}", m.family, m.cuda)
            return
        c.ported += 1
        if m.define:
            self.wanted_defines.add(m.define)
        if m.report:
            self.report(m.report, Severity.INFO, start, end,
                        f"{m.cuda} -> {m.hip}: {m.note or 'check this site by hand'}", m.family, m.cuda)
        if self.floor.lacks(m.since):
            self.report(HP.NEEDS_NEWER_ROCM, Severity.ERROR, start, end,  # not declared at the floor
                        f"{m.hip} needs ROCm {m.since}; the ROCm floor is {self.floor} "
                        f"(raise it with --rocm {m.since})", m.family, m.cuda)
        if m.status == "deprecated":
            note = f": {m.note}" if m.note else ""
            self.report(HP.DEPRECATED_API, Severity.INFO, start, end,
                        f"{m.cuda} is deprecated; ported to {m.hip}{note}", m.family, m.cuda)
        elif m.status == "experimental":
            self.report(HP.EXPERIMENTAL_API, Severity.INFO, start, end,
                        f"{m.hip} is experimental in HIP; check its behaviour", m.family, m.cuda)
