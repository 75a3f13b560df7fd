"""One file through the passes: parse, translate, wave64, suppressions, apply the edits.

The pipeline runs this in its workers; tests and the emulator call it on bytes directly.
"""

from __future__ import annotations

import bisect
import gc
import sys
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hipport import closure as closuremod
from hipport import prefilter, suppress, translate
from hipport import rules as rulesmod
from hipport import wave64 as wave64pass
from hipport.config import Config
from hipport.edits import apply_edits, keep_comments, resolve
from hipport.model import (
    Applicability,
    Edit,
    FileResult,
    FileStatus,
    Finding,
    Severity,
    Span,
    applied_fixes,
    evolve,
)
from hipport.registry import HP, FixKind, W
from hipport.source import SourceFile, UndecodableError, check_editable
from hipport.translate import macrouses
from hipport.workspace import BUILD

if TYPE_CHECKING:
    from hipport.closure import Closure
    from hipport.inputs import FileInput

BOM = b"\xef\xbb\xbf"
# Deeply nested code (thousands of nested #if, brackets or operands) takes the walks of the
# passes deeper than Python's default recursion limit (1000 frames). Such a file is analysed
# again on a thread of its own whose stack has room for DEEP_FRAMES frames; a file nested
# deeper still is reported (HP010) and left unchanged, never a crash and never silence.
DEEP_FRAMES = 100_000
DEEP_STACK = 512 << 20  # bytes of address space for that thread's stack, used only as it grows


def port(inp: FileInput, config: Config) -> FileResult:
    """Port one unit of work: the file's bytes with its dependencies' (hipport.inputs), read
    before; nothing here opens a file. Never raises: failures come back as a FAILED result."""
    # The passes build one file's facts, which all live until the file is done: a cyclic
    # collection meanwhile frees nothing and rescans everything built so far, a cost that grows
    # with the square of the file. Collect after the file instead.
    was_enabled = gc.isenabled()
    gc.disable()
    t0 = time.perf_counter()
    args = (inp.display, inp.role, inp.data, config, inp.included, inp.closure, inp.root)
    try:
        try:
            return _port_bytes(*args)
        except RecursionError:
            return evolve(_port_deep(*args), seconds=time.perf_counter() - t0)
    finally:
        if was_enabled:
            gc.enable()


def port_bytes(display: str, role: str, data: bytes, config: Config,
               included: Sequence[bytes] = (), closure: Closure | None = None,
               root: str | None = None) -> FileResult:
    """`port` for bytes handed in directly (tests, tools): `included`, what a Makefile
    includes; `closure`, the headers a source includes (None: looked up beside `display` on
    the disk now, before the passes run: hipport.inputs.of_bytes)."""
    from hipport import inputs

    return port(inputs.of_bytes(display, role, data, tuple(included), closure, root), config)


def _port_deep(display: str, role: str, data: bytes, config: Config,
               included: Sequence[bytes], closure: Closure | None, root: str | None) -> FileResult:
    """`_port_bytes` on a thread with a stack for DEEP_FRAMES frames. The recursion limit is
    the interpreter's, so it is raised only while that thread runs (this one waits)."""
    out: list[FileResult] = []

    def work() -> None:
        try:
            out.append(_port_bytes(display, role, data, config, included, closure, root))
        except RecursionError:
            out.append(not_analysed(display, role, "nested too deeply for hipport to follow (#if, "
                                    f"brackets or operands: its walks went {DEEP_FRAMES:,} calls deep)"))

    limit = sys.getrecursionlimit()
    thread = threading.Thread(target=work, name="hipport: deeply nested file", daemon=True)
    sys.setrecursionlimit(max(limit, DEEP_FRAMES))
    try:
        size = threading.stack_size(DEEP_STACK)
        try:
            thread.start()
        finally:
            threading.stack_size(size)
        thread.join()
    except (ValueError, RuntimeError) as e:  # no such stack or no thread here (address space, limits)
        return not_analysed(display, role, f"nested deeper than hipport follows here ({e})")
    finally:
        sys.setrecursionlimit(limit)
    return out[0] if out else not_analysed(display, role, "nested deeper than hipport follows")


# Translate findings about an AMD build (no HIP name, a newer ROCm, a target's instructions):
# not reported in a branch AMD never compiles (`#else` of `__HIP_PLATFORM_AMD__`, which HIP's
# NVIDIA platform compiles with CUDA's own names).
_AMD_BUILD_RULES = frozenset({HP.UNSUPPORTED_API, HP.UNKNOWN_CUDA_NAME, HP.NEEDS_NEWER_ROCM,
                              HP.UNSUPPORTED_ON_TARGET})


