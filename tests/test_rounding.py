"""The directed-rounding arithmetic hipport writes for HIP (translate/rounding.py) gives the
results the FPU gives in that rounding mode: the block is compiled for the host (with
`__device__` empty) and checked against `fesetround` arithmetic on random operands, zeros,
powers of two, products and quotients near the subnormal range and sums near overflow."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.translate.rounding import BLOCK, NAMES

CXX = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")

CHECK = r"""
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#define __device__
#include "block.h"
#pragma STDC FENV_ACCESS ON
template <class T> static bool same(T x, T y) { return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0; }
template <class T> static T reference(int op, T a, T b, int mode) {
  volatile T va = a, vb = b; T r;
  std::fesetround(mode);
  switch (op) { case 0: r = va + vb; break; case 1: r = va - vb; break; case 2: r = va * vb; break;
                case 3: r = va / vb; break; case 4: r = T(1) / va; break; default: r = std::sqrt(va); }
  std::fesetround(FE_TONEAREST);
  return r;
}
template <class T> static T pick(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> kind(0, 9), ex(-64, 64);
  std::uniform_real_distribution<double> u(-1, 1);
  int k = kind(rng);
  if (k == 0) return T(0);
  if (k == 1) return std::ldexp(T(1), ex(rng));
  if (k == 2) return T(std::ldexp(u(rng), std::numeric_limits<T>::max_exponent - 1));
  return T(std::ldexp(u(rng), ex(rng)));
}
#define CHECK(t, T) { \
  T (*two[4][3])(T, T) = {{hipport_##t##add_rd, hipport_##t##add_ru, hipport_##t##add_rz}, \
    {hipport_##t##sub_rd, hipport_##t##sub_ru, hipport_##t##sub_rz}, {hipport_##t##mul_rd, hipport_##t##mul_ru, hipport_##t##mul_rz}, \
    {hipport_##t##div_rd, hipport_##t##div_ru, hipport_##t##div_rz}}; \
  T (*one[2][3])(T) = {{hipport_##t##rcp_rd, hipport_##t##rcp_ru, hipport_##t##rcp_rz}, \
    {hipport_##t##sqrt_rd, hipport_##t##sqrt_ru, hipport_##t##sqrt_rz}}; \
  for (int i = 0; i < n; i++) { \
    T a = pick<T>(rng), b = pick<T>(rng); \
    for (int op = 0; op < 6; op++) for (int d = 0; d < 3; d++) { \
      T x = op == 5 ? std::fabs(a) : a; \
      T want = reference<T>(op, x, b, modes[d]), got = op < 4 ? two[op][d](x, b) : one[op - 4][d](x); \
      if (!same(want, got) && bad++ < 5) std::printf(#t " op %d dir %d: %a %a: want %a got %a\n", op, d, (double)x, (double)b, (double)want, (double)got); \
    } } }
int main() {
  std::mt19937_64 rng(20261204);
  const int modes[3] = {FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  int n = 50000, bad = 0;
  CHECK(f, float)
  CHECK(d, double)
  std::printf("%d mismatches\n", bad);
  return bad != 0;
}
"""


def test_every_cuda_name_has_its_helper() -> None:
    for name in NAMES:
        assert f" hipport{name[1:]}(" in BLOCK


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_directed_rounding_matches_the_fpu(tmp_path: Path) -> None:
    (tmp_path / "block.h").write_text(BLOCK)
    (tmp_path / "check.cpp").write_text(CHECK)
    exe = tmp_path / "check"
    # -frounding-math: the reference's arithmetic must happen at run time, in the mode it set
    subprocess.run([str(CXX), "-std=c++17", "-O2", "-frounding-math", "-o", str(exe), "check.cpp"],
                   cwd=tmp_path, check=True, capture_output=True, text=True, timeout=300)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout
    assert run.stdout.strip().endswith("0 mismatches")
