"""Run the passes over every file (process pool, content-hash cache) and return a RunResult.

discover -> read -> parse -> translate + wave64 -> suppressions -> apply edits. Nothing here
writes user files or prints: the commands do that with the RunResult.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from hipport import cache as cachemod
from hipport import rules as rulesmod
from hipport import translate
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.model import Applicability, FileResult, FileStatus, Finding, RunResult, Severity, Span
from hipport.source import SourceFile, UndecodableError, check_editable
from hipport.workspace import PORTED_ROLES, WorkFile, output_rel, role_of

try:  # the wave64 pass is optional at import time so the translator works on its own
    from hipport import wave64 as wave64pass
except ImportError:  # pragma: no cover
    wave64pass = None  # type: ignore[assignment]
try:
    from hipport import suppress
except ImportError:  # pragma: no cover
    suppress = None  # type: ignore[assignment]

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Job:
    display: str
    role: str
    data: bytes
    out_rel: str


def port_bytes(display: str, role: str, data: bytes, config: Config) -> FileResult:
    """Port one file's bytes. Never raises: failures come back as a FAILED result."""
    t0 = time.perf_counter()
    res = FileResult(path=display, role=role)
    try:
        check_editable(data)
        src = SourceFile(display, data)
        rules = rulesmod.load(config.blas)
        ctx = translate.run(src, config, rules)
        findings = list(ctx.findings)
        edits = list(ctx.edits)
        if config.wave64 and wave64pass is not None and hasattr(wave64pass, "run"):
            w = wave64pass.run(src, config)
            findings.extend(w)
            for f in w:
                if f.fix and (f.fix.applicability == Applicability.SAFE or
                              (f.fix.applicability == Applicability.REVIEW and config.apply_review_fixes)):
                    edits.extend(f.fix.edits)
        kept, conflicts = resolve(edits)
        for a, b in conflicts:
            findings.append(Finding("HP006", Severity.WARNING, src.span(b.start, b.end),
                                    f"two rewrites overlap here ({a.rule} and {b.rule}); "
                                    f"kept {a.rule}, check this site by hand"))
        findings = _drop_superseded(findings, kept)
        findings.extend(f for f in ctx.unknown if f.message.split(' ', 1)[0] not in ctx.defines)
        if suppress is not None:
            findings = suppress.apply(src, findings)
        findings = [_locate_fix(src, f) for f in findings]
        res.findings = _filter(sorted(findings, key=lambda f: (f.span.start, f.rule)), config)
        res.families = ctx.families
        res.defines = sorted(ctx.defines)
        res.edits = kept
        out = apply_edits(data, kept)
        res.status = FileStatus.PORTED if out != data else FileStatus.UNCHANGED
        res.ported = out if out != data else None
    except UndecodableError as e:
        res.status = FileStatus.SKIPPED
        res.error = str(e)
        res.findings = [_unreadable(f"left unchanged: {e}")]
    except Exception as e:  # one bad file must not stop the run
        res.status = FileStatus.FAILED
        res.error = f"internal error: {type(e).__name__}: {e}"
    res.seconds = time.perf_counter() - t0
    return res


def _unreadable(message: str) -> Finding:
    return Finding("HP010", Severity.ERROR, Span(0, 0, 1, 1, 1, 1), message)


def _locate_fix(src: SourceFile, f: Finding) -> Finding:
    """Give each fix edit its line/column so views can show it without the source."""
    if f.fix is None or all(e.span is not None for e in f.fix.edits):
        return f
    edits = tuple(replace(e, span=src.span(e.start, e.end)) for e in f.fix.edits)
    return replace(f, fix=replace(f.fix, edits=edits))


def _drop_superseded(findings: list[Finding], kept: list) -> list[Finding]:
    """A 'needs newer ROCm' note is moot where the wave64 pass rewrote the call."""
    wave = [(e.start, e.end) for e in kept if e.priority > 0]
    if not wave:
        return findings
    return [f for f in findings if not (f.rule == "HP003" and any(
        s <= f.span.start and f.span.end <= e for s, e in wave))]


