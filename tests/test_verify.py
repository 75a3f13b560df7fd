"""`hipport verify`: the parse of kernels and launches, the cases, the comparison, the
configuration table; and real emulator runs (g++) over the planted-bug fixtures and examples/."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import pytest

from hipport.config import Config, VerifySpec
from hipport.errors import HipportError
from hipport.model import FAIL, PASS, UNVERIFIED
from hipport.validate import emulator as emu
from hipport.verify import Options, compare, inputs, verify
from hipport.verify.kernels import Evaluator, parse_tree
from tests.conftest import ROOT, hipport

FIXTURES = ROOT / "fixtures" / "verify"
def _emulated(fn):  # noqa: ANN001, ANN202 - real builds with g++ on the wave emulator
    fn = pytest.mark.emulator(fn)
    return pytest.mark.skipif(emu.compiler() is None, reason="g++ (the emulator's host compiler) is not installed")(fn)

SOURCE = """
namespace ns {
template <typename T, int B>
__global__ void __launch_bounds__(B) scale(const T* __restrict__ in, T* out, int n, float a) {}
}
__global__ void vote(const int* in, int* flags, int big) { flags[0] = in[0]; }
struct Op { float k; };
__global__ void apply(const float* in, float* out, int count, Op op) {}
#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)
constexpr int kN = 1000;
static const int kBlock = 128;
int main() {
  const int blocks = (kN + kBlock - 1) / kBlock;
  dim3 block(kBlock);
  float alpha = 2.0f;
  ns::scale<float, kBlock><<<blocks, block, 0, 0>>>(d_in, d_out, kN, 0.5f);
  LAUNCH(vote, 4, 256, d_i, d_f, 99);
  apply<<<dim3(ceil_div(kN, 64)), 64>>>(d_in, d_out, kN, Op{alpha});
}
"""


def _tree(tmp_path: Path):  # noqa: ANN202
    f = tmp_path / "k.cu"
    f.write_text(SOURCE)
    return parse_tree([f])


def test_kernels_and_launches_come_from_the_parse(tmp_path: Path) -> None:
    t = _tree(tmp_path)
    ks = {k.qualified: k for k in t.kernels}
    assert set(ks) == {"ns::scale", "vote", "apply"}
    s = ks["ns::scale"]
    assert s.template == ("T", "B")
    assert [(p.name, p.type, p.pointer, p.const) for p in s.params] == [
        ("in", "T", True, True), ("out", "T", True, False), ("n", "int", False, False), ("a", "float", False, False)]
    shapes = {lc.name: (Evaluator(lc.scope)(lc.grid), Evaluator(lc.scope)(lc.block)) for lc in t.launches}
    assert shapes == {"scale": (8, (128, 1, 1)), "vote": (4, 256), "apply": ((16, 1, 1), 64)}  # LAUNCH expanded
    scale = next(lc for lc in t.launches if lc.name == "scale")
    assert Evaluator(scale.scope, {"kN": 33})(scale.grid) == 1  # the size rebinds the grid's names


def test_a_plan_takes_sizes_around_the_wave_and_sizes_pointers_by_n(tmp_path: Path) -> None:
    t = _tree(tmp_path)
    k = next(k for k in t.kernels if k.name == "scale")
    p = inputs.plan(k, next(lc for lc in t.launches if lc.name == "scale"), None)
    assert p.callee == "ns::scale<float, kBlock>" and p.size_param == "n"
    assert sorted({c.size for c in p.cases}) == list(inputs.SIZES)
    assert {c.kind for c in p.cases} == set(inputs.KINDS)
    c = next(c for c in p.cases if c.size == 129)
    assert c.grid == (2, 1, 1) and dict(c.lengths) == {"in": 256, "out": 256} and dict(c.scalars)["a"] == 0.5
    assert [(b.param, b.role) for b in p.buffers] == [("in", "input"), ("out", "output")]


def test_a_kernel_without_size_runs_whole_blocks_and_reads_its_outputs(tmp_path: Path) -> None:
    t = _tree(tmp_path)
    k = next(k for k in t.kernels if k.name == "vote")
    p = inputs.plan(k, next(lc for lc in t.launches if lc.name == "vote"), None)
    assert sorted({c.size for c in p.cases}) == [256, 512, 1024]  # 1, 2 and the launch's 4 blocks
    assert p.sized_by == "the launch's threads"


def test_unverified_says_why(tmp_path: Path) -> None:
    t = _tree(tmp_path)
    apply = next(k for k in t.kernels if k.name == "apply")
    with pytest.raises(inputs.Unverified, match="unsupported parameter type: Op op"):
        inputs.plan(apply, next(lc for lc in t.launches if lc.name == "apply"), None)  # Op{alpha}: a local
    vote = next(k for k in t.kernels if k.name == "vote")
    with pytest.raises(inputs.Unverified, match="no launch shape"):
        inputs.plan(vote, None, None)
    p = inputs.plan(vote, None, VerifySpec(block=(64, 1, 1), grid="2", values=(("big", 7),)))
    assert {c.grid for c in p.cases} == {(2, 1, 1)}


def test_a_scalar_with_no_value_takes_generated_values_and_says_so(tmp_path: Path) -> None:
    vote = next(k for k in _tree(tmp_path).kernels if k.name == "vote")
    p = inputs.plan(vote, None, VerifySpec(block=(64, 1, 1), grid="2"))
    assert {dict(c.scalars)["big"] for c in p.cases} == {1, 5}  # one per size in turn (two sizes here)
    assert "generated values for big (1, 5, 33" in p.sized_by


def test_a_template_kernel_takes_its_explicit_instantiation(tmp_path: Path) -> None:
    f = tmp_path / "t.cu"
    f.write_text("template <int K>\n__global__ void flush(const int* in, int* out) { out[0] = in[0]; }\n"
                 "template __global__ void flush<256>(const int*, int*);\n")
    t = parse_tree([f])
    assert t.instantiations == {"flush": "256"}
    with pytest.raises(inputs.Unverified, match="says nothing of its template parameter K"):
        inputs.plan(t.kernels[0], None, None, (64, 1, 1))  # K is no block size: not guessed
    p = inputs.plan(t.kernels[0], None, None, (64, 1, 1), t.instantiations["flush"])
    assert p.callee == "flush<256>" and "from the file's explicit instantiation" in p.sized_by


def test_an_output_laid_out_per_wave_is_named() -> None:
    from hipport.verify.kernels import Kernel

    k = Kernel("k", "k", Path("k.cu"), 1, (), (), "int w = threadIdx.x / 32; partial[w] = s; "
               "masks[i] = __ballot_sync(~0u, v); out[i] = 2;")
    assert k.wave_indexed("partial") == "partial[w]"  # w = threadIdx.x / 32: a wave number
    assert k.wave_indexed("masks") == "masks[i] = __ballot_sync(~0u, v)"
    assert k.wave_indexed("out") is None


def test_generated_data_has_the_kinds_and_the_sentinel() -> None:
    b = inputs.Buffer("x", "f", "input")
    special = struct.unpack("<200f", inputs.data(b, 200, "special", "k"))
    assert any(math.isnan(v) for v in special) and math.inf in special and -math.inf in special
    assert any(0 < abs(v) < 1.2e-38 for v in special) and any(abs(v) >= 1e30 for v in special)
    assert any(v < 0 for v in struct.unpack("<50f", inputs.data(b, 50, "mixed-sign", "k")))
    assert sum(v == 0 for v in struct.unpack("<100f", inputs.data(b, 100, "sparse", "k"))) > 60
    assert inputs.data(inputs.Buffer("y", "f", "output"), 2, "random", "k") == inputs.SENTINEL["f"] * 2
    assert inputs.data(inputs.Buffer("h", "I", "accumulator"), 2, "random", "k") == bytes(8)


def _f(*v: float) -> bytes:
    return struct.pack(f"<{len(v)}f", *v)


def test_floats_compare_within_two_ulp_and_integers_bit_for_bit() -> None:
    out = inputs.Buffer("y", "f", "output")
    one = 1.0
    two_ulp = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", _f(one))[0] + 2))[0]
    three_ulp = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", _f(one))[0] + 3))[0]
    assert compare.compare(out, _f(one, math.nan), _f(two_ulp, math.nan), []) is None
    d = compare.compare(out, _f(one, 2.0), _f(three_ulp, 2.0), [])
    assert d is not None and d.index == 0
    d = compare.compare(out, _f(1.0, 2.0), _f(1.0) + inputs.SENTINEL["f"], [])
    assert d is not None and d.index == 1 and "sentinel" in d.actual
    ints = inputs.Buffer("c", "i", "output")
    assert compare.compare(ints, struct.pack("<2i", 1, 2), struct.pack("<2i", 1, 3), []).index == 1  # type: ignore[union-attr]


def test_a_reduction_is_compared_within_n_eps_sum() -> None:
    x = inputs.Buffer("x", "f", "input")
    xs = _f(*([1.0] * 1000))
    acc = inputs.Buffer("s", "f", "accumulator")  # 1000 * 2^-24 * 1000 = 0.0596
    assert compare.compare(acc, _f(1000.0), _f(1000.05), [(x, xs)]) is None
    d = compare.compare(acc, _f(1000.0), _f(1000.1), [(x, xs)])
    assert d is not None and d.basis == compare.FLOAT64  # the one total is the sum: its float64 sum is the reference
    d = compare.compare(acc, _f(999.0, 1.0), _f(999.0, 1.1), [(x, xs)])
    assert d is not None and d.basis == compare.WAVE32  # two partials: against the wave-32 result
    short = inputs.Buffer("partials", "f", "output")  # 1 of 8 written: a reduction too
    assert compare.compare(short, _f(1000.0) + inputs.SENTINEL["f"] * 7,
                           _f(1000.05) + inputs.SENTINEL["f"] * 7, [(x, xs)]) is None


def test_the_configuration_table_is_checked(tmp_path: Path) -> None:
    from hipport import config

    good = tmp_path / "good"
    good.mkdir()
    (good / ".hipport.toml").write_text('[verify.rows]\nblock = [32, 4]\ngrid = "(rows + 3) / 4"\nsize = "cols"\n'
                                        'values = { rows = 5, eps = 1e-5 }\nlengths = { x = "rows * cols" }\n')
    (good / "sub").mkdir()
    (good / "sub" / ".hipport.toml").write_text('[verify.sums]\nwave_dependent = ["partials"]\n')
    assert dict(config.build(good / "sub", {}).verify)["sums"].wave_dependent == ("partials",)
    cfg = config.build(good, {})
    assert dict(cfg.verify)["rows"] == VerifySpec((32, 4, 1), "(rows + 3) / 4", "cols", (),
                                                  (("eps", 1e-5), ("rows", 5)), (("x", "rows * cols"),))
    for body, msg in (("block = 0", "block must be"), ("sizes = [0]", "sizes must be"), ("speed = 1", "unknown key"),
                      ('lengths = { x = "n; n" }', None), ('template = "int; x"', "template must be"),
                      ('wave_dependent = "out"', "wave_dependent must be")):
        bad = tmp_path / f"bad{abs(hash(body))}"
        bad.mkdir()
        (bad / ".hipport.toml").write_text(f"[verify.k]\n{body}\n")
        with pytest.raises(HipportError, match=msg or "lengths.x must be"):
            config.build(bad, {})


# --- real runs on the wave emulator -------------------------------------------------------------------

@pytest.fixture(scope="module")
def planted() -> dict[str, object]:
    r = verify(Options((FIXTURES,)), Config())
    return {k.kernel: k for k in r.kernels}


@_emulated
@pytest.mark.parametrize(("kernel", "param", "size"), [
    ("warp_totals", "totals", 1),  # lane == 31 is no wave's last lane at wave 64
    ("double_chunks", "out", 129),  # the tail past what 32-element chunks per 64-lane wave reach
    ("count_positive", "count", 33),  # a ballot kept in 32 bits drops lanes 32-63
    ("total", "sum", 33),  # a shuffle tree from 16 leaves the upper half-wave out
])
def test_each_planted_bug_is_caught_by_a_generated_input(planted: dict[str, object], kernel: str, param: str,
                                                         size: int) -> None:
    k = planted[kernel]
    assert k.status == FAIL, k.reason  # type: ignore[attr-defined]
    assert (k.param, k.size, k.kind) == (param, size, "random")  # type: ignore[attr-defined]
    assert f"differs at size {size}" in k.reason  # type: ignore[attr-defined]
    if kernel == "total":  # one total, which the wave-32 run computed as the float64 sum
        assert "within n·ε·Σ|x| of the float64 sum of the inputs" in k.reason  # type: ignore[attr-defined]


@_emulated
def test_the_correct_kernel_passes(planted: dict[str, object]) -> None:
    k = planted["total_any_wave"]
    assert k.status == PASS and k.cases == 44  # type: ignore[attr-defined]
    assert k.reductions == ("sum (the float64 sum of the inputs)", "sum (the wave-32 result)")  # type: ignore[attr-defined]


@_emulated
@pytest.mark.parametrize("name", ["lane31", "unwritten_tail", "half_ballot", "half_reduction"])
@pytest.mark.usefixtures("planted")
def test_the_fixture_programs_own_main_misses_the_bug(name: str) -> None:
    """Each fixture's fixed-size main prints the same at wave 32 and wave 64: only verify's
    generated sizes show the bug."""
    src = FIXTURES / f"{name}.cu"
    out = [hipport("emulate", src, "--wave", w) for w in ("32", "64")]
    assert all(p.returncode == 0 for p in out), [p.stderr for p in out]
    assert out[0].stdout == out[1].stdout


@_emulated
def test_the_cli_exits_1_on_a_fail_and_renders_json_sarif_and_the_report(tmp_path: Path) -> None:
    p = hipport("verify", FIXTURES / "half_ballot.cu", "--format", "json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    assert doc["counts"] == {"PASS": 0, "FAIL": 1, "UNVERIFIED": 0}
    k = doc["kernels"][0]
    assert (k["kernel"], k["line"], k["size"], k["kind"], k["param"]) == ("count_positive", 3, 33, "random", "count")
    s = json.loads(hipport("verify", FIXTURES / "half_ballot.cu", "--format", "sarif").stdout)
    from tests.test_sarif import schema_validator

    errors = sorted(schema_validator().iter_errors(s), key=str)
    assert not errors, errors[0].message if errors else ""
    res = s["runs"][0]["results"][0]
    assert res["level"] == "error" and res["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    ok = hipport("verify", FIXTURES / "correct.cu", "--report", tmp_path / "report")
    assert ok.returncode == 0 and ok.stdout.startswith(b"PASS  total_any_wave"), ok.stdout
    page = (tmp_path / "report" / "index.html").read_text()
    assert 'id="verification"' in page and "total_any_wave" in page


ROWS = """// One row per block row: y[r][c] = 2 x[r][c].
__global__ void twice_rows(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  for (int c = threadIdx.x; c < cols; c += 32) y[r * cols + c] = 2.0f * x[r * cols + c];
}
int main() {
  const int rows = 8, cols = 100;
  float *x, *y;
  cudaMalloc(&x, rows * cols * sizeof(float));
  cudaMalloc(&y, rows * cols * sizeof(float));
  twice_rows<<<(rows + 3) / 4, dim3(32, 4)>>>(x, y, rows, cols);
  return 0;
}
"""


@_emulated
def test_a_pointer_it_cannot_size_is_unverified_until_configured(tmp_path: Path) -> None:
    (tmp_path / "rows.cu").write_text(ROWS)
    r = verify(Options((tmp_path,)), Config())
    assert r.kernels[0].status == UNVERIFIED and "a pointer it cannot size" in r.kernels[0].reason
    (tmp_path / ".hipport.toml").write_text('[verify.twice_rows]\nsize = "cols"\nvalues = { rows = 3 }\n'
                                            'lengths = { x = "rows * cols", y = "rows * cols" }\n')
    r = verify(Options((tmp_path,)), Config())
    assert r.kernels[0].status == PASS, r.kernels[0].reason
    assert r.kernels[0].sized_by == "configuration"


@_emulated
@pytest.mark.slow
def test_every_example_kernel_passes_or_fails_none_unverified() -> None:
    r = verify(Options((ROOT / "examples",)), Config())
    assert len(r.kernels) == 16
    bad = [(k.kernel, k.status, k.reason) for k in r.kernels if k.status != PASS]
    assert not bad, bad


LONE = """__global__ void add_one(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}
"""


@_emulated
def test_a_kernel_nobody_launches_runs_with_block(tmp_path: Path) -> None:
    (tmp_path / "lone.cuh").write_text(LONE)
    r = verify(Options((tmp_path,)), Config())
    assert r.kernels[0].status == UNVERIFIED and r.kernels[0].reason.startswith("no launch shape")
    r = verify(Options((tmp_path,), block=64), Config())
    k = r.kernels[0]
    assert k.status == PASS and k.launch == "--block 64 (no launch in the host code)", k


def test_pointers_to_pointers_are_not_generated_and_char_keeps_its_type(tmp_path: Path) -> None:
    f = tmp_path / "p.cu"
    f.write_text("__global__ void names(const char** names, char* out, int n) {}\n"
                 "__global__ void bytes(const char* in, char* out, int n) { out[0] = in[0]; }\n")
    t = parse_tree([f])
    names, chars = t.kernels
    with pytest.raises(inputs.Unverified, match=r"unsupported parameter type: char\*\* names"):
        inputs.plan(names, None, VerifySpec(block=(64, 1, 1), grid="1"))
    p = inputs.plan(chars, None, VerifySpec(block=(64, 1, 1), grid="1"))
    assert p.ctypes == {"in": "char", "out": "char", "n": "int"}


@_emulated
def test_the_cache_keeps_what_runs_wrote_never_a_program(tmp_path: Path) -> None:
    """A second run over the unchanged file builds and runs nothing (answered from the cache);
    the cache holds the runs' output bytes, no executable; a damaged entry is a miss."""
    cache = tmp_path / "cache"
    first = verify(Options((FIXTURES / "half_ballot.cu",), cache_dir=cache, work_dir=tmp_path / "w1"), Config())
    entries = [p for p in (cache / "verify").iterdir() if p.is_file()]
    assert entries and not any(p.stat().st_mode & 0o111 for p in entries)
    assert not any(p.read_bytes().startswith(b"\x7fELF") for p in entries)
    again = verify(Options((FIXTURES / "half_ballot.cu",), cache_dir=cache, work_dir=tmp_path / "w2"), Config())
    assert again.kernels == first.kernels
    assert not list((tmp_path / "w2").rglob("*.w32")) and not list((tmp_path / "w2").rglob("*.w64"))
    for p in entries:
        p.write_bytes(p.read_bytes()[:5])
    damaged = verify(Options((FIXTURES / "half_ballot.cu",), cache_dir=cache, work_dir=tmp_path / "w3"), Config())
    assert damaged.kernels == first.kernels
    assert list((tmp_path / "w3").rglob("*.w32"))  # built again


