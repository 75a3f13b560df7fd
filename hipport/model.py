"""The data model shared by every stage: spans, edits, findings and results.

Everything here is plain, frozen and picklable so that pool workers can return it and the
cache can store it; every output format is a view of `RunResult`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from operator import attrgetter
from typing import Any

_VALUES: dict[type, tuple[attrgetter[Any], dict[str, int]]] = {}


def fast_pickle(cls: type) -> type:
    """Pickle a slotted dataclass as (cls, field values): several times faster to load than
    dataclasses' generic __setstate__, for what crosses to and from the process pool. (The
    caches on disk are JSON, never pickles: hipport.codec, hipport.rules.tablecache.) Also
    registers the class with `evolve`."""
    names = tuple(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    values = attrgetter(*names)  # all fields at once, in C
    _VALUES[cls] = values, {n: i for i, n in enumerate(names)}

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign,assignment]
    return cls


def evolve(obj: Any, **changes: Any) -> Any:
    """`dataclasses.replace` for `fast_pickle` classes, at a third of its cost: the passes
    rebuild a finding or edit per fix, thousands of times in a run."""
    values, index = _VALUES[type(obj)]
    new = list(values(obj))
    for name, value in changes.items():
        new[index[name]] = value
    return type(obj)(*new)


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Applicability(str, Enum):
    SAFE = "safe"  # applied by `port`
    REVIEW = "review"  # applied only with --apply-review-fixes
    DISPLAY = "display"  # shown, never applied


@fast_pickle
@dataclass(frozen=True, slots=True)
class Span:
    """Byte offsets into the original file plus 1-based line/column (columns count bytes + 1)."""

    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int


@fast_pickle
@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the original bytes [start, end) with `replacement`.

    `priority` orders passes: when two edits cover the same bytes, the higher priority wins
    (the wave64 pass overrides a plain rename it also rewrites).
    """

    start: int
    end: int
    replacement: str
    rule: str
    priority: int = 0
    # Filled by the pipeline for fixes shown to people (JSON, SARIF); not part of identity.
    span: Span | None = field(default=None, compare=False)


@fast_pickle
@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    applicability: Applicability
    edits: tuple[Edit, ...]


@fast_pickle
@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    severity: Severity
    span: Span
    message: str
    fix: Fix | None = None
    kernel: str | None = None
    model: str | None = None  # wave model of the kernel: "warp32", "agnostic", "mixed"
    family: str | None = None  # API family for API findings
    subject: str | None = None  # the name it is about (`cudaFoo` of HP001/HP002/HP003), as data
    # The port made its fix: the site is done (severity info, shown with --show-fixed). Set
    # where the fix is applied (hipport.passes), so a view never has to infer it from edits.
    fixed: bool = False


@dataclass(frozen=True, slots=True)
class Included:
    """A file besides its own that a file's result depends on (a Makefile's include, a
    source's header), or a place looked at for one and found empty: the content key holds
    its path and bytes, the stat row and the run snapshot its identity."""

    path: str  # on disk, normalised
    data: bytes | None  # None: absent, not read (not a regular file, too large, a link out of the tree)
    identity: list[int]  # (size, mtime_ns, inode) as read; [] where nothing was there


class FileStatus(str, Enum):
    PORTED = "ported"  # output differs from input
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"  # not a file we port (binary, other role)
    FAILED = "failed"  # unreadable, undecodable, internal error


@fast_pickle
@dataclass(slots=True)
class FamilyCount:
    found: int = 0
    ported: int = 0
    unsupported: int = 0


