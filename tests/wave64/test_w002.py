"""W002 ballot-stored-32bit: wave masks kept in 32-bit types."""

import pytest

from hipport import portable
from tests.wave64.helpers import HEADER, assert_fix, assert_noop, findings, kernel, port

RULE = "W002"

NOOP = [
    pytest.param(kernel("  unsigned long long m = __ballot(in[0] > 0);\n  out[0] = __popcll(m);\n"),
                 id="64-bit-storage"),
    pytest.param(kernel("  auto m = __ballot(in[0] > 0);\n  out[0] = __popcll(m);\n"), id="auto-follows-the-ballot"),
    pytest.param(kernel("  int n = __popcll(__ballot(in[0] > 0));\n  out[0] = n;\n"), id="the-count-not-the-mask"),
    pytest.param(kernel("  unsigned x = threadIdx.x & 0xffffffffu;\n  out[0] = x + __lane_id();\n"),
                 id="32-bit-value-that-is-no-mask"),
]

FIX = [
    pytest.param(kernel("  const int lane = threadIdx.x & 31;\n  unsigned m = __ballot(in[0] > 0);\n"
                        "  out[0] = __popc(m) + lane;\n"),
                 kernel("  const int lane = threadIdx.x & 31;\n"
                        "  unsigned m = (unsigned)(__ballot(in[0] > 0) >> (__lane_id() & 32));\n"
                        "  out[0] = __popc(m) + lane;\n"),
                 "logical32", id="logical32-takes-the-callers-half"),
    pytest.param(kernel("  unsigned m = __ballot(in[0] > 0);\n  out[0] = __popc(m);\n"),
                 kernel("  unsigned long long m = __ballot(in[0] > 0);\n  out[0] = __popc(m);\n"),
                 "native", id="native-widens-the-variable"),
    pytest.param(HEADER + "__device__ unsigned bits(bool p) { return __ballot(p); }\n",
                 HEADER + "__device__ unsigned long long bits(bool p) { return __ballot(p); }\n",
                 "native", id="native-widens-the-return-type"),
    pytest.param(kernel("  out[0] = (unsigned)__ballot(in[0] > 0);\n"),
                 kernel("  out[0] = (unsigned long long)__ballot(in[0] > 0);\n"), "native",
                 id="native-widens-a-cast"),
    pytest.param(kernel("  unsigned a = __activemask();\n  out[0] = a;\n"),
                 kernel("  unsigned long long a = __activemask();\n  out[0] = a;\n"), "native",
                 id="activemask-result"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_a_32_bit_variable_fed_by_another_is_kept_under_logical32() -> None:
    code = kernel("  const int lane = threadIdx.x % 32;\n  unsigned m = __ballot(in[0] > 0);\n"
                  "  unsigned n = m & 0xff;\n  out[lane] = n;\n")
    on_n = [f for f in findings(code, "logical32", rule=RULE) if f.span.line == 5]
    assert on_n and on_n[0].fix is None and on_n[0].severity.value == "info"


PARAM = (HEADER + "__device__ int count(unsigned m) { return __popc(m); }\n"
         "__global__ void k(const int* in, int* out) {\n"
         "  const int lane = threadIdx.x & 31;\n  out[lane] = count(__ballot(in[0] > 0));\n}\n")


def test_a_mask_passed_to_a_32_bit_parameter() -> None:
    assert port(PARAM, "logical32", rule=RULE).replace(portable.NVIDIA_SHIMS, "") == PARAM.replace(
        "count(__ballot(in[0] > 0))", "count((unsigned)(__ballot(in[0] > 0) >> (__lane_id() & 32)))")
    assert port(PARAM, "native", rule=RULE) == PARAM.replace("int count(unsigned m)",
                                                             "int count(unsigned long long m)")
