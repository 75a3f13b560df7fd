"""Small CUDA trees for the trust tests, written here."""

from __future__ import annotations

from pathlib import Path

KERNEL = b"""#include <cuda_runtime.h>
__global__ void k(float* a) { a[threadIdx.x % 32] = __shfl_down_sync(0xffffffff, a[0], 16); }
int main() { float* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaFree(d); }
"""


def cuda_tree(root: Path, n: int = 3) -> Path:
    (root / "a").mkdir(parents=True)
    for i in range(n):
        (root / "a" / f"k{i}.cu").write_bytes(KERNEL.replace(b"void k(", b"void k%d(" % i)
                                              .replace(b"k<<<", b"k%d<<<" % i))
    (root / "notes.txt").write_text("copied as is\n")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
