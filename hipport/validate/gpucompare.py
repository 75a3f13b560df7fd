"""The emulator's wave-32 output beside a GPU's, for every program run (scripts/gpu-check.sh).

Rows come from two places:

* a `hipport validate --run --format json` result: each program's wave-32 emulator leg (``ref32``:
  the CUDA original, names ported, CUDA's widths) beside the GPU legs that ran: the nvcc-built
  original on an NVIDIA GPU, and the port on an AMD GPU (what validate already judges);
* CUDA programs given directly (tests/conformance/, one per intrinsic family): each runs on the
  emulator at wave 32 as the reference leg runs an original (`hipport emulate --wave 32
  --no-wave64`) and, where an NVIDIA GPU and nvcc are present, is built with nvcc and run there.

Standard output and exit status are compared exactly. A row is ``same``, ``DIFFERS`` (with the
first differing line) or ``not compared`` (with why: no GPU, a leg that did not run). The kernels
column lists what the emulator launched (its occupancy counts); the GPU runs the same program.

    python -m hipport.validate.gpucompare [--validate-json FILE] [--programs PATH ...] [--no-gpu]

Exit status 1 when a row differs, 0 otherwise (2: bad arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipport.validate import toolchains
from hipport.validate.runs import _nvcc_arch, first_diff, read_occupancy

SAME, DIFFERS, NOT_COMPARED = "same", "DIFFERS", "not compared"
_RAN = ("pass", "mismatch", "same", "differs")  # leg statuses that leave an output to compare


@dataclass
class Side:
    """One run of a program: its output, or why there is none (`why`)."""

    stdout: str = ""
    exit_code: int | None = None
    why: str = ""  # empty: it ran
    note: str = ""  # shown beside the status (a device, the .expected verdict)

    @property
    def ran(self) -> bool:
        return not self.why

    def status(self) -> str:
        s = f"exit {self.exit_code}" if self.ran else f"not run: {self.why}"
        return f"{s} ({self.note})" if self.note else s


@dataclass
class Row:
    program: str
    gpu_kind: str  # "NVIDIA (nvcc original)", "AMD (port)"
    emulator: Side
    gpu: Side
    kernels: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return compare(self.emulator, self.gpu)[0]

    def to_dict(self) -> dict[str, Any]:
        v, why = compare(self.emulator, self.gpu)
        return {"program": self.program, "gpu": self.gpu_kind, "kernels": self.kernels, "result": v,
                "why": why, "emulator": self.emulator.status(), "gpu_status": self.gpu.status()}


def compare(emu: Side, gpu: Side) -> tuple[str, str]:
    """(verdict, why): the emulator's output against the GPU's."""
    if not gpu.ran:
        return NOT_COMPARED, f"GPU: {gpu.why}"
    if not emu.ran:
        return NOT_COMPARED, f"emulator: {emu.why}"
    d = first_diff(emu.stdout, gpu.stdout)
    if d is not None:
        gpu_line = "(end of output)" if d.expected is None else repr(d.expected)
        emu_line = "(end of output)" if d.actual is None else repr(d.actual)
        return DIFFERS, f"line {d.line}: GPU {gpu_line}, emulator {emu_line}"
    if emu.exit_code != gpu.exit_code:
        return DIFFERS, f"exit status: GPU {gpu.exit_code}, emulator {emu.exit_code}"
    return SAME, ""


# --- from a validate result ---------------------------------------------------------------------

def _side(leg: dict[str, Any] | None, what: str) -> Side:
    if leg is None:
        return Side(why=f"no {what} leg in the result")
    if leg.get("status") not in _RAN or leg.get("exit_code") is None:
        return Side(why=f"{leg.get('status')}: {leg.get('reason') or ''}".rstrip(": "))
    return Side(leg.get("stdout") or "", leg["exit_code"])


def _upto(side: Side, line: str) -> None:
    """Keep the output up to its first `line`: the emulator stops a program that checks itself
    there (validate's `passed_when`), the GPU runs on into its benchmark."""
    lines = side.stdout.splitlines(keepends=True)
    for i, x in enumerate(lines):
        if x.rstrip("\n") == line:
            side.stdout, side.exit_code = "".join(lines[: i + 1]), 0
            return


def rows_from_validate(doc: dict[str, Any]) -> list[Row]:
    """One row per program and GPU kind; an AMD row only where an AMD GPU leg ran."""
    rows = []
    for run in doc.get("details", {}).get("runs", []):
        ref = run.get("emulator", {}).get("ref32")
        emu = _side(ref, "wave-32 emulator")
        kernels = sorted((ref or {}).get("occupancy") or {})
        nv = run.get("gpu", {}).get("nvidia")
        if nv is not None and "original" in nv:
            gpu = _side(nv["original"], "nvcc original")
            gpu.note = nv.get("device", "")
        else:
            gpu = Side(why=(nv or {}).get("reason") or "no NVIDIA GPU leg")
        sides = [gpu]
        rows.append(Row(run.get("program", "?"), "NVIDIA (nvcc original)", emu, gpu, kernels))
        amd = run.get("gpu", {}).get("amd")
        if amd is not None and amd.get("status") in _RAN:
            a = _side(amd, "AMD GPU")
            a.note = amd.get("device", "")
            sides.append(a)
            rows.append(Row(run.get("program", "?"), "AMD (port)", emu, a, kernels))
        own = (ref or {}).get("own_check")
        if own:
            for side in (emu, *sides):
                _upto(side, own)
    return rows


# --- CUDA programs run here -----------------------------------------------------------------------

def emulator_w32(src: Path, work: Path, timeout: float) -> tuple[Side, list[str]]:
    """`hipport emulate --wave 32 --no-wave64 SRC`: the reference leg's build of an original."""
    occ = work / f"{src.stem}.occupancy"
    occ.unlink(missing_ok=True)
    env = {**os.environ, "HIPEMU_OCCUPANCY": str(occ)}
    cmd = [sys.executable, "-m", "hipport", "emulate", "--wave", "32", "--no-wave64", "--timeout", str(timeout),
           str(src)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env,
                           timeout=timeout + 600, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Side(why=f"timed out after {timeout:g}s"), []
    kernels = sorted(read_occupancy(occ))
    if p.returncode == 2 and "could not build the program for the wave emulator" in p.stderr:
        tail = [x for x in p.stderr.splitlines() if x.strip()][-2:]
        return Side(why="build failed: " + " | ".join(tail)), kernels
    return Side(p.stdout, p.returncode), kernels


def nvidia_run(src: Path, work: Path, timeout: float) -> Side:
    """Build `src` with nvcc for this machine's GPU and run it."""
    gpus = toolchains.nvidia_gpus()
    if not gpus.present:
        return Side(why=gpus.reason)
    nvcc = toolchains.find_nvcc()
    if nvcc is None:
        return Side(why="NVIDIA GPU present but nvcc not found")
    exe = work / f"{src.stem}.nvcc"
    b = subprocess.run([nvcc, *_nvcc_arch(nvcc), "-std=c++17", str(src), "-o", str(exe)], capture_output=True,
                       text=True, errors="replace", timeout=900, stdin=subprocess.DEVNULL)
    if b.returncode != 0:
        errs = [x for x in (b.stdout + b.stderr).splitlines() if "error" in x] or (b.stdout + b.stderr).splitlines()
        return Side(why="nvcc failed: " + " | ".join(errs[-2:]))
    try:
        p = subprocess.run([str(exe)], capture_output=True, text=True, errors="replace", timeout=timeout,
                           cwd=src.parent, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Side(why=f"timed out after {timeout:g}s")
    return Side(p.stdout, p.returncode, note=gpus.names[0] if gpus.names else "")


def _expected_note(side: Side, src: Path) -> None:
    exp = src.with_suffix(".expected")
    if side.ran and exp.is_file():
        d = first_diff(side.stdout, exp.read_text(encoding="utf-8", errors="replace"))
        side.note = ", ".join(x for x in (side.note, ".expected: " + ("same" if d is None else
                                                                        f"differs at line {d.line}")) if x)


def programs_in(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        out += sorted(p.glob("*.cu")) if p.is_dir() else [p]
    return out


def rows_from_programs(srcs: list[Path], work: Path, timeout: float, gpu: bool = True) -> list[Row]:
    rows = []
    for shown in srcs:
        src = shown.resolve()
        emu, kernels = emulator_w32(src, work, timeout)
        dev = nvidia_run(src, work, timeout) if gpu else Side(why="GPU runs not asked for (--no-gpu)")
        _expected_note(emu, src)
        _expected_note(dev, src)
        rows.append(Row(str(shown), "NVIDIA (nvcc)", emu, dev, kernels))
    return rows


# --- the table ---------------------------------------------------------------------------------------

def render(rows: list[Row]) -> str:
    head = ("program", "kernels (emulator)", "emulator, wave 32", "GPU", "result")
    body = []
    for r in rows:
        v, why = compare(r.emulator, r.gpu)
        body.append((r.program, ", ".join(r.kernels) or "-", r.emulator.status(),
                     f"{r.gpu_kind}: {r.gpu.status()}", v + (f": {why}" if why else "")))
    widths = [max([len(head[i])] + [len(b[i]) for b in body]) for i in range(4)]
    lines = ["The emulator's wave-32 output (CUDA reference) against the GPU's, per program run:"]
    for cells in (head, *body):
        lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(cells[:4])) + "  " + cells[4])
    counts = {k: sum(1 for r in rows if r.verdict == k) for k in (SAME, DIFFERS, NOT_COMPARED)}
    lines.append(f"{len(rows)} row(s): {counts[SAME]} same, {counts[DIFFERS]} differ, "
                 f"{counts[NOT_COMPARED]} not compared")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hipport.validate.gpucompare", description=__doc__.split("\n")[0])
    ap.add_argument("--validate-json", type=Path, help="a `hipport validate --run --format json` result")
    ap.add_argument("--programs", type=Path, nargs="*", default=[], help="CUDA programs (or folders of .cu files)")
    ap.add_argument("--no-gpu", action="store_true", help="run the emulator half only")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per program run")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    a = ap.parse_args(argv)
    if a.validate_json is None and not a.programs:
        ap.error("give --validate-json, --programs, or both")
    rows: list[Row] = []
    if a.validate_json is not None:
        try:
            rows += rows_from_validate(json.loads(a.validate_json.read_text(encoding="utf-8")))
        except (OSError, ValueError) as e:
            sys.stderr.write(f"{a.validate_json}:1: error: not a validate JSON result: {e}\n")
            return 2
    srcs = programs_in(a.programs)
    if srcs:
        with tempfile.TemporaryDirectory(prefix="hipport-gpucompare-") as work:
            rows += rows_from_programs(srcs, Path(work), a.timeout, gpu=not a.no_gpu)
    sys.stdout.write(render(rows))
    if a.json is not None:
        a.json.write_text(json.dumps([r.to_dict() for r in rows], indent=2) + "\n", encoding="utf-8")
    return 1 if any(r.verdict == DIFFERS for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
