"""Throughput of `hipport port`: cold run, warm re-run, and tree-sitter parsing alone.

Builds a corpus of at least 200k lines of CUDA from examples/ and fixtures/ (each copy
varied so no two files are identical), then prints lines/s for:
  parse-alone  tree-sitter-cuda parsing of every file on one core (the floor any
               syntax-aware tool pays),
  cold         `hipport port CORPUS -o OUT` with an empty cache,
  warm         the same command again over the unchanged tree.
Targets: cold within 2x of parse-alone time; warm at least 20x faster than cold. `--lint`
times `hipport lint CORPUS` with every finding printed instead (run it with --lines 400000:
the warm lint target is 10x faster than the cold one). `--floor`
also times the translator alone writing nothing, a lower bound for any cold run. Each
figure is the best of --repeat runs: this is a small shared machine, and the best run is the
one least disturbed by everything else on it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def seeds() -> list[bytes]:
    out = []
    for folder in ("examples", "fixtures"):
        for p in sorted((ROOT / folder).rglob("*")):
            if p.suffix in (".cu", ".cuh") and p.is_file():
                out.append(p.read_bytes())
    if not out:
        sys.exit("no .cu/.cuh files under examples/ or fixtures/ to build a corpus from")
    return out


def build_corpus(dest: Path, min_lines: int) -> tuple[int, int]:
    files = lines = 0
    base = seeds()
    i = 0
    while lines < min_lines:
        data = base[i % len(base)]
        # Vary each copy: a unique banner and renamed kernels keep files distinct (no cache hits).
        varied = b"// corpus copy %d\n" % i + data.replace(b"__global__ void ", b"__global__ void v%d_" % i)
        sub = dest / f"d{i // 50:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{i:05d}.cu").write_bytes(varied)
        files += 1
        lines += varied.count(b"\n")
        i += 1
    return files, lines


def parse_alone(corpus: Path) -> float:
    import tree_sitter
    import tree_sitter_cuda

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
    datas = [p.read_bytes() for p in sorted(corpus.rglob("*.cu"))]
    t0 = time.perf_counter()
    for d in datas:
        parser.parse(d)
    return time.perf_counter() - t0


def hipport_run(corpus: Path, out: Path | None, cache: Path) -> tuple[float, float, float]:
    """(wall, user CPU, system CPU) seconds of one `hipport port -o OUT`, its pool workers
    included; with no `out`, of `port --check --no-wave64` (the translator only, nothing written)."""
    mode = ["-o", str(out)] if out is not None else ["--check", "--no-wave64"]
    os.sync()  # each run starts with nothing left to flush from the one before
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "hipport", "port", str(corpus), *mode,
                        "--cache-dir", str(cache), "--quiet"], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        sys.exit(f"hipport failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return dt, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def lint_run(corpus: Path, cache: Path) -> tuple[float, float, float]:
    """(wall, user CPU, system CPU) of `hipport lint CORPUS`, every finding printed to a file."""
    os.sync()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(cache.parent / f"{cache.name}.lint.txt", "wb") as out:
        r = subprocess.run([sys.executable, "-m", "hipport", "lint", str(corpus), "--cache-dir",
                            str(cache)], stdout=out, stderr=subprocess.PIPE, text=False)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        sys.exit(f"hipport lint failed ({r.returncode}):\n{r.stderr[-2000:].decode(errors='replace')}")
    return dt, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs of each")
    ap.add_argument("--floor", action="store_true",
                    help="also time a cold run of the translator alone that writes nothing "
                         "(--check --no-wave64): what the pipeline costs before wave64 and writes")
    ap.add_argument("--lint", action="store_true",
                    help="time `hipport lint` (every finding printed) cold and warm instead of port")
    args = ap.parse_args()
    # Time hipport as installed (byte-compiled), not the compiling of edited sources.
    compileall.compile_dir(ROOT / "hipport", quiet=1)
    with tempfile.TemporaryDirectory(prefix="hipport-bench-") as tmp:
        t = Path(tmp)
        corpus = t / "corpus"
        files, lines = build_corpus(corpus, args.lines)
        os.sync()  # flush the corpus now, or its writeback lands on the timings
        parses, colds, warms, floors = [], [], [], []
        # Rounds of parse, cold, warm: this machine's speed drifts over minutes, and each
        # round's figures are taken close together. Each cold run gets an empty cache and
        # output folder.
        for i in range(args.repeat):
            out, cache = t / f"out{i}", t / f"cache{i}"
            parses.append(parse_alone(corpus))
            if args.lint:
                colds.append(lint_run(corpus, cache))
                warms.append(lint_run(corpus, cache))
            else:
                colds.append(hipport_run(corpus, out, cache))
                warms.append(hipport_run(corpus, out, cache))  # the same command: nothing changed
            if args.floor:
                floors.append(hipport_run(corpus, None, t / f"floor{i}"))
        parse, cold, warm = min(parses), min(colds), min(warms)
    cores = os.cpu_count()
    print(f"corpus: {files} files, {lines} lines; {cores} cores; best of {args.repeat} runs each")
    print(f"parse-alone (1 core): {parse:7.2f} s  {lines / parse:12,.0f} lines/s")
    what, target = ("lint", 10) if args.lint else ("port", 20)
    print(f"cold hipport {what}:    {cold[0]:7.2f} s  {lines / cold[0]:12,.0f} lines/s  "
          f"({cold[0] / parse:.2f}x parse-alone; target <= 2x)")
    print(f"warm hipport {what}:    {warm[0]:7.2f} s  {lines / warm[0]:12,.0f} lines/s  "
          f"({cold[0] / warm[0]:.1f}x faster than cold; target >= {target}x)")
    # CPU time says where a slow run went: user time is hipport's own work, and system time
    # (creating thousands of output files) is what varies most from run to run on a VM.
    print("Each round (hipport runs: CPU seconds, user + system, workers included):")
    print("  parse-alone: " + ", ".join(f"{p:.2f} s" for p in parses))
    for name, runs in (("cold", colds), ("warm", warms)):
        print(f"  {name}: " + ", ".join(f"{w:.2f} s wall ({u:.2f} user + {s:.2f} sys)" for w, u, s in runs))
    print(f"  cold CPU / parse-alone: {(cold[1] + cold[2]) / parse:.2f}x "
          f"({cold[1] / parse:.2f}x user, {cold[2] / parse:.2f}x system)")
    if floors:
        floor = min(floors)
        print("  translator only, nothing written (--check --no-wave64): " + ", ".join(
            f"{w:.2f} s wall ({u:.2f} user + {s:.2f} sys)" for w, u, s in floors)
              + f"; best {floor[0] / parse:.2f}x parse-alone")


if __name__ == "__main__":
    main()
