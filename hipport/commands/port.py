"""`hipport port`: run the pipeline and write, diff or check the result."""

from __future__ import annotations

import errno
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from hipport import engine, lock, patch
from hipport.cache import default_folder
from hipport.commands.project import with_project
from hipport.config import Config
from hipport.errors import HipportError
from hipport.model import FileStatus, RunResult
from hipport.ui import UI
from hipport.workspace import (
    PORTED_ROLES,
    Changed,
    WorkFile,
    copy_atomic,
    discover,
    identity,
    link_atomic,
    read_regular,
    write_atomic,
)


@dataclass(frozen=True)
class PortOptions:
    paths: tuple[Path, ...]
    output: str | None  # a folder, or "-" for stdout
    in_place: bool
    diff: bool
    check: bool
    only_ported: bool
    fmt: str
    cache_dir: Path | None
    report_dir: Path | None = None


def check_modes(o: PortOptions) -> str:
    modes = [m for m, on in (("--output", o.output is not None), ("--in-place", o.in_place),
                             ("--diff", o.diff), ("--check", o.check)) if on]
    if len(modes) != 1:
        raise HipportError("choose exactly one output mode: -o/--output DIR, --in-place, --diff "
                           "or --check" + (f" (got {', '.join(modes)})" if modes else ""))
    if o.output == "-" and (len(o.paths) != 1 or not o.paths[0].is_file()):
        raise HipportError("-o - (stdout) needs exactly one input file")
    return modes[0]


def check_outputs(o: PortOptions, config: Config, out_dir: Path) -> None:
    """Refuse, before anything is written, an output folder that is an input, holds one, or
    lies inside one (unless it is excluded from it: a mirror kept beside the sources)."""
    for p in o.paths:
        rp = Path(os.path.realpath(p))
        if out_dir == rp:
            raise HipportError("the output folder is the input; choose another folder "
                               "(or --in-place to rewrite the files themselves)", o.output)
        if rp.is_relative_to(out_dir):
            raise HipportError(f"the output folder holds the input {p}; writing there could "
                               "overwrite sources: choose a folder outside the inputs", o.output)
        if p.is_dir() and out_dir.is_relative_to(rp) and not _excluded(out_dir, rp, config):
            raise HipportError("the output folder is inside the input folder; choose a folder "
                               "outside it (or exclude it with --exclude)", o.output)


def make_folder(out_dir: Path, given: str | None) -> None:
    """Create the output folder, or exit 2 before any work when it cannot hold files."""
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise HipportError(f"cannot create the output folder: {e.strerror}", e.filename or given) from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise HipportError("the output folder is not writable", given)


def port(o: PortOptions, config: Config, ui: UI) -> int:
    mode = check_modes(o)
    out_dir: Path | None = None
    if mode == "--output" and o.output != "-":
        out_dir = Path(os.path.realpath(o.output or "."))
        check_outputs(o, config, out_dir)
    if o.report_dir is not None:
        from hipport.report import html

        html.check_folder(o.report_dir, list(o.paths))
    files = discover(list(o.paths), config.include, config.exclude, skip=out_dir,
                     force_exclude=config.force_exclude)
    config = with_project(config, files, ui.err)
    if out_dir is not None:
        make_folder(out_dir, o.output)
    cache_dir = (o.cache_dir or default_folder(o.paths)) if config.cache else None
    sink = Mirror(str(out_dir), o.only_ported) if out_dir is not None else None
    writes = [out_dir] if out_dir is not None else \
        [p if p.is_dir() else p.parent for p in o.paths] if mode == "--in-place" else []
    with lock.hold(writes, ui.err):
        return _port(o, mode, files, config, cache_dir, sink, ui)


def _port(o: PortOptions, mode: str, files: list[WorkFile], config: Config, cache_dir: Path | None,
          sink: Mirror | None, ui: UI) -> int:
    need = _need(mode, views=o.output == "-" or _views(o, ui))
    with ui.progress("porting") as progress:
        result = engine.run(files, config, need, cache_dir=cache_dir, progress=progress, sink=sink)
    rc = 0
    if mode == "--output" and o.output == "-":
        r = result.files[0]
        sys.stdout.buffer.write(r.ported if r.ported is not None else (r.original or b""))
        sys.stdout.flush()
        ui.report(result, o.fmt, to_stderr=True)
        return 1 if r.status == FileStatus.FAILED else 0
    if mode == "--in-place":  # the views show the files left as they were as failed
        result = result.with_failed({u.path: u.error for u in write_in_place(result, files)})
    elif mode == "--diff":
        sys.stdout.buffer.write(patch.render(result, files))
        sys.stdout.flush()
    elif mode == "--check" and result.count(FileStatus.PORTED):
        for r in result.files:
            if r.status == FileStatus.PORTED:
                ui.err(f"{r.path}: would be changed by hipport port")
        rc = 1
    if o.report_dir is not None:
        from hipport.report import html

        try:
            with ui.progress("writing the report") as progress:
                html.write(result, o.report_dir, progress)
        except html.NotReportFolder as e:
            raise HipportError(str(e)) from None
        except OSError as e:
            raise HipportError(f"cannot write the report: {e.strerror}",
                               e.filename or o.report_dir) from None
    ui.report(result, o.fmt, to_stderr=mode in ("--diff",), writes=mode in ("--output", "--in-place"))
    if result.count(FileStatus.FAILED):
        rc = max(rc, 1)
    return rc