def _not_found(src: SourceFile, rules: rulesmod.RuleSet) -> list[Finding]:
    """HP021 at each quoted include of the file that no header of its closure answered."""
    cl = src.closure
    if cl is None or not cl.path or not cl.unresolved:
        return []
    out = []
    for m in closuremod.INCLUDE.finditer(src.data):
        spec = m.group(1).decode(errors="replace")
        name = spec.strip('"<>')
        if spec.startswith('"') and spec in cl.unresolved and name not in rules.headers \
                and cl.resolve(cl.path, spec) is None:
            out.append(Finding(HP.INCLUDE_NOT_FOUND, Severity.INFO, src.span(m.start(1), m.end(1)),
                               f"no header {spec} was found (beside the file, above it, in the include "
                               f"folders or as the tree's only header of that name): what it defines is "
                               f"unknown here; give its folder with -I, -p or include-paths"))
    return out


def _port_bytes(display: str, role: str, data: bytes, config: Config,
                included: Sequence[bytes], closure: Closure | None, root: str | None) -> FileResult:
    t0 = time.perf_counter()
    try:
        check_editable(data)
        # A UTF-8 byte-order mark is kept, but the passes see spaces in its place (it would
        # hide the first line from the parser); offsets stay those of the file.
        bom = len(BOM) if data.startswith(BOM) else 0
        src = SourceFile(display, b" " * bom + data[bom:] if bom else data, closure=closure)
        if role == BUILD:  # CMake and Make: their own pass (suppressions are # comments)
            from hipport import build

            edits, findings = build.port(src, config, included, root)
            findings = _filter(findings, config)
            defines: set[str] = set()
            families: dict = {}
        elif prefilter.ENABLED and prefilter.reason(src, config, rulesmod.for_config(config)) is None:
            # Nothing any pass reacts to (hipport.prefilter): only what needs no tree.
            findings = _filter(_not_found(src, rulesmod.for_config(config)), config)
            edits, defines, families = [], set(), {}
        else:
            rules = rulesmod.for_config(config)
            ctx = translate.run(src, config, rules)
            findings = list(ctx.findings)
            findings.extend(f for f in ctx.unknown if f.subject not in ctx.defines
                            and not (ctx.hip and ctx.hip.covers(f.span.start, f.span.end)))
            findings.extend(translate.hip_note(ctx))  # code already written for HIP, left alone
            findings.extend(_not_found(src, rules))
            if config.wave64:  # wave64 judges AMD code too (a HIP branch may hard-code 64),
                layer = ctx.hip.layer() if ctx.hip else None  # not a compatibility layer
                w64, facts = wave64pass.run_facts(src, config)
                if facts.inactive:  # what AMD never compiles is no AMD port's problem
                    findings = [f for f in findings if f.rule not in _AMD_BUILD_RULES
                                or not facts.is_inactive(f.span.start)]
                findings.extend(f for f in w64 if not (layer and layer.covers(f.span.start, f.span.end)))
                findings = _drop_ported_ptx(findings, ctx.edits)
            # each use of a macro whose body holds an unported name fails to build: it carries the finding
            findings.extend(macrouses.uses(src, findings, ctx.hip))
            findings.extend(macrouses.header_uses(src, config, rules, ctx.hip))
            # Suppressions and --select/--ignore come first: a silenced finding's fix is not applied.
            findings = suppress.apply(src, findings)
            findings = _filter(findings, config)
            edits = keep_comments(ctx.edits, data)
            defines, families = ctx.defines, ctx.families
        for f in findings:
            if f.fix and f.rule.startswith("W") and (
                    f.fix.applicability == Applicability.SAFE
                    or (f.fix.applicability == Applicability.REVIEW and config.apply_review_fixes)):
                edits.extend(f.fix.edits)
        if bom:  # nothing goes before the mark: an insertion at the top goes after it
            edits = [evolve(e, start=bom, end=max(e.end, bom)) if e.start < bom else e for e in edits]
        kept, conflicts = resolve(edits)
        for a, b in conflicts:
            findings.append(Finding(HP.OVERLAPPING_REWRITES, Severity.WARNING, src.span(b.start, b.end),
                                    f"two rewrites overlap here ({a.rule} and {b.rule}); "
                                    f"kept {a.rule}, check this site by hand"))
        findings = _drop_superseded(findings, kept)
        findings = [_locate_fix(src, f) for f in findings]
        findings = sorted(findings, key=lambda f: (f.span.start, f.rule))
        applied = applied_fixes(kept, findings)
        findings = fixed(findings, applied)
        out = apply_edits(data, kept)
        res = FileResult(path=display, role=role,
                         status=FileStatus.PORTED if out != data else FileStatus.UNCHANGED,
                         edits=tuple(kept), findings=tuple(findings), families=families,
                         defines=tuple(sorted(defines)),
                         ported=out if out != data else None, applied=applied)
    except UndecodableError as e:
        res = FileResult(path=display, role=role, status=FileStatus.SKIPPED, error=str(e),
                         findings=(unreadable(f"left unchanged: {e}"),))
    except RecursionError:
        raise  # port_bytes tries again with room for deeper nesting
    except Exception as e:  # one bad file must not stop the run
        res = not_analysed(display, role, f"internal error: {type(e).__name__}: {e}")
    return evolve(res, seconds=time.perf_counter() - t0)


