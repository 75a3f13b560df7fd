"""Value kinds of expressions: what an expression is (thread index, lane, warp id, mask,
warp-size constant: `kinds`), from its operands, the constants (`consts`) and the kinds `flow`
gave its variables; which lane/warp arithmetic a binary expression is (`classify_binary`); and
the logical-32 lane idioms hipport writes (`lane_idiom`, `in_half`, `is_half_mask`)."""

from __future__ import annotations

import re
from functools import cache
from sys import intern
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import consts, precise, threads, tiles
from hipport.wave64.facts.data import Func
from hipport.wave64.facts.kinds import (
    BDIM,
    BID,
    LANE32,
    LANEHW,
    LANEN,
    LANEREL,
    LANES,
    MASK,
    NWARP32,
    NWARPHW,
    SHIFTMASK,
    TID,
    WARP32,
    WARPHW,
    WS32,
    WS64,
    WSRT,
)
from hipport.wave64.facts.names import MASK_SOURCES, SHFL, SHFL_SYNC, TYPES32, TYPES64, is_warp_name

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_KIND_TYPES = frozenset({"identifier", "field_expression", "parenthesized_expression", "cast_expression",
                         "comma_expression", "binary_expression", "call_expression", "conditional_expression",
                         "subscript_expression", "unary_expression", "assignment_expression"})
_LANE_FN = re.compile(r"(?i)^(get_?)?lane_?id$|^laneid$|^lane$")


@cache
def _lane_fn(name: str) -> bool:
    return bool(_LANE_FN.search(name))


def kinds(fx: Facts, node: Node | None, fn: Func) -> int:
    if node is None:
        return 0
    key = node.id
    k = fx._memo.get(key)
    if k is None:
        # The operands first, deepest first, so that `_kinds` finds theirs in the memo: a sum of
        # n terms nests n levels deep, more than Python's recursion allows.
        for operand in _unknown_operands(fx, node, fn):
            fx._memo[operand.id] = _kinds(fx, operand, fn)
        k = _kinds(fx, node, fn)
        fx._memo[key] = k
    return k


def _unknown_operands(fx: Facts, node: Node, fn: Func) -> list[Node]:
    """The operands below `node` whose kinds `_kinds` asks for and the memo lacks, each after
    every operand of its own (the order to compute them in)."""
    found: list[Node] = []
    stack = [node]
    memo = fx._memo
    while stack:
        n = stack.pop()
        for op in _operands(fx, n, fn):
            if op is not None and op.id not in memo and op.type in _KIND_TYPES:
                found.append(op)
                stack.append(op)
    found.reverse()  # each operand was found after the node that holds it
    return found


def _operands(fx: Facts, node: Node, fn: Func) -> tuple[Node | None, ...]:
    """The nodes whose kinds `_kinds(node)` reads."""
    t = node.type
    if t == "binary_expression":
        op, left, right = fx.binop(node)
        return (left, right) if op else ()
    if t == "parenthesized_expression":
        return (node.named_child(0),) if node.named_child_count else ()
    if t == "cast_expression":
        return (node.child_by_field_id(sx.F_VALUE),)
    if t == "comma_expression" or t == "assignment_expression":
        return (node.child_by_field_id(sx.F_RIGHT),)
    if t == "conditional_expression":
        return (node.child_by_field_id(sx.F_CONSEQUENCE), node.child_by_field_id(sx.F_ALTERNATIVE))
    if t == "unary_expression":
        return (node.child_by_field_id(sx.F_ARGUMENT),)
    if t == "call_expression":
        name = fx.call_name(node)
        if name in ("min", "max", "umin", "umax"):
            args = sx.call_args(node)
            return (args[0],) if args else ()
        cast = _cast_operand(fx, node, name)
        if cast is not None:
            return (cast,)
    return ()


_CASTS = frozenset({"static_cast", "const_cast"})


