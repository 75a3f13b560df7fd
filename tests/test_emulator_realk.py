"""Emulator tests for the constructs real ML/HPC kernels use (issue 16, point 2).

tests/emulator/realk.cpp is built at wave 32 and 64; each part's output is compared with a
model in Python: IEEE half rounding from `struct` ('e'), bfloat16 rounding from the float32
bits, float32 intermediate results as the C code computes them.
"""

from __future__ import annotations

import math
import struct
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hipport.validate import emulator as emu  # noqa: E402
from tests.conftest import hipport  # noqa: E402

pytestmark = [
    pytest.mark.emulator,
    pytest.mark.skipif(emu.compiler() is None, reason="g++ (the emulator's host compiler) is not installed"),
]

SRC = ROOT / "tests" / "emulator"
WAVES = (32, 64)
N = 128


@pytest.fixture(scope="module")
def bins(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    out = tmp_path_factory.mktemp("realk")
    with ThreadPoolExecutor(max_workers=2) as pool:
        built = list(pool.map(lambda w: (w, emu.build([SRC / "realk.cpp"], out / f"realk{w}", wave=w)), WAVES))
    return dict(built)


def rows(binary: Path, part: str, env: dict[str, str] | None = None) -> dict[str, list[int]]:
    proc = emu.run(binary, [part], timeout=60, env=env)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    found: dict[str, list[int]] = {}
    for line in proc.stdout.splitlines():
        key, *vals = line.split()
        found[key] = [int(v) for v in vals]
    return found


# ---------------------------------------------------------------- number models
def f32(v: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", v))[0])


def f32_bits(v: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", v))[0])


def h_bits(v: float) -> int:  # float -> half, round to nearest even
    if abs(v) >= 65520:  # rounds to infinity
        return 0xFC00 if v < 0 else 0x7C00
    return int(struct.unpack("<H", struct.pack("<e", v))[0])


def h_val(b: int) -> float:
    return float(struct.unpack("<e", struct.pack("<H", b))[0])


def H(v: float) -> float:  # noqa: N802 - value of the half nearest to v
    return h_val(h_bits(v))


def h_bits_rz(v: float) -> int:
    b = h_bits(v)
    if abs(h_val(b)) > abs(v):
        b -= 1  # one step toward zero (same sign, smaller magnitude)
    return b


def b_bits(v: float) -> int:  # float32 -> bfloat16, round to nearest even
    x = f32_bits(v)
    return ((x + 0x7FFF + ((x >> 16) & 1)) >> 16) & 0xFFFF


def b_val(b: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", b << 16))[0])


def B(v: float) -> float:  # noqa: N802
    return b_val(b_bits(v))


def inputs(t: int) -> tuple[float, float]:
    return (t * t * 37 - 5000) / 16384, (t - 50) / 8


def i32(u: int) -> int:
    return u - (1 << 32) if u >= 1 << 31 else u


# ---------------------------------------------------------------- tests
@pytest.mark.parametrize("wave", WAVES)
def test_half_and_half2_arithmetic_and_conversions(bins, wave):
    got = rows(bins[wave], "half")
    c03 = H(f32(0.3))
    for t in range(N):
        x, y = inputs(t)
        hx, hy = H(x), H(y)
        acc = H(f32(H(f32(hx * hy)) + hx))
        acc = H(f32(acc - hy))
        ax, ay, bx, by = hx, hy, hy, H(0.5)
        m = (H(f32(ax * ax)), H(f32(ay * ay)))
        fma2 = (H(f32(ax * bx + m[0])), H(f32(ay * by + m[1])))
        sub = (H(f32(ax - bx)), H(f32(ay - by)))
        c = (H(f32(fma2[0] + sub[0])), H(f32(fma2[1] + sub[1])))
        expect = [
            h_bits(x),
            h_bits(f32(hx + hy)),
            h_bits(f32(hx * hy)),
            h_bits(f32(hx * hy + c03)),
            h_bits(acc),
            h_bits_rz(x),
            h_bits(c[0]),
            h_bits(c[1]),
            int(hx * 1024),
            int(max(hx, hy)) * 16,
            h_bits(inputs(t ^ 1)[1]),  # __shfl_xor(half2, 1): the neighbour's high half
            1 + 2 * (hx < hy),
            round(H(f32(hy * 3))),  # __half2int_rn: nearest, ties to even (as Python's round)
            h_bits(32.0), h_bits(16.0), h_bits(8.0),  # atomicAdd by the 32 threads of a block
        ]
        assert [got[f"half:{r}"][t] for r in range(len(expect))] == expect, f"thread {t}"


@pytest.mark.parametrize("wave", WAVES)
def test_bfloat16_arithmetic_and_conversions(bins, wave):
    got = rows(bins[wave], "bf16")
    c03 = B(f32(0.3))
    for t in range(N):
        x, y = inputs(t)
        bx, by = B(x), B(y)
        acc = B(f32(B(f32(bx * by)) + bx))
        acc = B(f32(acc - by))
        m = (B(f32(bx * bx)), B(f32(by * by)))
        c = (B(f32(bx * by + m[0])), B(f32(by * bx + m[1])))
        src = t + 2 if t % 16 + 2 < 16 else t  # __shfl_down(v, 2, 16)
        expect = [
            b_bits(x),
            b_bits(f32(bx + by)),
            b_bits(f32(bx * by)),
            b_bits(f32(bx * by + c03)),
            b_bits(acc),
            f32_bits(x) >> 16,
            b_bits(c[0]),
            b_bits(c[1]),
            math.trunc(by * 8),
            math.trunc(bx * 4),
            b_bits(inputs(src)[0]),
            b_bits(f32(bx + 1.0)),
            b_bits(128.0), b_bits(64.0),  # atomicAdd on a __hip_bfloat162 by 128 threads
        ]
        assert [got[f"bf16:{r}"][t] for r in range(len(expect))] == expect, f"thread {t}"


@pytest.mark.parametrize("wave", WAVES)
def test_cache_hint_loads_stores_on_vector_types(bins, wave):
    got = rows(bins[wave], "hints")
    a = [i * 3 - 7 for i in range(4 * N)]
    assert got["f4"] == [a[4 * (i // 4) + 3 - i % 4] for i in range(4 * N)]
    bits = [f32_bits(float(v)) for v in a]
    assert got["hints:0"] == [i32(bits[4 * t] ^ bits[4 * t + 3]) for t in range(N)]
    assert got["hints:1"] == [a[2 * t] + a[2 * t + 1] for t in range(N)]
    assert got["hints:2"] == [3 * a[t] for t in range(N)]


@pytest.mark.parametrize("wave", WAVES)
def test_launch_with_null_nullptr_integer_dims_and_type_named_parameters(bins, wave):
    got = rows(bins[wave], "null")
    assert got["null:0"] == [1 + 2 + 4 * (t * 3 + 5) for t in range(N)]


@pytest.mark.parametrize("wave", WAVES)
def test_template_kernels_with_constexpr_launch_parameters(bins, wave):
    got = rows(bins[wave], "tmpl")
    assert got["tmpl:0"] == [(31 - t % 32) * 3 + 32 * (t // 32) for t in range(N)]
    assert got["tmpl:1"] == [(63 - t % 64) * 5 + 64 * (t // 64) for t in range(N)]


@pytest.mark.parametrize("wave", WAVES)
def test_coalesced_group_shuffles_and_reduction(bins, wave):
    got = rows(bins[wave], "coalesced")
    d, u, s = [-7] * N, [-7] * N, [-7] * N
    for base in range(0, N, wave):
        members = [t for t in range(base, base + wave) if (t - base) % 3 != 0]
        for r, t in enumerate(members):
            d[t] = members[r + 2] if r + 2 < len(members) else t
            u[t] = members[r - 1] if r >= 1 else t
            s[t] = sum(members)
    assert got["coalesced:0"] == d
    assert got["coalesced:1"] == u
    assert got["coalesced:2"] == s


def marker_line(marker: str) -> int:
    for i, line in enumerate((SRC / "realk.cpp").read_text().splitlines(), 1):
        if marker in line:
            return i
    raise AssertionError(marker)


@pytest.mark.parametrize("wave", WAVES)
def test_shuffle_from_exited_or_masked_out_lane_is_undefined_not_a_fault(bins, wave):
    got = rows(bins[wave], "exited")  # correct CUDA: the undefined results are discarded
    n = 40
    nb = [t * 10 + (t + 1 if t % wave + 1 < wave else t) * 10 for t in range(n - 1)]
    assert got["exited:0"] == nb + [0] * (N - n + 1)
    assert got["exited:1"] == [t + 1 for t in range(19)] + [0] * (N - 19)
    # HIPEMU_UNDEFINED=warn notes each site once; =error stops as a checked fault
    proc = emu.run(bins[wave], ["exited"], timeout=60, env={"HIPEMU_UNDEFINED": "warn"})
    assert proc.returncode == 0
    notes = [ln for ln in proc.stderr.splitlines() if "hipemu: note:" in ln]
    assert any("__shfl_down_sync at " in ln and f"realk.cpp:{marker_line('LINE_MASKED')}:" in ln
               and "lane 19 reads lane 20" in ln and "undefined" in ln for ln in notes), proc.stderr
    # the neighbour read: thread 39 (lane 39 at wave 64, lane 7 at wave 32) reads thread 40,
    # which returned (threads 40..63 of the 64-thread block exit first)
    assert any(f"realk.cpp:{marker_line('LINE_NEIGHBOUR')}:" in ln and "has exited" in ln
               for ln in notes), proc.stderr
    assert len(notes) == 2
    proc = emu.run(bins[wave], ["exited"], timeout=60, env={"HIPEMU_UNDEFINED": "error"})
    assert proc.returncode == emu.EXIT_CODE and "which is not active at this call" in proc.stderr
    proc = emu.run(bins[wave], ["exited"], timeout=60, env={"HIPEMU_UNDEFINED": "bogus"})
    assert proc.returncode == emu.EXIT_CODE and "HIPEMU_UNDEFINED must be quiet, warn or error" in proc.stderr


UNSUPPORTED = b"""#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void k(float* out, hipTextureObject_t tex) {
  out[threadIdx.x] = tex1Dfetch<float>(tex, threadIdx.x) + tex1Dfetch<float>(tex, 0);
}

__global__ void k2(int* out) { out[threadIdx.x] = __builtin_amdgcn_readfirstlane(threadIdx.x); }

int main() { printf("never\\n"); return 0; }
"""


@pytest.mark.parametrize("wave", WAVES)
def test_unsupported_construct_is_one_error_naming_it_and_its_line(tmp_path, wave):
    f = tmp_path / "tex.hip"
    f.write_bytes(UNSUPPORTED)
    p = hipport("emulate", f, "--wave", str(wave), cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == b""
    err = p.stderr.decode()
    errors = [ln for ln in err.splitlines() if ": error: " in ln and not ln.startswith("hipport:")]
    assert len(errors) == 3, err  # no errors that follow from these, no repeats of a name
    for (line, name), got in zip([(4, "hipTextureObject_t"), (5, "tex1Dfetch"),
                                  (8, "__builtin_amdgcn_readfirstlane")], errors, strict=True):
        assert f"tex.hip:{line}:" in got and f"unsupported construct: '{name}'" in got, err
    assert "Traceback" not in err and f"could not build the program for the wave emulator (wave {wave})" in err