@fast_pickle
@dataclass(frozen=True, slots=True)
class FileResult:
    """One file's result. Frozen: a later stage (loading cached details, a failed write)
    makes a new one (`evolve`)."""

    path: str  # as the user gave it (relative to the input root)
    role: str
    status: FileStatus = FileStatus.UNCHANGED
    output_path: str | None = None
    edits: tuple[Edit, ...] = ()  # (a list given is kept as a tuple)
    findings: tuple[Finding, ...] = ()
    families: dict[str, FamilyCount] = field(default_factory=dict)
    ported: bytes | None = None  # the new bytes when status is PORTED
    original: bytes | None = None  # kept only when a view needs it (diff, report)
    defines: tuple[str, ...] = ()  # names the file defines (for HP002)
    error: str | None = None
    seconds: float = 0.0
    digest: str = ""  # content key (input bytes, role, config, rules)
    pending: str | None = None  # cached edits/findings the engine has not loaded (hipport.engine)
    applied: tuple[int, ...] = ()  # indexes of the findings whose fix is among the edits made

    def __post_init__(self) -> None:
        for name in ("edits", "findings", "defines"):
            v = getattr(self, name)
            if type(v) is not tuple:
                object.__setattr__(self, name, tuple(v))

    def fix_applied(self, i: int) -> bool:
        """Was the fix of finding `i` applied (every edit of it is among the file's edits)?"""
        return i in self.applied

    def is_open(self, i: int) -> bool:
        """Is finding `i` left for a person: an error or warning whose fix the port did not
        make? (A note, and a site the port fixed, are done.) The headline, the text view and
        the report's effort page all ask this."""
        f = self.findings[i]
        return f.severity != Severity.INFO and not f.fixed and i not in self.applied


def applied_fixes(edits: Sequence[Edit], findings: Sequence[Finding]) -> tuple[int, ...]:
    """The findings whose fix the edits hold, every edit of it: applied (a fix that lost an
    overlap to another rewrite, or one not applied by the configuration, is not)."""
    made = set(edits)
    return tuple(i for i, f in enumerate(findings)
                 if f.fix is not None and f.fix.edits and all(e in made for e in f.fix.edits))


@dataclass(frozen=True, slots=True)
class RunResult:
    """A whole run, complete for what the command asked (hipport.engine.Need); frozen: the
    stages after a run (a diff base, failed writes) return new results."""

    _files: Sequence[FileResult]
    seconds: float = 0.0
    cached: int = 0
    validation: ValidationResult | None = None  # filled by `validate`
    verification: VerifyResult | None = None  # filled by `verify`
    defined: frozenset[str] = frozenset()  # names the project defines (settles HP002)
    details: dict[str, str] = field(default_factory=dict)  # JSON details not loaded yet
    statuses: dict[str, int] = field(default_factory=dict)  # files per FileStatus value
    notes: tuple[str, ...] = ()  # one line each: a rebuilt cache, a skipped file
    salt: str = ""  # what the content keys hold besides content (see pipeline.salt_of)
    settings: dict[str, str] = field(default_factory=dict)  # the options the run used, shown by views
    read: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)  # identity of each
    # file whose bytes the result holds, by display path: a write checks it is still that file

    def __post_init__(self) -> None:
        if isinstance(self._files, list):
            object.__setattr__(self, "_files", tuple(self._files))

    @property
    def files(self) -> tuple[FileResult, ...]:
        """The per-file results."""
        return tuple(self._files)  # a tuple already (__post_init__): returned as it is

    def with_files(self, files: Sequence[FileResult], **changes: Any) -> RunResult:
        """This run with other file results (and other fields), the counts following them."""
        files = tuple(files)
        statuses: dict[str, int] = {}
        if self.statuses:
            for r in files:
                statuses[r.status.value] = statuses.get(r.status.value, 0) + 1
        return dataclasses.replace(self, _files=files, statuses=statuses, **changes)

    def with_failed(self, errors: dict[str, str]) -> RunResult:
        """This run as the views show it once some files failed after it (--in-place writes
        that could not be made, files changed meanwhile; display path -> why): those files
        failed, their output withheld, and the counts follow. The run itself is left as it is."""
        if not errors:
            return self
        return self.with_files([evolve(r, status=FileStatus.FAILED, error=errors[r.path], ported=None)
                                if r.path in errors else r for r in self.files])

    def count(self, status: FileStatus) -> int:
        if self.statuses:
            return self.statuses.get(status.value, 0)
        return sum(1 for f in self.files if f.status == status)

    @property
    def findings(self) -> list[tuple[FileResult, Finding]]:
        return [(f, x) for f in self.files for x in f.findings]

    def review_fixes(self) -> tuple[int, int]:
        """(applied, not applied) fixes that need review, as the result records them."""
        done = held = 0
        for r in self.files:
            for i, f in enumerate(r.findings):
                if f.fix is not None and f.fix.applicability == Applicability.REVIEW:
                    if r.fix_applied(i):
                        done += 1
                    else:
                        held += 1
        return done, held

    def families(self) -> dict[str, FamilyCount]:
        total: dict[str, FamilyCount] = {}
        for f in self.files:
            for name, c in f.families.items():
                t = total.setdefault(name, FamilyCount())
                t.found += c.found
                t.ported += c.ported
                t.unsupported += c.unsupported
        return dict(sorted(total.items()))

    def rule_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, x in self.findings:
            counts[x.rule] = counts.get(x.rule, 0) + 1
        return dict(sorted(counts.items()))


