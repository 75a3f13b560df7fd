"""The engine's machinery (hipport.engine is its door): run the passes over every file
(process pool, content-hash cache, run snapshots) and return a RunResult.

discover -> read (hipport.inputs: the file and its dependencies) -> parse -> translate +
wave64 -> suppressions -> apply edits; `complete` then makes the result a command needs.
Nothing here prints or decides what to write: a command that wants outputs hands in a Sink,
which the worker holding the bytes calls, so file contents never travel between processes. The passes
themselves (hipport.passes) are imported by the workers only: a warm run needs none of them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hipport import cache as cachemod
from hipport import codec, included, inputs, interrupt, memo
from hipport import config as configmod
from hipport import rules as rulesmod
from hipport.buildid import build_id
from hipport.config import Config
from hipport.edits import apply_edits
from hipport.model import FileResult, FileStatus, RunResult, applied_fixes, evolve
from hipport.registry import HP
from hipport.workspace import (
    BUILD,
    HOST,
    LINK,
    OTHER,
    PORTED_ROLES,
    REGULAR,
    SPECIAL,
    NotRegular,
    WorkFile,
    identity,
    kind_name,
    output_rel,
    read_regular,
    role_by_name,
    role_of,
)

if TYPE_CHECKING:
    from hipport.model import Included

Progress = Callable[..., None]  # (done, total[, the file just finished])


class Sink(Protocol):
    """Where a command wants each file's output, written by the process that holds the bytes
    (a pool worker), so file contents never travel back to the parent. Must pickle."""

    def target(self, out_rel: str) -> str:
        """The output path of a file whose output path relative to the root is `out_rel`."""

    def wants(self, role: str) -> bool:
        """Does a file of this role get an output?"""

    def write(self, source: str, target: str, data: bytes | None, ported: bytes | None,
              mode: int) -> os.stat_result:
        """Write `ported` (else the unchanged `data`; both None: copy `source`) to `target`
        with permissions `mode`; return the output's stat."""

    def link(self, text: str, target: str) -> os.stat_result:
        """Make `target` a symbolic link with this text (the input's link, kept as one)."""


@dataclass(frozen=True, slots=True)
class Job:
    index: int
    path: str  # on disk
    display: str
    rel: str
    sig: str  # stat signature when the run started
    mode: int  # permission bits, which the output gets too
    out: tuple[str, str] | None = None  # the output as last written: (stat signature, source key)
    fallback: str | None = None  # WorkFile.fallback
    size: int = 0  # bytes to read and port (`_work`): how work is shared among workers


@dataclass(slots=True)
class Outcome:
    """What a worker sends back: the result without its details as JSON (`codec.dump_meta`:
    the parent decodes it once and stores the same text, so it names the file by its path
    relative to the tree's root, never as this run's working folder shows it; the parent
    gives it the display name), and its details as JSON."""

    meta: str
    detail: str | None = None  # (edits, findings) of a fresh result, or of one with no key
    key: str = ""  # content key ("" for files that are not ported)
    written: str | None = None  # stat signature of the output it wrote
    dropped: int = 0  # cache entries this worker found undecodable (rebuilt)
    deps: str = ""  # what else the result depends on (a Makefile's includes, a source's headers
    # and the places looked at for them), as `_deps_sig` gives


def _outcome(r: FileResult, rel: str, **kw: object) -> Outcome:
    """A result with no content key: its findings (if any) travel with it."""
    detail = codec.dump_detail(r.edits, r.findings) if r.findings or r.edits else None
    return Outcome(codec.dump_meta(r, rel), detail, **kw)  # type: ignore[arg-type]