# One fixture per wave64 rule that has a kernel (W001..W020), and the UNVERIFIED reasons allowed:
# what the emulator lacks, or an original with no wave-32 reference (docs/verify.md, Limits).
RULE_FIXTURES = ("w001_sync_mask", "w002_ballot_u32", "w003_bitops", "w004_lane_id", "w005_warp_id",
                 "w006_reduce_loop", "w007_shared_arrays", "w008_constexpr_function", "w009_coop_groups",
                 "w010_sync_builtins", "w011_lane_masks", "w012_inline_ptx", "w013_cub_warp", "w014_launch",
                 "w015_half_warp", "w016_broadcast", "w017_votes", "w018_spin", "w019_hardcoded_64",
                 "w020_wavefront_macro")


@_emulated
@pytest.mark.slow
def test_the_wave64_rule_fixtures_are_verified_or_say_what_the_emulator_lacks() -> None:
    from hipport.verify import EMULATOR_GAPS

    root = ROOT / "fixtures" / "wave64"
    r = verify(Options(tuple(root / f for f in RULE_FIXTURES), block=256), Config())
    seen = {Path(k.file).parent.name for k in r.kernels}
    assert seen == set(RULE_FIXTURES), set(RULE_FIXTURES) - seen
    gaps = tuple(why for _, why in EMULATOR_GAPS)
    bad = [(k.kernel, k.reason[:200]) for k in r.kernels if k.status == UNVERIFIED and not k.reason.startswith(gaps)]
    assert not bad, bad
    for k in r.kernels:  # every inference is named with the result
        assert k.status == UNVERIFIED or k.sized_by, k


