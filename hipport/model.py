"""The data model shared by every stage: spans, edits, findings and results.

Everything here is plain, frozen and picklable so that pool workers can return it and the
cache can store it; every output format is a view of `RunResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from operator import attrgetter
from typing import Any

_VALUES: dict[type, tuple[attrgetter[Any], dict[str, int]]] = {}


def fast_pickle(cls: type) -> type:
    """Pickle a slotted dataclass as (cls, field values): several times faster to load than
    dataclasses' generic __setstate__, which matters for the pool, the cache and the rule
    tables. Also registers the class with `evolve`."""
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
@dataclass(slots=True)
class FileResult:
    path: str  # as the user gave it (relative to the input root)
    role: str
    status: FileStatus = FileStatus.UNCHANGED
    output_path: str | None = None
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    families: dict[str, FamilyCount] = field(default_factory=dict)
    ported: bytes | None = None  # the new bytes when status is PORTED
    original: bytes | None = None  # kept only when a view needs it (diff, report)
    defines: list[str] = field(default_factory=list)  # names the file defines (for HP002)
    error: str | None = None
    seconds: float = 0.0
    digest: str = ""  # content key (input bytes, role, config, rules)
    pending: str | None = None  # cached edits/findings not loaded yet (see pipeline.hydrate)

    def count(self, family: str) -> FamilyCount:
        return self.families.setdefault(family, FamilyCount())


@dataclass(slots=True)
class RunResult:
    _files: list[FileResult] | bytes  # bytes: JSON (a snapshot), decoded on first use (see `files`)
    seconds: float = 0.0
    cached: int = 0
    validation: dict[str, Any] | None = None  # filled by `validate`
    defined: frozenset[str] = frozenset()  # names the project defines (settles HP002)
    details: dict[str, str] = field(default_factory=dict)  # JSON details not loaded yet
    statuses: dict[str, int] = field(default_factory=dict)  # files per FileStatus value
    notes: list[str] = field(default_factory=list)  # one line each: a rebuilt cache, a skipped file
    salt: str = ""  # what the content keys hold besides content (see pipeline.salt_of)
    settings: dict[str, str] = field(default_factory=dict)  # the options the run used, shown by views

    @property
    def files(self) -> list[FileResult]:
        """The per-file results. A run answered from a snapshot decodes them only here, so
        a command that needs just the exit code does not pay for thousands of objects."""
        if isinstance(self._files, bytes):
            from hipport import codec

            self._files = codec.load_files(self._files)
        return self._files

    def fail(self, r: FileResult, error: str) -> None:
        """Mark a file failed after the run (a write that could not be made, a file that
        changed meanwhile): its output is withheld and the counts follow."""
        if self.statuses:
            self.statuses[r.status.value] -= 1
            self.statuses[FileStatus.FAILED.value] = self.statuses.get(FileStatus.FAILED.value, 0) + 1
        r.status, r.error, r.ported = FileStatus.FAILED, error, None

    def count(self, status: FileStatus) -> int:
        if self.statuses:
            return self.statuses.get(status.value, 0)
        return sum(1 for f in self.files if f.status == status)

    @property
    def findings(self) -> list[tuple[FileResult, Finding]]:
        return [(f, x) for f in self.files for x in f.findings]

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