class Worker:
    """One process's share of a run: read, classify, hash, port (or find in the cache), write."""

    def __init__(self, config: Config, salt: str, cache_dir: Path | None, sink: Sink | None) -> None:
        self.config, self.salt, self.cache_dir, self.sink = config, salt, cache_dir, sink
        self._unique = dict(config.unique_headers)
        self._store: cachemod.Cache | None = None
        self._looked: dict[str, Included] = {}  # paths where no header was, this run

    def __call__(self, job: Job) -> Outcome:
        try:
            return self._run(job)
        except Exception as e:  # one file's surprise must not end the run or lose the others
            from hipport.passes import not_analysed

            return _outcome(not_analysed(job.display, role_by_name(job.path) or "unknown",
                                         f"internal error: {type(e).__name__}: {e}"), job.rel)

    def _run(self, job: Job) -> Outcome:
        role = role_by_name(job.path)
        if job.fallback and role in (OTHER, BUILD):
            role = None  # read it: its content may still make it C++
        data: bytes | None = None
        if role == BUILD and not self.config.build_files:
            data = None  # --no-build-files: copied as they are
        elif role is None or role in PORTED_ROLES:  # other files are copied, never read
            try:
                data, _ = read_regular(job.path)
            except OSError as e:
                return _outcome(_unreadable_result(job.display, e), job.rel)
            role = role or role_of(job.path, data[:65536])
            if job.fallback and role in (OTHER, BUILD):
                role = job.fallback
        out_rel = output_rel(job.rel, role, self.config.rename_extensions)
        if role not in PORTED_ROLES or data is None:
            r = FileResult(path=job.display, role=role, status=FileStatus.SKIPPED, output_path=out_rel)
            written, err = self._write(job, role, out_rel, job.sig, None, None)
            return _outcome(_write_failed(r, err) if err else r, job.rel, written=written)
        inp = inputs.resolve(job.path, job.display, role, data, rel=job.rel, memo=self._looked,
                             include_dirs=self.config.include_paths, unique=self._unique)
        own = inp.own_key(self.salt)
        k = inp.key(self.salt, own)
        dsig = _deps_sig(list(inp.looked))
        hit, dropped = self._cached(k)
        if hit is not None and (not self._wants(role) or _current(self._target(out_rel), job.out, k)):
            hit = evolve(hit, output_path=out_rel, digest=own)
            return Outcome(codec.dump_meta(hit, job.rel), key=k, deps=dsig)  # content unchanged (a touched file)
        from hipport.passes import port

        r = evolve(port(inp, self.config), output_path=out_rel, digest=own)
        if r.status == FileStatus.FAILED:
            return _outcome(r, job.rel, key=k, dropped=dropped)
        written, err = self._write(job, role, out_rel, k, data, r.ported)
        if err:
            return _outcome(_write_failed(r, err), job.rel, key=k, dropped=dropped)
        detail = codec.dump_detail(r.edits, r.findings)
        r = evolve(r, pending=k)  # the details travel apart; the parent keeps them by this key
        return Outcome(codec.dump_meta(r, job.rel), detail, k, written, dropped, dsig)

    def _cached(self, k: str) -> tuple[FileResult | None, int]:
        """The cached result of this content, and how many undecodable entries were met."""
        if self.cache_dir is None:
            return None, 0
        if self._store is None:
            try:
                self._store = cachemod.Cache(self.cache_dir, readonly=True)
            except Exception:  # the parent has already said what is wrong with it
                self.cache_dir = None
                return None, 0
        before = self._store._dropped
        hit = self._store.metas([k]).get(k)
        return hit, self._store._dropped - before

    def _wants(self, role: str) -> bool:
        return self.sink is not None and self.sink.wants(role)

    def _target(self, out_rel: str) -> str:
        assert self.sink is not None
        return self.sink.target(out_rel)

    def _write(self, job: Job, role: str, out_rel: str, key: str, data: bytes | None,
               ported: bytes | None) -> tuple[str | None, str | None]:
        """Write the output unless it is current: (its new stat signature if written, the
        error if writing failed). A failed write leaves the old output or none."""
        if self.sink is None or not self.sink.wants(role):
            return None, None
        target = self.sink.target(out_rel)
        if _current(target, job.out, key):
            return None, None
        try:
            return cachemod.stat_sig(self.sink.write(job.path, target, data, ported, job.mode), ""), None
        except OSError as e:
            return None, f"cannot write {e.filename or target}: {e.strerror or e}"


def _deps_sig(deps: list[Included]) -> str:
    """The stat row's tail for a result that depends on other files: their paths and
    identities, checked before the row is trusted (`_stat_holds`). The JSON of the list, each
    entry's text made once: a folder's files list the same headers and places."""
    if not deps:
        return ""
    parts = []
    for d in deps:
        k = (d.path, *d.identity)
        text = _SIG_PARTS.get(k)
        if text is None:
            if len(_SIG_PARTS) >= 1 << 16:
                _SIG_PARTS.clear()
            text = _SIG_PARTS[k] = json.dumps([d.path, d.identity], separators=(",", ":"))
        parts.append(text)
    return "[" + ",".join(parts) + "]"


_SIG_PARTS: dict[tuple[object, ...], str] = {}


