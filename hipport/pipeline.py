"""Run the passes over every file (process pool, content-hash cache) and return a RunResult.

discover -> read -> parse -> translate + wave64 -> suppressions -> apply edits. Nothing here
writes user files or prints: the commands do that with the RunResult.
"""

from __future__ import annotations

import os
import pickle
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
        findings.extend(f for f in ctx.unknown if f.message.split(" ", 1)[0] not in ctx.defines)
        if config.wave64 and wave64pass is not None:
            findings.extend(wave64pass.run(src, config))
        # Suppressions and --select/--ignore come first: a silenced finding's fix is not applied.
        if suppress is not None:
            findings = suppress.apply(src, findings)
        findings = _filter(findings, config)
        edits = list(ctx.edits)
        for f in findings:
            if f.fix and f.rule.startswith("W") and (
                    f.fix.applicability == Applicability.SAFE
                    or (f.fix.applicability == Applicability.REVIEW and config.apply_review_fixes)):
                edits.extend(f.fix.edits)
        kept, conflicts = resolve(edits)
        for a, b in conflicts:
            findings.append(Finding("HP006", Severity.WARNING, src.span(b.start, b.end),
                                    f"two rewrites overlap here ({a.rule} and {b.rule}); "
                                    f"kept {a.rule}, check this site by hand"))
        findings = _drop_superseded(findings, kept)
        findings = [_locate_fix(src, f) for f in findings]
        res.findings = sorted(findings, key=lambda f: (f.span.start, f.rule))
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
    from hipport.translate.names import candidates_regex

    candidates_regex(rulesmod.load(config.blas))  # tables and name scanner, once per worker


def _pool_work(job: Job) -> tuple[FileResult, bytes | None]:
    """Port in a worker; edits and findings travel back already pickled, so the parent only
    unpickles them if a command needs them (the cache stores the same bytes)."""
    assert _CONFIG is not None
    r = _work(job, _CONFIG)
    if r.status == FileStatus.FAILED:
        return r, None
    blob = pickle.dumps((r.edits, r.findings), protocol=pickle.HIGHEST_PROTOCOL)
    return replace(r, edits=[], findings=[]), blob  # the parent sets `pending` to the key


