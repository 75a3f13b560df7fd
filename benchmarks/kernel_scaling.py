"""Cost per byte of porting one file as the file grows, by shape: is `hipport port` linear in
time, and is its memory bounded by the tree's?

For each shape of --shapes and each size of --sizes (bytes: 1k, 256k, 50m), generates one .cu
file in a temporary folder and prints the CPU cost per byte, its ratio to the smallest size's,
and the peak memory of porting it beside that of a bare tree-sitter parse of the same file:

- `kernels`: N small kernels, each with one warp hazard (cycling over a few kinds: a lane from
  `threadIdx.x % 32`, a `__shfl_down_sync(0xffffffff, v, 16)` reduction step, a lane mask
  `1u << (threadIdx.x & 31)`, a `__ballot_sync` stored to `unsigned`, `warpSize` sizing a
  shared array, a `>> 5` warp id indexing a per-warp shared array, a lane id read with inline
  PTX) and the host function that launches it;
- `expr`: one kernel whose one expression sums N terms `p[threadIdx.x]`, one per line (a
  left-deep tree N levels deep);
- `line`: the same expression on one line;
- `chain`: one kernel whose lane id is assigned through a chain of N assignments
  (`x = x = ... = threadIdx.x % 32`, each value holding the next), used in a shuffle;
- `deep`: kernels nested as deep as a generated file could be: `#if` blocks, `if` blocks and
  parentheses, each DEPTH levels deep (DEPTH grows with the size, up to DEEPEST), repeated to
  fill the size.

Time is CPU time (other work on a shared machine moves wall time far more). By default each
file is ported by `hipport port FILE -o OUT --no-cache` in a fresh process, whose fixed cost
(start-up, rule tables) is measured in the same run on a file of one kernel and taken off
before dividing (a size whose net cost is under CPU_FLOOR is within that fixed cost's noise:
it gets no ratio); `--in-process` times `port_bytes` on the bytes instead (the parse, passes
and apply alone: no start-up to take off, so the small sizes are exact too). Target: every
size's cost per byte within 1.5x of the smallest size's.

Memory is the peak resident size (VmHWM, which each child reads of itself before it exits) of
the `hipport port` process and of a process that only parses the file with tree-sitter, run one after the
other in the same run. Each figure is taken net of the same process's peak on the file of one
kernel (the interpreter, its imports and hipport's rule tables: a fixed cost that does not grow
with the file, taken off as the CPU fixed cost is), so the ratio compares what each grows by
with the file: hipport's parse, facts, findings and output against the tree alone (about 34
bytes per input byte). Where the parse grows by under MEMORY_FLOOR_MB the ratio is not shown
(page-granular noise). Target: at most 2x. `--in-process` measures memory only with `--memory`.

    python benchmarks/kernel_scaling.py [--shapes kernels,expr,line,chain,deep] [--sizes 1k,64k,1m]
        [--full] [--repeat 3] [--in-process [--memory]] [--fail-above X] [--fail-memory-above Y]

`--full` is the range of the target, 1k to 50m (the 50 MB files take minutes and gigabytes:
run it sparingly).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

LONG_RUN = 20.0  # seconds
SHORT_BUDGET = 4.0  # seconds
HEADER = "#include <cuda_runtime.h>\n\n"
SHAPES = ("kernels", "expr", "line", "chain", "deep")
DEFAULT_SIZES = "1k,64k,1m"
FULL_SIZES = "1k,16k,256k,4m,50m"
DEEPEST = 200  # levels of each nesting in the `deep` shape
MEMORY_FLOOR_MB = 32.0
# In process mode a net CPU time under this is within the fixed cost's noise: no ratio is shown
# for it, and the smallest size above it is the one the others are compared with.
CPU_FLOOR = 0.05  # seconds
# Each child writes its own peak resident size to the file named first: VmHWM, the peak of its
# memory since exec. (`ru_maxrss` from wait4 would not do: Linux carries the parent's peak
# across fork and exec into it, and this process holds the files and, --in-process, the ports.)
_PEAK = ("def peak(out):\n"
         "    kb = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
         "    open(out, 'w').write(kb)\n")
# `python -m MODULE ARGS`, then its peak.
RUN_MODULE = _PEAK + ("import runpy, sys\n"
                      "out, mod, sys.argv = sys.argv[1], sys.argv[2], sys.argv[2:]\n"
                      "try:\n"
                      "    runpy.run_module(mod, run_name='__main__', alter_sys=True)\n"
                      "finally:\n"
                      "    peak(out)\n")
# A bare parse: the interpreter, the tree-sitter modules, the bytes and the tree, nothing else.
PARSE_ONLY = _PEAK + ("import sys, tree_sitter, tree_sitter_cuda\n"
                      "data = open(sys.argv[2], 'rb').read()\n"
                      "tree = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language())).parse(data)\n"
                      "assert tree.root_node.end_byte == len(data)\n"
                      "peak(sys.argv[1])\n")

# One warp hazard (a few findings at most) per kernel; {i} names the kernel. Each sits in
# code that uses a warp collective, which is what makes it a hazard.
KINDS = (
    # W004: a lane id from the 32-lane modulus
    """__global__ void k{i}(float* d, int n) {{
  int lane = threadIdx.x % 32;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? d[i] : 0.0f;
  v = __shfl_xor(v, 1);
  if (i < n) d[i] = v + lane;
}}
""",
    # W001/W006: a 32-bit full mask (with a comment the rewrite keeps) and an unrolled half-warp
    # shuffle step
    """__global__ void k{i}(float* d, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? d[i] : 0.0f;
  v += __shfl_down_sync(0xffffffff /* all lanes */, v, 16);
  if (i < n) d[i] = v;
}}
""",
    # W011: a lane mask shifted in 32 bits, without warpSize
    """__global__ void k{i}(const float* d, int* out, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long keep = __ballot(i < n && d[i] > 0.0f);
  unsigned below = (1u << (threadIdx.x & 31)) - 1;
  if (i < n) out[i] = __popcll(keep & below);
}}
""",
    # W001/W002: a ballot kept in 32 bits
    """__global__ void k{i}(const float* d, int* out, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, i < n && d[i] > 0.0f);
  if (i < n) out[i] = (int)(b != 0u);
}}
""",
    # W008: warpSize sizing a shared array (not a constant from ROCm 7): HIPPORT_WAVE_SIZE and
    # its block, written once for the whole file
    """__global__ void k{i}(float* d, int n) {{
  __shared__ float s[warpSize];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x % warpSize] = i < n ? __shfl_xor(d[i], 1) : 0.0f;
  if (i < n) d[i] = s[threadIdx.x % warpSize];
}}
""",
    # W005/W007: a warp id from >> 5 indexing a per-warp shared array
    """__global__ void k{i}(float* d, int n) {{
  __shared__ float part[256 / 32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? d[i] : 0.0f;
  v += __shfl_xor(v, 16);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (i < n) d[i] = part[threadIdx.x >> 5];
}}
""",
    # W012: a lane id read with inline PTX (%laneid), which the PTX pass also reports
    """__global__ void k{i}(float* d, int n) {{
  int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? d[i] : 0.0f;
  v += __shfl_down(v, 16);
  if (i < n) d[i] = v + lane;
}}
""",
)

LAUNCH = """void launch_k{i}({params}) {{
  k{i}<<<(n + 255) / 256, 256>>>({args});
}}

"""


def kernels_file(n: int) -> bytes:
    """One .cu file of `n` kernels, each followed by the host function that launches it."""
    parts = [HEADER]
    for i in range(n):
        kernel = KINDS[i % len(KINDS)].format(i=i)
        params = kernel[kernel.index("(") + 1:kernel.index(")")]
        args = ", ".join(p.rsplit("*", 1)[-1].split()[-1] for p in params.split(","))
        parts.append(kernel)
        parts.append(LAUNCH.format(i=i, params=params, args=args))
    return "".join(parts).encode()


def sum_file(n: int, sep: str = "\n    ") -> bytes:
    """One kernel whose one expression sums `n` terms `p[threadIdx.x]`, joined by `sep` (a
    line each by default), beside a warp shuffle that makes the kernel the wave64 pass's."""
    terms = (sep + "+ ").join(["p[threadIdx.x]"] * n)
    return (HEADER + f"""__global__ void sum(const float* p, float* out) {{
  float v = p[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  float s = {terms};
  out[threadIdx.x] = s + v;
}}

void launch_sum(const float* p, float* out) {{
  sum<<<1, 256>>>(p, out);
}}
""").encode()


def chain_file(n: int) -> bytes:
    """One kernel whose lane id reaches its shuffle through `n` chained assignments, a line
    each: the value of each assignment holds all those after it."""
    chain = "\n      ".join(["x ="] * n)
    return (HEADER + f"""__global__ void chain(const float* p, float* out) {{
  int x;
  int lane = {chain} threadIdx.x % 32;
  float v = p[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  out[threadIdx.x] = v + (float)lane;
}}

void launch_chain(const float* p, float* out) {{
  chain<<<1, 256>>>(p, out);
}}
""").encode()


def deep_kernel(i: int, depth: int) -> str:
    """A kernel inside `depth` nested #if blocks, holding `depth` nested if blocks around an
    expression `depth` parentheses deep and a warp shuffle."""
    ifs = "".join(f"#if !defined(SKIP_{i}_{k})\n" for k in range(depth))
    opens = "".join(" " * min(k + 2, 24) + f"if (i > {k}) {{\n" for k in range(depth))
    closes = "".join(" " * min(k + 2, 24) + "}\n" for k in reversed(range(depth)))
    value = "(" * depth + "v" + "".join(f" + {k})" for k in range(depth))
    return (ifs + f"__global__ void k{i}(float* d) {{\n  int i = threadIdx.x;\n  float v = d[i];\n"
            + opens + f"  v = {value};\n  v += __shfl_down_sync(0xffffffff, v, 16);\n" + closes
            + "  d[i] = v;\n}\n" + "#endif\n" * depth + "\n")


def deep_file(size: int) -> bytes:
    """Kernels nested as deep as `size` bytes allow, up to DEEPEST levels, filling `size`."""
    depth = 4
    while depth < DEEPEST and len(deep_kernel(0, depth + 1)) + len(HEADER) <= size:
        depth += 1
    parts = [HEADER, deep_kernel(0, depth)]
    total = len(HEADER) + len(parts[1])
    while total + len(parts[-1]) <= size:  # kernels after the first differ in their numbers only
        parts.append(deep_kernel(len(parts) - 1, depth))
        total += len(parts[-1])
    return "".join(parts).encode()


def fill(make: Callable[[int], bytes], size: int) -> bytes:
    """make(n) for the n whose file is closest to `size` bytes (make grows linearly in n)."""
    k = len(KINDS)  # kernels cycle over the kinds: average over one cycle
    one = len(make(1))
    per = (len(make(k + 1)) - one) / k
    return make(max(1, round((size - one) / per) + 1))


def shape_file(shape: str, size: int) -> bytes:
    if shape == "kernels":
        return fill(kernels_file, size)
    if shape == "expr":
        return fill(sum_file, size)
    if shape == "line":
        return fill(partial(sum_file, sep=" "), size)
    if shape == "chain":
        return fill(chain_file, size)
    if shape == "deep":
        return deep_file(size)
    raise ValueError(shape)


def parse_size(text: str) -> int:
    """`1k`, `256k`, `4m`, `50m` or a number of bytes."""
    t = text.strip().lower()
    scale = {"k": 1 << 10, "m": 1 << 20}.get(t[-1:], 1)
    return int(float(t[:-1] if scale > 1 else t) * scale)


@dataclass
class Run:
    cpu: float  # CPU seconds of the child, or of port_bytes in process
    wall: float
    rss: float | None = None  # peak resident MB of the child


def run_child(script: str, args: list[str], out: Path) -> Run:
    """Run `python -c script PEAKFILE ARGS` to its end: its CPU time from `wait4`, its peak
    memory from what it wrote to PEAKFILE."""
    peak = out.with_suffix(".peak")
    argv = [sys.executable, "-c", script, str(peak), *args]
    with open(out, "wb") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(args[:3])} failed ({proc.returncode}):\n{out.read_bytes()[-2000:].decode(errors='replace')}")
    return Run(usage.ru_utime + usage.ru_stime, wall, int(peak.read_text()) / 1024)