class _Deps:
    """The files that results depend on besides their own (lists as `_deps_sig` writes them),
    checked against the disk with one stat per path per run (the files of a folder share
    their headers and the places looked at for them); and those of every result of the run,
    merged into one list for its snapshot."""

    def __init__(self) -> None:
        self._now: dict[str, list[int]] = {}
        self.merged: dict[str, list[int]] = {}
        self._added: set[str] = set()  # the lists merged by `add`
        self._entries: set[str] = set()  # the entries merged by `add`, as `_entries` cuts them

    def hold(self, tail: str, keep: bool = False) -> bool:
        """Is every path of the list as it was? `keep`: a result of this run depends on them."""
        listed = _parse_deps(tail)
        if listed is None:
            return False
        for path, was in listed:
            now = self._now.get(path)
            if now is None:
                now = self._now[path] = _now(path)
            if now != was:
                return False
        if keep:
            self._merge(listed)
        return True

    def add(self, tail: str) -> None:
        """A result made in this run depends on these paths, as its worker found them."""
        if tail in self._added:  # the files of a folder share theirs: merging one again is a no-op
            return
        self._added.add(tail)
        cut = _entries(tail)
        if cut is None:
            self._merge(_parse_deps(tail) or [])
            return
        # Only the entries no list of this run had (merging an entry again is a no-op): the
        # lists of a folder's files differ in a few of their hundred entries.
        new = [e for e in cut if e not in self._entries]
        if new:
            self._entries.update(new)
            got = _parse_deps('[["' + _ENTRY_END.join(new) + "]]]")
            self._merge(got if got is not None else _parse_deps(tail) or [])

    def _merge(self, listed: list[list]) -> None:  # type: ignore[type-arg]
        for path, was in listed:
            if self.merged.setdefault(path, was) != was:  # changed during the run: results
                self.merged[path] = [-1]  # made from either are not the run's to answer for

    def snapshot(self) -> list[str]:
        return [json.dumps([[p, v] for p, v in self.merged.items()], separators=(",", ":"))] if self.merged else []


_ENTRY_END = ']],["'  # between two entries of a `_deps_sig` list: within a path '"' is escaped


def _entries(tail: str) -> list[str] | None:
    """The entries of a `_deps_sig` list as text, each `path",[identity` (its JSON less the
    brackets and quote around; None: not such a list): cut where one ends and the next
    begins, which no path's JSON can spell."""
    if not (tail.startswith('[["') and tail.endswith("]]]")):
        return None
    return tail[3:-3].split(_ENTRY_END)


def _parse_deps(tail: str) -> list[list] | None:  # type: ignore[type-arg]
    try:
        listed = json.loads(tail)
    except ValueError:
        return None
    ok = type(listed) is list and all(type(d) is list and len(d) == 2 and type(d[0]) is str for d in listed)
    return listed if ok else None


def _stat_holds(stored: str, sig: str, deps: _Deps) -> bool:
    """Does a stat row still answer for the file? Its own stat signature, and for a result
    that depends on other files (`Outcome.deps`), theirs as they were when it was made."""
    if stored == sig:
        return True
    own, nl, tail = stored.partition("\n")
    return bool(nl) and own == sig and deps.hold(tail, keep=True)


def _now(path: str) -> list[int]:
    try:
        return _identity(os.stat(path))
    except OSError:
        return []


def _current(target: str, out: tuple[str, str] | None, key: str) -> bool:
    """Is `target` what hipport wrote last time from a source with this key?"""
    if out is None or out[1] != key:
        return False
    try:
        return cachemod.stat_sig(os.stat(target), "") == out[0]
    except OSError:
        return False


def _unreadable_result(display: str, e: OSError) -> FileResult:
    from hipport.passes import unreadable

    msg = f"cannot read: {e if isinstance(e, NotRegular) else (e.strerror or e)}"
    return FileResult(path=display, role="unreadable", status=FileStatus.FAILED, error=msg,
                      findings=(unreadable(msg),))


def _collisions(files: list[WorkFile], targets: list[str]) -> list[tuple[int, str]]:
    """Renamed files whose output is also another input's output (a.cu -> a.hip beside
    a.hip): (index of the renamed one, the other's display name)."""
    owner: dict[str, int] = {}
    for i, t in enumerate(targets):
        if files[i].kind == REGULAR and targets[i] == os.path.join(os.path.dirname(t),
                                                                   os.path.basename(files[i].rel)):
            owner[t] = i  # kept its name
    return [(i, files[owner[t]].display) for i, t in enumerate(targets)
            if t in owner and owner[t] != i]


def _write_failed(r: FileResult, err: str) -> FileResult:
    return evolve(r, status=FileStatus.FAILED, error=err, ported=None)


