"""cuBLAS enums where cuSOLVER takes them: hipSOLVER's own spelling below a ROCm 6.0 floor.

cuSOLVER takes cuBLAS's fill-mode, operation and side enums. hipSOLVER had enums of its own
until ROCm 6.0 (hipSOLVER 2.0) made them aliases of hipBLAS's, and hipsolver.h does not
declare the hipBLAS ones, so below that floor a table entry's `hipsolver` spelling is written:

- everywhere in a file that uses cuSOLVER and calls no cuBLAS function;
- inside the arguments of a cuSOLVER call, in a file that uses both.

In a file that uses both, a variable declared with such a type keeps the hipBLAS type; where it
is passed to cuSOLVER it is reported (HP003), to cast by hand or to raise the floor.
"""

from __future__ import annotations

from functools import cache

from hipport.floor import features
from hipport.model import Severity
from hipport.registry import HP
from hipport.rules import Mapping, RuleSet
from hipport.source import Node
from hipport.translate.args import call_arguments
from hipport.translate.context import Context

ALIASED = "hipsolver-hipblas-enums"  # hipSOLVER 2.0: hipsolverFillMode_t and friends alias hipBLAS's enums
# Expressions an enum argument can sit in: `uplo ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER`.
_THROUGH = frozenset({"parenthesized_expression", "conditional_expression", "cast_expression"})
_WRAPPERS = frozenset({"init_declarator", "reference_declarator"})


@cache
def _spelled(rules: RuleSet) -> frozenset[str]:
    return frozenset(n for n, m in rules.names.items() if m.hipsolver)


def prepare(ctx: Context, names: set[str]) -> None:
    """Decide, from the names a file mentions, whether it is a cuSOLVER-only file."""
    rules = ctx.rules
    if not names & _spelled(rules) or ctx.floor.has(ALIASED):
        return
    found = [m for m in map(rules.names.get, names) if m is not None]
    ctx.solver = "only" if any(m.family == "cusolver" for m in found) and not any(
        m.family == "cublas" and m.kind == "function" for m in found) else "calls"


def spelling(ctx: Context, node: Node | None, m: Mapping) -> str | None:
    """The HIP name to write for `m` at `node` (None: a macro body, where only the file counts)."""
    if ctx.solver is None or not m.hipsolver:
        return m.hip
    if ctx.solver == "only" or (node is not None and _solver_call(ctx, node) is not None):
        return m.hipsolver
    return m.hip


def track(ctx: Context, node: Node, m: Mapping) -> None:
    """In a file that calls both libraries: remember the variables declared with a hipBLAS-spelled
    enum type, and report those passed to a cuSOLVER call."""
    if m.kind == "type" and m.hipsolver:
        _remember_variables(ctx, node, m)
    elif ctx.solver_vars and m.family == "cusolver" and m.kind == "function":
        _check_arguments(ctx, node, m)


def _check_arguments(ctx: Context, name_node: Node, callee: Mapping) -> None:
    found = call_arguments(name_node)
    if found is None:
        return
    for arg in found[1]:
        if arg.type != "identifier":
            continue
        var = ctx.src.text(arg)
        m = ctx.solver_vars.get(var)
        if m is None:
            continue
        since = features()[ALIASED]
        ctx.report(HP.NEEDS_NEWER_ROCM, Severity.ERROR, arg.start_byte, arg.end_byte,
                   f"`{var}` is a {m.hip} passed to {callee.hip}: hipSOLVER before ROCm "
                   f"{since} takes {m.hipsolver}; cast it (static_cast<{m.hipsolver}>({var})) "
                   f"or raise the ROCm floor with --rocm {since}", callee.family)


def _solver_call(ctx: Context, node: Node) -> Node | None:
    """The cuSOLVER call whose argument `node` is (through parentheses, ?: and casts)."""
    p = node.parent
    while p is not None and p.type in _THROUGH:
        p = p.parent
    if p is None or p.type != "argument_list" or p.parent is None or p.parent.type != "call_expression":
        return None
    fn = p.parent.child_by_field_name("function")
    m = ctx.rules.names.get(ctx.src.text(fn)) if fn is not None and fn.type == "identifier" else None
    return p.parent if m is not None and m.family == "cusolver" else None


def _remember_variables(ctx: Context, type_node: Node, m: Mapping) -> None:
    """`cublasFillMode_t uplo = ...;` (or a parameter): remember `uplo` as that type."""
    decl = type_node.parent
    if decl is None or decl.type not in ("declaration", "parameter_declaration"):
        return
    for d in decl.children_by_field_name("declarator"):
        while d.type in _WRAPPERS:
            inner = d.child_by_field_name("declarator") or (d.named_child(0) if d.named_child_count else None)
            if inner is None:
                break
            d = inner
        if d.type == "identifier":
            ctx.solver_vars[ctx.src.text(d)] = m