def _views(o: PortOptions, ui: UI) -> bool:
    """Does any view show the files (findings with their source lines, the report's pages)?
    Quiet text names only failures, which need nothing loaded."""
    return not (ui.quiet and o.fmt == "text") or o.report_dir is not None


def _need(mode: str, *, views: bool) -> engine.Need:
    """What this mode and the views read of the result, loaded once before anything is
    written or shown: a quiet `-o DIR` or `--check` over a large tree never holds every
    file's bytes. Views need every file; --in-place and --diff only the ported ones
    (--in-place reads their original only to re-apply the edits; the result keeps the
    identity of each file read, which it checks just before each rename)."""
    if views:
        return engine.EVERYTHING
    if mode == "--in-place":
        return engine.Need(engine.CHANGED, original=False)
    if mode == "--diff":
        return engine.Need(engine.CHANGED)
    return engine.NOTHING


@dataclass(frozen=True, slots=True)
class Unwritten:
    """A ported file --in-place left as it was, and why."""

    path: str  # display path, as in the run
    error: str


def write_in_place(result: RunResult, files: list[WorkFile]) -> tuple[Unwritten, ...]:
    """Replace each ported file, checking just before the rename that it is still the file
    whose bytes were ported; a failure is that file's, and the others still go ahead.
    Returns the failures, in run order; the run is only read (`RunResult.with_failed`
    makes what the views show)."""
    by_display = {wf.display: wf for wf in files}
    read = result.read
    failed: list[Unwritten] = []
    for r in result.files:
        if r.ported is None or r.status != FileStatus.PORTED or r.path not in read:
            continue
        wf = by_display[r.path]
        source = wf.file  # the real path: a link named on the command line stays a link
        target = source
        if r.output_path and r.output_path != wf.rel:  # --rename-extensions
            target = os.path.join(os.path.dirname(source), os.path.basename(r.output_path))
        mode = (wf.stat.st_mode & 0o7777) if wf.stat is not None else None
        try:
            if target == source:
                write_atomic(target, r.ported, mode=mode, durable=True, expect=read[r.path])
                continue
            if identity(os.stat(source)) != read[r.path]:
                raise Changed(f"{source} changed on disk since hipport read it; not rewritten")
            write_atomic(target, r.ported, mode=mode, durable=True, exclusive=True)
            os.unlink(source)
        except Changed:
            failed.append(Unwritten(r.path, "changed on disk since hipport read it; left as it "
                                    "is, run again"))
        except FileExistsError:
            failed.append(Unwritten(r.path, f"--rename-extensions: {os.path.basename(target)} "
                                    "already exists; left as it is (nothing is overwritten): "
                                    "rename or remove one of them"))
        except OSError as e:
            failed.append(Unwritten(r.path, f"cannot write {e.filename or target}: {e.strerror or e}"))
    return tuple(failed)


@dataclass(frozen=True)
class Mirror:
    """The -o DIR output, written from the pool workers: ported files, and the rest copied
    unless --only-ported. An output already equal to the new bytes is left alone (its mtime
    stays, so build systems pointed at the mirror do not rebuild it). Nothing is written
    through a link: a folder on the way that leads out of the mirror is refused."""

    root: str
    only_ported: bool

    def target(self, out_rel: str) -> str:
        return os.path.join(self.root, out_rel)

    def wants(self, role: str) -> bool:
        return role in PORTED_ROLES or not self.only_ported

    def _inside(self, target: str) -> None:
        folder = os.path.dirname(target)
        if folder in _CHECKED:
            return
        real = os.path.realpath(folder)
        if real != self.root and not real.startswith(self.root + os.sep):
            raise OSError(errno.EXDEV, "a folder of the output leads out of it (a symbolic link)",
                          target)
        _CHECKED.add(folder)

    def write(self, source: str, target: str, data: bytes | None, ported: bytes | None,
              mode: int) -> os.stat_result:
        self._inside(target)
        if data is None:
            return copy_atomic(source, target, mode)
        new = ported if ported is not None else data
        try:
            old, st = read_regular(target)
            if old == new:
                return st
        except OSError:
            pass
        return write_atomic(target, new, mode=mode)

    def link(self, text: str, target: str) -> os.stat_result:
        self._inside(target)
        return link_atomic(text, target)


_CHECKED: set[str] = set()  # output folders found inside the mirror, per process


def _excluded(out_dir: Path, root: Path, config: Config) -> bool:
    rel = out_dir.relative_to(root).as_posix() if out_dir != root else "."
    import fnmatch
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel + "/", p) for p in config.exclude)