def _not_ported(wf: WorkFile, sink: Sink | None) -> FileResult:
    """A link or special file: left as it is (a mirror gets the same link), never opened."""
    r = FileResult(path=wf.display, role="symlink" if wf.kind != SPECIAL else "special",
                   status=FileStatus.SKIPPED)
    if wf.kind == SPECIAL:
        mode = wf.stat.st_mode if wf.stat is not None else 0
        return evolve(r, error=f"not a regular file ({kind_name(mode)}); left alone")
    if wf.kind != LINK:
        return evolve(r, error="a symbolic link out of the tree (or to nothing); left alone")
    if sink is not None and sink.wants(OTHER):  # a full mirror holds links too
        r = evolve(r, output_path=wf.rel)
        try:
            sink.link(wf.link or "", sink.target(wf.rel))
        except OSError as e:
            return evolve(r, status=FileStatus.FAILED, error=f"cannot write {e.filename}: {e.strerror or e}")
    return r


_WORKER: Worker | None = None


def _init(worker: Worker) -> None:
    """Make this process ready for jobs: the pass modules, rule tables, name scanner and
    parser loaded. A pool's parent does it before it forks, so its workers start warm and
    share these pages instead of each building its own."""
    global _WORKER
    _WORKER = worker
    from hipport import parseview, passes, prefilter  # noqa: F401  (imported for the fork to share)
    from hipport.build import cmake, make  # noqa: F401
    from hipport.source import parser
    from hipport.translate.names import scanner
    from hipport.wave64.registry import RULES

    for rule in RULES.values():
        rule.load()
    parser()
    rules = rulesmod.for_config(worker.config)
    scanner(rules)
    prefilter.vocabulary(rules)


def _pool_jobs(jobs: list[Job]) -> list[Outcome]:
    assert _WORKER is not None
    return [interrupt.run_job(_WORKER, j) for j in jobs]


def settings_of(config: Config) -> dict[str, str]:
    """The options a reader of a report needs to know the run by."""
    shown = {"wave strategy": config.wave_strategy, "ROCm floor": config.rocm,
             "targets": ", ".join(config.offload_arch), "BLAS": config.blas,
             "launch syntax": config.launch_syntax,
             "review fixes": "applied" if config.apply_review_fixes else "not applied",
             "wave64 pass": "on" if config.wave64 else "off"}
    for key, label in (("sparse", "sparse"), ("rand", "random"), ("solver", "solver")):
        if getattr(config, key).startswith("roc"):
            shown[label] = getattr(config, key)
    if config.select:
        shown["select"] = ", ".join(config.select)
    if config.ignore:
        shown["ignore"] = ", ".join(config.ignore)
    return shown


def salt_of(config: Config) -> str:
    """What every cache key holds besides content: hipport's version, the shape of cached
    results (an entry of another shape would not decode: its file would be lost, not
    re-ported), the configuration and the rule tables."""
    return cachemod.key(f"{build_id()}:{codec.FORMAT}:{config.fingerprint()}:{rulesmod.tables_digest()}".encode(),
                        "", "")[:16]


