"""cuSPARSE -> rocSPARSE under --sparse rocsparse: calls whose rocSPARSE argument list differs
and that `order:N=...` in rules/api/rocsparse.toml rewrites because the values it writes keep
cuSPARSE's meaning (a policy, an untransposed operation, a nullptr optional info, the batch
count as the interleaved stride). The unsafe ones (an int* buffer size) stay renamed and noted."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport import rules as rulesmod
from hipport import translate
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.source import SourceFile
from tests.conftest import hipcc_compile, needs_hipcc, port_below

CONFIG = Config(wave64=False, sparse="rocsparse")
HEAD = b"#include <rocsparse/rocsparse.h>\n"


@pytest.fixture(scope="module")
def rules() -> rulesmod.RuleSet:
    return rulesmod.for_config(CONFIG)


def port(rules: rulesmod.RuleSet, body: bytes) -> tuple[bytes, list[str]]:
    """The ported body (below a rocSPARSE include, so none is added) and its finding rules."""
    return port_below(HEAD, body, CONFIG, rules)


REWRITTEN = [
    pytest.param(b"cusparseDcsrilu02(h, m, nz, d, v, r, c, info, pol, buf);",
                 b"rocsparse_dcsrilu0(h, m, nz, d, v, r, c, info, rocsparse_solve_policy_auto, buf);",
                 id="rocsparse-has-one-solve-policy"),
    pytest.param(b"cusparseScsrsv2_analysis(h, op, m, nz, d, v, r, c, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf);",
                 b"rocsparse_scsrsv_analysis(h, op, m, nz, d, v, r, c, info, rocsparse_analysis_policy_force, "
                 b"rocsparse_solve_policy_auto, buf);",
                 id="analysis-is-built-afresh-as-in-cusparse"),
    pytest.param(b"cusparseZcsrsm2_solve(h, 0, opA, opB, m, k, nz, &a, d, v, r, c, B, ldb, info, pol, buf);",
                 b"rocsparse_zcsrsm_solve(h, opA, opB, m, k, nz, &a, d, v, r, c, B, ldb, info, rocsparse_solve_policy_auto, buf);",
                 id="csrsm2-algo-rocsparse-lacks-is-dropped"),
    pytest.param(b"cusparseDgtsvInterleavedBatch(h, alg, m, dl, d, du, x, n, buf);",
                 b"rocsparse_dgtsv_interleaved_batch(h, alg, m, dl, d, du, x, n, n, buf);",
                 id="batch-count-is-the-interleaved-stride"),
    pytest.param(b"cusparseScsrgemm2(h, m, n, k, &a, dA, nA, vA, rA, cA, dB, nB, vB, rB, cB, &b, dD, nD, vD, rD, cD, "
                 b"dC, vC, rC, cC, info, buf);",
                 b"rocsparse_scsrgemm(h, rocsparse_operation_none, rocsparse_operation_none, m, n, k, &a, dA, nA, vA, rA, cA, "
                 b"dB, nB, vB, rB, cB, &b, dD, nD, vD, rD, cD, dC, vC, rC, cC, info, buf);",
                 id="csrgemm2-multiplies-untransposed"),
    pytest.param(b"cusparseDcsrmv(h, op, m, n, nz, &a, d, v, r, c, x, &b, y);",
                 b"rocsparse_dcsrmv(h, op, m, n, nz, &a, d, v, r, c, nullptr, x, &b, y);",
                 id="optional-csrmv-info-is-null"),
    pytest.param(b"cusparseXcsrgeam2Nnz(h, m, n, dA, nA, rA, cA, dB, nB, rB, cB, dC, rC, &nnz, ws);",
                 b"rocsparse_csrgeam_nnz(h, m, n, dA, nA, rA, cA, dB, nB, rB, cB, dC, rC, &nnz);",
                 id="workspace-rocsparse-lacks-is-dropped"),
    pytest.param(b"cusparseSpVV_bufferSize(h, op, x, y, &res, CUDA_R_32F, &size);",
                 b"rocsparse_spvv(h, op, x, y, &res, rocsparse_datatype_f32_r, &size, nullptr);",
                 id="size-query-is-a-null-buffer"),
]


@pytest.mark.parametrize("before, after", REWRITTEN)
def test_rewritten(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    out, found = port(rules, before)
    assert out == after
    assert "HP016" in found  # the types (info objects, complex pointers) still deserve a look


def test_int_buffer_size_is_left_to_a_person(rules: rulesmod.RuleSet) -> None:
    """cuSPARSE writes an int, rocSPARSE a size_t: a cast would store 8 bytes into 4."""
    out, found = port(rules, b"cusparseDcsrilu02_bufferSize(h, m, nz, d, v, r, c, info, &size);")
    assert out == b"rocsparse_dcsrilu0_buffer_size(h, m, nz, d, v, r, c, info, &size);"
    assert "HP016" in found


def test_other_argument_count_is_reported(rules: rulesmod.RuleSet) -> None:
    out, found = port(rules, b"cusparseDcsrilu02(h, m, nz, d, v, r, c, info, buf);")
    assert out == b"rocsparse_dcsrilu0(h, m, nz, d, v, r, c, info, buf);"
    assert "HP001" in found


# A CUDA program using one call of each rewritten kind; its port must compile against the
# installed rocSPARSE. (The interleaved solvers are left out: cuSPARSE's int algo does not
# convert to rocSPARSE's enum, which their note says to write by hand.)
PROGRAM = b"""#include <cusparse.h>