# --- what `hipport validate` found: made by hipport.validate, read by its views and the report.
# Field order is the key order of the JSON document (docs/validate.md), which `to_json` keeps.

@dataclass(frozen=True, slots=True)
class ValidationSummary:
    failed: bool
    units: int
    programs: int
    compile_pass: int
    compile_fail: int
    compile_not_run: int
    compile_cached: int  # answers reused from an earlier run
    units_missing_package: int  # failed units by class (hipport.validate.unitclass)
    units_flagged: int
    units_unexpected: int
    emulator_pass: int  # ref32 and port64 legs
    emulator_fail: int
    emulator_not_run: int
    fixed_by_wave64: int  # programs the wave64 pass saved
    gpu_pass: int
    gpu_fail: int
    gpu_not_run: int
    not_run: int
    not_ported: int = 0  # files hipport could not port (analyse): validate checked their original
    units_missing_dependency: int = 0  # failed units whose first error is a third-party header


@dataclass(frozen=True, slots=True)
class ValidationProblem:
    """One compile error (the archs that gave it merged into `where`) or run failure."""

    file: str | None  # the original file (else the ported one; a failed run: the program)
    line: int | None
    category: str
    rule: str | None
    message: str
    where: str  # the toolchain and archs ("hip-5.2 gfx90a, gfx942"), an emulator leg, "gpu amd"


@dataclass(frozen=True, slots=True)
class ValidationNote:
    """Something of the tree validate left out, where it was written: a value a build file,
    compile database or configuration gave that did not pass the check before the compiler."""

    file: str | None
    line: int | None
    message: str


@dataclass(frozen=True, slots=True)
class OccupancyRow:
    """One kernel on the emulator: the share of lane slots doing work at wave 32 (the CUDA
    reference) and at wave 64 (the port), in percent."""

    program: str
    kernel: str
    busy32: float | None  # JSON: "lanes busy, wave 32"
    busy64: float | None  # JSON: "lanes busy, wave 64"
    ratio: float | None  # JSON: "wave 64 / wave 32"
    note: str  # what the wave-64 port leaves idle ("" when it keeps the lanes busy)
    file: str | None  # where the kernel is defined
    line: int | None

    def to_json(self) -> dict[str, Any]:
        return {"program": self.program, "kernel": self.kernel, "lanes busy, wave 32": self.busy32,
                "lanes busy, wave 64": self.busy64, "wave 64 / wave 32": self.ratio, "note": self.note,
                "file": self.file, "line": self.line}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> OccupancyRow:
        return cls(row["program"], row["kernel"], row["lanes busy, wave 32"], row["lanes busy, wave 64"],
                   row["wave 64 / wave 32"], row["note"], row["file"], row["line"])


@dataclass(frozen=True, slots=True)
class SkippedArch:
    arch: str
    reason: str
    toolchain: str = ""  # the toolchain that does not compile for it


@dataclass(frozen=True, slots=True)
class ValidationToolchain:
    """A toolchain the compile check used (hipport.validate.toolchains)."""

    name: str  # "hip-6.4": how results name it
    hip_version: str
    clang_version: str
    root: str | None  # the root it runs in; None for a HIP on this machine's own file system
    libraries: tuple[str, ...]  # whose headers it has ("hipBLAS", ...)