def run(files: list[WorkFile], config: Config, *, cache_dir: Path | None = None,
        progress: Progress | None = None, keep_original: bool = False) -> RunResult:
    """Port every file. Cached results come back as metadata only (`pending`); pass
    `keep_original=True` to get every result complete with its bytes, or call `hydrate`."""
    t0 = time.perf_counter()
    results: list[FileResult | None] = [None] * len(files)
    jobs: list[tuple[int, Job, str]] = []
    salt = config.fingerprint() + cachemod.rules_digest(rulesmod.rules_dir())
    salt = cachemod.key(salt.encode(), "", "")[:16]
    store = cachemod.Cache(cache_dir) if (cache_dir is not None and config.cache) else None
    known = store.stats([str(wf.path) for wf in files]) if store else {}
    by_key: dict[str, tuple[int, WorkFile, str]] = {}  # unread files whose stat matched
    stat_rows: list[tuple[str, str, str, str]] = []
    to_read: list[tuple[int, WorkFile, str]] = []
    for i, wf in enumerate(files):
        try:
            sig = cachemod.stat_sig(os.stat(wf.path), salt)
        except OSError as e:
            msg = f"cannot read: {e.strerror or e}"
            results[i] = FileResult(path=wf.display, role="unreadable", status=FileStatus.FAILED,
                                    error=msg, findings=[_unreadable(msg)])
            continue
        row = known.get(str(wf.path))
        if row is not None and row[0] == sig:
            by_key[row[1]] = (i, wf, row[2])
        else:
            to_read.append((i, wf, sig))
    workers = config.jobs or os.cpu_count() or 1
    # Start the workers now: they load the tables while this process reads and hashes files.
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init, initargs=(config,)) \
        if workers > 1 and len(to_read) >= 8 else None
    if pool is not None:
        pool.submit(int)  # forks the workers
    for i, wf, sig in to_read:
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
                                    output_path=out_rel, original=data if keep_original else None)
            continue
        k = cachemod.key(data, role, salt)
        stat_rows.append((str(wf.path), sig, k, role))
        jobs.append((i, Job(wf.display, role, data, out_rel), k))

    hits = store.metas([k for _, _, k in jobs] + list(by_key)) if store else {}
    for k, (i, wf, role) in by_key.items():
        r = hits.get(k)
        out_rel = output_rel(wf.rel, role, config.rename_extensions)
        if r is None:  # the stat row outlived its result: read the file after all
            try:
                data = wf.path.read_bytes()
            except OSError as e:
                results[i] = FileResult(path=wf.display, role="unreadable", status=FileStatus.FAILED,
                                        error=f"cannot read: {e.strerror or e}")
                continue
            jobs.append((i, Job(wf.display, role, data, out_rel), cachemod.key(data, role, salt)))
            continue
        r.path, r.output_path = wf.display, out_rel
        results[i] = r
    todo = [(i, j, k) for i, j, k in jobs if k not in hits]
    for i, j, k in jobs:
        if k in hits:
            r = hits[k]
            r.path, r.output_path = j.display, j.out_rel
            results[i] = r
    total = len(jobs) + len(by_key)
    done = total - len(todo)
    if progress:
        progress(done, total)
    fresh: list[tuple[str, FileResult]] = []
    blobs: dict[str, bytes] = {}  # pickled (edits, findings) from workers, by content key
    if pool is None or len(todo) < 8:
        for i, j, k in todo:
            results[i] = r = _work(j, config)
            fresh.append((k, r))
            done += 1
            if progress:
                progress(done, total)
    else:
        chunk = max(1, min(32, len(todo) // (workers * 8)))
        with pool as ex:
            for (i, _, k), (r, blob) in zip(todo, ex.map(_pool_work, [j for _, j, _ in todo],
                                                           chunksize=chunk), strict=True):
                results[i] = r
                if blob is not None:
                    blobs[k] = blob
                    r.pending = k
                fresh.append((k, r))
                done += 1
                if progress:
                    progress(done, total)
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
    if keep_original:  # fresh results: the bytes are at hand already
        for i, j, _ in todo:
            if results[i] is not None:
                results[i].original = j.data  # type: ignore[union-attr]
    for k, r in fresh:
        r.digest = k
    for k, r in hits.items():
        r.digest = k
    if store:
        store.put_many([(k, r) for k, r in fresh if r.status != FileStatus.FAILED], blobs)
        store.put_stats(stat_rows)
    final = [r for r in results if r is not None]
    defined = frozenset(n for r in final for n in r.defines)
    run_result = RunResult(final, seconds=0.0, cached=len(hits), defined=defined, details=blobs)
    for r in final:
        if r.pending is None:
            _settle_unknown(r, defined)
    if keep_original:
        hydrate(run_result, files, cache_dir if config.cache else None, original=True, store=store)
    if store:
        store.close()
    run_result.seconds = time.perf_counter() - t0
    return run_result


def hydrate(run: RunResult, files: list[WorkFile], cache_dir: Path | None, *,
            which: Callable[[FileResult], bool] = lambda r: True, original: bool = True,
            store: cachemod.Cache | None = None) -> None:
    """Load what a command needs of the chosen results: cached edits and findings, the
    original bytes, and the ported bytes (re-applying the edits: the one apply function)."""
    chosen = [r for r in run.files if which(r)]
    pending = [r.pending for r in chosen if r.pending]
    own = store is None and cache_dir is not None and pending
    db = cachemod.Cache(cache_dir) if own else store
    details = {k: pickle.loads(run.details[k]) for k in pending if k in run.details}
    missing = [k for k in pending if k not in details]
    if db is not None and missing:
        details.update(db.details(missing))
    if own and db is not None:
        db.close()
    paths = {wf.display: wf.path for wf in files}
    for r in chosen:
        if r.pending:
            edits, findings = details.get(r.pending, ([], []))
            r.edits, r.findings, r.pending = edits, findings, None
            _settle_unknown(r, run.defined)
        needs_bytes = original or (r.edits and r.ported is None)
        if needs_bytes and r.original is None and r.path in paths and r.status != FileStatus.FAILED:
            try:
                r.original = paths[r.path].read_bytes()
            except OSError:
                continue
        if r.ported is None and r.edits and r.original is not None:
            out = apply_edits(r.original, r.edits)
            r.ported = out if out != r.original else None


def _settle_unknown(r: FileResult, defined: frozenset[str]) -> None:
    """Drop 'unknown CUDA name' findings for names some file of the project defines itself."""
    if defined and any(f.rule == "HP002" for f in r.findings):
        r.findings = [f for f in r.findings
                      if not (f.rule == "HP002" and f.message.split(" ", 1)[0] in defined)]
