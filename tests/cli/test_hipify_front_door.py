"""`hipport hipify`: hipify-perl's and hipify-clang's command lines, as scripts write them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import hipport

SOURCE = """\
#include <cuda_runtime.h>
__global__ void k(float *p) { p[threadIdx.x] = 0.f; }
int main() {
  float *d;
  cudaMalloc(&d, 64 * sizeof(float));
  k<<<1, 64>>>(d);
  cudaFree(d);
  return 0;
}
"""


def _src(tmp: Path, name: str = "a.cu") -> Path:
    p = tmp / name
    p.write_text(SOURCE)
    return p


def test_stdout_by_default_like_hipify_perl(tmp_path: Path) -> None:
    r = hipport("hipify", str(_src(tmp_path)), cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    assert "hipMalloc(&d, 64 * sizeof(float));" in out and "#include <hip/hip_runtime.h>" in out


def test_output_file_with_equals_and_kernel_syntax(tmp_path: Path) -> None:
    src = _src(tmp_path)
    r = hipport("hipify", "-o=" + str(tmp_path / "a.hip"), "--hip-kernel-execution-syntax", str(src),
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d);" in (tmp_path / "a.hip").read_text()
    assert r.stdout == b""


def test_inplace_keeps_a_prehip_backup_as_hipconvertinplace_expects(tmp_path: Path) -> None:
    a, b = _src(tmp_path, "a.cu"), _src(tmp_path, "b.cuh")
    r = hipport("hipify", "-inplace", "-print-stats", str(a), str(b), "--", "-x", "cuda", "-I.",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    assert "hipMalloc" in a.read_text() and "hipMalloc" in b.read_text()
    assert (tmp_path / "a.cu.prehip").read_text() == SOURCE
    err = r.stderr.decode()
    assert "clang options ignored (-x cuda -I.)" in err
    assert "[HIPIFY] info: file '" in err and "[HIPIFY] info: TOTAL statistics:" in err
    assert "  cudaMalloc => hipMalloc: 1" in err and "  CONVERTED refs count: " in err
    # A second run changes nothing and keeps the first backup.
    r = hipport("hipify", "-inplace", str(a), cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "a.cu.prehip").read_text() == SOURCE


def test_examine_writes_nothing(tmp_path: Path) -> None:
    src = _src(tmp_path)
    r = hipport("hipify", "-examine", str(src), cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == b""
    assert src.read_text() == SOURCE and "CONVERTED refs count: 5" in r.stderr.decode()  # 2 calls, 1 header, 2 device names


def test_print_stats_csv(tmp_path: Path) -> None:
    src = _src(tmp_path)
    r = hipport("hipify", "--print-stats-csv", "-o", str(tmp_path / "o.cu"), str(src), cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    rows = (tmp_path / "a.cu.csv").read_text().splitlines()
    assert "CONVERTED refs count;5" in rows and "cudaFree => hipFree;1" in rows


def test_roc_and_ignored_options_with_notes(tmp_path: Path) -> None:
    src = tmp_path / "r.cu"
    src.write_text("#include <curand.h>\nvoid f(curandGenerator_t *g) { curandCreateGenerator(g, CURAND_RNG_PSEUDO_DEFAULT); }\n")
    r = hipport("hipify", "-roc", "--amap", "-DX=1", "-UY", "-I", "inc", "--cuda-path=/usr/local/cuda",
                str(src), cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    assert "rocrand_create_generator(g, ROCRAND_RNG_PSEUDO_DEFAULT);" in r.stdout.decode()
    err = r.stderr.decode()
    assert "-amap ignored" in err and "-cuda-path ignored" in err and "-U ignored" in err
    assert "-I inc ignored: no such folder" in err and "-D ignored" not in err  # -D: the HIP build's macros


def test_include_folders_and_the_compile_database_reach_the_analysis(tmp_path: Path) -> None:
    """hipify-clang's -I and -p: a constant from a header only the folder reaches is seen."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "width.h").write_text("#define GROUP 32\n")
    src = tmp_path / "g.cu"
    src.write_text('#include "width.h"\n__global__ void k(float* p) {\n  float v = p[threadIdx.x];\n'
                   "  for (int o = GROUP / 2; o > 0; o /= 2) v += __shfl_down(v, o);\n  p[0] = v;\n}\n")
    without = hipport("hipify", str(src), cwd=tmp_path).stdout.decode()
    assert "__shfl_down(v, o);" in without
    with_i = hipport("hipify", "-I", "inc", str(src), cwd=tmp_path).stdout.decode()
    assert "__shfl_down(v, o, 32);" in with_i
    db = tmp_path / "build"
    db.mkdir()
    (db / "compile_commands.json").write_text(
        f'[{{"directory": "{db}", "file": "{src}", "arguments": ["nvcc", "-I{tmp_path / "inc"}", "-c", "{src}"]}}]')
    with_p = hipport("hipify", "-p", str(db), str(src), cwd=tmp_path).stdout.decode()
    assert "__shfl_down(v, o, 32);" in with_p


