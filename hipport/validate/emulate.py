"""`hipport emulate FILE`: build one program against the wave emulator and run it.

CUDA input is ported first (with `hipLaunchKernelGGL` launches, which g++ can compile) into
a temporary mirror of the file's project folder, so its local headers are ported too; HIP
input only has its `<<<>>>` launches rewritten. Build errors are reported at the original
file and line. The program's stdout, stderr and exit status are passed through unchanged.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from hipport.config import Config
from hipport.errors import HipportError
from hipport.validate import errors_map, project
from hipport.validate.compile import map_diagnostics
from hipport.validate.flags import Checker, cli_flags
from hipport.validate.tree import PortedTree
from hipport.workspace import PORTED_ROLES, discover, role_of

BUILD_FAILED = 2  # exit status when the program could not be built (hipport's input-error code)


@dataclass
class EmulateOptions:
    file: Path
    args: list[str] = field(default_factory=list)
    wave: int = 64
    wave64: bool = True  # apply the wave64 pass when porting CUDA
    includes: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()
    check: bool = False
    timeout: float | None = None
    keep: Path | None = None  # keep the ported copy and the binary here
    quiet: bool = False


def _widths(cuda: bool, wave: int) -> list[str]:
    """HIP input at wave 32 is HIP on a wave32 target (RDNA): HIP's 64-bit masks, not the
    CUDA widths the emulator gives a CUDA program at wave 32."""
    return ["HIPEMU_CUDA_WIDTHS=0"] if not cuda and wave == 32 else []


def is_cuda(path: Path, data: bytes) -> bool:
    return path.suffix.lower() != ".hip" and role_of(path, data[:65536]) in PORTED_ROLES \
        and b"hip/hip_runtime" not in data


_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def _local_includes(src: Path, data: bytes, depth: int = 3) -> list[Path]:
    """Files next to `src` that it includes with quotes, and theirs (a few levels)."""
    found: list[Path] = []
    todo = [(src, data, 0)]
    while todo:
        f, text, level = todo.pop()
        for m in _QUOTED_INCLUDE.finditer(text):
            p = (f.parent / m.group(1).decode("utf-8", "replace")).resolve()
            if p.is_file() and p not in found and p != src.resolve():
                found.append(p)
                if level + 1 < depth:
                    todo.append((p, p.read_bytes(), level + 1))
    return found


def emulate(o: EmulateOptions, config: Config, err=None) -> int:  # noqa: ANN001 - err: a callable
    say = err or (lambda m: sys.stderr.write(m + "\n"))
    try:
        from hipport.validate import emulator
    except ImportError:
        raise HipportError("the wave emulator (hipport.validate.emulator) is not installed") from None
    if o.wave not in (32, 64):
        raise HipportError(f"--wave must be 32 or 64, not {o.wave}")
    src = o.file
    if not src.is_file():
        raise HipportError("no such file", src)
    data = src.read_bytes()
    cuda = is_cuda(src, data)
    cfg = replace(config, launch_syntax="ggl", wave64=o.wave64 and cuda)
    # The file's project (nearest folder with a build file) or its own folder travels along.
    stop = _repo_root(src)
    pdir = project.project_dir(src.resolve(), stop)
    if pdir is None:  # a lone program: it and the local headers it includes, not its whole folder
        files = discover([src, *_local_includes(src, data)])
    else:
        try:  # name files as the user would: relative to the current folder when inside it
            shown = pdir.relative_to(Path.cwd().resolve())
        except ValueError:
            shown = pdir
        files = discover([shown if str(shown) != "." else Path(".")], config.include, config.exclude)
        if not any(f.path.resolve() == src.resolve() for f in files):
            files = discover([src])
    work = Path(tempfile.mkdtemp(prefix="hipport-emulate-")) if o.keep is None else o.keep.resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        if not cuda:  # HIP already: port nothing but the launches (a .hip file is no CUDA role)
            cfg = replace(Config(), launch_syntax="ggl", wave64=False, cache=False)
        tree = PortedTree.port(files, cfg, work / "src", label="emulate", transform=None)
        if not cuda:
            _force_launches(tree, src, cfg)
        sources = [(e.wf.display, e.wf.path.resolve()) for e in tree.entries if e.wf is not None]
        checker = Checker(stop, (), o.includes)  # the project's build-file values are checked first
        progs = [p for p in project.find_programs(sources, stop, checker.flags) if p.main == src.resolve()]
        for note in checker.dropped:
            say(str(note))
        prog = progs[0] if progs else project.Program(str(src), src.resolve(), [src.resolve()])
        flags = prog.flags.merged(cli_flags(o.includes, o.defines))
        copies = []
        for s in prog.sources:
            e = tree.entry_for_original(s)
            if e is None:
                raise HipportError("a source of this program was not found", s)
            copies.append(e.copy)
        binary = work / f"{src.stem}.w{o.wave}"
        try:
            emulator.build(copies, binary, wave=o.wave,
                           include_dirs=[tree.copy_of_dir(p) for p in flags.includes + flags.system_includes],
                           defines=[*(d for d in flags.defines if not d.startswith("!")), *_widths(cuda, o.wave)],
                           check=o.check,
                           extra_flags=["-x", "c++"])
        except emulator.EmulatorBuildError as e:
            diags = errors_map.parse(e.stderr)
            map_diagnostics(diags, tree, copies[0].parent, None, "g++ (emulator)")
            diags = condense_build_errors(diags)
            if not diags:
                say(e.stderr.rstrip())
            for d in diags:
                where = f"{d.file or d.ported_file or '?'}" + (f":{d.line}" if d.line else "") + \
                        (f":{d.column}" if d.column else "")
                say(f"{where}: {d.severity}: {d.message} [{d.category}]")
                if d.source:
                    say(f"    {d.source}")
            say(f"hipport: error: {src}: could not build the program for the wave emulator "
                f"(wave {o.wave}){'; port kept in ' + str(work / 'src') if o.keep else ''}")
            return BUILD_FAILED
        if not o.quiet and o.keep is not None:
            say(f"hipport: built {binary} (wave {o.wave})")
        try:
            p = emulator.run(binary, list(o.args), o.timeout)  # type: ignore[arg-type]
        except subprocess.TimeoutExpired as e:
            _forward(e.stdout, e.stderr)
            say(f"hipport: error: {src}: timed out after {o.timeout:g}s")
            return 124
        _forward(p.stdout, p.stderr)
        rc = p.returncode
        return rc if rc >= 0 else 128 - rc
    finally:
        if o.keep is None:
            shutil.rmtree(work, ignore_errors=True)


# Names of the HIP/CUDA API, device intrinsics and builtins: when g++ says one is undeclared,
# the program uses something the emulator does not provide.
_API_NAME = re.compile(r"^(?:hip|HIP_|__|tex[1-3A-Z]|surf[1-3A-Z]|make_|atomic[A-Z]|cuda|cu[A-Z]|nv|"
                       r"cooperative_groups|cg$|rocprim|hiprand|rocrand)")


def condense_build_errors(diags: list[errors_map.Diagnostic]) -> list[errors_map.Diagnostic]:
    """One error per construct the emulator lacks, and one per source line: a HIP name g++ calls
    undeclared becomes "unsupported construct: 'NAME' ..." at its first use, and the errors g++
    derives from it on the same line (or at later uses of the name) are dropped."""
    out: list[errors_map.Diagnostic] = []
    names: set[str] = set()
    lines: set[tuple[str | None, int | None]] = set()
    for d in diags:
        where = (d.file or d.ported_file, d.line or d.ported_line)
        name = errors_map.identifier(d.message)
        if name is not None and not d.message.startswith("no matching function") \
                and (_API_NAME.match(name) or errors_map.CUDA_NAME.match(name)):
            if name in names:
                continue
            names.add(name)
            d.message = (f"unsupported construct: '{name}' is not provided by the wave emulator "
                         f"(docs/emulator.md lists what is)")
            d.category = errors_map.UNSUPPORTED
        elif where in lines or any(f"'{n}'" in d.message for n in names):
            continue  # follows from an error already reported on this line, or from a missing name
        lines.add(where)
        out.append(d)
    return out


def _forward(out: str | bytes | None, err: str | bytes | None) -> None:
    for data, stream in ((out, sys.stdout), (err, sys.stderr)):
        if not data:
            continue
        b = data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")
        stream.flush()
        stream.buffer.write(b)
        stream.flush()


def _force_launches(tree: PortedTree, src: Path, cfg: Config) -> None:
    """HIP files have no CUDA role, so the pipeline copied them: rewrite their launches here."""
    from hipport.passes import port_bytes
    for e in tree.entries:
        if e.copy.suffix.lower() not in (".hip", ".cu", ".cpp", ".cc", ".cxx", ".h", ".hpp", ".cuh"):
            continue
        data = e.copy.read_bytes()
        if b"<<<" not in data:
            continue
        r = port_bytes(e.display, "cuda-source", data, cfg)
        if r.ported is not None:
            e.copy.write_bytes(r.ported)
            e.result, e.original_bytes, e.linemap = r, data, None


def _repo_root(p: Path) -> Path:
    p = p.resolve()
    for cand in p.parents:
        if (cand / ".git").exists():
            return cand
    return p.parent


__all__ = ["BUILD_FAILED", "EmulateOptions", "condense_build_errors", "emulate"]
