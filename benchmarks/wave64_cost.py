"""What the wave64 pass costs beside the parse of the same text, in the same run.

Two inputs: host-only C++ (4,000 small functions with shifts and loops to 32 but no device
code), where the pass must cost next to nothing (target: at most 5% of a parse), and the
wave64 rule fixtures (realistic warp-level kernels) four times over, where it must cost at
most a few parses (target: at most 6x). Figures are CPU seconds, the least of --repeat runs.

    python benchmarks/wave64_cost.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from hipport.config import Config
from hipport.source import SourceFile
from hipport.wave64 import run as wave64

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "wave64"
HOST = (b"#include <vector>\nstatic int f%d(std::vector<int>& v) { int s = 0;\n"
        b"  for (int i = 0; i < 32; ++i) s += v[i] >> 5;\n  return s; }\n")


def host_code() -> list[bytes]:
    return [b"".join(HOST.replace(b"%d", str(i).encode()) for i in range(4000))]


def warp_code() -> list[bytes]:
    return [p.read_bytes() for p in sorted(FIXTURES.glob("*/input.cu"))] * 4


def cost(datas: list[bytes]) -> tuple[float, float]:
    """CPU seconds of (parse, wave64 pass) over fresh sources."""
    srcs = [SourceFile("t.cu", d) for d in datas]
    t0 = time.process_time()
    for s in srcs:
        _ = s.tree
    parse = time.process_time() - t0
    t0 = time.process_time()
    for s in srcs:
        wave64(s, Config())
    return parse, time.process_time() - t0


def least(fn: Callable[[], tuple[float, float]], repeat: int) -> tuple[float, float]:
    runs = [fn() for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="least of this many runs")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat needs at least 1")
    print(f"wave64 pass cost beside the parse (CPU s, least of {args.repeat})")
    print(f"{'input':<12} {'files':>6} {'parse':>8} {'pass':>8} {'ratio':>7}  target")
    for name, make, target in (("host-only", host_code, 0.05), ("warp-heavy", warp_code, 6.0)):
        datas = make()
        parse, cpu = least(partial(cost, datas), args.repeat)
        ratio = cpu / parse if parse else 0.0
        print(f"{name:<12} {len(datas):>6} {parse:>8.3f} {cpu:>8.3f} {ratio:>6.2f}x  <= {target:g}x")


if __name__ == "__main__":
    main()
