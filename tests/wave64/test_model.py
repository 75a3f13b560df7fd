"""Model inference, the consistency rule, fix applicability, edit shape and the fast exit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipport import portable
from hipport.config import Config
from hipport.model import Applicability
from hipport.registry import FixKind
from hipport.source import SourceFile
from hipport.wave64 import run
from hipport.wave64.facts import Facts
from hipport.wave64.syntax import PRIORITY
from tests.wave64.helpers import FIXTURES, HEADER, findings, port
from tests.wave64.regen import source_for

WARP32 = ("__global__ void w32(float* p) {\n  const int lane = threadIdx.x & 31;\n  float v = p[threadIdx.x];\n"
          "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  if (lane == 0) p[threadIdx.x >> 5] = v;\n}\n")
AGNOSTIC = ("__global__ void agn(float* p) {\n  float v = p[threadIdx.x];\n"
            "  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);\n"
            "  unsigned m = __ballot(v > 0.f);\n  p[threadIdx.x] = v + __popc(m);\n}\n")
MIXED = ("__global__ void mix(float* p) {\n  float v = p[threadIdx.x];\n"
         "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n"
         "  if (threadIdx.x % warpSize == 0) p[threadIdx.x / warpSize] = v;\n}\n")
FILE = HEADER + WARP32 + AGNOSTIC + MIXED


def models(code: str, strategy: str = "auto") -> dict[str, tuple[str, str]]:
    facts = Facts(SourceFile("t.cu", code.encode()), Config(wave_strategy=strategy))
    return {f.name: (f.group.model, f.group.strategy) for f in facts.funcs if f.group is not None}


def test_one_model_and_one_strategy_per_kernel_auto() -> None:
    assert models(FILE) == {"w32": ("warp32", "logical32"), "agn": ("agnostic", "native"),
                            "mix": ("mixed", "native")}


@pytest.mark.parametrize("strategy", ["logical32", "native"])
def test_forced_strategy_applies_to_every_non_agnostic_kernel(strategy: str) -> None:
    got = models(FILE, strategy)
    assert got["w32"][1] == got["mix"][1] == strategy
    assert got["agn"] == ("agnostic", "native")


def test_a_device_function_shares_the_model_of_its_callers() -> None:
    code = (HEADER + "__device__ float red(float v) {\n  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);\n"
            "  return v;\n}\n__global__ void a(float* p) { p[threadIdx.x % warpSize] = red(p[0]); }\n"
            "__global__ void b(float* p) { p[0] = red(p[1]); }\n")
    got = models(code)
    assert got["red"] == got["a"] == got["b"] == ("mixed", "native")


def test_a_shared_warp_size_macro_links_its_users() -> None:
    code = (HEADER + "#define WARP_SIZE 32\n"
            "__global__ void a(float* p) { p[threadIdx.x % WARP_SIZE] = __shfl_xor(p[0], 1); }\n"
            "__global__ void b(float* p) { p[threadIdx.x / warpSize] = __shfl_xor(p[0], WARP_SIZE / 2); }\n")
    got = models(code)
    assert got["a"] == got["b"] == ("mixed", "native")


def test_every_finding_states_the_model_of_its_kernel() -> None:
    for f in findings(FILE):
        assert f.model == {"w32": "warp32", "agn": "agnostic", "mix": "mixed"}[f.kernel]


LOGICAL = re.compile(r", 32\)|__lane_id\(\) & 32|& 31\b")
NATIVE = re.compile(r"warpSize|HIPPORT_WAVE_SIZE|__popcll|unsigned long long|1ull|~0ull")


@pytest.mark.parametrize("folder", sorted(p.name for p in FIXTURES.iterdir() if (p / "input.cu").is_file()))
def test_never_two_strategies_inside_one_kernel(folder: str) -> None:
    """Under auto, the edits of one kernel come from one strategy (the consistency rule)."""
    src = source_for(FIXTURES / folder)  # (with the header beside it, if any)
    per_kernel: dict[str, set[str]] = {}
    for f in run(src, Config()):
        if f.fix is None or f.kernel is None or f.rule in ("W012", "W014", "W020"):
            continue
        for e in f.fix.edits:
            if e.rule in ("wave64", FixKind.PORTABLE):  # shared insertions: the prelude, the NVIDIA shims
                continue
            kinds = per_kernel.setdefault(f.kernel, set())
            if LOGICAL.search(e.replacement):
                kinds.add("logical32")
            if NATIVE.search(e.replacement):
                kinds.add("native")
    for kernel, kinds in per_kernel.items():
        assert len(kinds) <= 1, f"{folder}: {kernel} mixes {kinds}"


def applicabilities(code: str, strategy: str) -> set[Applicability]:
    return {f.fix.applicability for f in findings(code, strategy) if f.fix is not None}


def test_mechanical_fixes_in_an_unambiguous_kernel_are_safe() -> None:
    assert applicabilities(HEADER + WARP32, "logical32") == {Applicability.SAFE}
    assert applicabilities(HEADER + AGNOSTIC, "native") == {Applicability.SAFE}


def test_generalising_a_32_lane_kernel_is_a_review() -> None:
    assert applicabilities(HEADER + WARP32, "native") == {Applicability.REVIEW}


def test_everything_in_a_mixed_kernel_is_a_review() -> None:
    for strategy in ("logical32", "native"):
        assert applicabilities(HEADER + MIXED, strategy) == {Applicability.REVIEW}


def test_safe_fixes_alone_leave_a_consistent_kernel() -> None:
    out = port(HEADER + WARP32, "auto", review=False)
    assert "__shfl_down(v, o, 32)" in out and "& 31" in out and ">> 5" in out


_SHAPES = re.compile(r"""^(
    [A-Za-z_]\w*                                  # one identifier (callee, constant name)
  | -?[0-9][0-9a-fA-FxXuUlL']*                    # one literal
  | [^(),;]{0,40},\s*                             # one argument with its comma
  | ,\s*[^(),;]{0,40}                             # a trailing argument
  | >>\s*5 | \(\) | \)                            # an operator with its constant, an empty argument list
  | unsigned(\s+int)? | uint32_t | int | uint     # a type token
  | __syncwarp\([^;]*\)                           # W010: the whole __syncwarp(mask) call
  | asm\b.*\)                                     # W012: one asm statement
  | __uni_sync\([^;]*\) | \w+\.meta_group_\w+\(\) # W017 / W009
  | \w+\.\w+ | \w+\.\w+\(                         # W009: tile.ballot / tile.all(
  | __\w+\( | __\w+\(\s*[^,()]*,\s*               # a callee with its open parenthesis (and mask)
)$""", re.X)


@pytest.mark.parametrize("folder", sorted(p.name for p in FIXTURES.iterdir() if (p / "input.cu").is_file()))
@pytest.mark.parametrize("strategy", ["logical32", "native"])
def test_edits_are_fine_grained(folder: str, strategy: str) -> None:
    """A fix replaces a token, an argument or an operator, or inserts text; it never covers a region
    holding other code (the translate pass renames CUDA names inside such regions)."""
    data = (FIXTURES / folder / "input.cu").read_bytes()
    src = SourceFile("t.cu", data)
    for f in run(src, Config(wave_strategy=strategy)):
        for e in f.fix.edits if f.fix is not None else ():
            # the NVIDIA shims go ahead of the pass's other insertions at the same point
            assert e.priority == (portable.PRIORITY if e.rule == FixKind.PORTABLE else PRIORITY)
            original = data[e.start:e.end].decode()
            if e.start == e.end:
                continue
            assert "cuda" not in original, (folder, f.rule, original)
            assert _SHAPES.match(original.strip().replace("\n", " ")) or not original.strip(), (folder, f.rule, original)


def test_files_without_device_code_are_not_even_parsed() -> None:
    src = SourceFile("host.cpp", b"#include <vector>\nint f(std::vector<int>& v) { return v.size(); }\n" * 50)
    assert run(src, Config()) == []
    assert src._tree is None


def test_crlf_and_comments_survive() -> None:
    code = (HEADER + "// a comment with 0xffffffff and __shfl_sync(0xffffffff, v, 0)\n" + WARP32).replace("\n", "\r\n")
    out = port(code, "logical32")
    assert out.count("\r\n") == code.count("\r\n")
    assert "// a comment with 0xffffffff and __shfl_sync(0xffffffff, v, 0)" in out
    assert Path  # keep the import for type checkers