def run(files: list[WorkFile], config: Config, *, cache_dir: Path | None = None,
        progress: Progress | None = None, keep_original: bool = False,
        sink: Sink | None = None, findings_only: bool = False) -> RunResult:
    """Port every file; with a `sink`, also write each output. hipport.engine.run is the
    door: this is its machinery. Results come back as metadata with `pending` details (see
    `complete`); `keep_original=True` loads them all with the bytes. `findings_only` (lint)
    needs no edits or ported bytes: its snapshot keeps the findings, so an untouched tree is
    answered without the database.

    A file whose stat matches the last run (and whose output is as hipport left it) is not
    even read; any other file goes to a worker, which may still find its content cached."""
    t0 = time.perf_counter()
    salt = salt_of(config)
    # --precise: clang reads headers beyond the closure hipport keys results on, so its results
    # are never kept (a cache is keyed on everything a result depends on).
    use_cache = cache_dir is not None and config.cache and not config.precise
    looks = _Deps()
    paths = [wf.file for wf in files]
    results: list[FileResult | None] = [None] * len(files)
    stats: list[os.stat_result | None] = [None] * len(files)
    for i, wf in enumerate(files):
        if wf.kind != REGULAR:
            stats[i] = wf.stat
            continue
        try:
            stats[i] = wf.stat or os.stat(wf.file)
        except OSError as e:
            results[i] = _unreadable_result(wf.display, e)
    ids = [_identity(st) for st in stats]
    findings_only = findings_only and keep_original
    # A result depends on the tree a file lies in (a Makefile's includes never leave it;
    # --rename-extensions renames only the tree's .cu files), so the stat rows and the
    # snapshot hold the roots: a file's stat alone would answer for another tree's run.
    roots: dict[Path, str] = {}
    for wf in files:
        if wf.root not in roots:
            roots[wf.root] = os.path.abspath(wf.root)
    snap_key = cachemod.key(repr((sink, sorted(set(roots.values())))).encode(),
                            "findings" if findings_only else "snapshot", salt)[:24]
    if use_cache and (findings_only or not keep_original):
        snap = cachemod.load_snapshot(cache_dir, snap_key)  # type: ignore[arg-type]
        if snap is not None and snap.paths == paths and snap.stats == ids \
                and _identities(snap.targets) == snap.outs and all(looks.hold(d) for d in snap.deps):
            try:
                answered = (codec.load_with_findings if findings_only else codec.load_files)(snap.files)
            except codec.Invalid:  # not written by this hipport: run for real, and rewrite it
                answered = None
            if answered is not None and len(answered) == len(files):
                # Stored by path from the root; shown as the user named them.
                answered = [evolve(got, path=wf.display) for got, wf in zip(answered, files, strict=True)]
                done = RunResult(answered, cached=snap.cached, defined=frozenset(snap.defined),
                                 statuses=snap.statuses, salt=salt, settings=settings_of(config))
                if findings_only:  # the source lines the findings show
                    done = complete(done, files, None, ported=False, which=lambda r: bool(r.findings))
                return replace(done, seconds=time.perf_counter() - t0)
    sigs = [cachemod.stat_sig(st, f"{salt}:{roots[wf.root]}") if st is not None else ""
            for st, wf in zip(stats, files, strict=True)]
    modes = [st.st_mode & 0o7777 if st is not None else 0o644 for st in stats]
    notes: list[str] = []
    store = _open_store(cache_dir, notes) if use_cache else None
    # The output path follows from the name: only .cu files are renamed, and they are sources.
    targets = [sink.target(output_rel(wf.rel, role_by_name(wf.rel) or HOST, config.rename_extensions))
               for wf in files] if sink is not None else []
    for i, other in _collisions(files, targets):
        results[i] = FileResult(
            path=files[i].display, role=role_by_name(files[i].rel) or HOST, status=FileStatus.FAILED,
            error=f"--rename-extensions would write it over {other}'s output "
                  f"{os.path.basename(targets[i])}; not written (nothing is overwritten): rename one")
    known = store.stats(paths) if store else {}
    written = store.outputs(targets) if store and targets else {}
    hits: list[tuple[int, str, str]] = []  # (index, content key, role) of files whose stat matched
    todo: list[int] = []
    for i, path in enumerate(paths):
        if results[i] is not None:
            continue
        if files[i].kind != REGULAR:
            results[i] = _not_ported(files[i], sink)
            continue
        row = known.get(path)
        if row is not None and _stat_holds(row[0], sigs[i], looks):
            hits.append((i, row[1], row[2]))
        else:
            todo.append(i)
    metas = store.metas([k for _, k, role in hits if role in PORTED_ROLES]) if store else {}
    for i, k, role in hits:
        wf = files[i]
        out_rel = output_rel(wf.rel, role, config.rename_extensions)
        r = metas.get(k) if role in PORTED_ROLES else \
            FileResult(path=wf.display, role=role, status=FileStatus.SKIPPED, output_path=out_rel)
        if r is None or (sink is not None and sink.wants(role)
                         and not _current(targets[i], written.get(targets[i]), k or sigs[i])):
            todo.append(i)  # the cached result is gone, or its output is missing or edited
            continue
        # Files of equal content share one cached result: each gets its own copy to name it.
        r = replace(r, path=wf.display, output_path=out_rel)
        results[i] = r
    jobs = [Job(i, paths[i], files[i].display, files[i].rel, sigs[i], modes[i],
                written.get(targets[i]) if targets else None, files[i].fallback, _work(files[i]))
            for i in sorted(todo)]
    if progress:
        progress(len(files) - len(jobs), len(files))
    # Workers look a changed file's content up only when the cache has results to find.
    worker = Worker(config, salt, cache_dir if store is not None and store.has_results() else None, sink)
    outcomes = _execute(jobs, worker, config, progress, len(files), notes)
    blobs: dict[str, str] = {}
    fresh: list[tuple[str, str, str]] = []
    stat_rows: list[tuple[str, str, str, str]] = []
    out_rows: list[tuple[str, str, str]] = []
    dropped = 0
    for j, o in zip(jobs, outcomes, strict=True):
        # Stored by its path from the root; shown as the user named it.
        r = results[j.index] = evolve(codec.load_meta(o.meta), path=j.display)
        dropped += o.dropped
        if o.detail is not None and not o.key or r.status == FileStatus.FAILED:
            if o.detail is not None:  # a result that is not cached carries its findings
                edits, findings = codec.load_detail(o.detail)
                results[j.index] = evolve(r, edits=edits, findings=findings,
                                          applied=applied_fixes(edits, findings))
            continue  # failures are tried again next run: no stat row, no cached result
        stat_rows.append((j.path, j.sig + "\n" + o.deps if o.deps else j.sig, o.key, r.role))
        if o.deps:
            looks.add(o.deps)
        if o.detail is not None:
            blobs[o.key] = o.detail
            fresh.append((o.key, o.meta, o.detail))
        if o.written is not None:
            out_rows.append((targets[j.index], o.written, o.key or j.sig))
    if store:
        store.put_many(fresh)
        store.put_stats(stat_rows)
        store.put_outputs(out_rows)
    final = [r for r in results if r is not None]
    defined = frozenset(n for r in final for n in r.defines)
    outside: list[Included] = []
    defined |= included.names(files, config, outside)  # what headers outside a small run define
    if outside:  # the snapshot keeps `defined`: it answers only while they are as read
        looks.add(_deps_sig(outside))
    cached = sum(1 for r in final if r.pending is not None and r.pending not in blobs)
    statuses: dict[str, int] = {}
    for r in final:
        statuses[r.status.value] = statuses.get(r.status.value, 0) + 1
    final = [r if r.pending is not None else _settle_unknown(r, defined) for r in final]
    run_result = RunResult(final, cached=cached, defined=defined, details=blobs, statuses=statuses,
                           salt=salt, settings=settings_of(config))
    if store is not None and not findings_only and not any(r.status == FileStatus.FAILED for r in final):
        # Failures are retried by the next run, so only a clean run is worth a snapshot.
        wanted = [t if r.output_path is not None and sink is not None and sink.wants(r.role) else None
                  for t, r in zip(targets or [None] * len(final), final, strict=True)]  # type: ignore[list-item]
        body = "[" + ",".join(codec.dump_meta(r, wf.rel) for r, wf in zip(final, files, strict=True)) + "]"
        cachemod.save_snapshot(cache_dir, snap_key, cachemod.Snapshot(  # type: ignore[arg-type]
            paths, ids, wanted, _identities(wanted),
            sum(1 for r in final if r.pending is not None), sorted(defined), statuses,
            body.encode("utf-8", "surrogateescape"), looks.snapshot()))
    if keep_original:
        lost: list[int] = []
        run_result = complete(run_result, files, cache_dir if config.cache else None, original=True,
                              store=store, ported=not findings_only, lost=lost)
        if lost:  # cached details that no longer decode (dropped already): port those files again
            run_result = _port_again(run_result, lost, files, Worker(config, salt, None, sink), sigs, modes,
                                     store, findings_only)
        final = list(run_result.files)
        if findings_only and store is not None and not any(r.status == FileStatus.FAILED for r in final):
            cachemod.save_snapshot(cache_dir, snap_key, cachemod.Snapshot(  # type: ignore[arg-type]
                paths, ids, [None] * len(final), [None] * len(final), len(final), sorted(defined),
                statuses, codec.dump_with_findings(final, [wf.rel for wf in files]).encode(
                    "utf-8", "surrogateescape"), looks.snapshot()))
    if store:
        if dropped:
            store._dropped += dropped
        notes.extend(store.close())
    return replace(run_result, notes=(*notes, *run_result.notes), seconds=time.perf_counter() - t0)