def _cast_operand(fx: Facts, call: Node, name: str) -> Node | None:
    """The operand of a C++ cast written as a call: `static_cast<int>(x)`, `int(x)`,
    `uint32_t(x)`. A value conversion keeps what the value is, as `(int)x` does (a thread id
    stays one); reinterpret_cast and bit_cast reinterpret the bits and keep nothing."""
    if name in _CASTS:
        pass
    elif name:
        if name not in TYPES32 and name not in TYPES64:
            return None
    else:
        f = call.child_by_field_id(sx.F_FUNCTION)
        if f is None or f.type not in ("primitive_type", "sized_type_specifier"):
            return None
    args = sx.call_args(call)
    return args[0] if len(args) == 1 else None


def _kinds(fx: Facts, node: Node, fn: Func) -> int:
    t = node.type
    if t not in _KIND_TYPES:
        return 0
    if t == "identifier":
        name = fx.data[node.start_byte:node.end_byte].decode("utf-8", "replace")
        k = fn.env.get(name, 0) | fx.genv.get(name, 0) if (fn.env or fx.genv) else 0
        if (fn, name) in fx._plain:
            return k
        if name == "warpSize" or name in fx.aliases or name in fx.wave_macros or \
                name.startswith("__AMDGCN_WAVEFRONT_SIZE"):
            k |= WSRT
        elif name in fx.consts:
            k |= WS64 if fx.const_value(name) == 64 else WS32
        elif name in fn.tparams and is_warp_name(name):
            v = fn.tparams[name]
            if v.type == "number_literal":
                k |= WS64 if fx.src.text(v) == "64" else WS32
            elif fx.config.precise:  # the one value its instantiations give it
                tv = precise.tparam(fx, fn, name)
                k |= WS64 if tv == 64 else (WS32 if tv == 32 else 0)
        elif fx.external_const(name, fn):
            k |= WS32
        elif name in fn.tparams and threads.block_tparam(name) and name not in fn.vars:
            k |= BDIM
        elif not k:
            fx._plain.add((fn, intern(name)))  # never anything special: skip the checks next time
        return k
    if t == "field_expression":
        arg = node.child_by_field_id(sx.F_ARGUMENT)
        if arg is not None and arg.type == "identifier":
            a = fx.data[arg.start_byte:arg.end_byte]
            if a == b"threadIdx":
                return TID
            if a == b"blockDim":
                return BDIM
            if a == b"blockIdx":
                return BID
        return 0
    if t in ("parenthesized_expression", "cast_expression", "comma_expression"):
        inner = node.child_by_field_id(sx.F_VALUE) if t == "cast_expression" else (
            node.child_by_field_id(sx.F_RIGHT) if t == "comma_expression" else
            (node.named_child(0) if node.named_child_count else None))
        return fx.kinds(inner, fn)
    if t == "binary_expression":
        return _binary_kinds(fx, node, fn)
    if t == "call_expression":
        return _call_kinds(fx, node, fn)
    if t == "conditional_expression":
        return (fx.kinds(node.child_by_field_id(sx.F_CONSEQUENCE), fn)
                | fx.kinds(node.child_by_field_id(sx.F_ALTERNATIVE), fn))
    if t == "subscript_expression":
        arg = node.child_by_field_id(sx.F_ARGUMENT)
        if arg is not None and arg.type == "identifier":
            name = fx.src.text(arg)
            var = fn.vars.get(name) or fx.gvars.get(name)
            if var is not None and (var.is_array or var.is_pointer):
                return (fn.env.get(name, 0) | fx.genv.get(name, 0)) & (MASK | LANES)
        return 0
    if t == "unary_expression":
        op = node.child_by_field_id(sx.F_OPERATOR)
        ka = fx.kinds(node.child_by_field_id(sx.F_ARGUMENT), fn)
        if op is not None and op.type in ("~", "+"):
            return ka & (MASK | SHIFTMASK | TID | LANES)
        return 0
    if t == "assignment_expression":
        return fx.kinds(node.child_by_field_id(sx.F_RIGHT), fn)
    return 0


