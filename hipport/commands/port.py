"""`hipport port`: run the pipeline and write, diff or check the result."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from hipport.config import Config
from hipport.errors import HipportError
from hipport.model import FileStatus, RunResult
from hipport.pipeline import hydrate
from hipport.pipeline import run as run_pipeline
from hipport.ui import UI
from hipport.workspace import PORTED_ROLES, discover, write_atomic


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


def default_cache_dir(paths: tuple[Path, ...]) -> Path:
    first = paths[0]
    root = first if first.is_dir() else first.parent
    return root / ".hipport-cache"


def port(o: PortOptions, config: Config, ui: UI) -> int:
    mode = check_modes(o)
    out_dir: Path | None = None
    if mode == "--output" and o.output != "-":
        out_dir = Path(o.output).resolve()  # type: ignore[arg-type]
        for p in o.paths:
            rp = p.resolve()
            if p.is_dir() and (out_dir == rp or out_dir.is_relative_to(rp)) and not _excluded(out_dir, rp, config):
                raise HipportError("the output folder is inside the input folder; choose a folder "
                                   "outside it (or exclude it with --exclude)", o.output)
    files = discover(list(o.paths), config.include, config.exclude, skip=out_dir)
    cache_dir = (o.cache_dir or default_cache_dir(o.paths)) if config.cache else None
    sink = Mirror(str(out_dir), o.only_ported) if out_dir is not None else None
    with ui.progress("porting") as progress:
        result = run_pipeline(files, config, cache_dir=cache_dir, progress=progress, sink=sink)
    by_display = {wf.display: wf for wf in files}
    changed = lambda r: r.status == FileStatus.PORTED  # noqa: E731
    rc = 0
    if mode == "--output" and o.output == "-":
        hydrate(result, files, cache_dir)
        r = result.files[0]
        sys.stdout.buffer.write(r.ported if r.ported is not None else (r.original or b""))
        sys.stdout.flush()
        ui.report(result, o.fmt, to_stderr=True)
        return 1 if r.status == FileStatus.FAILED else 0
    if mode == "--in-place":
        hydrate(result, files, cache_dir, which=changed, original=False)
        for r in result.files:
            if r.ported is None or r.status != FileStatus.PORTED:
                continue
            wf = by_display[r.path]
            target = wf.path
            if r.output_path and r.output_path != wf.rel:  # --rename-extensions
                target = wf.root / r.output_path
            write_atomic(target, r.ported, mode=wf.path.stat().st_mode & 0o7777, durable=True)
            if target != wf.path:
                wf.path.unlink()
    elif mode == "--diff":
        hydrate(result, files, cache_dir, which=changed)
        sys.stdout.write(unified_diff(result))
        sys.stdout.flush()
    elif mode == "--check" and result.count(FileStatus.PORTED):
        for r in result.files:
            if changed(r):
                ui.err(f"{r.path}: would be changed by hipport port")
        rc = 1
    if not (ui.quiet and o.fmt == "text") or o.report_dir is not None:
        hydrate(result, files, cache_dir)  # views show findings with their source lines
    if o.report_dir is not None:
        from hipport.report import html

        html.write(result, o.report_dir)
    ui.report(result, o.fmt, to_stderr=mode in ("--diff",))
    if result.count(FileStatus.FAILED):
        rc = max(rc, 1)
    return rc


@dataclass(frozen=True)
class Mirror:
    """The -o DIR output, written from the pool workers: ported files, and the rest copied
    unless --only-ported. An output already equal to the new bytes is left alone (its mtime
    stays, so build systems pointed at the mirror do not rebuild it)."""

    root: str
    only_ported: bool

    def target(self, out_rel: str) -> str:
        return os.path.join(self.root, out_rel)

    def wants(self, role: str) -> bool:
        return role in PORTED_ROLES or not self.only_ported

    def write(self, source: str, target: str, data: bytes | None, ported: bytes | None,
              mode: int) -> os.stat_result:
        if data is None:
            import shutil

            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)
            return os.stat(target)
        new = ported if ported is not None else data
        try:
            with open(target, "rb") as f:
                if f.read() == new:
                    return os.fstat(f.fileno())
        except OSError:
            pass
        return write_atomic(target, new, mode=mode)


def _excluded(out_dir: Path, root: Path, config: Config) -> bool:
    rel = out_dir.relative_to(root).as_posix() if out_dir != root else "."
    import fnmatch
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel + "/", p) for p in config.exclude)


def unified_diff(result: RunResult) -> str:
    import difflib

    out: list[str] = []
    for r in result.files:
        if r.ported is None or r.original is None:
            continue
        a = r.original.decode("utf-8", "surrogateescape").splitlines(keepends=True)
        b = r.ported.decode("utf-8", "surrogateescape").splitlines(keepends=True)
        out.extend(difflib.unified_diff(a, b, f"a/{r.path}", f"b/{r.output_path or r.path}"))
    text = "".join(out)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