def _port_again(run: RunResult, lost: list[int], files: list[WorkFile], worker: Worker,
                sigs: list[str], modes: list[int], store: cachemod.Cache | None,
                findings_only: bool) -> RunResult:
    """The run with the files at these indexes ported again (their cached details were lost)."""
    where = {wf.display: i for i, wf in enumerate(files)}
    new_files = list(run.files)
    details = dict(run.details)
    for n in lost:
        i = where[new_files[n].path]
        wf = files[i]
        o = worker(Job(i, wf.file, wf.display, wf.rel, sigs[i], modes[i], fallback=wf.fallback))
        new = evolve(codec.load_meta(o.meta), path=wf.display)
        if o.detail is not None:
            if new.pending:
                details[new.pending] = o.detail
            else:
                edits, findings = codec.load_detail(o.detail)
                new = evolve(new, edits=edits, findings=findings)
        if store is not None and o.key and o.detail is not None and new.status != FileStatus.FAILED:
            store.put_many([(o.key, o.meta, o.detail)])
        new_files[n] = new
    again = set(lost)
    fresh = {id(new_files[n]) for n in again}
    return complete(run.with_files(new_files, details=details), files, None,
                    which=lambda r: id(r) in fresh, ported=not findings_only)


def _open_store(cache_dir: Path | None, notes: list[str]) -> cachemod.Cache | None:
    """The cache database, or None (with a note) where the folder cannot hold one."""
    try:
        return cachemod.Cache(cache_dir)  # type: ignore[arg-type]
    except (OSError, sqlite3.Error) as e:  # a read-only or full cache folder: run without one
        notes.append(f"note: cannot use the cache in {cache_dir} ({e}); running without it")
        return None


