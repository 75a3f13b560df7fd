"""Kind flow: the kinds of variables, parameters, return values and globals, followed through
assignments, calls and returns to a fixed point (`Func.env`, `Facts.genv`, `Func.ret`, and the
callees of each function), from the function bodies and `values.kinds`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import threads
from hipport.wave64.facts.data import Func
from hipport.wave64.facts.kinds import LANEN, MASK
from hipport.wave64.facts.text import Ranges, WordSet, inside

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

# Values that can carry a kind by themselves (the rest only through variables that do).
SEEDS = rb"threadIdx|blockDim|blockIdx|__ballot|__activemask|__match|__lane|lanemask|warpSize|thread_rank|ballot|match_any|[Ll]ane_?[Ii]d\b|laneid"
_SEEDS = re.compile(SEEDS)


def propagate(fx: Facts) -> None:
    """Follow kinds through assignments, parameters, returns and arrays to a fixed point."""
    flows: list[tuple[Func, str, Node, dict[str, int]]] = []  # (fn, target, value, the env it is in)
    calls: list[tuple[Func, Func, list[Node]]] = []  # (caller, callee, arguments)
    returns: list[tuple[Func, list[Node]]] = []
    members = threads.Members(fx)
    for fn in fx.funcs:
        if not fn.nodes:
            continue
        for v in fn.vars.values():
            if v.value is not None and v.value.type not in ("argument_list", "initializer_list"):
                flows.append((fn, v.name, v.value, fn.env))
        for member, value in members.initialisers(fx, fn):
            env = members.target(fn, member, initialiser=True)
            if env is not None:
                flows.append((fn, member, value, env))
        for a in fn.nodes.get("assignment_expression", []):
            left = a.child_by_field_id(sx.F_LEFT)
            right = a.child_by_field_id(sx.F_RIGHT)
            if left is None or right is None:
                continue
            lt = left.type
            while lt in ("subscript_expression", "parenthesized_expression", "pointer_expression"):
                left = left.child_by_field_id(sx.F_ARGUMENT) or (
                    left.named_child(0) if left.named_child_count else left)
                lt = left.type
                if lt == "identifier":
                    break
            if lt == "identifier":
                name = fx.src.text(left)
                menv = members.target(fn, name)
                env = fx.genv if name not in fn.vars and name in fx.gvars else (
                    fn.env if menv is None else menv)
                flows.append((fn, name, right, env))
        for c in fn.nodes.get("call_expression", []):
            name = fx.call_name(c)
            targets = fx.by_name.get(name)
            if not targets:
                continue
            callees = fn.callees
            if not isinstance(callees, set):
                callees = fn.callees = set()
            callees.add(name)
            args = sx.call_args(c)
            for target in targets:
                if target.params and args:
                    calls.append((fn, target, args))
        for g in fn.nodes.get("gnu_asm_expression", []):
            text = fx.src.text(g)
            k = 0
            if "%laneid" in text:
                k = LANEN
            elif "lanemask" in text or "activemask" in text or "vote.ballot" in text:
                k = MASK
            if k:
                outs = g.child_by_field_id(sx.F_OUTPUT_OPERANDS)
                for op in (outs.named_children if outs is not None else []):
                    val = op.child_by_field_id(sx.F_VALUE)
                    if val is not None and val.type == "identifier":
                        fn.env[fx.src.text(val)] = fn.env.get(fx.src.text(val), 0) | k
        rets = [rs.named_child(0) for rs in fn.nodes.get("return_statement", []) if rs.named_child_count]
        if rets:
            returns.append((fn, rets))
    names = sorted(set(fx.consts) | fx.aliases | fx.wave_macros | set(fx.wrappers) |
                   {f.name for f in fx.funcs if f.quick and f.name} |
                   {n for n, s in fx.header_funcs().items() if s.ret})  # lane ids, masks of headers
    spans = [(f[2].start_byte, f[2].end_byte) for f in flows]
    values = Ranges(fx.data, spans)
    seeds, named = values.matches(_SEEDS), values.word_matches(WordSet(names))
    active = []
    # (flow, start, end) of the values that mention no seed yet, looked at again as variables
    # gain kinds (a set of words per assignment of the file was a tenth of the facts' memory)
    pending: list[tuple[tuple[Func, str, Node, dict[str, int]], int, int]] = []
    for f, (start, end) in zip(flows, spans, strict=True):
        if inside(seeds, start, end) or inside(named, start, end):
            active.append(f)
        else:
            pending.append((f, start, end))
    # Thread ids named as such in parameters no call here refutes: seeded, followed, and taken
    # back (the whole flow again, without them) where a call of this file passes something else.
    base = {fn: dict(fn.env) for fn in fx.funcs if fn.env}  # (the inline-asm lane ids and masks)
    pseeds = threads.param_seeds(fx)
    while True:
        for fn, pname, k, _i in pseeds:
            fn.env[pname] = fn.env.get(pname, 0) | k
        _solve(fx, active, list(pending), returns, calls, members)
        refuted = threads.refuted(fx, pseeds, calls)
        if not refuted:
            break
        pseeds = [sd for sd in pseeds if sd not in refuted]
        for fn in fx.funcs:  # (in place: the flows hold these dicts)
            fn.env.clear()
            fn.env.update(base.get(fn, {}))
            fn.ret = 0
        fx.genv.clear()
        members.clear()
    fx._memo.clear()


def _solve(fx: Facts, active: list[tuple[Func, str, Node, dict[str, int]]],
           pending: list[tuple[tuple[Func, str, Node, dict[str, int]], int, int]],
           returns: list[tuple[Func, list[Node]]], calls: list[tuple[Func, Func, list[Node]]],
           members: threads.Members) -> None:
    active = list(active)
    for _ in range(8):
        fx._memo.clear()
        changed = False
        for fn, name, value, env in active:
            k = fx.kinds(value, fn)
            if not k:
                continue
            old = env.get(name, 0)
            if old | k != old:
                env[name] = old | k
                changed = True
        for fn, rets in returns:
            r = 0
            for node in rets:
                r |= fx.kinds(node, fn)
            if r | fn.ret != fn.ret:
                fn.ret |= r
                changed = True
        for fn, target, args in calls:
            for p, a in zip(target.params, args, strict=False):
                k = fx.kinds(a, fn)
                if k:
                    old = target.env.get(p.name, 0)
                    if old | k != old:
                        target.env[p.name] = old | k
                        changed = True
        if members.spread():
            changed = True
        if pending:  # values that mention a variable which now has a kind
            tracked = {n for f in fx.funcs for n, k in f.env.items() if k} | {n for n, k in fx.genv.items() if k}
            tracked |= {p.name for f in fx.funcs if f.env for p in f.params if f.env.get(p.name)}
            if tracked:
                found = Ranges(fx.data, [(p[1], p[2]) for p in pending]).word_matches(WordSet(tracked))
                more, still = [], []
                for pend in pending:
                    if inside(found, pend[1], pend[2]):
                        more.append(pend[0])
                    else:
                        still.append(pend)
                if more:
                    active += more
                    pending = still
                    changed = True
        if not changed:
            break