def _binary_kinds(fx: Facts, node: Node, fn: Func) -> int:
    op, left, right = fx.binop(node)
    if not op:
        return 0
    lk = fx.kinds(left, fn)
    rk = fx.kinds(right, fn)
    if op in ("&", "%", ">>", "/", "<<"):
        site = fx.classify_binary(node, fn, lk, rk)
        if site is not None:
            return {"lane32": LANE32, "lanert": LANEHW, "warp32": WARP32, "warprt": WARPHW,
                    "nwarp32": NWARP32, "nwarprt": NWARPHW}.get(site, 0)
    if op == "%" and lk & TID and not rk & (WS32 | WS64 | WSRT):
        # `tid % threads_per_rank`: still a thread index, within a group of threads (whose
        # `/ 32` is a warp id); a modulus that is no multiple of 32 makes no whole warps
        c = fx.cval(right, fn)
        return TID if c is None or (c[0] > 0 and c[0] % 32 == 0) else 0
    if op in ("&", "|", "^"):
        k = (lk | rk) & (MASK | SHIFTMASK)
        return k
    if op == "<<":
        if (rk & (LANES | LANEREL)) and not (lk & (MASK | TID)) and fx.cval(left, fn) is not None:
            return SHIFTMASK
        return lk & (MASK | SHIFTMASK)
    if op == ">>":
        if (rk & (LANES | LANEREL)) and fx.cval(left, fn) is not None:
            return SHIFTMASK
        return lk & (MASK | SHIFTMASK)
    if op in ("+", "-"):
        k = (lk | rk) & (TID | BDIM)
        if (lk | rk) & LANES:
            k |= ((lk | rk) & LANES) | LANEREL
        if op == "-" and lk & (MASK | SHIFTMASK):
            k |= lk & (MASK | SHIFTMASK)
        if op == "-" and fx.cval(left, fn) is not None and rk & LANES:
            k |= LANEREL
        return k
    if op == "*":
        return (lk | rk) & (TID | BDIM) if (lk | rk) & TID else 0
    return 0


def lane_idiom(fx: Facts, node: Node | None) -> int | None:
    """31 for `__lane_id() & 31` (the lane of a 32-lane logical warp), 32 for
    `__lane_id() & 32` (the first lane of the caller's 32-lane half of a wave64): the
    logical-32 forms hipport writes, which say the code runs as 32-lane warps."""
    if node is None:
        return None
    node = sx.unparen(node)
    if node.type != "binary_expression":
        return None
    op, left, right = fx.binop(node)
    if op != "&" or left is None or right is None:
        return None
    left = sx.unparen(left)
    if left.type != "call_expression" or fx.call_name(left) != "__lane_id" or sx.call_args(left):
        return None
    right = sx.unparen(right)
    if right.type != "number_literal":
        return None
    lit = sx.int_literal(fx.src.text(right))
    return lit[0] if lit is not None and lit[0] in (31, 32) else None


def in_half(fx: Facts, node: Node) -> bool:
    """Is `node` (or a mask it is ANDed into) shifted by `>> (__lane_id() & 32)`: the
    caller's 32-lane half that hipport writes under logical32?"""
    up = fx.src.ancestors(node)  # (a step a level; `.parent` walks down from the root)
    child, p = node, next(up, None)
    while p is not None:
        if p.type == "parenthesized_expression":
            child, p = p, next(up, None)
            continue
        if p.type != "binary_expression":
            return False
        op, left, right = fx.binop(p)
        if op == ">>":
            return left is not None and left.id == child.id and fx.lane_idiom(right) == 32
        if op != "&":
            return False
        child, p = p, next(up, None)
    return False


def is_half_mask(fx: Facts, node: Node | None) -> bool:
    """`(M << (__lane_id() & 32))`: a 32-lane mask placed on the caller's half of the wave,
    the 64-bit *_sync mask hipport writes under logical32 (`0xffffffffull << ...`)."""
    if node is None:
        return False
    node = sx.unparen(node)
    if node.type != "binary_expression":
        return False
    op, _left, right = fx.binop(node)
    return op == "<<" and fx.lane_idiom(right) == 32


def in_lane_idiom(fx: Facts, call: Node) -> bool:
    """Is this `__lane_id()` call the left side of a `lane_idiom`?"""
    p = sx.parent_skipping_parens(call)
    return p is not None and fx.lane_idiom(p) is not None