TWO = """__global__ void twice(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
__global__ void negate(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -in[i];
}
int main() {
  const int n = 100;
  float *a, *b; int *c, *d;
  twice<<<(n + 63) / 64, 64>>>(a, b, n);
  negate<<<(n + 63) / 64, 64>>>(c, d, n);
}
"""


@_emulated
def test_kernels_launched_from_one_file_share_a_build_and_one_that_breaks_it_is_built_alone(tmp_path: Path) -> None:
    """One harness program a wave for the kernels of one launching file, each run alone in it by
    its index; where that program does not build, each kernel's own harness is built, so a
    kernel's result and its build error are its own."""
    from dataclasses import replace

    from hipport.verify import harness

    (tmp_path / "two.cu").write_text(TWO)
    work = tmp_path / "work"
    r = verify(Options((tmp_path / "two.cu",), work_dir=work), Config())
    assert [(k.kernel, k.status) for k in r.kernels] == [("twice", PASS), ("negate", PASS)], r.kernels
    assert sorted(p.name for p in work.rglob("*.w[36][24]")) == ["twice+1.w32", "twice+1.w64"]
    ported = tmp_path / "ported.cu"  # the kernels as the port has them (its launches do not matter here)
    ported.write_text("#include <hip/hip_runtime.h>\n" + TWO.split("int main")[0])
    t = parse_tree([tmp_path / "two.cu"])
    plans = [inputs.plan(k, t.launches[i], None) for i, k in enumerate(t.kernels)]
    plans[1] = replace(plans[1], callee="no_such_kernel")  # breaks the shared program, and its own
    hs = [harness.prepare(harness.source(p, ported), p.kernel.name, tmp_path / f"k{i}", wave=32, includes=[],
                          defines=[], others=[], root=tmp_path, tree_files=[], cache=None, plan=p, include=ported)
          for i, p in enumerate(plans)]
    for h in hs:
        h.work.mkdir()
    harness.share(hs)
    assert hs[0].shared is hs[1].shared is not None
    cases = [c for c in plans[0].cases if c.kind == "random"]
    ran = harness.run(hs[0], inputs.case_file(plans[0], cases, "twice"), len(cases), [4, 4], "t", 60)
    assert ran.buffers is not None and len(ran.buffers) == len(cases), ran.error
    assert hs[0].binary()[0] == hs[0].work / "twice.w32"  # its own build, the shared one failed
    broken = harness.run(hs[1], b"", 0, [], "n", 60)
    assert broken.unbuilt and "no_such_kernel" in broken.error


