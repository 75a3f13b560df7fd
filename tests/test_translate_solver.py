"""cuBLAS enums where cuSOLVER takes them (hipport/translate/solver.py), against small tables
written here: below a ROCm 6.0 floor they take hipSOLVER's spelling in cuSOLVER-only files and
inside cuSOLVER calls, and a hipBLAS-typed variable passed to cuSOLVER is reported."""

from __future__ import annotations

import pytest

from hipport import rules as rulesmod
from hipport import translate
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.source import SourceFile

MINI_BLAS = """
family = "cublas"
title = "mini cuBLAS"

[names]
cublasDgemm = { hip = "hipblasDgemm", kind = "function" }
cublasFillMode_t = { hip = "hipblasFillMode_t", hipsolver = "hipsolverFillMode_t", kind = "type" }
CUBLAS_FILL_MODE_LOWER = { hip = "HIPBLAS_FILL_MODE_LOWER", hipsolver = "HIPSOLVER_FILL_MODE_LOWER", kind = "enum" }
CUBLAS_FILL_MODE_UPPER = { hip = "HIPBLAS_FILL_MODE_UPPER", hipsolver = "HIPSOLVER_FILL_MODE_UPPER", kind = "enum" }
CUBLAS_OP_N = { hip = "HIPBLAS_OP_N", hipsolver = "HIPSOLVER_OP_N", kind = "enum" }
CUBLAS_DIAG_UNIT = { hip = "HIPBLAS_DIAG_UNIT", kind = "enum" }
"""

MINI_SOLVER = """
family = "cusolver"
title = "mini cuSOLVER"

[names]
cusolverDnDpotrf = { hip = "hipsolverDnDpotrf", kind = "function" }
cusolverDnHandle_t = { hip = "hipsolverHandle_t", kind = "type" }
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> rulesmod.RuleSet:
    root = tmp_path_factory.mktemp("rules")
    (root / "api").mkdir()
    (root / "api" / "cublas.toml").write_text(MINI_BLAS)
    (root / "api" / "cusolver.toml").write_text(MINI_SOLVER)
    return rulesmod.load("hipblas", str(root))


def port(rules: rulesmod.RuleSet, body: str, rocm: str = "5.2") -> tuple[str, list[str]]:
    """The ported text and the HP003 messages."""
    src = SourceFile("t.cpp", body.encode())
    ctx = translate.run(src, Config(wave64=False, rocm=rocm), rules)
    kept, conflicts = resolve(ctx.edits)
    assert not conflicts
    return apply_edits(src.data, kept).decode(), [f.message for f in ctx.findings if f.rule == "HP003"]


SOLVER_ONLY = """\
#define UPLO CUBLAS_FILL_MODE_LOWER
int f(cusolverDnHandle_t h, double* a, int n) {
  const cublasFillMode_t uplo = UPLO;
  cublasFillMode_t other = CUBLAS_FILL_MODE_UPPER;
  return cusolverDnDpotrf(h, uplo, n, a, n) + cusolverDnDpotrf(h, other, n, a, n);
}
"""

MIXED = """\
int g(void* b, cusolverDnHandle_t h, double* a, int n, bool up) {
  cublasDgemm(b, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, a, a, n, a, n, a, a, n);
  cusolverDnDpotrf(h, (up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER), n, a, n);
  const cublasFillMode_t uplo = CUBLAS_FILL_MODE_LOWER;
  cublasDgemm(b, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, a, a, n, a, n, a, a, n);
  return cusolverDnDpotrf(h, uplo, n, a, n) + (int)CUBLAS_DIAG_UNIT;
}
"""


def test_a_cusolver_only_file_takes_hipsolver_spellings_everywhere(rules: rulesmod.RuleSet) -> None:
    out, hp003 = port(rules, SOLVER_ONLY)
    assert out == (SOLVER_ONLY.replace("CUBLAS_FILL_MODE_", "HIPSOLVER_FILL_MODE_")
                   .replace("cublasFillMode_t", "hipsolverFillMode_t")
                   .replace("cusolverDnHandle_t", "hipsolverHandle_t")
                   .replace("cusolverDnDpotrf", "hipsolverDnDpotrf"))
    assert "#define UPLO HIPSOLVER_FILL_MODE_LOWER" in out  # macro bodies too
    assert hp003 == []


def test_a_file_calling_both_spells_each_call_for_its_library(rules: rulesmod.RuleSet) -> None:
    out, hp003 = port(rules, MIXED)
    assert "hipblasDgemm(b, HIPBLAS_OP_N, HIPBLAS_OP_N," in out
    assert "hipsolverDnDpotrf(h, (up ? HIPSOLVER_FILL_MODE_UPPER : HIPSOLVER_FILL_MODE_LOWER)," in out
    assert "const hipblasFillMode_t uplo = HIPBLAS_FILL_MODE_LOWER;" in out  # shared: kept, and ...
    assert len(hp003) == 1 and hp003[0].startswith("`uplo` is a hipblasFillMode_t passed to hipsolverDnDpotrf")
    assert "static_cast<hipsolverFillMode_t>(uplo)" in hp003[0]  # ... reported where cuSOLVER gets it
    assert "(int)HIPBLAS_DIAG_UNIT" in out  # no hipSOLVER spelling in the table: the hipBLAS one


def test_a_parameter_of_a_cublas_enum_type_passed_to_cusolver_is_reported(rules: rulesmod.RuleSet) -> None:
    body = ("int h(void* b, cusolverDnHandle_t s, cublasFillMode_t fill, double* a, int n) {\n"
            "  cublasDgemm(b, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, a, a, n, a, n, a, a, n);\n"
            "  return cusolverDnDpotrf(s, fill, n, a, n);\n}\n")
    out, hp003 = port(rules, body)
    assert "hipblasFillMode_t fill" in out
    assert len(hp003) == 1 and hp003[0].startswith("`fill` is a hipblasFillMode_t passed to hipsolverDnDpotrf")


def test_from_rocm_6_the_hipblas_spelling_serves_both(rules: rulesmod.RuleSet) -> None:
    for body in (SOLVER_ONLY, MIXED):
        out, hp003 = port(rules, body, rocm="6.0")
        assert "HIPSOLVER_" not in out and "hipsolverFillMode_t" not in out
        assert hp003 == []


def test_a_cublas_only_file_is_untouched_by_the_solver_rule(rules: rulesmod.RuleSet) -> None:
    body = "void k(void* b, int n, double* a) {\n  cublasFillMode_t m = CUBLAS_FILL_MODE_LOWER;\n" \
           "  cublasDgemm(b, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, a, a, n, a, n, a, a, n);\n}\n"
    out, _ = port(rules, body)
    assert "hipblasFillMode_t m = HIPBLAS_FILL_MODE_LOWER;" in out and "HIPSOLVER" not in out


def test_porting_the_output_again_changes_nothing(rules: rulesmod.RuleSet) -> None:
    for body in (SOLVER_ONLY, MIXED):
        once, _ = port(rules, body)
        assert port(rules, once)[0] == once
