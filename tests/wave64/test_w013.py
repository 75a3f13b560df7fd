"""W013 cub-warp-default-width: CUB / hipCUB warp primitives with the default logical width."""

import pytest

from hipport.wave64.emit import PRELUDE
from tests.wave64.helpers import HEADER, assert_fix, assert_noop

RULE = "W013"
CUB = HEADER + "#include <hipcub/hipcub.hpp>\n"


def k(decl: str) -> str:
    return (CUB + "__global__ void k(const float* in, float* out) {\n"
            f"  {decl}\n  __shared__ typename WR::TempStorage tmp[8];\n"
            "  out[threadIdx.x] = WR(tmp[threadIdx.x / 32]).Sum(in[threadIdx.x]);\n}\n")


NOOP = [
    pytest.param(k("typedef hipcub::WarpReduce<float, 16> WR;"), id="explicit-width"),
    pytest.param(k("typedef hipcub::BlockReduce<float, 256> WR;"), id="block-primitive"),
]

FIX = [
    pytest.param(k("typedef hipcub::WarpReduce<float> WR;"), k("typedef hipcub::WarpReduce<float, 32> WR;"),
                 "logical32", id="logical32-pins-32"),
    pytest.param(k("using WR = cub::WarpReduce<float>;"), k("using WR = cub::WarpReduce<float, 32>;"),
                 "logical32", id="cub-before-the-namespace-rename"),
    pytest.param(k("typedef hipcub::WarpReduce<float> WR;"),
                 k("typedef hipcub::WarpReduce<float, HIPPORT_WAVE_SIZE> WR;").replace(
                     "hipcub.hpp>\n", "hipcub.hpp>\n" + PRELUDE), "native", id="native-pins-the-wave"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)