PER_WAVE = """__global__ void wave_sums(const float* in, float* partial, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  if (i < n) out[i] = v * 2.0f;
  int w = threadIdx.x / warpSize;
  if (threadIdx.x % warpSize == 0) partial[blockIdx.x * (blockDim.x / warpSize) + w] = v;
}
"""


@_emulated
def test_an_output_laid_out_per_wave_fails_by_design_until_named_wave_dependent(tmp_path: Path) -> None:
    (tmp_path / "w.cuh").write_text(PER_WAVE)
    k = verify(Options((tmp_path,), block=64), Config()).kernels[0]
    assert k.status == FAIL and k.param == "partial", k
    assert "partial follows the wave size by design (`partial[blockIdx.x * (blockDim.x / warpSize) + w]`)" in k.reason
    (tmp_path / ".hipport.toml").write_text('[verify.wave_sums]\nwave_dependent = ["partial"]\n')
    k = verify(Options((tmp_path,), block=64), Config()).kernels[0]
    assert k.status == PASS and "not compared: partial (wave_dependent" in k.reason, k  # out still compared


def test_block_shrinks_to_a_shared_array_indexed_by_the_thread_index(tmp_path: Path) -> None:
    f = tmp_path / "s.cu"
    f.write_text("#define BLOCK_THREADS 64\n__global__ void fine(float* p) {\n"
                 "  __shared__ float s[BLOCK_THREADS];\n  s[threadIdx.x] = p[threadIdx.x];\n"
                 "  __syncthreads();\n  p[threadIdx.x] = s[(threadIdx.x + 1) % BLOCK_THREADS];\n}\n")
    t = parse_tree([f])
    p = inputs.plan(t.kernels[0], None, None, (256, 1, 1), None, t.globals)
    assert {c.block for c in p.cases} == {(64, 1, 1)}
    assert "block 64x1 from `__shared__ float s[BLOCK_THREADS];` indexed by the thread index" in p.sized_by
    assert {c.block for c in inputs.plan(t.kernels[0], None, None, (32, 1, 1), None, t.globals).cases} == {(32, 1, 1)}
    g = tmp_path / "h.cu"  # a guarded use bounds nothing: a 16-bin histogram runs 256-thread blocks
    g.write_text("__global__ void hist(const int* k, unsigned* h) {\n  __shared__ unsigned b[16];\n"
                 "  if (threadIdx.x < 16) b[threadIdx.x] = 0;\n  h[k[threadIdx.x] & 15] = b[0];\n}\n")
    t = parse_tree([g])
    assert {c.block for c in inputs.plan(t.kernels[0], None, None, (256, 1, 1), None, t.globals).cases} == {(256, 1, 1)}
