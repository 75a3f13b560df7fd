"""Imports run one way: cli -> commands -> the engine, validate and report -> translate, wave64
and build -> the model and the small shared modules. A module imports only from its own layer
or below, and no two groups import each other, even through a function-level import (type-only
imports under TYPE_CHECKING aside)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "hipport"
# A group is a subpackage (hipport.translate, ...) or a top-level module (hipport.pipeline).
LAYERS: dict[str, int] = {
    "__main__": 5, "cli": 5, "options": 5,  # options: the CLI's option declarations
    "commands": 4, "ui": 4,  # ui: the commands' terminal (progress, summaries through report)
    "engine": 3, "inputs": 3,  # inputs: a file with its dependencies, read before the passes
    "pipeline": 3, "passes": 3, "included": 3, "patch": 3, "pages": 3, "validate": 3, "report": 3,
    "verify": 3,  # verify: per-kernel checks, built on validate's trees and emulator
    "prefilter": 3,  # prefilter: which passes a file needs, from the passes' own cues
    "translate": 2, "wave64": 2, "build": 2, "precise": 2,  # precise: clang's reading, which wave64 asks
    **{m: 1 for m in ("hipport", "buildid", "portable", "model", "codec", "errors", "paths", "floor", "registry", "config",
                      "source", "parseview", "closure", "linemap", "linediff", "edits", "cache", "rules", "workspace",
                      "interrupt", "gitdiff", "lock", "hipaware", "suppress", "directives", "memo")},
}
NAMES = {5: "the CLI", 4: "commands", 3: "engine, validate and report", 2: "passes", 1: "shared"}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PACKAGE.rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _group(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "hipport"


def _type_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports under `if TYPE_CHECKING:`."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out |= {n.lineno for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.ImportFrom | ast.Import)}
    return out


def _edges() -> dict[tuple[str, str], list[str]]:
    mods = _modules()
    edges: dict[tuple[str, str], list[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_only(tree)
        for node in ast.walk(tree):
            if node.lineno in skip if isinstance(node, ast.Import | ast.ImportFrom) else True:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            for t in targets:
                if t in mods and _group(t) != _group(name):
                    where = f"{path.relative_to(ROOT)}:{node.lineno} imports {t}"
                    edges.setdefault((_group(name), _group(t)), []).append(where)
    return edges


def test_every_group_has_a_layer() -> None:
    groups = {_group(m) for m in _modules()}
    assert not groups - LAYERS.keys(), f"place these in tests/test_imports.py LAYERS: {sorted(groups - LAYERS.keys())}"


def test_imports_run_down() -> None:
    up = [f"{w} ({NAMES.get(LAYERS.get(a, 0), a)} -> {NAMES.get(LAYERS.get(b, 0), b)})"
          for (a, b), where in _edges().items() if LAYERS.get(b, 0) > LAYERS.get(a, 0) for w in where]
    assert not up, "imports running back up:\n" + "\n".join(up)


def test_no_cycles_between_groups() -> None:
    edges = _edges()
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []
    cycles: list[str] = []

    def visit(g: str) -> None:
        state[g] = 1
        path.append(g)
        for h in sorted(graph.get(g, ())):
            if state.get(h) == 1:
                loop = [*path[path.index(h):], h]
                cycles.append(" -> ".join(loop) + ": " + "; ".join(
                    edges[(x, y)][0] for x, y in zip(loop, loop[1:], strict=False)))
            elif h not in state:
                visit(h)
        path.pop()
        state[g] = 2

    for g in sorted(graph):
        if g not in state:
            visit(g)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)