def test_exit_codes(tmp_path: Path) -> None:
    assert hipport("hipify", "-bogus", "x.cu", cwd=tmp_path).returncode == 2
    assert hipport("hipify", cwd=tmp_path).returncode == 2  # no inputs
    a, b = _src(tmp_path, "a.cu"), _src(tmp_path, "b.cu")
    assert hipport("hipify", "-o=x.cu", str(a), str(b), cwd=tmp_path).returncode == 2
    r = hipport("hipify", str(tmp_path / "missing.cu"), cwd=tmp_path)
    assert r.returncode == 1 and b"missing.cu: cannot read" in r.stderr and b"Traceback" not in r.stderr
    assert hipport("hipify", "-help", cwd=tmp_path).stdout.startswith(b"USAGE: hipport hipify")


def _glob_run(cwd: Path, pattern: str) -> subprocess.CompletedProcess[bytes]:
    """`hipport hipify PATTERN` as a shell expands it (the documented `hipport hipify *.cu`)."""
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(["bash", "-c", f'exec "{sys.executable}" -m hipport hipify {pattern}'],
                          cwd=cwd, capture_output=True, env=env, timeout=300)


def test_a_file_named_like_an_option_is_refused_not_obeyed(tmp_path: Path) -> None:
    """A tree file `-o=k.cu` made `hipport hipify *.cu` overwrite k.cu with no backup."""
    k = _src(tmp_path, "k.cu")
    (tmp_path / "-o=k.cu").write_text(SOURCE)
    r = _glob_run(tmp_path, "*.cu")
    err = r.stderr.decode()
    assert r.returncode == 2 and err.count("\n") == 1 and "write ./-o=k.cu" in err, err
    assert k.read_text() == SOURCE
    r = _glob_run(tmp_path, "./*.cu")  # the suggested spelling ports both
    assert r.returncode == 0 and r.stdout.decode().count("hipMalloc(&d") == 2, r.stderr.decode()
    assert k.read_text() == SOURCE
    # After `--` the words are clang's options, as in HIPIFY: ignored with a note, file or not.
    r = hipport("hipify", "k.cu", "--", "-o=k.cu", cwd=tmp_path)
    assert r.returncode == 0 and b"clang options ignored (-o=k.cu)" in r.stderr
    assert k.read_text() == SOURCE


def test_an_output_that_is_an_input_is_refused(tmp_path: Path) -> None:
    k = _src(tmp_path, "k.cu")
    (tmp_path / "link.cu").symlink_to("k.cu")
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        _src(tmp_path / d, "k.cu")
    for args in (["-o=k.cu", "k.cu"],  # the port over its own source
                 ["-o", "k.cu", "link.cu"],  # over the file the input links to
                 ["-o-dir=.", "k.cu"],
                 ["-inplace", "-print-stats-csv", "-o-stats=k.cu", "link.cu"],
                 ["-o-dir=out", "a/k.cu", "b/k.cu"]):  # two outputs of one name
        r = hipport("hipify", *args, cwd=tmp_path)
        err = r.stderr.decode()
        assert r.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err, (args, err)
    assert k.read_text() == SOURCE and not (tmp_path / "out").exists()
    assert "two inputs named k.cu would both be written to out/k.cu" in err
    r = hipport("hipify", "-o=link.cu", "k.cu", cwd=tmp_path)  # replaces the link, not k.cu
    assert r.returncode == 0 and not (tmp_path / "link.cu").is_symlink() and k.read_text() == SOURCE


LIBS = """\
#include "cublas_v2.h"
#include "curand.h"
#include <cuComplex.h>
void f(cublasHandle_t h, cuComplex* a) { cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, a, a, 1, a, 1, a, a, 1); }
"""


def test_the_defaults_are_hipifys_spellings_and_a_config_file_still_chooses(tmp_path: Path) -> None:
    """A user who swaps hipify-clang for `hipport hipify` gets HIPIFY's output: the ROCm 6.x
    `_v2` names, "hipblas.h" flat and "hiprand/hiprand.h" in its folder, quotes kept, and under
    -roc rocBLAS's complex type; `hipport port` keeps its own; a .hipport.toml chooses."""
    src = tmp_path / "l.cu"
    src.write_text(LIBS)
    out = hipport("hipify", src, "-quiet-warnings", cwd=tmp_path).stdout.decode()
    assert '#include "hipblas.h"' in out and '#include "hiprand/hiprand.h"' in out
    assert "hipblasCgemm_v2(" in out
    roc = hipport("hipify", "-roc", src, "-quiet-warnings", cwd=tmp_path).stdout.decode()
    assert '#include "rocblas.h"' in roc and "rocblas_float_complex" in roc
    port = hipport("port", src, "-o", "-", "--no-cache", cwd=tmp_path).stdout.decode()
    assert "#include <hipblas/hipblas.h>" in port and "hipblasCgemm(" in port
    (tmp_path / ".hipport.toml").write_text('rocm = "5.2"\ninclude-layout = "current"\n')
    mine = hipport("hipify", src, "-quiet-warnings", cwd=tmp_path).stdout.decode()
    assert '#include "hipblas/hipblas.h"' in mine and "hipblasCgemm(" in mine
    assert "HIPIFY's spellings" in hipport("hipify", "--help").stdout.decode()
