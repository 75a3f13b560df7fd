"""Speed of the HTML porting report on a synthetic run of N files (default 1000).

Prints seconds for:
  first      writing the report into an empty folder,
  re-render  writing it again over the unchanged run (status.json: no file page rewritten),
  one-change the same after changing one file (one page rewritten),
and the size of index.html. Targets: first render of 1000 files in a few seconds; re-render
at least 5x faster; index.html small (per-file data lives on per-file pages).

    python benchmarks/report_speed.py [--files 1000] [--blocks 8] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport.report import html  # noqa: E402
from tests.report.synth import make_file, make_run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--blocks", type=int, default=8, help="kernel blocks per file (~13 lines each)")
    ap.add_argument("--keep", type=Path, help="write the report here and keep it")
    a = ap.parse_args()
    t0 = time.perf_counter()
    run = make_run(a.files, blocks=a.blocks)
    build = time.perf_counter() - t0
    lines = sum((r.original or b"").count(b"\n") for r in run.files)
    out = a.keep or Path(tempfile.mkdtemp(prefix="hipport-report-bench-")) / "report"
    if a.keep and out.exists():
        shutil.rmtree(out)
    try:
        t0 = time.perf_counter()
        first = html.write_report(run, out)
        t_first = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = html.write_report(run, out)
        t_again = time.perf_counter() - t0
        run = run.with_files([make_file(r.path, blocks=a.blocks + 1, seed=99) if i == 3 else r
                              for i, r in enumerate(run.files)])
        t0 = time.perf_counter()
        one = html.write_report(run, out)
        t_one = time.perf_counter() - t0
        index_kb = (out / "index.html").stat().st_size / 1024
        total_mb = sum(p.stat().st_size for p in out.iterdir()) / 2**20
    finally:
        if not a.keep:
            shutil.rmtree(out.parent, ignore_errors=True)
    print(f"synthetic run: {len(run.files)} files, {lines:,} lines, "
          f"{sum(len(r.findings) for r in run.files):,} findings (built in {build:.2f}s)")
    print(f"first      {t_first:6.2f}s  ({len(first.written)} file pages written)")
    print(f"re-render  {t_again:6.2f}s  ({len(again.written)} written, {len(again.reused)} reused)")
    print(f"one-change {t_one:6.2f}s  ({len(one.written)} written)")
    print(f"index.html {index_kb:.0f} KiB; report {total_mb:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