@dataclass(frozen=True, slots=True)
class ValidationDetails:
    toolchain: dict[str, Any]
    archs_skipped: tuple[SkippedArch, ...]
    ported_root: str | None  # kept trees only (--work-dir, --ported)
    fixed_by_wave64: tuple[str, ...]  # program names
    # The full records, as the JSON gives them (UnitResult.to_dict, ProgramResult.to_dict):
    compile: tuple[dict[str, Any], ...]
    runs: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """The whole result of `hipport validate`: flat summary, table and problems first (what the
    HTML report shows as they are), the full records under `details`."""

    version: int
    failed: bool  # the exit status is 1 when true
    archs: tuple[str, ...]  # columns, compiled or not
    summary: ValidationSummary
    table: tuple[dict[str, Any], ...]  # one row per file: column name -> cell, in column order
    errors: tuple[ValidationProblem, ...]
    occupancy: tuple[OccupancyRow, ...]
    details: ValidationDetails
    notes: tuple[ValidationNote, ...] = ()  # tree values dropped before a compile (flags.py)
    toolchains: tuple[ValidationToolchain, ...] = ()  # what compiled, in the order of the columns
    warnings: tuple[str, ...] = ()  # what makes a pass say less than it seems (a toolchain below the floor)
    headline: dict[str, Any] | None = None  # the compiled headline (hipport.report.headline), as JSON

    def to_json(self) -> dict[str, Any]:
        """The document as plain data (`--format json`): dicts and lists, as json.loads gives."""
        from dataclasses import asdict

        doc: dict[str, Any] = _lists(asdict(self))
        doc["occupancy"] = [r.to_json() for r in self.occupancy]  # its JSON names are phrases
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ValidationResult:
        """A saved `--format json` document back as the result."""
        det = doc["details"]
        return cls(doc["version"], doc["failed"], tuple(doc["archs"]), ValidationSummary(**doc["summary"]),
                   tuple(doc["table"]), tuple(ValidationProblem(**e) for e in doc["errors"]),
                   tuple(OccupancyRow.from_json(r) for r in doc["occupancy"]),
                   ValidationDetails(det["toolchain"], tuple(SkippedArch(**a) for a in det["archs_skipped"]),
                                     det["ported_root"], tuple(det["fixed_by_wave64"]),
                                     tuple(det["compile"]), tuple(det["runs"])),
                   tuple(ValidationNote(**n) for n in doc.get("notes", ())),
                   tuple(ValidationToolchain(**{**t, "libraries": tuple(t["libraries"])})
                         for t in doc.get("toolchains", ())),
                   tuple(doc.get("warnings", ())), doc.get("headline"))


def _lists(x: Any) -> Any:
    """Tuples (frozen fields) as lists, all the way down: a view that walks the document tells
    records from lists by type, as it would on a loaded JSON document."""
    if isinstance(x, dict):
        return {k: _lists(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_lists(v) for v in x]
    return x


# --- what `hipport verify` found: made by hipport.verify, read by its views.

PASS, FAIL, UNVERIFIED = "PASS", "FAIL", "UNVERIFIED"


@dataclass(frozen=True, slots=True)
class KernelCheck:
    """One kernel's differential check: the original at wave 32 against the port at wave 64."""

    kernel: str  # with its namespaces
    file: str  # where it is defined, as the user named the file
    line: int
    status: str  # PASS, FAIL or UNVERIFIED
    reason: str  # FAIL: the first difference; UNVERIFIED: why not; PASS: what was compared
    launch: str | None = None  # where its launch shape came from (file:line, or the configuration)
    sized_by: str = ""  # how its pointers' lengths were found
    cases: int = 0  # cases compared (sizes x input kinds)
    sizes: tuple[int, ...] = ()
    skipped: tuple[str, ...] = ()  # input kinds the original itself stops on (not valid inputs)
    reductions: tuple[str, ...] = ()  # outputs compared within n·ε·Σ|x|, each with its reference
    # FAIL: the first differing element
    param: str | None = None
    index: int | None = None
    size: int | None = None
    kind: str | None = None
    expected: str | None = None  # what the original wrote (wave 32)
    actual: str | None = None  # what the port wrote (wave 64)


@dataclass(frozen=True, slots=True)
class VerifyResult:
    kernels: tuple[KernelCheck, ...]
    reference: str = ("a reduction to one total: the float64 sum of the inputs when the wave-32 run agrees with it; "
                      "other reductions: the wave-32 result")

    @property
    def failed(self) -> bool:
        return any(k.status == FAIL for k in self.kernels)

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for k in self.kernels if k.status == s) for s in (PASS, FAIL, UNVERIFIED)}

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        return {"version": 1, "failed": self.failed, "counts": self.counts(), "reference": self.reference,
                "kernels": [_lists(asdict(k)) for k in self.kernels]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> VerifyResult:
        ks = []
        for k in doc["kernels"]:
            ks.append(KernelCheck(**{**k, "sizes": tuple(k["sizes"]), "skipped": tuple(k["skipped"]),
                                     "reductions": tuple(k["reductions"])}))
        return cls(tuple(ks), *([doc["reference"]] if "reference" in doc else []))
