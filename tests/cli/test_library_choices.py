"""`--roc` and the per-family library choices (`--blas`, `--sparse`, `--rand`, `--solver`,
`--fft`, `--dnn`), on the command line and in the config; the hipBLAS spelling per ROCm floor."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import hipport

SOURCE = """\
#include <cusparse.h>
#include <curand.h>
int main() {
  cusparseHandle_t h;
  cusparseCreate(&h);
  curandGenerator_t g;
  curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
  return 0;
}
"""


def _port(tmp: Path, *opts: str) -> str:
    src = tmp / "a.cu"
    src.write_text(SOURCE)
    r = hipport("port", str(src), "-o", "-", "--no-cache", "-q", "--no-wave64", *opts, cwd=tmp)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout.decode()


def test_roc_ports_every_library_to_its_roc_library(tmp_path: Path) -> None:
    out = _port(tmp_path, "--roc")
    assert "#include <rocsparse/rocsparse.h>" in out and "#include <rocrand/rocrand.h>" in out
    assert "rocsparse_create_handle(&h);" in out
    assert "rocrand_create_generator(&g, ROCRAND_RNG_PSEUDO_DEFAULT);" in out


def test_a_family_option_wins_over_roc(tmp_path: Path) -> None:
    out = _port(tmp_path, "--roc", "--rand", "hiprand")
    assert "rocsparse_create_handle(&h);" in out
    assert "hiprandCreateGenerator(&g, HIPRAND_RNG_PSEUDO_DEFAULT);" in out


def test_default_is_the_hip_libraries(tmp_path: Path) -> None:
    out = _port(tmp_path)
    assert "hipsparseCreate(&h);" in out and "hiprandCreateGenerator" in out


def test_roc_in_the_config_file(tmp_path: Path) -> None:
    (tmp_path / ".hipport.toml").write_text('roc = true\nsparse = "hipsparse"\n')
    out = _port(tmp_path)
    assert "hipsparseCreate(&h);" in out and "rocrand_create_generator" in out
    shown = hipport("config", cwd=tmp_path).stdout.decode()
    rand = next(line for line in shown.splitlines() if line.startswith("rand "))
    assert "'rocrand'" in rand and "# roc (" in rand
    sparse = next(line for line in shown.splitlines() if line.startswith("sparse "))
    assert "'hipsparse'" in sparse and ".hipport.toml" in sparse


def test_bad_choice_exits_2(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(SOURCE)
    r = hipport("port", str(tmp_path / "a.cu"), "-o", "-", "--sparse", "cusparse", cwd=tmp_path)
    assert r.returncode == 2
    (tmp_path / ".hipport.toml").write_text('solver = "magma"\n')
    r = hipport("port", str(tmp_path / "a.cu"), "-o", "-", cwd=tmp_path)
    assert r.returncode == 2 and b"solver must be one of hipsolver, rocsolver" in r.stderr


def test_hipblas_complex_spelling_follows_the_floor(tmp_path: Path) -> None:
    src = tmp_path / "b.cu"
    src.write_text("#include <cublas_v2.h>\nvoid f(cublasHandle_t h, int n, cuComplex *x, float *r) {\n"
                   "  cublasScnrm2(h, n, x, 1, r);\n}\n")
    got = {}
    for floor in ("5.2", "6.2", "7.0"):
        r = hipport("port", str(src), "-o", "-", "--no-cache", "-q", "--no-wave64", "--rocm", floor,
                    cwd=tmp_path)
        got[floor] = next(line.strip() for line in r.stdout.decode().splitlines() if "nrm2" in line)
    assert got == {"5.2": "hipblasScnrm2(h, n, x, 1, r);", "6.2": "hipblasScnrm2_v2(h, n, x, 1, r);",
                   "7.0": "hipblasScnrm2(h, n, x, 1, r);"}
    text = hipport("rules", "lookup", "cublasScnrm2").stdout.decode()
    assert "by floor: ROCm 5.2: hipblasScnrm2; ROCm 6.0: hipblasScnrm2_v2; ROCm 7.0: hipblasScnrm2" in text


def test_lookup_with_roc() -> None:
    text = hipport("rules", "lookup", "cusolverDnSpotrf", "--roc").stdout.decode()
    assert text.startswith("cusolverDnSpotrf -> rocsolver_spotrf\n")
    text = hipport("rules", "lookup", "cusolverDnSpotrf").stdout.decode()
    assert text.startswith("cusolverDnSpotrf -> hipsolverDnSpotrf\n")
