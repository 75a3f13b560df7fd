"""The headline of a run: how many files are ready, and why the others are not.

One function (`headline`) computes it from the frozen RunResult; the text summary, the JSON
document, SARIF's run properties, GitHub's step summary and the report's index only render
it, so they cannot disagree.

`port`, `lint` and `report` compile nothing: their headline is "not compile-checked". There a
file is ready when its analysis went through and it holds no open error or warning (a finding
whose fix the port did not make: an API with no HIP equivalent or above the ROCm floor, WMMA,
inline PTX, a `*_sync` call the floor lacks, a wave64 site left for review). A file hipport
could not analyse, or could in part not parse (HP005), is "not verified", never ready. The
share of CUDA references ported is kept, as the secondary figure it is: a tree can have every
name renamed and still not build.

`validate` gives the compiled headline (`built`): a unit the floor's toolchain compiled counts
by its compile too (one that does not compile is not ready, whatever its findings; one not
compiled is "not verified"); headers count through their findings. A kernel `verify` failed
keeps its file from being ready.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hipport import registry
from hipport.model import FileResult, FileStatus, RunResult, Severity
from hipport.registry import HP, W
from hipport.workspace import PORTED_ROLES

CHECK = "not compile-checked"


@dataclass(frozen=True, slots=True)
class Reason:
    """One rule's open findings: what keeps files from being ready."""

    rule: str
    name: str
    sites: int
    files: int


@dataclass(frozen=True, slots=True)
class Headline:
    check: str  # what the figures rest on ("not compile-checked")
    files: int  # files hipport ports (sources, headers, host files, build files)
    ready: int
    person: int  # files with an open error or warning
    unverified: int  # not analysed, or in part not parsed
    unparsed: int  # of them, in part not parsed (HP005)
    errors: int  # open findings by severity
    warnings: int
    kernels: tuple[str, ...]  # "path: kernel" of the kernels a launch or a wave64 site leaves wrong
    reasons: tuple[Reason, ...]  # largest first
    references: int  # CUDA references found
    ported: int  # of them, ported automatically
    unbuilt: int = 0  # compiled units that do not compile (validate)
    uncompiled: int = 0  # units not compiled (validate): "not verified"

    @property
    def share(self) -> str:
        return percent(self.ready, self.files)

    @property
    def coverage(self) -> str:
        return percent(self.ported, self.references)

    def why(self, limit: int = 4) -> str:
        """The rules that keep files from being ready, largest first: `W014 launch-32-thread-warp 2`."""
        parts = [f"{r.rule} {r.name} {r.sites}" for r in self.reasons[:limit]]
        if len(self.reasons) > limit:
            parts.append(f"{len(self.reasons) - limit} more rules")
        return ", ".join(parts)

    def lines(self) -> list[str]:
        """The headline as text, two or three lines."""
        out = [f"ready: {self.ready} of {self.files} files ({self.share}), {self.check}"
               + (f"; {self.unbuilt} {'does' if self.unbuilt == 1 else 'do'} not compile" if self.unbuilt else "")
               + (f"; {self.person} {'needs' if self.person == 1 else 'need'} a person" if self.person else "")
               + (f"; {self.unverified} not verified ({self._unverified_why()})" if self.unverified else "")]
        if self.reasons:
            out.append(f"open: {_n(self.errors, 'error')}, {_n(self.warnings, 'warning')}: {self.why()}")
        if self.kernels:
            out.append(f"kernels wrong at wave64 until a person acts: {len(self.kernels)} "
                       f"({', '.join(self.kernels[:3])}{', ...' if len(self.kernels) > 3 else ''})")
        out.append(f"API coverage: {self.ported} of {self.references} CUDA references ported "
                   f"automatically ({self.coverage})")
        return out

    def _unverified_why(self) -> str:
        failed = self.unverified - self.unparsed - self.uncompiled
        return ", ".join(x for x in (f"{failed} not analysed" if failed else "",
                                     f"{self.unparsed} in part not parsed: HP005" if self.unparsed else "",
                                     f"{self.uncompiled} not compiled" if self.uncompiled else "") if x)

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "files": self.files, "ready": self.ready,
                "ready_share": self.share, "need_a_person": self.person,
                "not_verified": self.unverified, "not_parsed": self.unparsed, "open_errors": self.errors,
                "open_warnings": self.warnings, "kernels_need_a_person": list(self.kernels),
                "why": [{"rule": r.rule, "name": r.name, "sites": r.sites, "files": r.files}
                        for r in self.reasons],
                "api_coverage": {"found": self.references, "ported": self.ported,
                                 "share": self.coverage},
                "do_not_compile": self.unbuilt, "not_compiled": self.uncompiled}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Headline:
        """A headline saved by `to_json` (validate's JSON document) back, to render."""
        cov = doc["api_coverage"]
        return cls(doc["check"], doc["files"], doc["ready"], doc["need_a_person"], doc["not_verified"],
                   doc["not_parsed"], doc["open_errors"], doc["open_warnings"], tuple(doc["kernels_need_a_person"]),
                   tuple(Reason(r["rule"], r["name"], r["sites"], r["files"]) for r in doc["why"]),
                   cov["found"], cov["ported"], doc.get("do_not_compile", 0), doc.get("not_compiled", 0))


