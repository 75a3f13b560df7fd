"""Tests for hipport's CPU wave emulator (hipport/validate/emulator*).

Each program in tests/emulator/ is compiled once per wave size (in parallel,
module fixture) and its per-lane output is compared with a Python model
written from AMD's semantics (HIP's amd_warp_functions.h formulas).
"""

from __future__ import annotations

import re
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from any directory without installing hipport
    sys.path.insert(0, str(ROOT))

from hipport.validate import emulator as emu  # noqa: E402

pytestmark = [
    pytest.mark.emulator,
    pytest.mark.skipif(emu.compiler() is None, reason="g++ (the emulator's host compiler) is not installed"),
]

SRC = ROOT / "tests" / "emulator"
WAVES = (32, 64)
N = 128  # threads per block in the value tests
MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------- fixtures
# (name, source, wave, check, expect_build_failure)
BUILDS = [
    *[
        (f"{p}{w}", p, w, False, False)
        for p in ("intrinsics", "runtime", "coop", "errors", "warp32_reduce")
        for w in WAVES
    ],
    ("intrinsics64_uc", "intrinsics", 64, False, False),
    ("oob64", "oob", 64, True, False),
    ("mask32_32", "mask32", 32, False, False),
    ("mask32_64", "mask32", 64, False, True),
]


@pytest.fixture(scope="module")
def bins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | emu.EmulatorBuildError]:
    out = tmp_path_factory.mktemp("emu")

    def one(spec: tuple[str, str, int, bool, bool]) -> tuple[str, Path | emu.EmulatorBuildError]:
        name, prog, wave, check, _ = spec
        defines = ["HIPEMU_USE_UCONTEXT"] if name.endswith("_uc") else []
        try:
            return name, emu.build([SRC / f"{prog}.cpp"], out / name, wave=wave, check=check, defines=defines)
        except emu.EmulatorBuildError as e:
            return name, e

    with ThreadPoolExecutor(max_workers=2) as pool:
        result = dict(pool.map(one, BUILDS))
    for name, _, _, _, fails in BUILDS:
        if not fails and isinstance(result[name], emu.EmulatorBuildError):
            pytest.fail(f"{name} did not build:\n{result[name].stderr}")
    return result


def run_ok(binary: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = emu.run(binary, list(args), timeout=60, env=env)
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\nstdout:{proc.stdout[-2000:]}\nstderr:{proc.stderr[-4000:]}"
    )
    return proc.stdout


def parse(out: str) -> dict[str, list[int]]:
    rows: dict[str, list[int]] = {}
    for line in out.splitlines():
        key, *vals = line.split()
        rows[key] = [int(v) for v in vals]
    return rows


def signed(x: int) -> int:
    x &= MASK64
    return x - (1 << 64) if x >= 1 << 63 else x


def bits(lanes: list[int] | range) -> int:
    return signed(sum(1 << ln for ln in lanes))


def marker_line(source: str, marker: str) -> int:
    for i, line in enumerate((SRC / source).read_text().splitlines(), 1):
        if marker in line:
            return i
    raise AssertionError(marker)


# ---------------------------------------------------------------- AMD model
def shfl_src(op: str, lane: int, p: int, width: int, wave: int) -> int:
    """Source lane, as HIP's amd_warp_functions.h computes it (ds_bpermute wraps mod wave)."""
    if op == "shfl":
        idx = (p & (width - 1)) + (lane & ~(width - 1))
    elif op == "up":
        idx = lane - p
        if idx < (lane & ~(width - 1)):
            idx = lane
    elif op == "down":
        idx = lane + p
        if (lane & (width - 1)) + p >= width:
            idx = lane
    elif op == "xor":
        idx = lane ^ p
        if idx >= ((lane + width) & ~(width - 1)):
            idx = lane
    else:
        raise ValueError(op)
    return idx & (wave - 1)


@pytest.mark.parametrize("wave", WAVES)
def test_shuffles_all_ops_widths_params(bins, wave):
    rows = parse(run_ok(bins[f"intrinsics{wave}"]))
    checked = 0
    for key, vals in rows.items():
        m = re.fullmatch(r"(shfl|up|down|xor)(_sync)?:(\d+):(\d+)", key)
        if not m:
            continue
        op, p, width = m.group(1), int(m.group(3)), int(m.group(4))
        expect = []
        for t in range(N):
            lane, base = t % wave, t - t % wave
            param = (lane * 7 + p) % 97 if op == "shfl" else p
            expect.append((base + shfl_src(op, lane, param, width, wave)) * 3 + 1)
        assert vals == expect, key
        checked += 1
    assert checked == 2 * 4 * 7 * 9


