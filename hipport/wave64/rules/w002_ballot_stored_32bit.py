"""W002 ballot-stored-32bit: a ballot / activemask / match result kept in a 32-bit type.

On AMD these return `unsigned long long`; `unsigned m = __ballot(p)` silently drops lanes 32-63
(no warning under -Wall -Wextra). In 32-lane code under logical32 every such call becomes the
caller's half, `(unsigned)(__ballot(p) >> (__lane_id() & 32))`, so 32-bit storage stays right and
bit positions match CUDA's; natively the storage becomes `unsigned long long` along the chain.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import BITOPS32, MASK, Facts, Func, Summary, Var, WarpCall, type_bits
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import WIDE, agree, consumer, finding, short, tile_relative, widen_var

RULE = W.BALLOT_STORED_32BIT
# The page `hipport explain W002` and rules/wave64/W002.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds ballot, `__activemask` and `__match_any_sync` results stored in, cast to, '
          'returned as or passed as a 32-bit integer, and 32-bit variables that receive such a '
          'mask through other variables. In 32-lane code it also reports a ballot used as a '
          'whole-wave mask.'),
    why=('On AMD these return `unsigned long long`. `unsigned m = __ballot(p)` drops lanes 32-63 '
         'without any diagnostic under `-Wall -Wextra` (only `-Wshorten-64-to-32` warns); every '
         'count or position derived from `m` then ignores half of the wave.'),
    before=('#include <hip/hip_runtime.h>\n'
            '__global__ void k(const int* in, int* count) {\n'
            '  const int lane = threadIdx.x % 32;\n'
            '  unsigned m = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);\n'
            '  if (lane == 0) atomicAdd(count, __popc(m));\n'
            '}\n'),
    safety=("Safe in a kernel with an unambiguous model: logical32 takes the caller's 32-lane half "
            "`(unsigned)(__ballot(p) >> (__lane_id() & 32))`, which has CUDA's bit layout, so the "
            '32-bit variable and everything downstream stay as written; native widens the variable '
            '(or parameter, return type, cast) to `unsigned long long`. A declaration shared with '
            'other names is reported without a fix.'),
    refs=('ballot', 'design'),
)


def sink_of(facts: Facts, fn: Func, node: Node) -> tuple[str, object]:
    """Where the value of `node` goes: var, cast, return, param, bitop, mask or other."""
    p, child = consumer(facts, node)
    if p is None:
        return "other", None
    t = p.type
    if t == "init_declarator":
        d = p.child_by_field_id(sx.F_DECLARATOR)
        while d is not None and d.type not in ("identifier",):
            d = d.child_by_field_id(sx.F_DECLARATOR)
        var = facts.var(fn, facts.src.text(d)) if d is not None else None
        return ("var", var) if var is not None else ("other", None)
    if t == "assignment_expression" and child.id == (p.child_by_field_id(sx.F_RIGHT) or p).id:
        left = p.child_by_field_id(sx.F_LEFT)
        while left is not None and left.type in ("subscript_expression", "parenthesized_expression"):
            left = left.child_by_field_id(sx.F_ARGUMENT) or (left.named_child(0) if left.named_child_count else None)
        if left is not None and left.type == "identifier":
            var = facts.var(fn, facts.src.text(left))
            if var is not None:
                return "var", var
        return "other", None
    if t == "cast_expression":
        return "cast", p
    if t == "return_statement":
        return "return", fn
    if t == "argument_list":
        call = p.parent
        if call is None or call.type != "call_expression":
            return "other", None
        name = facts.call_name(call)
        if name in BITOPS32:
            return "bitop", call
        args = sx.call_args(call)
        index = next((i for i, a in enumerate(args) if a.id == child.id), -1)
        if name.endswith("_sync") and index == 0:
            return "mask", call
        targets = facts.by_name.get(name)
        if targets and 0 <= index < len(targets[0].params):
            return "param", targets[0].params[index]
    return "other", None


def sink_bits(facts: Facts, kind: str, target: object) -> int | None:
    if kind in ("var", "param"):
        assert isinstance(target, Var)
        return None if target.is_pointer else target.bits
    if kind == "cast":
        assert isinstance(target, Node)
        tn = target.child_by_field_id(sx.F_TYPE)
        return type_bits(facts.src.text(tn)) if tn is not None else None
    if kind == "return":
        assert isinstance(target, Func)
        return type_bits(facts.src.text(target.ret_type)) if target.ret_type is not None else None
    return None


def widen(facts: Facts, kind: str, target: object) -> list[Edit] | None:
    if kind in ("var", "param"):
        assert isinstance(target, Var)
        return widen_var(target, RULE)
    if kind == "cast":
        assert isinstance(target, Node)
        tn = target.child_by_field_id(sx.F_TYPE)
        return [sx.replace(tn, WIDE, RULE)] if tn is not None else None
    if kind == "return":
        assert isinstance(target, Func)
        return [sx.replace(target.ret_type, WIDE, RULE)] if target.ret_type is not None else None
    return None


def _what(facts: Facts, wc: WarpCall) -> str:
    return f"`{short(facts.src.text(wc.node), 40)}`"


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    covered: set[int] = set()
    for wc in facts.calls:
        if wc.family == "tile":
            if wc.name not in ("ballot", "match_any") or em.strategy(wc.fn) != "native" or \
                    tile_relative(facts, em, wc.fn, wc.node):
                continue  # (a tile's own ballot: one bit per member, 32 bits hold it)
        elif wc.family not in ("ballot", "activemask", "match") or (wc.family == "match" and wc.base == "all"):
            continue
        if em.removed(wc.node) or facts.in_half(wc.node):
            continue  # (already the caller's 32-lane half: hipport's own logical-32 form)
        fn = wc.fn
        model, strategy = em.model(fn), em.strategy(fn)
        kind, target = sink_of(facts, fn, wc.node)
        if kind in ("bitop", "mask"):
            continue  # W003 / the *_sync rules
        bits = sink_bits(facts, kind, target)
        if isinstance(target, (Var, Func)):
            covered.add(id(target))
        is32 = bits is not None and bits <= 32
        if not is32 and model == "agnostic":
            continue
        if not is32 and strategy == "native":
            msg = f"{_what(facts, wc)} is a 64-bit wave mask in a kernel written for 32-lane warps"
            if bits is not None:
                out.append(finding(facts, RULE, wc.node, msg + "; kept: natively it stays 64-bit", fn, kept=True))
            else:
                out.append(finding(facts, RULE, wc.node, msg + "; natively it stays 64-bit: check that what"
                                   " stores it is 64-bit", fn))
            continue
        where = {"var": f"`{getattr(target, 'name', '')}`", "param": f"parameter `{getattr(target, 'name', '')}`",
                 "cast": "a 32-bit cast", "return": f"the 32-bit return value of `{fn.name}`"}.get(kind)
        if is32:
            msg = (f"{_what(facts, wc)} is 64-bit on AMD; keeping it in {where} drops lanes 32-63"
                   " without a diagnostic")
        else:
            msg = (f"{_what(facts, wc)} covers the whole 64-lane wave, but this kernel's other sites assume"
                   " 32-lane warps")
        edits: list[Edit] | None
        if strategy == "logical32":
            edits = em.half(wc.node, RULE)
            title = "take the caller's 32-lane half: `(unsigned)(X >> (__lane_id() & 32))`"
        else:
            edits = widen(facts, kind, target)
            title = "keep the mask in `unsigned long long`"
            if edits is None:
                msg += " (declaration shared with other names or a pointer: widen it by hand)"
        out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(title, edits or [], fn, True)))
    # 32-bit variables that receive a wave mask through other variables or parameters, functions
    # that return a wave mask in 32 bits, and masks stored into 32-bit buffers
    for fn in facts.device_funcs():
        for a in fn.node_list("assignment_expression"):
            left, right = a.child_by_field_id(sx.F_LEFT), a.child_by_field_id(sx.F_RIGHT)
            if left is None or right is None or left.type != "subscript_expression" or em.removed(a):
                continue
            if not facts.kinds(right, fn) & MASK or sx.unparen(right).type == "call_expression" or \
                    tile_relative(facts, em, fn, right):
                continue  # a ballot call stored directly is reported above
            base = left.child_by_field_id(sx.F_ARGUMENT)
            var = facts.var(fn, facts.src.text(base)) if base is not None and base.type == "identifier" else None
            if var is None or var.type_node is None or type_bits(facts.src.text(var.type_node)) != 32:
                continue
            msg = f"a 64-bit wave mask is stored into `{var.name}`, a buffer of 32-bit elements"
            if em.strategy(fn) == "logical32":
                out.append(finding(facts, RULE, a, msg + "; kept: under logical32 the mask is the caller's"
                                   " 32-lane half", fn, kept=True))
            else:
                out.append(finding(facts, RULE, a, msg + "; widen the buffer (and whoever reads it) by hand",
                                   fn))
        if fn.ret & MASK and fn.ret_type is not None and type_bits(facts.src.text(fn.ret_type)) == 32 \
                and id(fn) not in covered:
            covered.add(id(fn))
            msg = f"`{fn.name}` returns a 64-bit wave mask as a 32-bit value"
            if em.strategy(fn) == "logical32":
                out.append(finding(facts, RULE, fn.ret_type, msg + "; kept: under logical32 the mask is the"
                                   " caller's 32-lane half", fn, kept=True))
            else:
                out.append(finding(facts, RULE, fn.ret_type, msg, fn, em.fix(
                    "return `unsigned long long`", [sx.replace(fn.ret_type, WIDE, RULE)], fn, True)))
        for var in list(fn.params) + list(fn.vars.values()):
            if id(var) in covered or var.bits != 32 or var.is_pointer:
                continue
            if not fn.env.get(var.name, 0) & MASK or tile_relative(facts, em, fn, var.declarator):
                continue
            covered.add(id(var))
            strategy = em.strategy(fn)
            wrapper = _wrapper_source(facts, fn, var)
            if wrapper is not None:
                out.append(_from_wrapper(facts, fn, var, wrapper, strategy))
                continue
            msg = f"`{var.name}` is 32-bit but holds a 64-bit wave mask"
            if strategy == "logical32":
                out.append(finding(facts, RULE, var.declarator, msg + "; kept: under logical32 the mask is"
                                   " the caller's 32-lane half", fn, kept=True))
                continue
            edits = widen_var(var, RULE) or []
            out.append(finding(facts, RULE, var.declarator, msg, fn,
                               em.fix("keep the mask in `unsigned long long`", edits, fn, True)))
    return out


def _wrapper_source(facts: Facts, fn: Func, var: Var) -> Summary | None:
    """The header function returning a wave mask in 32 bits (`unsigned ballot(int p)`) that
    `var` is set from, if any: its initialiser or an assignment to it calls one."""
    values = [var.value] if var.value is not None else []
    for a in fn.node_list("assignment_expression"):
        left, right = a.child_by_field_id(sx.F_LEFT), a.child_by_field_id(sx.F_RIGHT)
        if left is not None and right is not None and left.type == "identifier" and facts.src.text(left) == var.name:
            values.append(right)
    for v in values:
        v = sx.unparen(v)
        while v.type == "cast_expression":
            inner = v.child_by_field_id(sx.F_VALUE)
            if inner is None:
                break
            v = sx.unparen(inner)
        if v.type != "call_expression" or sx.field_object(v) is not None:
            continue
        summary = facts.header_func(facts.call_name(v))
        if summary is not None and summary.ret & MASK and summary.ret_bits == 32:
            return summary
    return None


def _from_wrapper(facts: Facts, fn: Func, var: Var, s: Summary, strategy: str) -> Finding:
    """A 32-bit variable set from a header's 32-bit ballot wrapper: the wrapper already drops lanes
    32-63, so widening the variable alone changes nothing. Consistent when both keep 32-lane
    logical warps; otherwise the wrapper and its callers change together, by hand."""
    msg = f"`{var.name}` holds the wave mask `{s.name}()` ({s.where}) returns in 32 bits: lanes 32-63 are lost"
    if strategy == "logical32" and agree(strategy, s):
        return finding(facts, RULE, var.declarator, msg + "; kept: the header and this kernel keep logical"
                       " 32-lane warps (the caller's half)", fn, kept=True)
    return finding(facts, RULE, var.declarator, msg + "; widen the wrapper's return type and this variable"
                   " together by hand", fn)