def _identity(st: os.stat_result | None) -> list[int]:
    """What says a file is as it was: size, mtime and inode (empty: the file is missing).
    Lists, as the snapshot's JSON gives them back."""
    return [st.st_size, st.st_mtime_ns, st.st_ino] if st is not None else []


def _identities(targets: list[str | None]) -> list[list[int] | None]:
    """`_identity` of each output (None where the file has none), through a descriptor per
    folder: a one-name lookup each instead of a walk down the whole path."""
    out: list[list[int] | None] = [None] * len(targets)
    folders: dict[str, list[tuple[int, str]]] = {}
    for i, t in enumerate(targets):
        if t is not None:
            folder, _, name = t.rpartition("/")
            folders.setdefault(folder, []).append((i, name))
    for folder, names in folders.items():
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            fd = -1
        try:
            for i, name in names:
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    out[i] = [st.st_size, st.st_mtime_ns, st.st_ino]
                except OSError:
                    out[i] = []
        finally:
            if fd >= 0:
                os.close(fd)
    return out


# Bytes of source that pay for a worker's start (fork, pages copied on write, the results it
# sends back): a smaller share runs faster in fewer processes. benchmarks/throughput.py
# --workers measures the cost of a worker.
WORKER_BYTES = 128 << 10
# Pieces of work per worker. Few: a worker's files then lie together in the tree and share
# headers, whose facts each worker finds for itself (8 workers on real code: 8 pieces each
# cost 1.5x the CPU of -j 1, 2 pieces 1.2x); not one: a slow piece would hold the run up.
CHUNKS_PER_WORKER = 2
# A piece's results come back together: one of at most this many bytes (about a second of
# porting) keeps the progress line moving on a large tree.
CHUNK_BYTES = 1 << 20


def _work(wf: WorkFile) -> int:
    """A file's bytes if a worker reads and ports it; 0 if it is only copied (cheap at any size)."""
    role = role_by_name(wf.file)
    return wf.stat.st_size if wf.stat is not None and (role is None or role in PORTED_ROLES) else 0