@pytest.mark.parametrize("wave", WAVES)
def test_shuffle_hand_computed_lanes(bins, wave):
    rows = parse(run_ok(bins[f"intrinsics{wave}"]))
    v = lambda t: t * 3 + 1  # noqa: E731
    # xor 32 crosses into the other half only on a 64-lane wave
    assert rows["xor:32:64"][5] == (v(37) if wave == 64 else v(5))
    # down 16 within width 32: lane 20 keeps its own value at both sizes
    assert rows["down:16:32"][20] == v(20)
    assert rows["down:16:32"][3] == v(19)
    # down 32 with the full wave: only exists on wave64
    assert rows["down:32:64"][0] == (v(32) if wave == 64 else v(0))
    # up 1 at a segment start returns the lane's own value
    assert rows["up:1:16"][16] == v(16)
    assert rows["up:1:16"][17] == v(16)
    # __shfl(v, 0 + 7*lane % 97, 8): lane 9 -> segment 8, src (63 & 7) = 7 -> lane 15
    assert rows["shfl:0:8"][9] == v(15)


@pytest.mark.parametrize("wave", WAVES)
def test_shuffle_value_types(bins, wave):
    rows = parse(run_ok(bins[f"intrinsics{wave}"]))
    lane = lambda t: t % wave  # noqa: E731
    base = lambda t: t - t % wave  # noqa: E731
    down2 = lambda t: t + 2 if lane(t) + 2 < wave else t  # noqa: E731
    up3 = lambda t: t - 3 if lane(t) >= 3 else t  # noqa: E731
    assert rows["types:0"] == [0x80000000 + (t ^ 1) for t in range(N)]  # unsigned
    assert rows["types:1"] == [2 * down2(t) + 1 for t in range(N)]  # float
    assert rows["types:2"] == [up3(t) for t in range(N)]  # double
    assert rows["types:3"] == [(base(t) + 5) << 40 for t in range(N)]  # long long
    assert rows["types:4"] == [t ^ 4 for t in range(N)]  # unsigned long long, width 8
    assert rows["types:5"] == [t ^ 2 for t in range(N)]  # __half
    assert rows["types:6"] == [2 * (base(t) + (lane(t) & ~15) + 3) for t in range(N)]  # long
    assert rows["types:7"] == [base(t) + (lane(t) & ~3) + 2 for t in range(N)]  # short