def _filter(findings: list[Finding], config: Config) -> list[Finding]:
    sev = dict(config.severity)
    out = []
    for f in findings:
        if config.select and not any(f.rule.startswith(s) for s in config.select):
            continue
        if any(f.rule.startswith(s) for s in config.ignore):
            continue
        if f.rule in sev:
            f = replace(f, severity=Severity(sev[f.rule]))
        out.append(f)
    return out


def _work(job: Job, config: Config) -> FileResult:
    r = port_bytes(job.display, job.role, job.data, config)
    r.output_path = job.out_rel
    return r


_CONFIG: Config | None = None


def _init(config: Config) -> None:
    global _CONFIG
    _CONFIG = config
    rulesmod.load(config.blas)  # parse the tables once per worker


def _pool_work(job: Job) -> FileResult:
    assert _CONFIG is not None
    return _work(job, _CONFIG)


def run(files: list[WorkFile], config: Config, *, cache_dir: Path | None = None,
        progress: Progress | None = None, keep_original: bool = False) -> RunResult:
    t0 = time.perf_counter()
    results: list[FileResult | None] = [None] * len(files)
    jobs: list[tuple[int, Job, str]] = []
    originals: dict[int, bytes] = {}
    salt = config.fingerprint() + cachemod.rules_digest(rulesmod.rules_dir())
    for i, wf in enumerate(files):
        try:
            data = wf.path.read_bytes()
        except OSError as e:
            msg = f"cannot read: {e.strerror or e}"
            results[i] = FileResult(path=wf.display, role="unreadable", status=FileStatus.FAILED,
                                    error=msg, findings=[_unreadable(msg)])
            continue
        role = role_of(wf.path, data[:65536])
        out_rel = output_rel(wf.rel, role, config.rename_extensions)
        if role not in PORTED_ROLES:
            results[i] = FileResult(path=wf.display, role=role, status=FileStatus.SKIPPED,
                                    output_path=out_rel)
            originals[i] = data
            continue
        originals[i] = data
        jobs.append((i, Job(wf.display, role, data, out_rel), cachemod.key(data, role, salt)))

    store = cachemod.Cache(cache_dir) if (cache_dir is not None and config.cache) else None
    hits = store.get_many([k for _, _, k in jobs]) if store else {}
    todo = [(i, j, k) for i, j, k in jobs if k not in hits]
    for i, j, k in jobs:
        if k in hits:
            r = hits[k]
            r.path, r.output_path = j.display, j.out_rel
            out = apply_edits(j.data, r.edits)
            r.ported = out if out != j.data else None
            results[i] = r
    done = len(jobs) - len(todo)
    if progress:
        progress(done, len(jobs))
    fresh: list[tuple[str, FileResult]] = []
    workers = config.jobs or os.cpu_count() or 1
    if len(todo) < 8 or workers == 1:
        for i, j, k in todo:
            results[i] = r = _work(j, config)
            fresh.append((k, r))
            done += 1
            if progress:
                progress(done, len(jobs))
    else:
        # Load the tables and compile the name scanner once, here: forked workers inherit them.
        from hipport.translate.names import candidates_regex

        candidates_regex(rulesmod.load(config.blas))
        chunk = max(1, min(32, len(todo) // (workers * 8)))
        with ProcessPoolExecutor(max_workers=workers, initializer=_init, initargs=(config,)) as ex:
            for (i, _, k), r in zip(todo, ex.map(_pool_work, [j for _, j, _ in todo], chunksize=chunk)):
                results[i] = r
                fresh.append((k, r))
                done += 1
                if progress:
                    progress(done, len(jobs))
    if store:
        store.put_many([(k, r) for k, r in fresh if r.status != FileStatus.FAILED])
        store.close()
    final = [r for r in results if r is not None]
    if keep_original:
        for i, r in enumerate(results):
            if r is not None and i in originals:
                r.original = originals[i]
    _settle_unknown(final)
    return RunResult(final, seconds=time.perf_counter() - t0, cached=len(hits))


def _settle_unknown(results: list[FileResult]) -> None:
    """Drop 'unknown CUDA name' findings for names some file of the project defines itself."""
    defined: set[str] = set()
    for r in results:
        defined.update(r.defines)
    if not defined:
        return
    for r in results:
        r.findings = [f for f in r.findings
                      if not (f.rule == "HP002" and f.message.split(" ", 1)[0] in defined)]
