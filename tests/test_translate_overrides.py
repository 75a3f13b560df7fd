"""A library's own spellings of another table's names (`[overrides]`, translate/overrides.py):
rocBLAS writes library_types.h datatypes as rocblas_datatype values in a file that uses cuBLAS,
and a file that also uses a library in `unless` keeps the runtime spelling."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipport import rules as rulesmod
from hipport import translate
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.errors import HipportError
from hipport.source import SourceFile

MINI_RUNTIME = """
family = "runtime"
title = "mini runtime"

[names]
cudaDataType = { hip = "hipDataType", kind = "type" }
CUDA_R_32F = { hip = "HIP_R_32F", kind = "enum" }
CUDA_R_16I = { kind = "enum", status = "unsupported" }
"""

MINI_ROCBLAS = """
family = "rocblas"
title = "mini rocBLAS"

[names]
cublasGemmEx = { hip = "rocblas_gemm_ex", kind = "function" }
cublasHandle_t = { hip = "rocblas_handle", kind = "type" }

[overrides]
unless = ["cusparse"]

[overrides.names]
cudaDataType = { hip = "rocblas_datatype", kind = "type" }
CUDA_R_32F = { hip = "rocblas_datatype_f32_r", kind = "enum" }
"""

MINI_SPARSE = """
family = "cusparse"
title = "mini cuSPARSE"

[names]
cusparseCreateDnVec = { hip = "hipsparseCreateDnVec", kind = "function" }
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> rulesmod.RuleSet:
    root = tmp_path_factory.mktemp("rules")
    (root / "api").mkdir()
    for name, text in (("runtime", MINI_RUNTIME), ("rocblas", MINI_ROCBLAS), ("cusparse", MINI_SPARSE)):
        (root / "api" / f"{name}.toml").write_text(text)
    return rulesmod.load("rocblas", str(root))


def port(rules: rulesmod.RuleSet, body: str) -> str:
    """The ported text, less the runtime include a file without a library header gets."""
    src = SourceFile("t.cpp", body.encode())
    ctx = translate.run(src, Config(wave64=False), rules)
    kept, conflicts = resolve(ctx.edits)
    assert not conflicts
    return apply_edits(src.data, kept).decode().removeprefix("#include <hip/hip_runtime.h>\n")


@pytest.mark.parametrize(("body", "expected"), [
    pytest.param("cudaDataType t = CUDA_R_32F;\ncublasGemmEx(h, t);\n",
                 "rocblas_datatype t = rocblas_datatype_f32_r;\nrocblas_gemm_ex(h, t);\n",
                 id="a cuBLAS file: type and value both rocBLAS's"),
    pytest.param("#define T CUDA_R_32F\nvoid f(cublasHandle_t h);\n",
                 "#define T rocblas_datatype_f32_r\nvoid f(rocblas_handle h);\n",
                 id="a macro body follows the file"),
    pytest.param("cudaDataType t = CUDA_R_32F;\n", "hipDataType t = HIP_R_32F;\n",
                 id="no cuBLAS name: the runtime spelling"),
    pytest.param("cudaDataType t = CUDA_R_32F;\ncublasGemmEx(h, t);\ncusparseCreateDnVec(&v, n, p, t);\n",
                 "hipDataType t = HIP_R_32F;\nrocblas_gemm_ex(h, t);\nhipsparseCreateDnVec(&v, n, p, t);\n",
                 id="also cuSPARSE (unless): the runtime spelling, as t goes to both"),
])
def test_overrides_hold_in_files_of_their_library(rules: rulesmod.RuleSet, body: str, expected: str) -> None:
    assert port(rules, body) == expected


def test_a_name_without_override_keeps_the_base_entry(rules: rulesmod.RuleSet) -> None:
    src = SourceFile("t.cpp", b"int x = CUDA_R_16I;\ncublasGemmEx(h, x);\n")
    ctx = translate.run(src, Config(wave64=False), rules)
    assert any(f.rule == "HP001" and "CUDA_R_16I" in f.message for f in ctx.findings)


def test_real_rocblas_table_writes_rocblas_datatypes() -> None:
    rs = rulesmod.load("rocblas")
    body = ("cudaDataType_t a = CUDA_C_16BF;\ncudaDataType b = CUDA_R_8I;\n"
            "cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, al, A, CUDA_R_16F, lda, B, CUDA_R_16F, ldb, be, "
            "C, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);\n")
    out = port(rs, body)
    assert out.startswith("rocblas_datatype_ a = rocblas_datatype_bf16_c;\nrocblas_datatype b = rocblas_datatype_i8_r;\n")
    assert "A, rocblas_datatype_f16_r, lda, B, rocblas_datatype_f16_r, ldb" in out
    assert "C, rocblas_datatype_f32_r, ldc" in out and "HIP_R" not in out


