"""Warp-size constants and constant values: the named constants equal to 32 or 64 (macros,
const/constexpr variables, enumerators, template defaults: `consts`), those a header defines
(through `headers`), the value of macro bodies (`eval_text`) and of integer constant
expressions (`cval`), and every use of warpSize or of such a constant (`ident_uses`)."""

from __future__ import annotations

import operator
import re
from functools import cache
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import platform
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import precise
from hipport.wave64.facts.data import Func, IdentUse, WarpConst
from hipport.wave64.facts.names import is_warp_name, type_bits
from hipport.wave64.facts.text import SPACES, word_hits

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_K_NAME = re.compile(r"k[A-Z]\w*")
_FULL_MASK_NAME = re.compile(r"(?i)^(k_?)?(full|all|final|warp)_?(lanes?_?|warp_?)?mask$")
_WORD_STR = re.compile(r"[A-Za-z_]\w*")
_EVAL_TOKENS = re.compile(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|[-+*/%&|^~()]")
_CONST_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv, "%": operator.mod,
              "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor}


@cache
def _external_name(name: str) -> bool:
    """WARP_SIZE or kWarpSize: the shape of a warp-size constant defined in another file."""
    return name.isupper() and is_warp_name(name) or bool(_K_NAME.fullmatch(name)) and is_warp_name(name)


@cache
def _full_mask_name(name: str) -> bool:
    return bool(_FULL_MASK_NAME.search(name))


_BINARY = {  # C's binary operators on integers: precedence (higher binds tighter) and operation
    "*": (5, operator.mul), "/": (5, lambda a, b: _c_div(a, b)[0]), "%": (5, lambda a, b: _c_div(a, b)[1]),
    "+": (4, operator.add), "-": (4, operator.sub),
    "<<": (3, lambda a, b: a << b), ">>": (3, lambda a, b: a >> b),
    "&": (2, operator.and_), "^": (1, operator.xor), "|": (0, operator.or_),
}
_LIMIT = 1 << 64  # no C integer constant is wider: a value past it is not a warp-size constant


class _NotConstant(Exception):
    pass


def _c_div(a: int, b: int) -> tuple[int, int]:
    """C's quotient (toward zero) and remainder."""
    if b == 0:
        raise _NotConstant
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return q, a - q * b


@cache
def _eval_digits(expr: str) -> int | None:
    """The value of an expression of integers and C's operators (a macro body whose macros are
    replaced by their values, tokens separated by spaces), or None. Evaluated by a small
    precedence parser, never by Python: a body comes from the tree, and each value is kept
    within 64 bits (a shift by 4,000,000,000 would take gigabytes)."""
    toks = expr.split()
    at = 0

    def primary() -> int:
        nonlocal at
        if at >= len(toks):
            raise _NotConstant
        t = toks[at]
        at += 1
        if t == "(":
            v = binary(0)
            if at >= len(toks) or toks[at] != ")":
                raise _NotConstant
            at += 1
            return v
        if t in ("-", "+", "~"):
            v = primary()
            return -v if t == "-" else (~v if t == "~" else v)
        if not t.isdigit():
            raise _NotConstant
        return int(t)

    def binary(floor: int) -> int:
        nonlocal at
        left = primary()
        while at < len(toks) and toks[at] in _BINARY and _BINARY[toks[at]][0] >= floor:
            name = toks[at]
            prec, op = _BINARY[name]
            at += 1
            right = binary(prec + 1)
            if name in ("<<", ">>") and not 0 <= right < 64:
                raise _NotConstant
            left = op(left, right)
            if not -_LIMIT < left < _LIMIT:
                raise _NotConstant
        return left

    try:
        value = binary(0)
    except (_NotConstant, RecursionError):
        return None
    return value if at == len(toks) else None


def find_consts(fx: Facts) -> None:
    _arch_aliases(fx)
    for name, defs in fx.macros.items():
        if name in fx.arch_macros:
            continue
        for node, text, amd in defs:
            v = fx.eval_text(text)
            clang = v is None and fx.config.precise and len(defs) == 1  # (precise: macros with one definition)
            if clang:
                v = precise.value(fx, name)
            if v is None or v[0] not in (32, 64) or not is_warp_name(name):
                continue
            value = node.child_by_field_id(sx.F_VALUE)
            if value is None:
                continue
            raw = fx.data[value.start_byte:value.end_byte]
            m = None if clang else re.search(rb"\b(32|64)\b", raw)  # (clang's value: the whole body is it)
            span = (value.start_byte + m.start(), value.start_byte + m.end()) if m else (
                value.start_byte, value.end_byte)
            fx.consts.setdefault(name, []).append(WarpConst(
                name=name, value=v[0], kind="macro", node=node, value_node=None, value_span=span,
                amd_only=amd))
    for item in fx.top_items:
        consts_in_decl(fx, item, None)
        if item.type == "declaration" and not (fx.inactive and fx.is_inactive(item.start_byte)):
            for var in fx.declared_vars(item):  # (a declaration AMD never compiles does not count)
                fx.gvars[var.name] = var
    for fn in fx.funcs:
        _const_function(fx, fn)
    seen: set[int] = set()  # a class template's parameters reach each of its member functions
    for fn in fx.funcs:
        for name, tp in fn.tparams.items():
            if tp.parent is None or tp.id in seen:
                continue
            via = alias_of(fx, tp, fn)
            if tp.type == "number_literal" and is_warp_name(name):
                lit = sx.int_literal(fx.src.text(tp))
                if lit and lit[0] in (32, 64):
                    seen.add(tp.id)
                    fx.consts.setdefault(name, []).append(WarpConst(
                        name=name, value=lit[0], kind="template", node=tp.parent, value_node=tp,
                        value_span=(tp.start_byte, tp.end_byte), func=fn))
            elif via is not None:  # `template <int GROUP_DIM = WARP_SIZE>`
                seen.add(tp.id)
                fx.consts.setdefault(name, []).append(WarpConst(
                    name=name, value=via[1], kind="template", node=tp.parent, value_node=tp,
                    value_span=(tp.start_byte, tp.end_byte), func=fn, via=via[0]))


def _const_function(fx: Facts, fn: Func) -> None:
    """`constexpr int warp_size() { return 32; }` (cuCollections, ggml's
    `ggml_cuda_get_physical_warp_size()`): a zero-argument constexpr function whose body only
    returns 32 or 64 is a warp-size constant, keyed `name()`."""
    if fn.body is None or not is_warp_name(fn.name):
        return
    stmts = [c for c in fn.body.named_children if c.type != "comment"]
    if len(stmts) != 1:
        return
    pl = fn.param_list
    if pl is not None and fx.src.text(pl).replace(" ", "") not in ("()", "(void)"):
        return
    head = fx.data[fn.node.start_byte:fn.body.start_byte]
    ret = stmts[0]
    if not re.search(rb"\bconstexpr\b", head) or ret.type != "return_statement" or ret.named_child_count != 1:
        return
    v = ret.named_child(0)
    lit = sx.int_literal(fx.src.text(v)) if v.type == "number_literal" else None
    if lit is None or lit[0] not in (32, 64):
        return
    key = fn.name + "()"
    fx.consts.setdefault(key, []).append(WarpConst(
        name=key, value=lit[0], kind="function", node=fn.node, value_node=v, value_span=(v.start_byte, v.end_byte),
        amd_only=bool(fx.amd_only) and fx.is_amd_only(fn.node.start_byte)))


def call_const(fx: Facts, node: Node) -> str | None:
    """`name()` when `node` is a call, without arguments, of a constexpr function returning a
    warp size (this file's or an included header's), else None."""
    if node.type != "call_expression":
        return None
    args = sx.arg_list(node)
    if args is None or args.named_child_count:
        return None
    key = fx.call_name(node) + "()"
    return key if key in fx.consts or fx.header_const(key) is not None else None


def alias_of(fx: Facts, value: Node, fn: Func | None) -> tuple[str, int] | None:
    """(name, value) when `value` is just another warp-size constant (`= WARP_SIZE`), or None: a
    constant initialised so is an alias, a warp size that follows the one it names."""
    n = sx.unparen(value)
    if n.type == "type_descriptor" and n.named_child_count == 1:
        n = n.named_child(0)
    key = call_const(fx, n)
    if key is not None:  # `auto constexpr tile = cuco::detail::warp_size();`
        v = const_value(fx, key)
        return (key, v) if v in (32, 64) else None
    if n.type not in ("identifier", "type_identifier"):
        return None
    name = fx.src.text(n)
    if name in fx.arch_macros or name in fx.wave_macros or name in fx.aliases:
        return None  # a per-architecture wave size: nothing to follow
    v = const_value(fx, name)
    if v is None and external_const(fx, name, fn):
        v = 32
    return (name, v) if v in (32, 64) else None


def _arch_aliases(fx: Facts) -> None:
    """A macro defined as a per-architecture wave size (`#define WARP_SIZE HIPPORT_WAVE_SIZE`,
    which hipport writes) is one too, however the chain evaluates on one architecture."""
    if not fx.arch_macros:
        return
    for _ in range(8):
        more = {name for name, defs in fx.macros.items() if name not in fx.arch_macros
                and _WORD_STR.fullmatch(defs[0][1]) and defs[0][1] in fx.arch_macros}
        if not more:
            return
        fx.arch_macros |= more


def consts_in_decl(fx: Facts, item: Node, fn: Func | None) -> None:
    if item.type == "enum_specifier":
        body = item.child_by_field_id(sx.F_BODY)
        for e in (body.named_children if body is not None else []):
            if e.type != "enumerator":
                continue
            n, v = e.child_by_field_id(sx.F_NAME), e.child_by_field_id(sx.F_VALUE)
            if n is None or v is None or v.type != "number_literal":
                continue
            lit = sx.int_literal(fx.src.text(v))
            name = fx.src.text(n)
            if lit and lit[0] in (32, 64) and is_warp_name(name):
                fx.consts.setdefault(name, []).append(WarpConst(
                    name=name, value=lit[0], kind="enumerator", node=e, value_node=v,
                    value_span=(v.start_byte, v.end_byte), func=fn,
                    amd_only=bool(fx.amd_only) and fx.is_amd_only(e.start_byte)))
        return
    if item.type not in ("declaration", "field_declaration"):
        return
    if fx.inactive and fx.is_inactive(item.start_byte):
        return
    head = fx.data[item.start_byte:(item.child_by_field_id(sx.F_TYPE) or item).start_byte]
    if b"const" not in head:  # (`auto constexpr n = ...`: a qualifier after the type)
        decl = item.child_by_field_id(sx.F_DECLARATOR)
        if decl is None or b"constexpr" not in fx.data[item.start_byte:decl.start_byte]:
            return
    for var in fx.declared_vars(item):
        if var.value is None or var.is_array or var.is_pointer:
            continue
        if var.value.type != "number_literal":
            via = alias_of(fx, var.value, fn)
            if via is not None and via[0] != var.name:  # `constexpr int simd_size = WARP_SIZE;`
                fx.consts.setdefault(var.name, []).append(WarpConst(
                    name=var.name, value=via[1], kind="variable", node=var.declarator, value_node=var.value,
                    value_span=(var.value.start_byte, var.value.end_byte), func=fn,
                    amd_only=bool(fx.amd_only) and fx.is_amd_only(item.start_byte), via=via[0]))
            elif via is None and fx.config.precise and is_warp_name(var.name):  # clang's value, if any
                pv = precise.declared(fx, var.declarator)
                if pv is not None and pv[0] in (32, 64):
                    fx.consts.setdefault(var.name, []).append(WarpConst(
                        name=var.name, value=pv[0], kind="variable", node=var.declarator, value_node=var.value,
                        value_span=(var.value.start_byte, var.value.end_byte), func=fn,
                        amd_only=bool(fx.amd_only) and fx.is_amd_only(item.start_byte)))
            continue
        lit = sx.int_literal(fx.src.text(var.value))
        if lit and lit[0] in (32, 64) and is_warp_name(var.name):
            fx.consts.setdefault(var.name, []).append(WarpConst(
                name=var.name, value=lit[0], kind="variable", node=var.declarator, value_node=var.value,
                value_span=(var.value.start_byte, var.value.end_byte), func=fn,
                amd_only=bool(fx.amd_only) and fx.is_amd_only(item.start_byte)))


def external_const(fx: Facts, name: str, fn: Func | None) -> bool:
    """A warp-size constant this file uses but does not define: 32 on CUDA. One an included
    header defines, whatever its spelling (moderngpu's `enum { warp_size = 32 }`), or, where no
    header read defines it, a name shaped like one (`WARP_SIZE`, `kWarpSize`)."""
    if name in fx.macros or name in fx.gvars or name in fx.consts or name.startswith("__") \
            or name == "warpSize" or platform.platforms().kind(name) is not None:
        return False  # (HIPPORT_WAVE_SIZE and the like are per-architecture wave sizes)
    if fn is not None and (name in fn.vars or name in fn.tparams):
        return False
    h = fx.header_const(name)
    if h is not None:  # defined in an included header: 32 there, and not chosen for AMD
        return h[0] == 32 and not h[1]
    return _external_name(name)


def const_value(fx: Facts, name: str) -> int | None:
    """The value a warp-size constant takes on AMD (an AMD-only definition wins): this file's,
    else an included header's."""
    defs = fx.consts.get(name)
    if not defs:
        if name in fx.macros or name in fx.gvars:
            return None  # the file's own definition, not a warp-size constant, hides the header's
        h = fx.header_const(name)
        return h[0] if h is not None else (precise.warp_value(fx, name) if fx.config.precise else None)
    for d in defs:
        if d.amd_only:
            return d.value
    return defs[0].value


def eval_text(fx: Facts, text: str, depth: int = 0) -> tuple[int, int] | None:
    """Evaluate a macro body made of integer literals, other macros and + - * / << >> & | ~."""
    if depth > 8 or not text:
        return None
    key = (text, depth)
    if key in fx._eval_cache:
        return fx._eval_cache[key]
    value = _eval_text(fx, text, depth)
    fx._eval_cache[key] = value
    return value


def _eval_text(fx: Facts, text: str, depth: int) -> tuple[int, int] | None:
    toks = _EVAL_TOKENS.findall(text)
    if not toks or "".join(toks) != SPACES.sub("", text):
        return None
    out = []
    bits = 32
    for t in toks:
        if t[0].isdigit():
            lit = sx.int_literal(t)
            if lit is None:
                return None
            out.append(str(lit[0]))
            bits = max(bits, lit[1])
        elif t[0].isalpha() or t[0] == "_":
            defs = fx.macros.get(t)
            if defs:
                v = fx.eval_text(defs[0][1], depth + 1)
            else:
                body = fx.header_body(t)
                v = fx.eval_text(body, depth + 1) if body is not None else fx.header_value(t)
            if v is None:
                return None
            out.append(str(v[0]))
            bits = max(bits, v[1])
        else:
            out.append(t)
    value = _eval_digits(" ".join(out))
    if value is None:
        return None
    if value < 0 or "~" in toks:
        value &= (1 << bits) - 1
    return value, bits


def cval(fx: Facts, node: Node | None, fn: Func | None = None) -> tuple[int, int, bool] | None:
    """(value, bits, named) of an integer constant expression; named: uses a warp constant."""
    # The left operands of binary expressions, and the operands of parentheses, unary
    # operators and casts, are followed in a loop, not by recursion: a sum of n terms nests
    # n levels deep, and so do ((a + 1) + 2) + 3, - - - a and (int)(int)(int)a. The value of
    # each binary expression is kept (rules ask for every one of a chain: n walks of n levels
    # otherwise), except below a constant's own value, which a depth limit cuts (`_cdepth`).
    memo = fx._cvals if not fx._cdepth else None
    chain: list[Node] = []
    a: tuple[int, int, bool] | None = None
    found = False  # a kept value of the chain was met
    while node is not None:
        t = node.type
        if t == "binary_expression":
            if memo is not None and (node.id, fn) in memo:
                a, found = memo[(node.id, fn)], True
                break
            chain.append(node)
            node = fx.binop(node)[1]
        elif t == "parenthesized_expression":
            node = node.named_child(0) if node.named_child_count else None
        elif t == "unary_expression":
            chain.append(node)
            node = node.child_by_field_id(sx.F_ARGUMENT)
        elif t == "cast_expression":
            chain.append(node)
            node = node.child_by_field_id(sx.F_VALUE)
        else:
            break
    if not found:
        a = _cval(fx, node, fn)
        if a is None and node is not None and fx.config.precise:
            a = precise.cval(fx, node, fn)
    for b in reversed(chain):  # innermost first
        t = b.type
        if t == "unary_expression":
            a = _unary(b, a)
            continue
        if t == "cast_expression":
            a = _cast(fx, b, a)
            continue
        if a is not None:
            o, _, right = fx.binop(b)
            c = fx.cval(right, fn)
            if c is None or not o:
                a = None
            else:
                try:
                    a = _CONST_OPS[o](a[0], c[0]), max(a[1], c[1]), a[2] or c[2]
                except (KeyError, ZeroDivisionError):
                    a = None
        if memo is not None:
            memo[(b.id, fn)] = a
    return a


def _cval(fx: Facts, node: Node | None, fn: Func | None) -> tuple[int, int, bool] | None:
    """cval of a node that is not a binary, parenthesised, unary or cast expression."""
    if node is None:
        return None
    t = node.type
    if t == "type_descriptor" and node.named_child_count == 1 and node.named_child(0).type == "type_identifier":
        node, t = node.named_child(0), "identifier"  # `tiled_partition<WARP_SIZE>`: the parser's type reading
    if t == "number_literal":
        lit = sx.int_literal(fx.src.text(node))
        return (lit[0], lit[1], False) if lit else None
    if t == "call_expression":
        key = call_const(fx, node)
        cv = fx.const_value(key) if key is not None else None
        return (cv, 32, True) if cv is not None else None
    if t == "identifier":
        name = fx.src.text(node)
        cv = fx.const_value(name)
        if cv is not None:
            return cv, 32, True
        if fn is not None and name in fn.tparams and fn.tparams[name].type == "number_literal":
            lit = sx.int_literal(fx.src.text(fn.tparams[name]))
            return (lit[0], lit[1], False) if lit else None
        defs = fx.macros.get(name)
        if defs:
            if name in fx.arch_macros:  # a per-architecture wave size (HIPPORT_WAVE_SIZE): no one value
                return None
            v = fx.eval_text(defs[0][1])
            return (v[0], v[1], False) if v else None
        if fx.external_const(name, fn):
            return 32, 32, True
        if _full_mask_name(name) and name not in fx.gvars and (fn is None or name not in fn.vars):
            return 0xFFFFFFFF, 32, False
        g = fx.gvars.get(name)
        if g is not None and g.value is not None and (fn is None or name not in fn.vars):
            head = fx.data[g.decl.start_byte:g.decl.end_byte]
            if b"const" in head and g.value.type not in ("argument_list", "initializer_list"):
                fx._cdepth += 1
                try:
                    return fx.cval(g.value, None) if fx._cdepth < 8 else None
                finally:
                    fx._cdepth -= 1
        if fn is not None:
            var = fn.vars.get(name)
            if var is not None and var.value is not None and var.value.type == "number_literal":
                head = fx.data[var.decl.start_byte:var.decl.end_byte]
                if b"const" in head:
                    lit = sx.int_literal(fx.src.text(var.value))
                    return (lit[0], lit[1], False) if lit else None
        if fn is not None and (name in fn.vars or name in fn.tparams):
            return None
        if name not in fx.gvars:
            hv = fx.header_value(name)  # a constant an included header defines
            if hv is not None:
                return hv[0], hv[1], False
        return None
    return None


def _unary(node: Node, a: tuple[int, int, bool] | None) -> tuple[int, int, bool] | None:
    """cval of a unary expression whose operand's is `a`."""
    op = node.child_by_field_id(sx.F_OPERATOR)
    if a is None or op is None:
        return None
    mask = (1 << a[1]) - 1
    if op.type == "~":
        return (~a[0]) & mask, a[1], a[2]
    if op.type == "-":
        return (-a[0]) & mask, a[1], a[2]
    return a


def _cast(fx: Facts, node: Node, val: tuple[int, int, bool] | None) -> tuple[int, int, bool] | None:
    """cval of a cast whose value's is `val`: `(unsigned long long)(1)` is 64-bit."""
    tn = node.child_by_field_id(sx.F_TYPE)
    bits = type_bits(fx.src.text(tn)) if val is not None and tn is not None else None
    if val is None or bits is None:
        return val
    return val[0] & ((1 << bits) - 1), bits, val[2]


def find_identifier_uses(fx: Facts) -> None:
    fx.aliases = {n for n, defs in fx.macros.items() if defs[0][1] == "warpSize"}
    fx.wave_macros = {n for n, defs in fx.macros.items()
                        if defs[0][1] in ("__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__")
                        or n in fx.arch_macros}
    names = ["warpSize", "__AMDGCN_WAVEFRONT_SIZE__", "__AMDGCN_WAVEFRONT_SIZE"]
    names += [n for n in fx.consts] + sorted(fx.aliases | fx.wave_macros)
    # Warp-size constants of the included headers, used here (`tid / WARP_SIZE` with
    # `#define WARP_SIZE 32` in a header on an include path) and not defined here.
    names += sorted(n for n in fx.header_consts() if n not in fx.consts and n not in fx.macros
                    and n not in fx.gvars and n.removesuffix("()").encode() in fx.data)
    calls = [n for n in names if n.endswith("()")]  # constexpr functions: their calls
    names = [n for n in names if not n.endswith("()")]
    hits = word_hits(fx.data, names)
    if hits is None:
        pattern = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in names) + rb")\b")
        hits = [(m.start(), m.end(), m.group(1).decode()) for m in pattern.finditer(fx.data)]
    if calls:
        pattern = re.compile(rb"\b(" + b"|".join(re.escape(n[:-2].encode()) for n in calls) + rb")\s*\(\s*\)")
        hits = sorted(hits + [(m.start(), m.start() + len(m.group(1)), m.group(1).decode() + "()")
                              for m in pattern.finditer(fx.data)])
    fx.ident_uses = []
    for start, end, name in hits:
        node = fx.src.node_at(start, end)
        if node is None or node.type not in ("identifier", "type_identifier", "field_identifier"):
            # inside raw preprocessor text (#define X warpSize) we still record it
            if node is None or node.type != "preproc_arg":
                continue
        if fx.inactive and fx.is_inactive(start):
            continue
        fn = fx.func_at(start)
        if node.type == "preproc_arg":
            fx.ident_uses.append(IdentUse(name, node, None, start, end))
            continue
        fx.ident_uses.append(IdentUse(name, node, fn, start, end))
        if fn is not None:
            fn.idents.append((name, node))
            for c in fx.consts.get(name, []):
                if c.func is None or c.func is fn:
                    c.users.append(fn)