@pytest.mark.parametrize("wave", WAVES)
def test_votes_masks_and_block_reductions(bins, wave):
    rows = parse(run_ok(bins[f"intrinsics{wave}"]))
    full = bits(range(wave))

    def per_lane(f):
        out = []
        for t in range(N):
            lane, wb = t % wave, t - t % wave
            out.append(f(t, lane, wb, range(wb, wb + wave)))
        return out

    pred = lambda t: t % 3 == 0 or t == 5  # noqa: E731
    ballot = per_lane(lambda t, ln, wb, w: bits([x - wb for x in w if pred(x)]))
    exp = {
        0: ballot,
        1: per_lane(lambda t, ln, wb, w: int(7 in w)),
        2: [1] * N,
        3: per_lane(lambda t, ln, wb, w: int(3 not in w)),
        4: [full] * N,
        5: per_lane(lambda t, ln, wb, w: ln),
        6: per_lane(lambda t, ln, wb, w: bits(range(1, wave, 2)) if t & 1 else -1),
        7: per_lane(lambda t, ln, wb, w: bits([x - wb for x in w if x % 8 == 0]) if t % 4 == 0 else -1),
        8: ballot,
        9: per_lane(lambda t, ln, wb, w: int(9 in w)),
        10: [1] * N,
        11: per_lane(lambda t, ln, wb, w: 0xAAAA if ln < 16 else -1),
        12: per_lane(lambda t, ln, wb, w: bits([x - wb for x in w if x % 5 == t % 5])),
        13: [full] * N,
        14: [1] * N,
        15: [0] * N,
        16: [0] * N,
        17: per_lane(lambda t, ln, wb, w: sum(w)),
        18: per_lane(lambda t, ln, wb, w: max(x * 7 % 11 for x in w)),
        19: [sum(1 for t in range(N) if t % 3 == 0)] * N,
        20: [1] * N,
        21: [0] * N,
        22: [1] * N,
        23: [0] * N,
        24: per_lane(lambda t, ln, wb, w: (1 << ln) - 1),
        # if/else with shuffles in both branches (exec-mask semantics)
        25: per_lane(
            lambda t, ln, wb, w: (wb + (ln ^ 2)) * 10 if ln % 2 == 0 else (t + 2 if ln + 2 < wave else t) * 10
        ),
        26: per_lane(lambda t, ln, wb, w: wb),
        # lanes < 16 double their neighbour's value, then a full-wave sum
        27: per_lane(lambda t, ln, wb, w: sum(w) + sum(range(wb, wb + 16))),
        28: ballot,
        29: per_lane(lambda t, ln, wb, w: signed(full & ~((1 << ln) - 1))),
        30: per_lane(
            lambda t, ln, wb, w: bits([x - wb for x in w if x & 1 and x % 5 == t % 5]) if t & 1 else -1
        ),
        31: [signed(full + 1)] * N,
        32: per_lane(lambda t, ln, wb, w: 10 + int(3 not in w)),
        33: per_lane(lambda t, ln, wb, w: wb + (ln + 1) % wave),
        34: per_lane(lambda t, ln, wb, w: ln),
    }
    for k, e in exp.items():
        assert rows[f"votes:{k}"] == e, f"votes:{k}"


@pytest.mark.parametrize("wave", WAVES)
def test_macros_linearisation_and_bit_intrinsics(bins, wave):
    out = run_ok(bins[f"intrinsics{wave}"])
    rows = parse("\n".join(ln for ln in out.splitlines() if not ln.startswith("bits")))
    assert rows["macros"] == [wave, wave, wave, 9 if wave == 64 else 10, 0, 1, wave, 1]
    # block (8,4,4): linear id x-fastest; lane 0 of each wave holds lin = wave*W
    assert rows["linear"] == [(i - i % wave) * 1000 + i % wave for i in range(N)]

    def ffs(x: int, n: int) -> int:
        x &= (1 << n) - 1
        return (x & -x).bit_length()

    def brev(x: int, n: int) -> int:
        return int(format(x & ((1 << n) - 1), f"0{n}b")[::-1], 2)

    lines = [ln.split()[1:] for ln in out.splitlines() if ln.startswith("bits")]
    assert len(lines) == 8
    for vals in lines:
        x = int(vals[0])
        lo = x & 0xFFFFFFFF
        assert [int(v) for v in vals[1:]] == [
            bin(lo).count("1"),
            bin(x).count("1"),
            ffs(x, 32),
            ffs(x, 64),
            32 - lo.bit_length(),
            64 - x.bit_length(),
            brev(x, 32),
            brev(x, 64),
        ], x


def test_ucontext_fallback_matches(bins):
    assert run_ok(bins["intrinsics64_uc"]) == run_ok(bins["intrinsics64"])