def classify_binary(fx: Facts, node: Node, fn: Func, lk: int | None = None,
                    rk: int | None = None) -> str | None:
    """lane32 / lanert / warp32 / warprt / nwarp32 / nwarprt for lane and warp arithmetic."""
    op, left, right = fx.binop(node)
    if left is None or right is None:
        return None
    if lk is None:
        lk = fx.kinds(left, fn)
    if rk is None:
        rk = fx.kinds(right, fn)
    if op == "&":
        for _a, ak, b, _bk in ((left, lk, right, rk), (right, rk, left, lk)):
            if not ak & TID:
                continue
            c = fx.cval(b, fn)
            if c is not None and c[0] == 31:
                return "lane32"
            if c is None and _is_rt_minus_one(fx, b, fn):
                return "lanert"
        return None
    if op == "%":
        if not lk & TID:
            return None
        c = fx.cval(right, fn)
        if c is not None and c[0] == 32:
            return "lane32"
        if c is None and (rk & WSRT or (rk & WS64 and c is None)):
            return "lanert"
        return None
    if op in (">>", "/"):
        c = fx.cval(right, fn)
        want = 5 if op == ">>" else 32
        base = sx.unparen(left)
        ceil = False
        if base.type == "binary_expression":
            bop, _bl, br = fx.binop(base)
            if bop == "+":
                cc = fx.cval(br, fn)
                if cc is not None and cc[0] == 31:
                    ceil = True
        if c is not None and c[0] == want:
            if lk & TID and not ceil:
                return "warp32"
            if lk & BDIM or (ceil and lk & TID):
                return "nwarp32"
            return None
        if op == "/" and c is None and rk & WSRT:
            if lk & TID:
                return "warprt"
            if lk & BDIM:
                return "nwarprt"
    return None


def _is_rt_minus_one(fx: Facts, node: Node, fn: Func) -> bool:
    node = sx.unparen(node)
    if node.type != "binary_expression":
        return False
    op, left, right_node = fx.binop(node)
    right = fx.cval(right_node, fn)
    return (op == "-" and right is not None and right[0] == 1
            and bool(fx.kinds(left, fn) & WSRT))


def _call_kinds(fx: Facts, node: Node, fn: Func) -> int:
    name = fx.call_name(node)
    if name + "()" in fx.consts or fx.header_const(name + "()") is not None:  # `warp_size()`
        key = consts.call_const(fx, node)
        if key is not None:
            return WS64 if fx.const_value(key) == 64 else WS32
    if name in MASK_SOURCES or name in ("hipport_match_any",):
        return MASK
    if name == "__lane_id":
        return LANEHW
    if name in ("ballot", "match_any", "match_all"):
        obj = sx.field_object(node)
        if obj is not None:
            return MASK
    if name == "thread_rank":
        obj = sx.field_object(node)
        if obj is not None and obj.type == "identifier" and is_tile_var(fx, fx.src.text(obj), fn):
            return LANEN
        return TID
    if name in ("min", "max", "umin", "umax"):
        args = sx.call_args(node)
        return fx.kinds(args[0], fn) & (TID | LANES) if args else 0
    cast = _cast_operand(fx, node, name)
    if cast is not None:
        return fx.kinds(cast, fn)
    callees = fx.by_name.get(name)
    if callees:
        k = 0
        for c in callees:
            k |= c.ret
        return k
    summary = fx.header_func(name) if name else None
    if summary is not None:  # defined in a header: what its code returns, whatever its name
        k = summary.ret
        if summary.ret_arg >= 0:  # bits of its argument: a mask stays one
            args = sx.call_args(node)
            if len(args) > summary.ret_arg:
                k |= fx.kinds(args[summary.ret_arg], fn) & (MASK | SHIFTMASK)
        return k
    if _lane_fn(name):
        return LANEN
    return 0


def is_tile_var(fx: Facts, name: str, fn: Func) -> bool:
    var = fn.vars.get(name)
    if var is None:
        return False
    if var.value is not None and b"tiled_partition" in fx.data[var.value.start_byte:var.value.end_byte]:
        return True
    if var.type_node is not None and b"thread_block_tile" in fx.data[var.type_node.start_byte:var.type_node.end_byte]:
        return True
    return tiles.is_group_param(fx, name, fn)  # `template <class CG> f(CG const& g)`