def time_process(src: Path, out: Path) -> Run:
    """One `hipport port SRC -o OUT --no-cache` in a fresh process (OUT is a folder: the
    ported file lands in it under its own name)."""
    r = run_child(RUN_MODULE, ["hipport", "port", str(src), "-o", str(out), "--no-cache", "--quiet"],
                  out.with_suffix(".log"))
    ported = out / src.name
    if not ported.is_file() or ported.read_bytes() == src.read_bytes():
        sys.exit(f"hipport wrote no ported {ported}")
    return r


def parse_process(src: Path) -> Run:
    """A process that reads and parses SRC with tree-sitter, nothing more."""
    return run_child(PARSE_ONLY, [str(src)], src.with_suffix(".parse.log"))


def time_in_process(data: bytes) -> Run:
    """port_bytes on `data` in this process (tables already loaded)."""
    from hipport.config import Config
    from hipport.model import FileStatus
    from hipport.passes import port_bytes

    c0, t0 = time.process_time(), time.perf_counter()
    r = port_bytes("bench.cu", "cuda", data, Config())
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    if r.status != FileStatus.PORTED:
        sys.exit(f"port_bytes did not port the file: {r.status.value} {r.error or ''}")
    return Run(cpu, wall)


@dataclass
class Row:
    shape: str
    size: int  # bytes
    lines: int
    cpu: float  # net CPU seconds
    wall: float
    rss: float | None = None  # net peak MB of hipport
    parse_rss: float | None = None  # net peak MB of the bare parse

    @property
    def ns_per_byte(self) -> float:
        return self.cpu / self.size * 1e9

    @property
    def memory_ratio(self) -> float | None:
        if self.rss is None or self.parse_rss is None or self.parse_rss < MEMORY_FLOOR_MB:
            return None
        return max(self.rss, 0.0) / self.parse_rss


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    ap.add_argument("--sizes", default=DEFAULT_SIZES, help="comma-separated file sizes: 1k, 64k, 4m, 50m")
    ap.add_argument("--full", action="store_true", help=f"the target's whole range: --sizes {FULL_SIZES}")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs of each size")
    ap.add_argument("--fail-above", type=float, default=None, metavar="X",
                    help="exit 1 when a shape's largest CPU cost per byte is over X times its smallest "
                         "size's (CI uses a generous X: it catches a quadratic path, which shows as a "
                         "ratio near the size ratio, not noise)")
    ap.add_argument("--fail-memory-above", type=float, default=None, metavar="Y",
                    help="exit 1 when hipport's memory growth is over Y times the bare parse's")
    ap.add_argument("--in-process", action="store_true",
                    help="time port_bytes in this process instead of a hipport process")
    ap.add_argument("--memory", action="store_true",
                    help="with --in-process, also measure memory (a hipport process and a parse per size)")
    args = ap.parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if not shapes or any(s not in SHAPES for s in shapes):
        ap.error(f"--shapes takes a comma-separated list of {', '.join(SHAPES)}, not {args.shapes!r}")
    try:
        sizes = sorted({parse_size(s) for s in (FULL_SIZES if args.full else args.sizes).split(",") if s.strip()})
    except ValueError:
        ap.error(f"--sizes takes comma-separated sizes (1k, 64k, 4m), not {args.sizes!r}")
    if not sizes or sizes[0] < 1 or args.repeat < 1:
        ap.error("--sizes needs positive sizes and --repeat at least 1")
    memory = args.memory or not args.in_process
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="hipport-kscale-") as tmp:
        t = Path(tmp)
        one = t / "k1.cu"
        one.write_bytes(kernels_file(1))
        base, base_rss, parse_base = 0.0, 0.0, 0.0
        if args.in_process:
            time_in_process(kernels_file(1))  # load the tables once, before any timing
        if memory or not args.in_process:
            time_process(one, t / "out1")  # a first process pays for a cold disk cache: not timed
            fixed = best(partial(time_process, one, t / "out1"), args.repeat)
            base, base_rss = (0.0 if args.in_process else fixed.cpu), fixed.rss or 0.0
            parse_base = min(parse_process(one).rss or 0.0 for _ in range(2))
        for shape in shapes:
            for size in sizes:
                data = shape_file(shape, size)
                src = t / f"{shape}{size}.cu"
                src.write_bytes(data)
                rss = parse_rss = None
                if args.in_process:
                    r = best(partial(time_in_process, data), args.repeat)
                    del_out = None
                else:
                    r = best(partial(time_process, src, t / f"out-{shape}{size}"), args.repeat)
                    del_out = t / f"out-{shape}{size}"
                if memory:
                    if r.rss is None:
                        r.rss = time_process(src, t / f"mem-{shape}{size}").rss
                        del_out = t / f"mem-{shape}{size}"
                    rss = (r.rss or 0.0) - base_rss
                    parse_rss = (parse_process(src).rss or 0.0) - parse_base
                if del_out is not None:  # the 50 MB outputs add up
                    (del_out / src.name).unlink(missing_ok=True)
                src.unlink()
                rows.append(Row(shape, len(data), data.count(b"\n") + 1, max(r.cpu - base, 1e-9), r.wall,
                                rss, parse_rss))
                print(f"  {shape} {len(data)} bytes: {r.cpu:.3f} CPU s", file=sys.stderr, flush=True)
    report(rows, args, base, base_rss, parse_base, memory)