# ---------------------------------------------------------------- runtime
@pytest.mark.parametrize("wave", WAVES)
def test_runtime_api_memory_streams_atomics_math(bins, wave):
    out = run_ok(bins[f"runtime{wave}"])
    lines = {ln.split()[0]: ln for ln in out.splitlines() if not ln.startswith("P ")}
    assert "FAIL" not in out
    assert lines["device"] == f"device 1 0 {wave} {wave} 1024 1"
    assert lines["name"] == "name hipport wave emulator"
    assert lines["occupancy"] == "occupancy 192 1 1024"
    # dynamic shared memory: per-block reversal, scaled by a __device__ symbol
    dyn = [float(v) for v in lines["dyn"].split()[1:]]
    assert dyn == [2.0 * (b * 96 + 95 - t) for b in range(2) for t in range(96)]
    # namespace-scope extern __shared__ and HIP_DYNAMIC_SHARED share one buffer
    assert lines["dyn2"].split()[1:] == [str(1000000 + ((t + 1) % 64) ** 2) for t in range(64)]
    # constant memory through HIP_SYMBOL and CUDA-style symbol + offset
    tab = [i * i for i in range(16)]
    tab[3] = 7
    assert lines["const"] == "const " + " ".join(str(2 * v) for v in tab) + " | 7 225 1 64"
    assert lines["symerr"] == "symerr hipErrorInvalidValue"
    assert lines["stream"] == "stream 2 14 0 1"
    assert lines["destroyed"] == "destroyed hipErrorInvalidHandle hipErrorInvalidHandle"
    assert lines["launcherr"] == (
        "launcherr hipErrorInvalidConfiguration hipErrorInvalidConfiguration hipSuccess | invalid configuration argument"
    )
    assert lines["memcpykind"] == "memcpykind hipErrorInvalidMemcpyDirection"
    threads = [t for _ in range(2) for t in range(100)]
    i0 = sum(threads)
    xor = 0
    for t in threads:
        xor ^= t
    assert lines["atomics"] == (
        f"atomics {i0} {1000 - 400} {99 * 3 - 50} {100 - 99} 42 1037 -256 65535 {xor}"
        f" | 600 {200 % 10} 0 99 | {i0 << 33} 5 | 100 99 50"
    )
    assert lines["mathf"].split()[1:] == "4 1 2.71828 3.5 0.5 7 6 -1 2.5 0 0.25 1 7 0.75 1024 0".split()
    assert lines["template"] == "template 21 21"
    # hout[40] still holds the earlier k_dyn result (n = 40 threads wrote 0..39)
    assert lines["deduced"] == f"deduced 1 {2 * 39 + 1} {2.0 * (95 - 40):g}"
    assert lines["mathi"].split()[1:] == "-4 3 2 4 -2 -2 3 -3 1065353216 5 15 2".split()
    assert out.rstrip().endswith("done")


@pytest.mark.parametrize("wave", WAVES)
def test_printf_order_is_deterministic(bins, wave):
    out = run_ok(bins[f"runtime{wave}"])
    got = [ln for ln in out.splitlines() if ln.startswith("P ")]
    expect = []
    for b in range(2):
        expect += [f"P b{b} t{t} phase0" for t in range(70)]
        expect += [f"P b{b} t{t} phase1 {t ^ 1}" for t in range(70)]
    assert got == expect
    assert run_ok(bins[f"runtime{wave}"]) == out