def fixed(findings: list[Finding], applied: Sequence[int]) -> list[Finding]:
    """A site whose fix the port made is done: info, marked fixed. Error and warning are left
    for what the port did not settle (it will not build, it computes wrong results, a person
    must look), so that a port's output says `error:` only where there is one."""
    if not applied:
        return findings
    done = set(applied)
    return [evolve(f, severity=Severity.INFO, fixed=True) if i in done else f
            for i, f in enumerate(findings)]


def unreadable(message: str) -> Finding:
    return Finding(HP.UNREADABLE_FILE, Severity.ERROR, Span(0, 0, 1, 1, 1, 1), message)


def not_analysed(display: str, role: str, why: str) -> FileResult:
    """A file the passes could not analyse: failed, left unchanged, and a finding that says
    why, so that every view (and the exit status) shows it."""
    return FileResult(path=display, role=role, status=FileStatus.FAILED, error=why,
                      findings=(unreadable(f"not analysed, left unchanged: {why}"),))


def _locate_fix(src: SourceFile, f: Finding) -> Finding:
    """Give each fix edit its line/column so views can show it without the source."""
    if f.fix is None or all(e.span is not None for e in f.fix.edits):
        return f
    edits = tuple(evolve(e, span=src.span(e.start, e.end)) for e in f.fix.edits)
    return evolve(f, fix=evolve(f.fix, edits=edits))


def _drop_superseded(findings: list[Finding], kept: list[Edit]) -> list[Finding]:
    """A 'needs newer ROCm' note is moot where the wave64 pass rewrote the call."""
    wave = [(e.start, e.end) for e in kept if e.priority > 0]  # in file order, apart
    if not wave:
        return findings

    def inside(start: int, end: int) -> bool:
        i = bisect.bisect_right(wave, (start, 1 << 62)) - 1
        return i >= 0 and end <= wave[i][1]

    return [f for f in findings if not (f.rule == HP.NEEDS_NEWER_ROCM and inside(f.span.start, f.span.end))]


def _drop_ported_ptx(findings: list[Finding], edits: list[Edit]) -> list[Finding]:
    """translate/ptx.py reports every PTX statement and writes a few as builtins; W012 ports
    (or reports) the warp ones. One word per statement: a W012 report where ptx.py wrote the
    statement goes, as does ptx.py's report where W012 has one."""
    written = _Spans([(e.start, e.end) for e in edits if e.rule == FixKind.PTX])
    findings = [f for f in findings if not (f.rule == W.INLINE_PTX_WARP and f.fix is None
                                            and written.contains(f.span.start, f.span.end))]
    w012 = _Spans([(f.span.start, f.span.end) for f in findings if f.rule == W.INLINE_PTX_WARP])
    if not w012.starts:
        return findings
    return [f for f in findings if not (f.family == "ptx" and f.severity != Severity.INFO
                                        and w012.overlaps(f.span.start, f.span.end))]


class _Spans:
    """Byte spans asked whether one holds, or meets, a given span: a bisection over their
    starts and the furthest end so far (a scan of every span per question was quadratic in a
    file of thousands of PTX statements)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans.sort()
        self.starts = [s for s, _ in spans]
        self.reach: list[int] = []  # the furthest end of the spans up to each
        far = -1
        for _, e in spans:
            far = max(far, e)
            self.reach.append(far)

    def contains(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self.starts, start)
        return i > 0 and self.reach[i - 1] >= end

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.starts, end)
        return i > 0 and self.reach[i - 1] > start


def _filter(findings: list[Finding], config: Config) -> list[Finding]:
    sev = dict(config.severity)
    out = []
    for f in findings:
        if config.select and not any(f.rule.startswith(s) for s in config.select):
            continue
        if any(f.rule.startswith(s) for s in config.ignore):
            continue
        if f.rule in sev:
            f = evolve(f, severity=Severity(sev[f.rule]))
        out.append(f)
    return out