def report(rows: list[Row], args: argparse.Namespace, base: float, base_rss: float, parse_base: float,
           memory: bool) -> None:
    how = "port_bytes in process" if args.in_process else \
        f"hipport port -o, one process per file; fixed cost {base:.3f} CPU s (1-kernel file) taken off"
    print(f"kernel scaling: CPU cost per byte by shape and size; {how}; best of {args.repeat} "
          f"(a run over {LONG_RUN:.0f} s is not repeated)")
    if memory:
        print(f"memory: peak RSS growth over the 1-kernel file's (hipport {base_rss:.1f} MB, bare tree-sitter "
              f"parse {parse_base:.1f} MB), hipport port against the bare parse of the same file")
    print(f"{'shape':>8} {'bytes':>10} {'lines':>8} {'net CPU s':>10} {'wall s':>8} {'ns/byte':>8} "
          f"{'x small':>8} {'RSS MB':>9} {'parse MB':>9} {'x parse':>8}")
    worst_time: dict[str, float] = {}
    worst_memory: float | None = None
    floor = 0.0 if args.in_process else CPU_FLOOR
    for shape in dict.fromkeys(r.shape for r in rows):
        mine = [r for r in rows if r.shape == shape]
        measured = [r for r in mine if r.cpu >= floor]
        smallest = measured[0].ns_per_byte if measured else 0.0
        for r in mine:
            ratio = r.ns_per_byte / smallest if smallest and r.cpu >= floor else None
            if ratio is not None:
                worst_time[shape] = max(worst_time.get(shape, 0.0), ratio)
            mr = r.memory_ratio
            if mr is not None:
                worst_memory = max(worst_memory or 0.0, mr)
            rss = "-" if r.rss is None else f"{r.rss:.1f}"
            prss = "-" if r.parse_rss is None else f"{r.parse_rss:.1f}"
            shown = "-" if ratio is None else f"{ratio:.2f}x"
            print(f"{shape:>8} {r.size:>10} {r.lines:>8} {r.cpu:>10.3f} {r.wall:>8.3f} {r.ns_per_byte:>8.1f} "
                  f"{shown:>8} {rss:>9} {prss:>9} {'-' if mr is None else f'{mr:.2f}x':>8}")
    for shape, ratio in worst_time.items():
        print(f"{shape}: largest / smallest CPU per byte: {ratio:.2f}x (target <= 1.5x)")
    if floor and len(worst_time) < len({r.shape for r in rows}):
        print(f"(sizes whose net CPU is under {floor:g} s are within the fixed cost's noise: use --in-process "
              f"or larger sizes for their ratio)")
    if memory:
        shown = "no size large enough" if worst_memory is None else f"{worst_memory:.2f}x"
        print(f"largest hipport / parse memory growth: {shown} (target <= 2x; shown where the parse "
              f"grows by {MEMORY_FLOOR_MB:.0f} MB or more)")
    failed = False
    if args.fail_above is not None:
        for shape, ratio in worst_time.items():
            if ratio > args.fail_above:
                print(f"FAILED: {shape}: {ratio:.2f}x is above {args.fail_above:g}x: a cost grows faster "
                      f"than the file", file=sys.stderr)
                failed = True
    if args.fail_memory_above is not None and worst_memory is not None and worst_memory > args.fail_memory_above:
        print(f"FAILED: memory {worst_memory:.2f}x is above {args.fail_memory_above:g}x the bare parse's",
              file=sys.stderr)
        failed = True
    if failed:
        raise SystemExit(1)


def best(run: Callable[[], Run], repeat: int) -> Run:
    """The run with the least CPU time (this is a shared machine: the least disturbed run is
    the truest). `repeat` runs; a short run is repeated up to 4x as often while the runs take
    under SHORT_BUDGET seconds in all (its figure is small beside the fixed cost, so noise
    weighs more), and a run over LONG_RUN seconds stands alone."""
    out = run()
    spent, runs = out.wall, 1
    while runs < repeat or (runs < 4 * repeat and spent < SHORT_BUDGET):
        if out.wall > LONG_RUN:
            break
        r = run()
        spent, runs = spent + r.wall, runs + 1
        if r.cpu < out.cpu:
            out = r
    return out


if __name__ == "__main__":
    main()