# ---------------------------------------------------------------- cooperative groups
@pytest.mark.parametrize("wave", WAVES)
def test_cooperative_groups(bins, wave):
    rows = parse(run_ok(bins[f"coop{wave}"]))
    ts = range(N)
    assert rows["coop:0"] == list(ts)
    assert rows["coop:1"] == [128128] * N
    assert rows["coop:2"] == [1000 + t for t in ts]  # block 1 wrote last
    for base, s in ((3, 16), (13, 4), (23, 8)):
        r = [t % s for t in ts]
        exp = [
            r,
            [s * 1000 + s] * N,
            [(t // s) * 1000 + 128 // s for t in ts],
            [(t - t % s + 2) * 10 for t in ts],
            [(t - 1 if t % s else t) * 10 for t in ts],
            [(t + 1 if t % s + 1 < s else t) * 10 for t in ts],
            [(t ^ 1) * 10 for t in ts],
            [bits([i for i in range(s) if i % 3 == 0])] * N,
            [int(t - t % s <= 5 < t - t % s + s) for t in ts],
            [int(not (t - t % s <= 5 < t - t % s + s)) for t in ts],
        ]
        for k, e in enumerate(exp):
            assert rows[f"coop:{base + k}"] == e, f"tile {s} item {k}"
    active = [t % wave % 3 == 0 for t in ts]
    assert rows["coop:33"] == [len(range(0, wave, 3)) if a else -1 for a in active]
    assert rows["coop:34"] == [t % wave // 3 if a else -1 for t, a in zip(ts, active, strict=True)]
    assert rows["coop:35"] == [t - t % wave + 3 if a else -1 for t, a in zip(ts, active, strict=True)]
    half = wave // 2
    assert rows["coop:36"] == [(t + half if t % wave + half < wave else t) * 1000 + t // wave for t in ts]


# ---------------------------------------------------------------- the classic bug
def test_warp32_reduction_differs_between_wave32_and_wave64(bins):
    r32 = parse(run_ok(bins["warp32_reduce32"]))
    r64 = parse(run_ok(bins["warp32_reduce64"]))
    sums = [sum(i + 1 for i in range(w * 32, w * 32 + 32)) for w in range(8)]
    assert r32["lane0"] == sums and r32["bcast"] == sums and r32["portable"] == sums
    # wave64: only every other 32-thread "warp" has a lane 0 -> missing sums
    assert r64["lane0"] == [s if w % 2 == 0 else -1 for w, s in enumerate(sums)]
    # wave64: __shfl(v, 0) broadcasts the lower half's sum to the upper half
    assert r64["bcast"] == [sums[w - w % 2] for w in range(8)]
    assert r64["lane0"] != r32["lane0"] and r64["bcast"] != r32["bcast"]
    assert r64["portable"] == sums


# ---------------------------------------------------------------- failures
def run_fail(binary: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = emu.run(binary, list(args), timeout=60, env=env)
    assert proc.returncode == emu.EXIT_CODE, (
        f"exit {proc.returncode}\n{proc.stdout[-1000:]}\n{proc.stderr[-3000:]}"
    )
    return proc.stderr


def where(source: str, marker: str) -> str:
    return f"{source}:{marker_line(source, marker)}"


@pytest.mark.parametrize("wave", WAVES)
def test_error_shuffle_from_inactive_lane(bins, wave):
    err = run_fail(bins[f"errors{wave}"], "inactive")
    assert "__shfl reads lane 16, which is not active at this call" in err
    assert "lane 16 (thread (16,0,0)) is waiting in __syncthreads" in err
    assert "in kernel 'k_inactive'" in err and "block (0,0,0), thread (0,0,0) [wave 0, lane 0]" in err
    assert where("errors.cpp", "LINE_INACTIVE") in err


STRICT = {"HIPEMU_UNDEFINED": "error"}  # reading an exited lane stops instead of yielding undefined


def test_error_shuffle_from_exited_lane_only_on_wave64(bins):
    err = run_fail(bins["errors64"], "exited", env=STRICT)
    assert "__shfl_down reads lane 32, which is not active at this call" in err
    assert "has exited the kernel" in err and "thread (16,0,0) [wave 0, lane 16]" in err
    assert where("errors.cpp", "LINE_EXITED") in err
    # by default the read is undefined (all bits set: -1), not a fault
    out = run_ok(bins["errors64"], "exited")
    assert out.split()[1:33] == [str(2 * t + 16) for t in range(16)] + [str(t - 1) for t in range(16, 32)]
    out = run_ok(bins["errors32"], "exited")  # wave32: lanes 32.. are another wave
    # width 64 on a 32-lane wave: lane ln reads lane (ln + 16) mod 32 when ln + 16 < 64
    assert out.split()[1:33] == [str(t + (t + 16) % 32) for t in range(32)]


@pytest.mark.parametrize("wave", WAVES)
def test_error_barrier_deadlock(bins, wave):
    err = run_fail(bins[f"errors{wave}"], "deadlock")
    assert "deadlock: __syncthreads not reached by all threads of the block" in err
    for marker in ("LINE_DEADLOCK_A", "LINE_DEADLOCK_B"):
        at = re.escape(where("errors.cpp", marker))
        assert re.search(rf"32 thread\(s\) wait in __syncthreads at \S*{at} ", err), marker
    assert "in kernel 'k_deadlock'" in err and "block (0,0,0), thread (1,0,0)" in err


@pytest.mark.parametrize("wave", WAVES)
def test_exited_threads_count_as_arrived_at_barrier(bins, wave):
    out = run_ok(bins[f"errors{wave}"], "exit_barrier")
    assert out.split()[1:41] == [str(39 - t) for t in range(40)]


@pytest.mark.parametrize("wave", WAVES)
def test_error_syncwarp_deadlock(bins, wave):
    err = run_fail(bins[f"errors{wave}"], "syncwarp")
    assert "deadlock: __syncwarp" in err and "waits for lane 16" in err
    assert "is waiting in __syncthreads" in err and "in kernel 'k_syncwarp_deadlock'" in err
    assert where("errors.cpp", "LINE_SYNCWARP") in err


@pytest.mark.parametrize("wave", WAVES)
def test_error_sync_mask_excludes_caller(bins, wave):
    err = run_fail(bins[f"errors{wave}"], "mask")
    assert "__shfl_sync: mask 0xffff does not include the calling lane 16" in err
    assert "thread (16,0,0)" in err and where("errors.cpp", "LINE_MASK") in err


def test_error_unsupported_grid_sync_trap_partial_wave_outside(bins):
    b = bins["errors64"]
    err = run_fail(b, "grid")
    assert (
        "unsupported construct: grid-wide synchronisation" in err and where("errors.cpp", "LINE_GRID") in err
    )
    err = run_fail(b, "trap")
    assert "__trap() called" in err and "thread (3,0,0)" in err and where("errors.cpp", "LINE_TRAP") in err
    assert run_ok(b, "partial").split()[1:41] == ["-1"] * 40  # undefined by default
    err = run_fail(b, "partial", env=STRICT)
    assert "__shfl reads lane 50, which does not exist" in err and where("errors.cpp", "LINE_PARTIAL") in err
    err = run_fail(b, "outside")
    assert "__shfl called outside a kernel" in err and where("errors.cpp", "LINE_OUTSIDE") in err
    err = run_fail(b, "segv")
    assert "invalid memory access" in err and "block (1,0,0), thread (7,0,0)" in err


def test_error_spin_wait_watchdog(bins):
    err = run_fail(bins["errors64"], "spin", env={"HIPEMU_WATCHDOG": "1"})
    assert "made no progress" in err and "in kernel 'k_spin'" in err and "thread (0,0,0)" in err


def test_out_of_bounds_shared_memory_checked_build(bins):
    b = bins["oob64"]
    err = run_fail(b, "static")
    assert "global-buffer-overflow" in err and "'tile'" in err
    assert "in kernel 'k_static'" in err and "thread (64,0,0) [wave 1, lane 0]" in err
    assert where("oob.cpp", "LINE_STATIC") in err
    err = run_fail(b, "dynamic")
    assert "out-of-bounds dynamic shared memory access at byte offset 256" in err
    assert "(dynamic shared size of this launch: 256 bytes)" in err
    assert "in kernel 'k_dynamic'" in err and "thread (63,0,0)" in err
    assert where("oob.cpp", "LINE_DYNAMIC") in err
    assert run_ok(b, "none") == "ok\n"


def test_32bit_sync_mask_rejected_on_wave64_only(bins):
    err = bins["mask32_64"]
    assert isinstance(err, emu.EmulatorBuildError)
    assert "must be a 64-bit integer" in err.stderr and "__shfl_down_sync" in err.stderr
    assert run_ok(bins["mask32_32"]) == "1 31\n"


# ---------------------------------------------------------------- driver
def test_prepare_source_rewrites_only_extern_shared():
    src = (
        "extern __shared__ float a[];\n"
        "__global__ void k() {\n"
        "  extern __shared__ __align__(sizeof(T)) unsigned char\n"
        "      smem[];\n"
        '  extern "C" int f();\n'
        "  __shared__ int s[4];\n"
        "  static __shared__ float p[32];\n"
        "  __shared__ static volatile int q;\n"
        "  static int z;\n"
        "}\n"
    )
    out = emu.prepare_source(src)
    assert out.count("\n") == src.count("\n")
    assert "float* const a = reinterpret_cast<float*>(::hipemu::detail::dyn_smem());" in out
    assert (
        "unsigned char* const smem = reinterpret_cast<unsigned char*>(::hipemu::detail::dyn_smem());" in out
    )
    assert 'extern "C" int f();' in out and "__shared__ int s[4];" in out
    assert "         __shared__ float p[32];" in out and "  __shared__        volatile int q;" in out
    assert "  static int z;" in out
    assert emu.prepare_source("int x;\n") == "int x;\n"


def test_build_error_carries_compiler_stderr(tmp_path):
    bad = tmp_path / "bad.cpp"
    bad.write_text("#include <hip/hip_runtime.h>\nint main() { return undefined_thing; }\n")
    with pytest.raises(emu.EmulatorBuildError) as ei:
        emu.build([bad], tmp_path / "bad", wave=64)
    assert "undefined_thing" in ei.value.stderr
    with pytest.raises(ValueError):
        emu.build([bad], tmp_path / "bad", wave=16)
    assert (emu.include_dir() / "hip" / "hip_runtime.h").is_file()
    assert shutil.which("g++") is not None
