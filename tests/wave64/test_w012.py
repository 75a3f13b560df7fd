"""W012 inline-ptx-warp: inline PTX in device code."""

import pytest

from tests.wave64.helpers import HEADER, assert_fix, assert_noop, findings

RULE = "W012"


def dev(body: str, ret: str = "unsigned") -> str:
    return f"{HEADER}__device__ {ret} f() {{\n{body}}}\n"


NOOP = [
    pytest.param(dev('  asm volatile("s_nop 0");\n  return 0;\n'), id="amdgcn-assembly"),
    pytest.param(dev('  const char* s = "mov.u32 %0, %%laneid;";\n  return s[0];\n'), id="ptx-in-a-string"),
    pytest.param(HEADER + 'void host() { asm volatile("nop"); }\n', id="host-assembly"),
]

WARP32_CALLER = "__global__ void k(unsigned* o) { o[threadIdx.x >> 5] = f(); }\n"
LANE = '  unsigned r;\n  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));\n  return r;\n'
MASK = '  unsigned m;\n  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));\n  return m;\n'
FIX = [
    pytest.param(dev(LANE), dev("  unsigned r;\n  r = __lane_id();\n  return r;\n"), "native",
                 id="laneid-is-the-hardware-lane"),
    pytest.param(dev(LANE) + WARP32_CALLER, dev("  unsigned r;\n  r = (__lane_id() & 31);\n  return r;\n") + WARP32_CALLER,
                 "logical32", id="laneid-is-the-logical-lane-in-32-lane-code"),
    pytest.param(dev(MASK), dev("  unsigned long long m;\n  m = ((1ull << __lane_id()) - 1);\n  return m;\n"),
                 "native", id="lanemask-lt-from-the-lane"),
    pytest.param(dev('  unsigned a;\n  asm volatile("activemask.b32 %0;" : "=r"(a));\n  return a;\n'),
                 dev("  unsigned long long a;\n  a = __ballot(1);\n  return a;\n"), "native",
                 id="activemask-is-the-ballot-of-true"),
]


@pytest.mark.parametrize("code", NOOP)
def test_noop(code: str) -> None:
    assert_noop(code, RULE)


@pytest.mark.parametrize(("before", "after", "strategy"), FIX)
def test_fix(before: str, after: str, strategy: str) -> None:
    assert_fix(before, after, RULE, strategy)


def test_other_warp_ptx_is_reported_without_a_fix() -> None:
    fs = findings(dev('  int r;\n  asm("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, -1;" : "=r"(r) : "r"(3));\n  return r;\n',
                      "int"), rule=RULE)
    assert len(fs) == 1 and fs[0].fix is None and fs[0].severity.value == "error"


@pytest.mark.parametrize("ptx", ["bfe.s32 %0, %1, 4, 8;", "cvt.rn.f16.f32 %0, %1;", "ld.global.cs.u32 %0, [%1];"])
def test_ptx_without_lane_semantics_is_not_a_wave_hazard(ptx: str) -> None:
    code = dev(f'  int r;\n  asm("{ptx}" : "=r"(r) : "r"(3));\n  return r;\n', "int")
    assert not findings(code, rule=RULE)
