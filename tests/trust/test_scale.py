"""Shapes of code that once made a port quadratic or made it fail: a sum of 20,000 terms (on
lines of its own and on one line), and nesting as deep as a generated file has it. Each is
ported for real (tree-sitter parse, every pass); how long it takes is the scaling benchmark's
business (benchmarks/kernel_scaling.py), never a test's."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from hipport import portable
from hipport.config import Config
from hipport.model import FileStatus
from hipport.passes import port_bytes
from hipport.source import SourceFile, children, named_children, walk

ROOT = Path(__file__).resolve().parents[2]


def _benchmark():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import kernel_scaling
    finally:
        sys.path.pop(0)
    return kernel_scaling


@pytest.mark.parametrize("sep", ["\n    ", " "], ids=["a-term-a-line", "one-line"])
def test_a_sum_of_20k_terms_is_ported(sep: str) -> None:
    """It nests 20,000 levels deep: a recursion per level failed the file (RecursionError),
    and a lookup from the root per name made it quadratic. Every term is counted, the
    shuffle is rewritten and nothing else changes."""
    data = _benchmark().sum_file(20_000, sep)
    r = port_bytes("sum.cu", "cuda-source", data, Config())
    assert r.status == FileStatus.PORTED, r.error
    assert sorted(f.rule for f in r.findings) == ["W001", "W006"]
    assert sum(c.found for c in r.families.values()) >= 20_000  # threadIdx, once per term
    assert r.ported is not None
    expected = data.replace(b"<cuda_runtime.h>", b"<hip/hip_runtime.h>").replace(
        b"__shfl_down_sync(0xffffffff, v, 16)", b"__shfl_down(v, 16, 32)")
    assert r.ported == expected


def test_a_chain_of_20k_assignments_carries_its_lane_id() -> None:
    """`x = x = ... = threadIdx.x % 32`: each assignment's value holds the rest of the chain,
    and searching every value for the names that carry a kind made it quadratic (20,000 links
    took 25 s). The lane id still flows to the end of the chain and is reported there."""
    ks = _benchmark()
    short = port_bytes("chain.cu", "cuda-source", ks.chain_file(3), Config())
    long = port_bytes("chain.cu", "cuda-source", ks.chain_file(20_000), Config())
    assert long.status == FileStatus.PORTED, long.error
    shift = 20_000 - 3
    assert sorted((f.rule, f.span.line - shift) for f in long.findings) == \
        sorted((f.rule, f.span.line) for f in short.findings)
    assert "W004" in {f.rule for f in short.findings}


def test_a_sum_of_hazards_is_ported_and_each_is_reported() -> None:
    """4,000 terms that each hold wave64 sites (a shuffle of a 32-lane lane, a ballot kept in
    32 bits): every site's walk up the tree (constant context, its consumer, a 32-bit sink)
    once cost the depth of the sum in `.parent` lookups, and went level by level."""
    n = 4000
    terms = "\n    + ".join(f"__shfl_xor(p[threadIdx.x % 32], {1 + i % 16}) + __ballot_sync(0xffffffff, v > {i})"
                          for i in range(n))
    data = ("#include <cuda_runtime.h>\n__global__ void k(const float* p, float* out) {\n"
            f"  float v = p[threadIdx.x];\n  float s = {terms};\n  out[threadIdx.x] = s;\n}}\n").encode()
    r = port_bytes("hazards.cu", "cuda-source", data, Config())
    assert r.status == FileStatus.PORTED, r.error
    lines = {f.span.line for f in r.findings if f.rule == "W004"}
    assert len(lines) == n  # one lane-id finding on each term's line
    assert r.ported is not None and r.ported.replace(portable.NVIDIA_SHIMS.encode(), b"").count(b"__ballot(") == n


def test_min_of_a_long_sum_takes_the_unsigned_overload() -> None:
    """min/max of coordinate arithmetic: the kind of a 3,000-term sum (and of 3,000
    parentheses) is followed with a stack; it recursed once a level."""
    n = 3000
    for arg in (" + ".join(["threadIdx.x", "m"] * (n // 2)), "(" * n + "threadIdx.x" + ")" * n):
        src = f"__global__ void k(int* d, int w) {{ int m = 3; d[0] = min({arg}, w); }}\n"
        r = port_bytes("m.cu", "cuda-source", src.encode(), Config())
        assert r.status == FileStatus.PORTED, r.error
        assert r.ported is not None and b"min((unsigned int)(" in r.ported


N = 3000
DEEP_FORMS = {  # each 3,000 levels deep, in a kernel with a warp shuffle
    "and-chain": " && ".join(["(threadIdx.x > 1)"] * N),
    "ternary": "".join(f"threadIdx.x == {i} ? {i} : " for i in range(N)) + "0",
    "assign-chain": "x = " * N + "threadIdx.x",
    "comma": "(" + ", ".join(["threadIdx.x"] * N) + ")",
    "nested-calls": "f(" * N + "threadIdx.x" + ")" * N,
    "subscripts": "p[" * N + "threadIdx.x" + "]" * N,
    "unary-minus": "- " * N + "threadIdx.x",
    "casts": "(int)" * N + "threadIdx.x",
    "mask-and": " & ".join(["0xffffffff"] * N),
    "shift-chain": "1u" + " << 1" * N,
    "lane-sum": " + ".join(["(threadIdx.x & 31)"] * N),
    "warp-div": "threadIdx.x" + " / 32" * N,
    "mod-chain": "threadIdx.x" + " % 32" * N,
}


@pytest.mark.parametrize("form", sorted(DEEP_FORMS))
def test_a_deep_expression_of_each_form_is_ported(form: str) -> None:
    """The expression stands as a value, as a shared array's size and as a launch's grid: the
    places the wave64 rules evaluate (kinds, constant values, launch shapes). 11 of these
    forms failed with a RecursionError; a chain of masks took 13 s (a walk per node)."""
    e = DEEP_FORMS[form]
    src = ("__device__ int f(int a) { return a; }\n__global__ void k(int* p, float v) {\n"
           f"  int x; int s = {e};\n  v += __shfl_down_sync(0xffffffff, v, 16);\n"
           f"  __shared__ float t[{e}];\n  p[0] = s + (int)v;\n}}\n"
           f"void h(int* p) {{ k<<<{e}, 32>>>(p, 1.0f); }}\n")
    r = port_bytes("deep.cu", "cuda-source", src.encode(), Config())
    assert r.status == FileStatus.PORTED, r.error
    assert r.ported is not None and b"__shfl_down(v, 16, 32)" in r.ported


def test_a_tile_shuffle_of_a_deeply_parenthesised_vector_is_written_word_by_word() -> None:
    """The type of a tile shuffle's value is found through 3,000 parentheses (it recursed
    once a level)."""
    n = 3000
    src = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
           "__global__ void k(float2* o) {\n"
           "  cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());\n"
           f"  float2 v = o[0];\n  o[1] = t.shfl({'(' * n}v{')' * n}, 0);\n}}\n")
    r = port_bytes("tile.cu", "cuda-source", src.encode(), Config())
    assert r.status == FileStatus.PORTED, r.error
    assert r.ported is not None and b"hipport_tile_shfl(t, " in r.ported


def test_nesting_as_deep_as_a_generated_file_is_ported() -> None:
    """3,000 nested #if blocks, namespaces, blocks and parentheses: each level once cost a
    Python frame (RecursionError from about 1,000)."""
    n = 3000
    src = ("#include <cuda_runtime.h>\n" + "".join(f"#if !defined(SKIP_{i})\n" for i in range(n))
           + "namespace a {\n" * n + "__global__ void k(float* d) { " + "{" * n + " d[threadIdx.x % 32] = "
           + "(" * n + "__shfl_xor(d[0], 1)" + ")" * n + "; " + "}" * n + "}\n" + "}\n" * n + "#endif\n" * n)
    r = port_bytes("deep.cu", "cuda-source", src.encode(), Config())
    assert r.status == FileStatus.PORTED, r.error
    assert r.ported is not None and b"<hip/hip_runtime.h>" in r.ported
    assert r.ported.count(b"#if !defined(SKIP_") == n


def test_node_at_is_descendant_for_byte_range() -> None:
    """node_at (which walks from its last answer) finds what tree-sitter's own lookup from
    the root finds, and the same parents, for every token of real sources and for ranges
    across tokens, looked up in file order and shuffled; ancestors() gives the chain of
    parents."""
    rng = random.Random(28)
    files = sorted(p for d in ("examples", "fixtures/translate") for p in (ROOT / d).rglob("*")
                   if p.suffix in (".cu", ".cuh", ".cpp"))[:60]
    assert len(files) >= 30
    for p in files:
        data = p.read_bytes()
        ranges = [(m.start(), m.end()) for m in re.finditer(rb"\w+|[^\w\s]+", data)]
        ranges += [(a, a + rng.randrange(1, 60)) for a in range(0, len(data), 13)]
        for order in (ranges, rng.sample(ranges, len(ranges))):
            src = SourceFile(str(p), data)
            for a, b in order:
                node = src.node_at(a, b)
                assert node == src.root.descendant_for_byte_range(a, b), (p, a, b)
                if node is not None:
                    assert src.parent(node) == node.parent, (p, a, b)
        src = SourceFile(str(p), data)
        for node in list(walk(src.root))[::17]:  # ancestors() is the chain of .parent
            chain, up = [], node.parent
            while up is not None:
                chain.append(up)
                up = up.parent
            assert list(src.ancestors(node)) == chain, (p, node)


def test_children_are_what_tree_sitter_gives() -> None:
    """children()/named_children() read through a cursor give the nodes `.children` and
    `.named_children` give, in order."""
    src = SourceFile("k.cu", _benchmark().kernels_file(6))
    seen = 0
    for node in walk(src.root):
        assert children(node) == node.children
        assert named_children(node) == node.named_children
        seen += 1
    assert seen > 500


@pytest.mark.parametrize("body, value", [
    ("(1 << 4000000000)", None),  # Python's eval took 570 MB and 2.7 s for this
    ("(1u << 5)", 32), ("(64 / 2)", 32), ("((32 + 31) / 32 * 32)", 32), ("(2 * * 32)", None),
    ("(-65 / 2 + 64)", 32),  # C's division truncates toward zero
], ids=["huge-shift", "shift", "divide", "round-up", "not-c", "c-division"])
def test_a_macro_body_is_evaluated_as_c_within_64_bits(body: str, value: int | None) -> None:
    """Macro bodies come from the tree: they are evaluated by a small parser with C's operators,
    each value within 64 bits, never by Python's eval."""
    data = (f"#define WARP_SZ {body}\n__global__ void k(float* d) {{\n"
            "  int lane = threadIdx.x % WARP_SZ;\n  d[lane] = __shfl_xor(d[lane], 1);\n}\n").encode()
    r = port_bytes("m.cu", "cuda-source", data, Config())
    assert r.status == FileStatus.PORTED, r.error
    assert ("W004" in {f.rule for f in r.findings}) == (value == 32)
