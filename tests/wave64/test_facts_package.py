"""The facts package: one module per fact, each saying what it computes, behind one `Facts`."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import hipport.wave64.facts as package
from hipport.config import Config
from hipport.source import SourceFile
from hipport.wave64.facts import Facts

MODULES = sorted(m.name for m in pkgutil.iter_modules(package.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_module_says_what_it_computes(name: str) -> None:
    doc = importlib.import_module(f"{package.__name__}.{name}").__doc__
    assert doc and len(doc.split()) >= 8


# what the rules, emit.py and wave64.run read from Facts
QUERIES = ("is_inactive", "is_amd_only", "func_at", "declared_vars", "external_const", "const_value",
           "eval_text", "cval", "header_const", "tree_defines", "call_name", "binop", "kinds",
           "classify_binary", "lane_idiom", "in_half", "is_half_mask", "in_lane_idiom", "sink32",
           "device_funcs", "model_of_const", "var")
ATTRIBUTES = ("src", "data", "config", "empty", "funcs", "by_name", "consts", "macros", "gvars", "includes",
              "inactive", "amd_only", "groups", "calls", "aliases", "arch_macros", "wave_macros", "wrappers",
              "ident_uses")


def test_facade_keeps_the_names_rules_use() -> None:
    code = b"#define WARP_SIZE 32\n__global__ void k(int* p) { p[threadIdx.x & (WARP_SIZE - 1)] = __shfl_down(1, 1); }\n"
    facts = Facts(SourceFile("t.cu", code), Config())
    for name in QUERIES:
        assert callable(getattr(facts, name)), name
    for name in ATTRIBUTES:
        assert hasattr(facts, name), name
    assert [f.name for f in facts.device_funcs()] == ["k"]
    assert facts.macros["WARP_SIZE"][0].text == "32" and facts.macros["WARP_SIZE"][0][1] == "32"
    # the definition (outside any function) and the use in k
    assert [(u.name, u.fn is not None) for u in facts.ident_uses] == [("WARP_SIZE", False), ("WARP_SIZE", True)]
    name, _node, fn, start, end = facts.ident_uses[1]  # still unpacks as a 5-tuple
    assert code[start:end].decode() == name and fn is facts.funcs[0]


def test_file_without_hazards_is_empty() -> None:
    facts = Facts(SourceFile("t.cu", b"int main() { return 0; }\n"), Config())
    assert facts.empty and facts.funcs == [] and facts.func_at(0) is None