def is_coalesced_var(fx: Facts, name: str, fn: Func) -> bool:
    """A `cooperative_groups::coalesced_group` (declared so, or from `coalesced_threads()`)."""
    var = fn.vars.get(name)
    if var is None:
        return False
    if var.value is not None and b"coalesced_threads" in fx.data[var.value.start_byte:var.value.end_byte]:
        return True
    return var.type_node is not None and b"coalesced_group" in fx.data[
        var.type_node.start_byte:var.type_node.end_byte]


_SHUFFLES = frozenset(SHFL) | frozenset(SHFL_SYNC)
_BLOCK_UNIFORM = frozenset({b"blockIdx", b"blockDim", b"gridDim"})
_UNIFORM_LEAVES = frozenset({"number_literal", "char_literal", "true", "false", "null", "nullptr",
                             "sizeof_expression"})


def is_uniform(fx: Facts, node: Node | None, fn: Func, depth: int = 0) -> bool:
    """Is the value the same in every thread of the block: literals and constants, `blockIdx`,
    `blockDim`, `gridDim`, a kernel's scalar parameters, and constant locals and arithmetic of
    those? (A shuffle of such a value reads the same from any lane, at any width.) Syntactic
    and conservative: anything else, a warp's value (`tid / 32`) included, is not."""
    if node is None or depth > 8:
        return False
    t = node.type
    if t in _UNIFORM_LEAVES:
        return True
    if t == "field_expression":
        arg = node.child_by_field_id(sx.F_ARGUMENT)
        return arg is not None and arg.type == "identifier" and \
            fx.data[arg.start_byte:arg.end_byte] in _BLOCK_UNIFORM
    if t == "parenthesized_expression":
        return node.named_child_count == 1 and is_uniform(fx, node.named_child(0), fn, depth + 1)
    if t == "cast_expression":
        return is_uniform(fx, node.child_by_field_id(sx.F_VALUE), fn, depth + 1)
    if t == "call_expression":
        name = fx.call_name(node)
        if name in _SHUFFLES:  # a shuffle of a uniform value is that value
            args = sx.call_args(node)
            value = args[1 if name.endswith("_sync") else 0] if len(args) > 1 else None
            return is_uniform(fx, value, fn, depth + 1)
        cast = _cast_operand(fx, node, name)
        return cast is not None and is_uniform(fx, cast, fn, depth + 1)
    if t == "unary_expression":
        return is_uniform(fx, node.child_by_field_id(sx.F_ARGUMENT), fn, depth + 1)
    if t == "binary_expression":
        _op, left, right = fx.binop(node)
        return is_uniform(fx, left, fn, depth + 1) and is_uniform(fx, right, fn, depth + 1)
    if t == "conditional_expression":
        return all(is_uniform(fx, node.child_by_field_id(f), fn, depth + 1)
                   for f in (sx.F_CONDITION, sx.F_CONSEQUENCE, sx.F_ALTERNATIVE))
    if t == "identifier":
        if fx.cval(node, fn) is not None:
            return True
        name = fx.src.text(node)
        var = fn.vars.get(name)
        if var is None or var.is_pointer or var.is_array or _assigned(fx, fn, name):
            return False
        if var.is_param:  # a kernel's scalar argument: one value for the grid
            return fn.space == "global" and var.bits is not None and \
                var.declarator.type not in ("reference_declarator",)
        return var.value is not None and b"const" in fx.data[var.decl.start_byte:var.declarator.start_byte] \
            and is_uniform(fx, var.value, fn, depth + 1)
    return False


def _assigned(fx: Facts, fn: Func, name: str) -> bool:
    """Does the body assign `name` (=, +=, ++ ...) after its declaration?"""
    for a in fn.nodes.get("assignment_expression", []):
        left = a.child_by_field_id(sx.F_LEFT)
        if left is not None and left.type == "identifier" and fx.src.text(left) == name:
            return True
    body = fn.body
    if body is None:
        return False
    text = fx.data[body.start_byte:body.end_byte]
    n = name.encode()
    return (b"++" + n) in text or (n + b"++") in text or (b"--" + n) in text or (n + b"--") in text