def _chunks(jobs: list[Job], workers: int) -> list[list[Job]]:
    """`jobs` in order, cut into pieces of about equal bytes (a file costs in proportion to its
    size, not one unit each), so that no worker is left with the tree's largest files."""
    total = sum(max(j.size, 1) for j in jobs)
    target = max(1, min(total // (workers * CHUNKS_PER_WORKER), CHUNK_BYTES))
    out: list[list[Job]] = [[]]
    held = 0
    for j in jobs:
        if held >= target:
            out.append([])
            held = 0
        out[-1].append(j)
        held += max(j.size, 1)
    return out


def _execute(jobs: list[Job], worker: Worker, config: Config, progress: Progress | None,
             total: int, notes: list[str]) -> list[Outcome]:
    """Run the jobs in a process pool (in this process when they are too few bytes to share),
    of at most one worker per core (a note says so when `jobs` asked for more)."""
    if not jobs:
        return []
    share = max(1, sum(j.size for j in jobs) // WORKER_BYTES)
    workers = min(configmod.workers(config.jobs), share, len(jobs))
    if config.jobs > configmod.cores() and workers == configmod.cores():
        notes.append(f"note: jobs = {config.jobs} (from {config.origin('jobs')}) asks for more "
                     f"workers than the {configmod.cores()} cores this run may use: running {workers}")
    out: list[Outcome] = []
    done = total - len(jobs)
    if workers <= 1:  # the passes are imported on first need: a warm run needs none
        for j in jobs:
            out.append(interrupt.run_job(worker, j))
            done += 1
            if progress:
                progress(done, total, j.display)
        return out
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _init(worker)
    # The workers offer each other the facts of the headers they analyse (hipport.memo).
    with memo.shared_by_workers():
        # Everything loaded so far is shared with the workers as it is: frozen, the collector
        # never writes to those objects, so their pages are never copied.
        gc.freeze()
        # Forked, so that each worker's parent is this process, the one whose death ends it
        # (another start method may put a server process in between). Linux sends that signal
        # when the forking thread ends: this one, which shuts the pool down before it returns.
        ex = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                                 initializer=interrupt.install_in_worker, initargs=(os.getpid(),))
        try:
            chunks = _chunks(jobs, workers)
            for chunk, outs in zip(chunks, ex.map(_pool_jobs, chunks), strict=True):
                for j, o in zip(chunk, outs, strict=True):
                    out.append(o)
                    done += 1
                    if progress:
                        progress(done, total, j.display)
        except BaseException:  # a kill or Ctrl-C: stop the workers now; each cleans up after itself
            interrupt.stop_pool(ex)
            raise
        finally:
            gc.unfreeze()
        ex.shutdown(wait=True)
    return out


def complete(run: RunResult, files: list[WorkFile], cache_dir: Path | None, *,
             which: Callable[[FileResult], bool] = lambda r: True, original: bool = True,
             store: cachemod.Cache | None = None, ported: bool = True,
             lost: list[int] | None = None) -> RunResult:
    """The run with what a command needs of the chosen results loaded (a new result; the run
    is left as it is): cached edits and findings, which of their fixes were applied, the
    original bytes, and the ported bytes (re-applying the edits: the one apply function).

    Bytes read now are checked against the key of the bytes the edits were made for
    (`FileResult.digest`): a file that changed since the run read it fails (its edits would
    land on other text). `RunResult.read` gets the identity of each file read, by display
    path, for writes that must check it. A result whose cached details are gone fails, or,
    given `lost`, has its index put there for the caller to port again."""
    chosen = [n for n, r in enumerate(run.files) if which(r)]
    pending = [run.files[n].pending for n in chosen if run.files[n].pending]
    notes: list[str] = []
    own = store is None and cache_dir is not None and pending
    db = _open_store(cache_dir, notes) if own else store
    details = {k: codec.load_detail(run.details[k]) for k in pending if k in run.details}
    missing = [k for k in pending if k not in details]
    if db is not None and missing:
        details.update(db.details(missing))  # type: ignore[arg-type]
    if own and db is not None:
        notes.extend(db.close())
    paths = {wf.display: wf for wf in files}
    read = dict(run.read)
    failed: dict[str, str] = {}
    new_files = list(run.files)
    for n in chosen:
        r = new_files[n]
        if r.pending:
            got = details.get(r.pending)
            if got is None:  # the cache lost it meanwhile (another run, a damaged row: dropped)
                if lost is not None:
                    lost.append(n)  # the caller ports it again
                else:
                    failed[r.path] = "its cached results were lost during the run; run again"
                continue
            r = _settle_unknown(evolve(r, edits=list(got[0]), findings=list(got[1]), pending=None),
                                run.defined)
        if r.findings and not r.applied:
            r = evolve(r, applied=applied_fixes(r.edits, r.findings))
        needs_bytes = original or (r.edits and r.ported is None)
        wf = paths.get(r.path)
        if needs_bytes and r.original is None and wf is not None and wf.kind == REGULAR \
                and r.status != FileStatus.FAILED:
            try:
                data, st = read_regular(wf.file)
            except OSError:
                new_files[n] = r
                continue
            if r.digest and r.role in PORTED_ROLES and cachemod.key(data, r.role, run.salt) != r.digest:
                new_files[n] = r
                failed[r.path] = "changed on disk while hipport ran; left as it is, run again"
                continue
            r = evolve(r, original=data)
            read[r.path] = identity(st)
        if ported and r.ported is None and r.edits and r.original is not None:
            out = apply_edits(r.original, r.edits)
            r = evolve(r, ported=out if out != r.original else None)
        new_files[n] = r
    done = run.with_files(new_files, notes=(*run.notes, *notes), read=read)
    return done.with_failed(failed)


def _settle_unknown(r: FileResult, defined: frozenset[str]) -> FileResult:
    """Drop 'unknown CUDA name' findings for names some file of the project defines itself."""
    if defined and any(f.rule == HP.UNKNOWN_CUDA_NAME for f in r.findings):
        kept = [f for f in r.findings if not (f.rule == HP.UNKNOWN_CUDA_NAME and f.subject in defined)]
        return evolve(r, findings=kept, applied=applied_fixes(r.edits, kept) if r.applied else ())
    return r
