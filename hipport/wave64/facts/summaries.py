"""Function summaries: what each device function of a header does with lanes, read from its
code once per header content (issue 31, "wrappers"). Real code keeps its warp primitives in
headers (`get_lane_id()` through PTX `%laneid`, `ballot()` returning `unsigned`,
`warp_reduce_sum()` as an xor butterfly 16..1) and calls them from the kernels; a summary says,
for the calls in the including file, what the callee returns (a lane id and the lanes the
header's own port gives it, a wave mask and its width), whether it is a 32-bit bit operation on
its first argument, a 32-lane shuffle reduction at the default width, or collective at all.

Summaries come from the code (the header's own `Facts`, built with its include closure), never
from a function's name; `headers.header_func` looks them up by name, a definition in the file
itself taking precedence."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hipport import directives
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func
from hipport.wave64.facts.kinds import (
    BDIM,
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
    WARPS,
)
from hipport.wave64.facts.names import BITOPS32, type_bits

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

# lane semantics in inline PTX: the asm makes its function collective
_PTX_LANE = ("%laneid", "lanemask", "activemask", "vote.", "shfl.", "match.", "redux.", "elect.")
_UNROLLED = frozenset({16, 8, 4, 2, 1})


@dataclass(frozen=True, slots=True)
class Summary:
    name: str
    path: str  # the header that defines it
    line: int  # 1-based line of the definition
    ret: int = 0  # kinds of the return value: LANE32 / LANEHW / LANEN, MASK, SHIFTMASK
    ret_bits: int | None = None  # bits of the return type (32: `unsigned ballot(...)`)
    lane_port: int = 0  # lanes of the returned lane id once the header is ported: 32 or 64
    bitop: str = ""  # the 32-bit builtin it applies to its first, 32-bit, parameter (`__popc`)
    reduce: int = 0  # a shuffle reduction / butterfly at the default width over 32 lanes, or the wave (64)
    strategy: str = ""  # the strategy the header's own analysis gives its group
    collective: bool = False  # it, or what it calls, performs a cross-lane operation
    templated: bool = False  # a template: explicit template arguments at a call may change it
    ret_arg: int = -1  # returns bits of this argument (bit-field extract, shifts, masks): its mask kinds
    stride_arg: int = -1  # a function-like macro looping from this argument (a lane) ...
    stride: int = 0  # ... in steps of this many lanes times a factor (32: UNROLLED_WARP_COPY)

    @property
    def where(self) -> str:
        return f"{self.path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{self.line}"


def merge(a: Summary, b: Summary) -> Summary:
    """Two definitions of one name (overloads, #if branches): only what both say holds."""
    if a == b:
        return a
    return Summary(a.name, a.path, a.line, a.ret & b.ret, a.ret_bits if a.ret_bits == b.ret_bits else None,
                   a.lane_port if a.lane_port == b.lane_port else 0, a.bitop if a.bitop == b.bitop else "",
                   a.reduce if a.reduce == b.reduce else 0, a.strategy if a.strategy == b.strategy else "",
                   a.collective or b.collective, a.templated or b.templated,
                   a.ret_arg if a.ret_arg == b.ret_arg else -1,
                   a.stride_arg if a.stride_arg == b.stride_arg else -1, a.stride if a.stride == b.stride else 0)


def summarize(hf: Facts) -> dict[str, Summary]:
    """The summaries of the device functions `hf` (a header's facts) defines."""
    funcs = [f for f in hf.funcs if f.device and f.name and f.body is not None]
    if not funcs:
        return {}
    reduce = {id(f): _reduces(hf, f) for f in funcs}
    collective = {id(f): _collective(hf, f) for f in funcs}
    for _ in range(4):  # through the header's own calls: a wrapper of a wrapper
        changed = False
        for f in funcs:
            for name in f.callees:
                for g in hf.by_name.get(name, []):
                    if id(g) not in reduce:
                        continue  # a host function
                    if collective[id(g)] and not collective[id(f)]:
                        collective[id(f)] = changed = True
                    if reduce[id(g)] and not reduce[id(f)] and _passes_width(hf, f, g):
                        reduce[id(f)] = reduce[id(g)]
                        changed = True
        if not changed:
            break
    out: dict[str, Summary] = {}
    for f in funcs:
        s = _summary(hf, f, reduce[id(f)], collective[id(f)])
        out[f.name] = merge(out[f.name], s) if f.name in out else s
    return out


def _summary(hf: Facts, f: Func, reduce: int, collective: bool) -> Summary:
    ret = f.ret & (LANES | MASK | SHIFTMASK | WARPS | NWARP32 | NWARPHW | TID | BDIM)
    if f.ret & LANEREL:  # lane +/- k: not a lane id
        ret &= ~LANES
    strategy = f.group.strategy if f.group is not None else "native"
    model = f.group.model if f.group is not None else "agnostic"
    port = 0
    if ret & LANEHW:  # W004 narrows `__lane_id()` only in a mixed group made logical32
        port = 32 if model == "mixed" and strategy == "logical32" else 64
    elif ret & (LANEN | LANE32):  # W012 / W004 follow the group's strategy
        port = 32 if strategy == "logical32" else 64
    bits = type_bits(hf.src.text(f.ret_type)) if f.ret_type is not None else None
    line = hf.src.node_span(f.node).line
    return Summary(f.name, hf.src.path, line, ret, bits, port, _bitop(hf, f), reduce, strategy, collective,
                   bool(f.tparams), _ret_arg(hf, f))


def _collective(hf: Facts, f: Func) -> bool:
    if f.calls:
        return True
    for g in f.nodes.get("gnu_asm_expression", []):
        text = hf.src.text(g)
        if any(t in text for t in _PTX_LANE):
            return True
    for name in f.callees:
        if name not in hf.by_name:
            s = hf.header_func(name)
            if s is not None and s.collective:
                return True
    return False


def _reduces(hf: Facts, f: Func) -> int:
    """32 when `f` holds a shuffle loop over 32 lanes, or unrolled steps 16, 8, 4, 2, 1, at the
    default width (W006's sites): each 32-lane half of a wave64 reduces on its own."""
    wave = 0
    for lp in f.loops:
        if lp.shuffles and all(wc.width is None for wc in lp.shuffles):
            if lp.warp == "32":
                return 32
            if lp.warp in ("rt", "64"):
                wave = 64  # over the whole wave (`for (o = warpSize / 2; ...)`)
    deltas = set()
    for wc in f.calls:
        if wc.family == "shfl" and wc.base in ("shfl_xor", "shfl_down") and wc.width is None and wc.lane is not None:
            cv = hf.cval(wc.lane, f)
            if cv is not None and not cv[2] and cv[0] in _UNROLLED:
                deltas.add(cv[0])
    return 32 if 16 in deltas else wave


def _passes_width(hf: Facts, f: Func, g: Func) -> bool:
    """Do `f`'s calls of `g` keep `g`'s default width: no template arguments, or only `f`'s own
    template parameters, none defaulted below 32?"""
    for c in f.nodes.get("call_expression", []):
        if hf.call_name(c) != g.name:
            continue
        targs = _template_args(c)
        if targs is None:
            return True
        ok = True
        for a in targs.named_children:
            text = hf.src.text(a)
            if text in f.tparams:
                d = f.tparams[text]
                if d.type == "number_literal":
                    lit = sx.int_literal(hf.src.text(d))
                    if lit is not None and lit[0] < 32:
                        ok = False
            elif a.type not in ("type_descriptor",):
                ok = False  # a value chosen here: another width, maybe
        if ok:
            return True
    return False


def _template_args(call: Node) -> Node | None:
    """The template argument list of `f<...>(...)`, None without one."""
    fnode = sx.call_function(call)
    while fnode is not None and fnode.type == "qualified_identifier":
        fnode = fnode.child_by_field_id(sx.F_NAME)
    if fnode is not None and fnode.type == "template_function":
        return fnode.child_by_field_id(sx.F_ARGUMENTS)
    return None


def explicit_template_args(call: Node) -> bool:
    return _template_args(call) is not None


def _bitop(hf: Facts, f: Func) -> str:
    """The 32-bit builtin (`__popc`, `__clz`, ...) `f` applies to its first parameter when that
    parameter is a 32-bit integer: a mask passed in loses lanes 32-63."""
    first, bits = _first_param(hf, f)
    if not first or bits != 32:
        return ""
    for c in f.nodes.get("call_expression", []):
        name = hf.call_name(c)
        if name in BITOPS32:
            args = sx.call_args(c)
            if args and sx.unparen(args[0]).type == "identifier" and hf.src.text(sx.unparen(args[0])) == first:
                return name
    return ""


# `#define NAME(A, B, ...) body`, continuation lines included
_FUNC_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
# `for (int i = (LANE); ...; i += STEP)`
_FOR = re.compile(r"\bfor\s*\(\s*(?:[\w:]+\s+)*(\w+)\s*=\s*\(?\s*(\w+)\s*\)?\s*;[^;]*;\s*\1\s*\+=\s*([^)]+?)\s*\)")
_TIMES32 = re.compile(r"^\(?\s*(?:32\s*\*\s*\(?[\w\s]+\)?|\(?[\w\s]+\)?\s*\*\s*32)\s*\)?$")


def macro_strides(path: str, data: bytes) -> dict[str, Summary]:
    """Function-like macros whose loop starts at one of their arguments and steps by 32 times a
    factor (`for (int i = (LANE_ID); i < n; i += 32 * (UNROLL))`): a lane-strided loop that
    covers 32 lanes a step, whatever lane id the caller passes."""
    out: dict[str, Summary] = {}
    if b"#" not in data or b"32" not in data or b"define" not in data:
        return out
    for m in directives.finditer(_FUNC_MACRO, data):
        start = m.start()
        body = m.group(3).decode("utf-8", "replace").replace("\\\n", " ").replace("\\\r\n", " ")
        if "for" not in body or "32" not in body:
            continue
        params = [p.strip() for p in m.group(2).decode("utf-8", "replace").split(",")]
        for f in _FOR.finditer(body):
            if f.group(2) not in params:
                continue
            step = f.group(3).strip()
            if not _is_32_step(step, body):
                continue
            name = m.group(1).decode()
            line = data.count(b"\n", 0, start) + 1
            out[name] = Summary(name, path, line, stride_arg=params.index(f.group(2)), stride=32)
            break
    return out


def _is_32_step(step: str, body: str) -> bool:
    """32, a multiple of 32, `32 * (K)`, or a name the body defines as one of those."""
    lit = sx.int_literal(step)
    if lit is not None:
        return lit[0] > 0 and lit[0] % 32 == 0
    if _TIMES32.match(step):
        return True
    if re.fullmatch(r"\w+", step):
        d = re.search(r"\b" + re.escape(step) + r"\s*=\s*([^;,]+)[;,]", body)
        return d is not None and d.group(1).strip() != step and _is_32_step(d.group(1).strip(), "")
    return False


_BITS_ONLY = frozenset({"identifier", "number_literal", "parenthesized_expression", "binary_expression",
                        "unary_expression", "cast_expression", "type_descriptor", "primitive_type",
                        "sized_type_specifier", "type_identifier"})
_BIT_OPS = frozenset({"&", "|", "^", "<<", ">>", "~", "-", "+"})


def _ret_arg(hf: Facts, f: Func) -> int:
    """0 when every value `f` returns is made of bits of its first parameter (shifts, masks, a
    PTX bit-field extract taking it: `bfe(x, bit, n)`): a mask passed in comes back a mask.
    (Read from the body itself: a function this small is seldom one the analysis takes up.)"""
    first = _first_param(hf, f)[0]
    if not first or f.body is None:
        return -1
    nodes: dict[str, list[Node]] = {}
    stack = [f.body]
    while stack:
        n = stack.pop()
        if n.type in ("return_statement", "assignment_expression", "gnu_asm_expression", "init_declarator",
                      "call_expression", "lambda_expression"):
            nodes.setdefault(n.type, []).append(n)
        stack.extend(n.named_children)
    rets = [r.named_child(0) for r in nodes.get("return_statement", []) if r.named_child_count]
    if not rets or nodes.get("lambda_expression"):
        return -1
    sources: list[Node] = []
    for r in rets:
        r = sx.unparen(r)
        name = hf.src.text(r)
        if r.type != "identifier" or name == first:
            sources.append(r)
            continue
        for d in nodes.get("init_declarator", []):
            decl, value = d.child_by_field_id(sx.F_DECLARATOR), d.child_by_field_id(sx.F_VALUE)
            if decl is not None and hf.src.text(decl) == name and value is not None:
                sources.append(value)
        for a in nodes.get("assignment_expression", []):
            left, right = a.child_by_field_id(sx.F_LEFT), a.child_by_field_id(sx.F_RIGHT)
            if left is not None and right is not None and hf.src.text(left) == name:
                sources.append(right)
        for g in nodes.get("gnu_asm_expression", []):
            outs = g.child_by_field_id(sx.F_OUTPUT_OPERANDS)
            if outs is None or name not in {hf.src.text(o.child_by_field_id(sx.F_VALUE) or o)
                                             for o in outs.named_children}:
                continue
            ins = g.child_by_field_name("input_operands")
            names = {hf.src.text(sx.unparen(v)) for v in (
                i.child_by_field_id(sx.F_VALUE) for i in (ins.named_children if ins is not None else []))
                if v is not None}
            if first not in names or any(t in hf.src.text(g) for t in _PTX_LANE):
                return -1
            sources.append(g)
    if not sources:
        return -1
    for src in sources:
        if src.type != "gnu_asm_expression" and not _bits_of(hf, src, first):
            return -1
    return 0


def _first_param(hf: Facts, f: Func) -> tuple[str, int | None]:
    """Name and bits of the first parameter, from the parameter list."""
    pl = f.param_list
    p = next((c for c in pl.named_children if c.type == "parameter_declaration"), None) if pl is not None else None
    if p is None:
        return "", None
    d, t = p.child_by_field_id(sx.F_DECLARATOR), p.child_by_field_id(sx.F_TYPE)
    if d is None or d.type != "identifier" or t is None:
        return "", None  # a pointer, a reference, an array: not a value of bits
    return hf.src.text(d), type_bits(hf.src.text(t))


def _bits_of(hf: Facts, node: Node, param: str) -> bool:
    """Is `node` made only of `param`, literals and bit operators, naming `param`?"""
    seen = False
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type not in _BITS_ONLY:
            return False
        if n.type == "binary_expression" or n.type == "unary_expression":
            op = n.child_by_field_id(sx.F_OPERATOR)
            if op is None or op.type not in _BIT_OPS:
                return False
        if n.type == "identifier" and hf.src.text(n) == param:
            seen = True
        stack.extend(n.named_children)
    return seen
