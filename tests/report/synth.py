"""Synthetic RunResults for the report tests and benchmarks/report_speed.py.

Each file is CUDA-looking text with real edits (applied with `apply_edits`, so the ported
bytes are exactly what the pipeline would produce), API families, HP001/HP002 findings and
wave64 findings with a review fix, at known lines.
"""

from __future__ import annotations

import random

from hipport.edits import apply_edits
from hipport.model import (
    Applicability,
    Edit,
    FamilyCount,
    FileResult,
    FileStatus,
    Finding,
    Fix,
    RunResult,
    Severity,
    applied_fixes,
)
from hipport.source import SourceFile

PROBE = ('// </script><script>document.title="pwned"</script> <img src=x onerror="document.title=1">\n'
         '// {{ x }} {% if y %} $title ${content} &amp; <b>bold</b>\n')

HEADER = "#include <cuda_runtime.h>\n#include <cstdio>\n\n"


def _edit(src: SourceFile, text: str, start: int, old: str, new: str, rule: str) -> Edit:
    s = text.index(old, start)
    return Edit(s, s + len(old), new, rule, span=src.span(s, s + len(old)))


def make_file(path: str, *, blocks: int = 6, seed: int = 0, probe: bool = False,
              unsupported: bool = True) -> FileResult:
    """One file of about 12 * blocks lines."""
    rnd = random.Random(seed)
    parts = [HEADER]
    if probe:
        parts.append(PROBE)
    for b in range(blocks):
        parts.append(
            f"__global__ void kernel_{b}(float* out, const float* in, int n) {{\n"
            f"    int lane = threadIdx.x & 31;\n"
            f"    float v = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
            f"    v += __shfl_down_sync(0xffffffff, v, 16);\n"
            f"    if (lane == 0) out[blockIdx.x] = v;\n"
            f"}}\n\n"
            f"void launch_{b}(float* d, int n) {{\n"
            f"    cudaMalloc(&d, n * sizeof(float));\n"
            f"    cudaMemcpy(d, d, n, cudaMemcpyDeviceToDevice);\n"
            + ("    cudaGraphExecNodeSetParams(g, node, &p);\n" if unsupported and b % 2 == 0 else "")
            + (f"    cudaFancyThing{rnd.randint(0, 3)}(d);\n" if b % 3 == 1 else "")
            + "}\n\n")
    text = "".join(parts)
    data = text.encode()
    src = SourceFile(path, data)
    edits: list[Edit] = []
    findings: list[Finding] = []
    fam = {"runtime": FamilyCount(), "headers": FamilyCount()}
    i = text.index("cuda_runtime.h")
    edits.append(Edit(i, i + len("cuda_runtime.h"), "hip/hip_runtime.h", "include",
                      span=src.span(i, i + 14)))
    fam["headers"].found += 1
    fam["headers"].ported += 1
    pos = 0
    while True:
        k = text.find("__global__ void kernel_", pos)
        if k < 0:
            break
        end = text.find("\n\n\n", k) if text.find("\n\n\n", k) > 0 else len(text)
        block_end = text.find("void launch_", k)
        block_end = text.find("}\n", block_end) if block_end > 0 else end
        m = text.index("& 31", k)
        findings.append(Finding("W006", Severity.WARNING, src.span(m, m + 4),
                                "lane index masked with 31 assumes 32 lanes; a wave has 64",
                                kernel=f"kernel_{text[k + 23]}", model="warp32"))
        sh = text.index("__shfl_down_sync(", k)
        close = text.index(");", sh) + 1
        fix_edit = Edit(close - 1, close - 1, ", 32", "W003", priority=1,
                        span=src.span(close - 1, close - 1))
        findings.append(Finding("W003", Severity.WARNING, src.span(sh, close),
                                "shuffle without a width: on wave64 it spans 64 lanes",
                                fix=Fix("pass width 32 to keep CUDA's semantics",
                                        Applicability.REVIEW, (fix_edit,)),
                                kernel="kernel", model="warp32"))
        edits.append(_edit(src, text, sh, "__shfl_down_sync(0xffffffff, ", "__shfl_down(", "rename"))
        for name, new in (("cudaMalloc", "hipMalloc"), ("cudaMemcpy", "hipMemcpy"),
                          ("cudaMemcpyDeviceToDevice", "hipMemcpyDeviceToDevice")):
            s = text.find(name + ("(" if name != "cudaMemcpyDeviceToDevice" else ")"), k)
            if 0 <= s < block_end:
                edits.append(Edit(s, s + len(name), new, "rename", span=src.span(s, s + len(name))))
                fam["runtime"].found += 1
                fam["runtime"].ported += 1
        u = text.find("cudaGraphExecNodeSetParams", k)
        if 0 <= u < block_end:
            findings.append(Finding("HP001", Severity.WARNING, src.span(u, u + 26),
                                    "cudaGraphExecNodeSetParams has no HIP equivalent; consider "
                                    "hipGraphExecKernelNodeSetParams", family="graph",
                                    subject="cudaGraphExecNodeSetParams"))
            fg = fam.setdefault("graph", FamilyCount())
            fg.found += 1
            fg.unsupported += 1
        q = text.find("cudaFancyThing", k)
        if 0 <= q < block_end:
            name = text[q:text.index("(", q)]
            findings.append(Finding("HP002", Severity.WARNING, src.span(q, q + len(name)),
                                    f"{name} looks like a CUDA API but no mapping table knows it",
                                    family="unknown", subject=name))
        pos = block_end
    edits.sort(key=lambda e: (e.start, e.end))
    ported = apply_edits(data, edits)
    findings.sort(key=lambda f: (f.span.start, f.rule))
    return FileResult(path=path, role="cuda-source", status=FileStatus.PORTED, output_path=path,
                      edits=edits, findings=findings, families=fam, ported=ported, original=data,
                      digest=str(hash(data)), applied=applied_fixes(edits, findings))


def make_run(n: int, *, blocks: int = 6, folders: int = 8, probe_at: int | None = 0) -> RunResult:
    files = []
    for i in range(n):
        folder = f"src/mod{i % folders}"
        files.append(make_file(f"{folder}/kernels_{i}.cu", blocks=blocks, seed=i,
                               probe=(i == probe_at)))
    # Same file name in two folders, a skipped file, a failed file and an unchanged file.
    files.append(make_file("lib/a/util.cu", blocks=1, seed=1))
    files.append(make_file("lib/b/util.cu", blocks=1, seed=2))
    files.append(FileResult(path="docs/notes.txt", role="other", status=FileStatus.SKIPPED))
    files.append(FileResult(path="src/broken.cu", role="cuda-source", status=FileStatus.FAILED,
                            error="internal error: <boom> & friends"))
    plain = b"int add(int a, int b) { return a + b; }\n"
    files.append(FileResult(path="src/plain.cu", role="cuda-source", status=FileStatus.UNCHANGED,
                            original=plain))
    return RunResult(files, seconds=0.5)
