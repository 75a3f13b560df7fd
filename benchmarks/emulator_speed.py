"""Speed of hipport's CPU wave emulator.

Compiles a shuffle-based block reduction (HIP source, hipLaunchKernelGGL) at
wave 32 and wave 64 with -O2, runs it, and prints emulated threads per second
and fiber resumes per second, next to a plain C++ loop that computes the same
sum in the same process (the baseline).

    python benchmarks/emulator_speed.py [--n 4194304] [--block 256] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hipport.validate import emulator as emu  # noqa: E402

PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Block reduction: wave-level __shfl_down tree, one partial per wave in
// shared memory, then the first wave reduces the partials; one atomicAdd per block.
__global__ void block_sum(const float* x, float* out, int n) {
  __shared__ float part[1024 / warpSize];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  int lane = threadIdx.x % warpSize, w = threadIdx.x / warpSize;
  if (lane == 0) part[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < (int)(blockDim.x / warpSize) ? part[lane] : 0.0f;
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
    if (lane == 0) atomicAdd(out, v);
  }
}

int main(int argc, char** argv) {
  int n = atoi(argv[1]), block = atoi(argv[2]), repeat = atoi(argv[3]);
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 7);
  float *x, *out;
  hipMalloc(&x, n * sizeof(float));
  hipMalloc(&out, sizeof(float));
  hipMemcpy(x, h.data(), n * sizeof(float), hipMemcpyHostToDevice);
  double best = 1e30;
  unsigned long long sw = 0;
  float sum = 0;
  for (int r = 0; r < repeat; ++r) {
    hipMemset(out, 0, sizeof(float));
    unsigned long long s0 = hipemu::detail::g.switches;  // internal counter
    auto t0 = std::chrono::steady_clock::now();
    hipLaunchKernelGGL(block_sum, dim3((n + block - 1) / block), dim3(block), 0, 0, x, out, n);
    hipDeviceSynchronize();
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t < best) best = t, sw = hipemu::detail::g.switches - s0;
    hipMemcpy(&sum, out, sizeof(float), hipMemcpyDeviceToHost);
  }
  // Baseline: the same sum as a plain loop (volatile sink defeats folding).
  double bbest = 1e30;
  volatile float sink = 0;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    float s = 0;
    for (int i = 0; i < n; ++i) s += h[i];
    sink = s;
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t < bbest) bbest = t;
  }
  printf("%d %d %.9f %llu %.9f %.1f %.1f\n", warpSize, n, best, sw, bbest, (double)sum,
         (double)sink);
  return 0;
}
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 22, help="elements (= emulated threads)")
    ap.add_argument("--block", type=int, default=256, help="threads per block")
    ap.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "block_sum.cpp"
        src.write_text(PROGRAM)
        print(f"block reduction, n={a.n} threads, block={a.block}, best of {a.repeat}, g++ -O2")
        print(
            f"{'wave':>4} {'kernel s':>9} {'threads/s':>12} {'resumes/s':>12} {'baseline elem/s':>16} {'slowdown':>9}"
        )
        for wave in (32, 64):
            exe = emu.build([src], Path(tmp) / f"bench{wave}", wave=wave)
            proc = emu.run(exe, [str(a.n), str(a.block), str(a.repeat)], timeout=600)
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                return 1
            w, n, t, sw, bt, total, ref = proc.stdout.split()
            t, bt, n = float(t), float(bt), int(n)
            assert abs(float(total) - float(ref)) <= 1e-3 * abs(float(ref)), (total, ref)
            print(f"{w:>4} {t:9.3f} {n / t:12.3e} {int(sw) / t:12.3e} {n / bt:16.3e} {t / bt:8.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