def _n(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def percent(part: int, whole: int) -> str:
    if not whole:
        return "n/a"
    share = 100.0 * part / whole
    if part < whole:  # never round a shortfall up to 100%
        share = min(share, 99.9)
    return f"{share:.1f}%"


READY, PERSON, FAILED, UNPARSED = "ready", "needs a person", "not analysed", "in part not parsed"
UNBUILT, UNCOMPILED = "does not compile", "not compiled"  # validate's compiled headline
BUILT_PASS, BUILT_FAIL, BUILT_NOT_RUN = "pass", "fail", "not-run"


def state(r: FileResult) -> str | None:
    """What the headline counts a file as: READY, PERSON (an open error or warning), FAILED or
    UNPARSED (both "not verified"); None for a file hipport does not port. The report's file
    table asks this too ("hide files with nothing left to do")."""
    if r.role not in PORTED_ROLES or (r.status == FileStatus.SKIPPED and not r.error):
        return None
    if r.status in (FileStatus.FAILED, FileStatus.SKIPPED):  # not analysed (undecodable)
        return FAILED
    if any(r.is_open(i) for i in range(len(r.findings))):
        return PERSON
    if any(f.rule == HP.PARSE_ERROR for f in r.findings):
        return UNPARSED
    return READY


def headline(run: RunResult, built: Mapping[str, str] | None = None, check: str = CHECK) -> Headline:
    """The run's headline; `built` (validate): each compiled unit's outcome by its path
    (BUILT_PASS, BUILT_FAIL or BUILT_NOT_RUN), and `check` says what compiled them."""
    names = registry.rules()
    files = ready = person = unverified = unparsed = errors = warnings = unbuilt = uncompiled = 0
    failing: dict[str, list[str]] = {}  # a kernel verify failed, by its file
    if run.verification is not None:
        for k in run.verification.kernels:
            if k.status == "FAIL":
                failing.setdefault(k.file, []).append(k.kernel)
    sites: dict[str, int] = {}
    where: dict[str, set[str]] = {}
    kernels: dict[str, None] = {}
    found = ported = 0
    for r in run.files:
        for c in r.families.values():
            found += c.found
            ported += c.ported
        st = state(r)
        if st is None:
            continue
        if st == READY and r.path in failing:
            st = PERSON
        outcome = (built or {}).get(r.path)
        if outcome == BUILT_FAIL and st != FAILED:
            st = UNBUILT
        elif outcome == BUILT_NOT_RUN and st == READY:
            st = UNCOMPILED
        for kernel in failing.get(r.path, ()):
            kernels[f"{r.path}: {kernel} (verify FAIL)"] = None
        files += 1
        ready += st == READY
        person += st == PERSON
        unbuilt += st == UNBUILT
        uncompiled += st == UNCOMPILED
        unverified += st in (FAILED, UNPARSED, UNCOMPILED)
        unparsed += st == UNPARSED
        if st == FAILED:
            continue
        for i, f in enumerate(r.findings):
            if not r.is_open(i) or f.rule == HP.UNREADABLE_FILE:
                continue
            if f.severity == Severity.ERROR:
                errors += 1
            else:
                warnings += 1
            sites[f.rule] = sites.get(f.rule, 0) + 1
            where.setdefault(f.rule, set()).add(r.path)
            if f.rule == W.LAUNCH_32_THREAD_WARP and f.severity == Severity.ERROR and f.subject:
                kernels[f"{r.path}: {f.subject}"] = None
    reasons = tuple(sorted((Reason(rule, names[rule].name if rule in names else rule, n, len(where[rule]))
                            for rule, n in sites.items()), key=lambda x: (-x.sites, x.rule)))
    return Headline(check, files, ready, person, unverified, unparsed, errors, warnings, tuple(kernels),
                    reasons, found, ported, unbuilt, uncompiled)