def test_bad_overrides_table_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('family = "x"\n[overrides]\nunless = "cusparse"\n[overrides.names]\n')
    with pytest.raises(HipportError, match="unless"):
        rulesmod.load_table(bad)


def test_real_rocsparse_table_writes_rocsparse_datatypes() -> None:
    rs = rulesmod.load("rocsparse")
    out = port(rs, "cudaDataType t = CUDA_C_64F;\ncusparseCreateDnVec(&v, n, p, CUDA_R_32F);\n")
    assert out.endswith("rocsparse_datatype t = rocsparse_datatype_f64_c;\n"
                        "rocsparse_create_dnvec_descr(&v, n, p, rocsparse_datatype_f32_r);\n")


def test_cublas_and_cusparse_in_one_file_keep_hip_datatypes() -> None:
    rs = rulesmod.load("rocblas,rocsparse")
    out = port(rs, "cudaDataType t = CUDA_R_32F;\ncublasGemmEx(h, t);\ncusparseCreateDnVec(&v, n, p, t);\n")
    assert out.startswith("hipDataType t = HIP_R_32F;\n")


ROCSPARSE_TYPES = Path("/usr/include/rocsparse/rocsparse-types.h")


@pytest.mark.skipif(not ROCSPARSE_TYPES.is_file(), reason="rocSPARSE headers are not installed")
def test_rocsparse_overrides_are_declared_in_the_installed_header() -> None:
    words = set(re.findall(r"\w+", ROCSPARSE_TYPES.read_text()))
    (o,) = (o for o in rulesmod.load("rocsparse").overrides if o.family == "rocsparse")
    missing = [m.hip for m in o.names.values() if m.hip and m.status != "unsupported" and m.hip not in words]
    assert not missing


def _data_types_rules(libs: str) -> tuple[rulesmod.RuleSet, Config]:
    cfg = Config(wave64=False, blas="rocblas", data_types="rocblas",
                 sparse="rocsparse" if "rocsparse" in libs else "hipsparse")
    assert rulesmod.libraries_key(cfg) == libs
    return rulesmod.load(libs), cfg


@pytest.mark.parametrize(("libs", "body", "expected"), [
    pytest.param("rocblas,rocblas_types",
                 "cuComplex c; cuDoubleComplex z; __half* h; __nv_bfloat16* b;\ncublasCscal(hd, n, &c, &c, 1);\n",
                 "rocblas_float_complex c; rocblas_double_complex z; rocblas_half* h; rocblas_bfloat16* b;\n"
                 "rocblas_cscal(hd, n, &c, &c, 1);\n",
                 id="a rocBLAS file: the types rocBLAS takes, no cast needed"),
    pytest.param("rocblas,rocblas_types", "cuComplex c = make_cuComplex(1, 2);\n",
                 "hipComplex c = make_hipFloatComplex(1, 2);\n",  # both HIP platforms have it
                 id="no rocBLAS name: HIP's types, which the hipC* functions take"),
    pytest.param("rocblas,rocblas_types,rocsparse",
                 "cuComplex c;\ncublasCscal(hd, n, &c, &c, 1);\ncusparseCreateDnVec(&v, n, p, t);\n",
                 "hipComplex c;\nrocblas_cscal(hd, n, &c, &c, 1);\nrocsparse_create_dnvec_descr(&v, n, p, t);\n",
                 id="also rocSPARSE (another complex type): HIP's"),
])
def test_data_types_rocblas(libs: str, body: str, expected: str) -> None:
    rs, cfg = _data_types_rules(libs)
    src = SourceFile("t.cpp", body.encode())
    ctx = translate.run(src, cfg, rs)
    kept, _ = resolve(ctx.edits)
    out = apply_edits(src.data, kept).decode()
    assert out.endswith(expected)
    assert "hip_fp16.h" not in out and "hip_bfloat16.h" not in out  # HIP's headers: not its types


def test_data_types_default_keeps_hip_types() -> None:
    assert rulesmod.libraries_key(Config(blas="rocblas")) == "rocblas"
    out = port(rulesmod.load("rocblas"), "cuComplex c;\ncublasCscal(hd, n, &c, &c, 1);\n")
    assert out.startswith("hipComplex c;\n")


def test_overrides_when_names_the_families(tmp_path: Path) -> None:
    t = tmp_path / "t.toml"
    t.write_text('family = "x"\n[overrides]\nwhen = ["a", "b"]\n[overrides.names]\n'
                 'cuComplex = { hip = "y", kind = "type" }\n')
    o = rulesmod.load_table(t)[0]["overrides"]
    assert o.when == {"a", "b"} and o.family == "x"
    t.write_text('family = "x"\n[overrides]\nwhen = "a"\n[overrides.names]\n')
    with pytest.raises(HipportError, match="when"):
        rulesmod.load_table(t)