cusparseStatus_t calls(cusparseHandle_t h, cusparseMatDescr_t d, csrilu02Info_t ilu, csrsv2Info_t sv,
                       csrsm2Info_t sm, bsrsv2Info_t bsv, bsrsm2Info_t bsm, csrgemm2Info_t gemm,
                       cusparseSolvePolicy_t pol, cusparseOperation_t op, cusparseDirection_t dir,
                       double* v, int* r, int* c, double* x, double* y, void* buf, size_t* size, int* nnz,
                       cusparseSpMatDescr_t spA, cusparseDnMatDescr_t dnB, cusparseDnMatDescr_t dnC,
                       cusparseSpVecDescr_t spx, cusparseDnVecDescr_t dny, cudaDataType t) {
  const double one = 1.0;
  int m = 4, n = 4, k = 4, nz = 8, bd = 2;
  cusparseDcsrilu02(h, m, nz, d, v, r, c, ilu, pol, buf);
  cusparseDcsrilu02_analysis(h, m, nz, d, v, r, c, ilu, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf);
  cusparseDcsrsv2_analysis(h, op, m, nz, d, v, r, c, sv, pol, buf);
  cusparseDcsrsv2_solve(h, op, m, nz, &one, d, v, r, c, sv, x, y, pol, buf);
  cusparseDbsrsv2_analysis(h, dir, op, m, nz, d, v, r, c, bd, bsv, pol, buf);
  cusparseDbsrsm2_analysis(h, dir, op, op, m, n, nz, d, v, r, c, bd, bsm, pol, buf);
  cusparseDcsrsm2_bufferSizeExt(h, 0, op, op, m, n, nz, &one, d, v, r, c, x, m, sm, pol, size);
  cusparseDcsrsm2_analysis(h, 0, op, op, m, n, nz, &one, d, v, r, c, x, m, sm, pol, buf);
  cusparseDcsrgemm2_bufferSizeExt(h, m, n, k, &one, d, nz, r, c, d, nz, r, c, &one, d, nz, r, c, gemm, size);
  cusparseXcsrgemm2Nnz(h, m, n, k, d, nz, r, c, d, nz, r, c, d, nz, r, c, d, r, nnz, gemm, buf);
  cusparseDcsrgemm2(h, m, n, k, &one, d, nz, v, r, c, d, nz, v, r, c, &one, d, nz, v, r, c, d, v, r, c, gemm, buf);
  cusparseDcsrmm(h, op, m, n, k, nz, &one, d, v, r, c, x, m, &one, y, m);
  cusparseDcsrmv(h, op, m, n, nz, &one, d, v, r, c, x, &one, y);
  cusparseDcsrgeam2(h, m, n, &one, d, nz, v, r, c, &one, d, nz, v, r, c, d, v, r, c, buf);
  cusparseXcsrgeam2Nnz(h, m, n, d, nz, r, c, d, nz, r, c, d, r, nnz, buf);
  cusparseCsr2cscEx2_bufferSize(h, m, n, nz, v, r, c, v, r, c, t, CUSPARSE_ACTION_NUMERIC,
                                CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG_DEFAULT, size);
  cusparseSpMM_bufferSize(h, op, op, &one, spA, dnB, &one, dnC, t, CUSPARSE_SPMM_ALG_DEFAULT, size);
  cusparseSpVV_bufferSize(h, op, spx, dny, x, t, size);
  cusparseSparseToDense_bufferSize(h, spA, dnB, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, size);
  return cusparseDenseToSparse_bufferSize(h, dnB, spA, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, size);
}
"""


@pytest.mark.hipcc
@needs_hipcc
def test_rewritten_calls_compile(rules: rulesmod.RuleSet, tmp_path: Path) -> None:
    src = SourceFile("t.cu", PROGRAM)
    ctx = translate.run(src, CONFIG, rules)
    kept, conflicts = resolve(ctx.edits)
    assert not conflicts
    out = tmp_path / "t.hip.cpp"
    out.write_bytes(apply_edits(src.data, kept))
    if not Path("/usr/include/rocsparse/rocsparse.h").exists() \
            and not Path("/opt/rocm/include/rocsparse/rocsparse.h").exists():
        pytest.skip("rocSPARSE's headers are not installed")
    r = hipcc_compile(out, "gfx90a", ("-fsyntax-only",))
    assert r.returncode == 0, f"hipcc failed on {out}:\n{r.stderr[-4000:]}"
