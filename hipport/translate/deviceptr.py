"""Handles that are integers in CUDA and pointers in HIP, used as integers.

CUDA's `CUdeviceptr` is an unsigned integer, HIP's `hipDeviceptr_t` is `void *`; CUDA's texture
and surface objects (`cudaTextureObject_t`, `CUtexObject`, ...) are `unsigned long long`, HIP's
are pointers to opaque structs. Values of these types are found from the declarations the tree
holds (variables, parameters and members declared with the CUDA type; `*p` and `p[i]` of one
declared as a pointer or array), and each use as an integer is reported: an operand of
arithmetic, bitwise, shift or ordered-comparison operators, compared or initialised with a
non-zero integer, or cast (narrower than 64 bits, or by static_cast) to an integer type.

Where the rewrite compiles in every form it covers, it is made (HP011):
- `p + n` / `p - n` on a CUdeviceptr: the offset in bytes, `(hipDeviceptr_t)((char *)p + n)`;
- an integer expression of handles under a cast to an integer type (`(uint)(obj >> 32)`): each
  handle read as `(uintptr_t)(obj)`;
- the same expression returned from a function returning the handle, or initialising one
  (`return (T)lo | (T)hi << 32;`): computed in uintptr_t, then cast back, `(T)(...)`.
The casts are C-style: they convert a pointer (AMD's handle) and an integer (the handle on HIP's
NVIDIA platform, CUDA's) alike, where `reinterpret_cast<uintptr_t>` of an integer is an error.
Everything else is reported only (HP001), with the spelling to use.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.helpers import declared_in_scope

# CUDA type -> HIP type.
HANDLES = {
    "CUdeviceptr": "hipDeviceptr_t", "CUdeviceptr_v2": "hipDeviceptr_t",
    "cudaTextureObject_t": "hipTextureObject_t", "CUtexObject": "hipTextureObject_t",
    "CUtexObject_v1": "hipTextureObject_t",
    "cudaSurfaceObject_t": "hipSurfaceObject_t", "CUsurfObject": "hipSurfaceObject_t",
    "CUsurfObject_v1": "hipSurfaceObject_t",
}
_TYPE_RX = re.compile(rb"(?<![\w$])(?:" + b"|".join(n.encode() for n in HANDLES) + rb")(?![\w$])")
_DECLS = frozenset({"declaration", "parameter_declaration", "optional_parameter_declaration",
                    "field_declaration"})
_ARITH = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})
_ORDERED = frozenset({"<", ">", "<=", ">="})
_EQUALITY = frozenset({"==", "!="})
_COMPOUND = frozenset({"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
_INT_WORDS = frozenset({"unsigned", "signed", "int", "long", "short", "char"})
_NARROW = frozenset({"uint", "uint8_t", "uint16_t", "uint32_t", "int8_t", "int16_t", "int32_t",
                     "uchar", "ushort", "u32", "s32", "DWORD"})
_WIDE = frozenset({"size_t", "ssize_t", "ptrdiff_t", "uintptr_t", "intptr_t", "uint64_t", "int64_t",
                   "ulong", "u64", "s64", "uintmax_t", "intmax_t"})


class Decl(NamedTuple):
    name: str
    cuda: str  # the CUDA type it is declared with
    depth: int  # 0: the value itself; 1: a pointer or array of them
    offset: int
    member: bool


class Value(NamedTuple):
    node: Node  # the expression whose value is a handle
    cuda: str


def run(ctx: Context) -> None:
    data = ctx.src.data
    if not any(n.encode() in data for n in HANDLES):
        return
    decls, casts, returns = _declarations(ctx)
    values = _values(ctx, decls) + casts
    if not values:
        return
    at = {v.node.start_byte: v for v in values}
    done: set[int] = set()  # expressions already rewritten or reported as a whole
    for v in values:
        _use(ctx, v, at, returns, done)


def _declarations(ctx: Context) -> tuple[list[Decl], list[Value], dict[int, str]]:
    """Variables, parameters and members of the handle types; casts to them; functions
    returning them (body offset -> CUDA type). Initialisers with a non-zero integer are
    reported here."""
    decls: list[Decl] = []
    casts: list[Value] = []
    returns: dict[int, str] = {}
    for m in _TYPE_RX.finditer(ctx.src.data):
        node = ctx.src.node_at(m.start(), m.end())
        if node is None or node.type != "type_identifier" or node.start_byte != m.start():
            continue
        cuda = m.group().decode()
        parent = node.parent
        if parent is None:
            continue
        if parent.type == "type_descriptor":
            cast = parent.parent
            if cast is not None and cast.type == "cast_expression" and \
                    cast.child_by_field_name("type") == parent and _bare(parent):
                casts.append(Value(cast, cuda))
            continue
        if parent.child_by_field_name("type") != node:
            continue
        if parent.type == "function_definition":
            body = parent.child_by_field_name("body")
            fd = parent.child_by_field_name("declarator")
            if body is not None and fd is not None and fd.type == "function_declarator":
                returns[body.start_byte] = cuda
            continue
        if parent.type not in _DECLS or parent.type.endswith("parameter_declaration") and _prototype(parent):
            continue
        for d in parent.children_by_field_name("declarator"):
            _declarator(ctx, d, cuda, parent.type == "field_declaration", decls)
    return decls, casts, returns


def _prototype(param: Node) -> bool:
    """A parameter of a function declared, not defined: no value of it is ever read."""
    node = param.parent
    while node is not None and node.type not in ("function_definition", "lambda_expression"):
        if node.type in ("declaration", "field_declaration", "type_definition", "translation_unit"):
            return True
        node = node.parent
    return node is None


def _bare(descriptor: Node) -> bool:
    """A type descriptor with no declarator (`T`, not `T *`)."""
    return descriptor.child_by_field_name("declarator") is None


def _declarator(ctx: Context, d: Node, cuda: str, member: bool, out: list[Decl]) -> None:
    depth = 0
    init: Node | None = None
    while True:
        if d.type == "init_declarator":
            init = d.child_by_field_name("value")
            inner = d.child_by_field_name("declarator")
        elif d.type in ("pointer_declarator", "array_declarator"):
            depth += 1
            inner = d.child_by_field_name("declarator")
        elif d.type in ("reference_declarator", "parenthesized_declarator"):
            inner = d.named_children[0] if d.named_children else None
        else:
            break
        if inner is None:
            return
        d = inner
    if d.type not in ("identifier", "field_identifier") or depth > 1:
        return
    out.append(Decl(ctx.src.text(d), cuda, depth, d.start_byte, member))
    if init is not None and depth <= 1:
        items = [init] if init.type != "initializer_list" else list(init.named_children)
        for item in items:
            if _nonzero(ctx, item):
                ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, item.start_byte, item.end_byte,
                           f"{cuda} initialised with the integer {ctx.src.text(item)}: "
                           + _advice(cuda), _family(cuda))


def _values(ctx: Context, decls: list[Decl]) -> list[Value]:
    """Every expression in the file that reads one of the declared handles."""
    plain: dict[str, list[Decl]] = {}
    fields: dict[str, Decl] = {}
    for d in decls:
        if d.member:
            fields.setdefault(d.name, d)
        else:
            plain.setdefault(d.name, []).append(d)
    names = set(plain) | set(fields)
    if not names:
        return []
    out: list[Value] = []
    offsets = {d.offset for d in decls}
    other_fields: set[str] = set()  # member names some other struct declares with another type
    rx = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")(?![\w$])")
    for m in rx.finditer(ctx.src.data):
        node = ctx.src.node_at(m.start(), m.end())
        if node is None or node.start_byte != m.start() or node.end_byte != m.end():
            continue
        name = m.group().decode()
        decl: Decl | None = None
        expr = node
        if node.type == "field_identifier" and name in fields:
            parent = node.parent
            if parent is None or parent.type != "field_expression" or \
                    parent.child_by_field_name("field") != node:
                if node.start_byte not in offsets:
                    other_fields.add(name)
                continue
            decl, expr = fields[name], parent
        elif node.type == "identifier" and name in plain:
            if not declared_in_scope(ctx, node, [d.offset for d in plain[name]]):
                continue  # a handle of that name elsewhere; here another variable
            before = [d for d in plain[name] if d.offset <= node.start_byte]
            decl = before[-1] if before else plain[name][0]
        if decl is None:
            continue
        if decl.depth == 1:
            parent = expr.parent
            if parent is None:
                continue
            if parent.type == "pointer_expression" and _operator(ctx, parent) == "*":
                expr = parent
            elif parent.type == "subscript_expression" and parent.child_by_field_name("argument") == expr:
                expr = parent
            else:
                continue  # the pointer or array itself
        out.append(Value(expr, decl.cuda))
    # `b.ptr` where another struct's `ptr` is an int may be that one: such members are left.
    return [v for v in out if not (v.node.type in ("field_expression", "pointer_expression", "subscript_expression")
                                   and _member_name(ctx, v.node) in other_fields)]


def _member_name(ctx: Context, node: Node) -> str | None:
    while node.type != "field_expression":
        inner = node.child_by_field_name("argument")
        if inner is None:
            return None
        node = inner
    f = node.child_by_field_name("field")
    return ctx.src.text(f) if f is not None else None


def _use(ctx: Context, v: Value, at: dict[int, Value], returns: dict[int, str], done: set[int]) -> None:
    node, parent = _up(v.node)
    if parent is None:
        return
    if parent.type == "argument_list" and parent.parent is not None and len(parent.named_children) == 1 \
            and _int_call(ctx, parent.parent):
        parent = parent.parent  # static_cast<int>(x), or (uint)(x) as the tree reads it: a call
    kind = parent.type
    sym = _operator(ctx, parent)
    if kind == "cast_expression" and _cast_int(ctx, parent, node) or kind == "call_expression":
        if _fix(ctx, parent, v.node, at, None, done):
            return
    elif kind == "binary_expression" and sym in _ARITH:
        top = _chain_top(ctx, node)
        outer, ctx_parent = _up(top)
        if ctx_parent is not None and ctx_parent.type == "argument_list" and ctx_parent.parent is not None \
                and len(ctx_parent.named_children) == 1 and _int_call(ctx, ctx_parent.parent):
            ctx_parent = ctx_parent.parent
        if ctx_parent is not None and (
                ctx_parent.type == "cast_expression" and _cast_int(ctx, ctx_parent, outer, any_int=True)
                or ctx_parent.type == "call_expression"):
            if _fix(ctx, ctx_parent, top, at, None, done):
                return
        left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
        if v.cuda.startswith("CUdeviceptr") and sym in ("+", "-") and left == node \
                and right is not None and not _has_handle(right, at):
            _sum(ctx, node, parent)
            return
        hip = _handle_context(ctx, outer, ctx_parent, returns)
        if hip is not None and _fix(ctx, top, top, at, hip, done):
            return
    elif kind == "binary_expression" and sym in _ORDERED:
        if _has_handle(_other(parent, node), at):
            return  # two pointers compare as two integers did
    elif kind == "binary_expression" and sym in _EQUALITY:
        other = _other(parent, node)
        if other is None or not _nonzero(ctx, other):
            return
    elif kind == "assignment_expression":
        if sym == "=":
            right = parent.child_by_field_name("right")
            if parent.child_by_field_name("left") != node or right is None or not _nonzero(ctx, right):
                return
        elif sym not in _COMPOUND:
            return
    elif kind == "update_expression" or kind == "unary_expression" and sym in ("~", "-", "+"):
        pass
    else:
        return
    if parent.start_byte in done:
        return
    done.add(parent.start_byte)
    if kind in ("cast_expression", "call_expression"):
        what = f"a {v.cuda} cast to an integer type"
    else:
        what = f"`{sym}` on a {v.cuda}"
    ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, parent.start_byte, parent.end_byte,
               f"{what}: " + _advice(v.cuda), _family(v.cuda))


def _advice(cuda: str) -> str:
    hip = HANDLES[cuda]
    if hip == "hipDeviceptr_t":
        return ("CUDA's is an integer, HIP's hipDeviceptr_t is void *; offset it in bytes "
                "(`(hipDeviceptr_t)((char *)p + off)`) or keep an integer with "
                "`(uintptr_t)(p)`")
    return (f"CUDA's is a 64-bit integer, HIP's {hip} a pointer; keep the object itself, or "
            f"an integer with `(uintptr_t)(obj)` (and `({hip})(bits)` "
            f"back)")


def _family(cuda: str) -> str:
    return "runtime" if cuda.startswith("cuda") else "driver"


def _sum(ctx: Context, node: Node, parent: Node) -> None:
    top = parent  # `a + n + m` is `(a + n) + m`: the sum ends after m
    while top.parent is not None and top.parent.type == "binary_expression" \
            and top.parent.child_by_field_name("left") == top and _operator(ctx, top.parent) in ("+", "-"):
        top = top.parent
    ctx.edit(node.start_byte, node.start_byte, "(hipDeviceptr_t)((char *)", FixKind.DEVICEPTR)
    ctx.edit(top.end_byte, top.end_byte, ")", FixKind.DEVICEPTR)
    ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, parent.start_byte, top.end_byte,
               "CUdeviceptr arithmetic: hipDeviceptr_t is void *, so the offset is "
               "written in bytes through char *", "driver")


def _fix(ctx: Context, where: Node, top: Node, at: dict[int, Value], hip: str | None,
         done: set[int]) -> bool:
    """Read every handle in the integer expression `top` as uintptr_t (and, with `hip`, turn
    the result back into that handle type). False where `top` holds a handle in some other
    position, or the file is C."""
    if where.start_byte in done:
        return True
    if ctx.src.path.endswith(".c"):
        return False  # C: no reinterpret_cast
    leaves = [v for s, v in at.items() if top.start_byte <= s < top.end_byte]
    for leaf in leaves:
        cur = leaf.node
        while cur != top:
            _, parent = _up(cur)
            if parent is None or parent.type != "binary_expression" or _operator(ctx, parent) not in _ARITH:
                return False  # a handle elsewhere in it (a call's argument, a comparison)
            cur = parent
    if not leaves:
        return False
    done.add(where.start_byte)
    # One insertion per offset: the result's cast opens before a handle's at the same place.
    opens: dict[int, str] = {}
    closes: dict[int, str] = {}
    if hip is not None:
        opens[top.start_byte] = f"({hip})("
        closes[top.end_byte] = ")"
    for leaf in leaves:
        opens[leaf.node.start_byte] = opens.get(leaf.node.start_byte, "") + "(uintptr_t)("
        closes[leaf.node.end_byte] = closes.get(leaf.node.end_byte, "") + ")"
    for at_, text in sorted({**opens, **{k: closes[k] + opens.get(k, "") for k in closes}}.items()):
        ctx.edit(at_, at_, text, FixKind.DEVICEPTR)
    kinds = sorted({leaf.cuda for leaf in leaves})
    ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, where.start_byte, where.end_byte,
               f"{' and '.join(kinds)} used as an integer: HIP's is a pointer, so it is read "
               f"through uintptr_t" + (f" and the result cast back to {hip}" if hip else ""),
               _family(kinds[0]))
    return True


def _up(node: Node) -> tuple[Node, Node | None]:
    """`node` and its parent, above any parentheses around it."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    return node, parent


def _chain_top(ctx: Context, node: Node) -> Node:
    """The outermost expression of integer operators that holds `node`."""
    top = node
    n, parent = _up(node)
    while parent is not None and parent.type == "binary_expression" and _operator(ctx, parent) in _ARITH:
        top = parent
        n, parent = _up(parent)
    return top


def _handle_context(ctx: Context, node: Node, parent: Node | None, returns: dict[int, str]) -> str | None:
    """The HIP handle type the value of `node` must have: returned from a function returning
    one, or initialising a variable declared as one."""
    if parent is None:
        return None
    if parent.type == "return_statement":
        fn = parent.parent
        while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
            fn = fn.parent
        body = fn.child_by_field_name("body") if fn is not None and fn.type == "function_definition" else None
        return HANDLES[returns[body.start_byte]] if body is not None and body.start_byte in returns else None
    if parent.type == "init_declarator" and parent.child_by_field_name("value") == node:
        decl = parent.parent
        t = decl.child_by_field_name("type") if decl is not None else None
        name = parent.child_by_field_name("declarator")
        if t is not None and name is not None and name.type == "identifier":
            return HANDLES.get(ctx.src.text(t))
    return None


def _cast_int(ctx: Context, cast: Node, operand: Node, any_int: bool = False) -> bool:
    """Is `cast` a C-style cast of `operand` to an integer type a pointer does not convert to
    (narrower than 64 bits)? With `any_int`, to any integer type."""
    if cast.child_by_field_name("value") != operand:
        return False
    t = cast.child_by_field_name("type")
    if t is None or not _bare(t):
        return False
    words = ctx.src.text(t).split()
    if words and all(w in _INT_WORDS for w in words):
        return any_int or "long" not in words
    name = " ".join(words)
    return name in _NARROW or any_int and name in _WIDE


def _int_call(ctx: Context, call: Node) -> bool:
    """`static_cast<T>(x)`, or `(T)(x)` read as a call of `(T)`, with T an integer type."""
    fn = call.child_by_field_name("function")
    if fn is None:
        return False
    if fn.type == "parenthesized_expression" and len(fn.named_children) == 1 \
            and fn.named_children[0].type == "identifier":
        return ctx.src.text(fn.named_children[0]) in _NARROW | _WIDE
    if fn.type != "template_function":
        return False
    name, targs = fn.child_by_field_name("name"), fn.child_by_field_name("arguments")
    if name is None or ctx.src.text(name) != "static_cast" or targs is None or len(targs.named_children) != 1:
        return False
    words = ctx.src.text(targs.named_children[0]).split()
    return bool(words) and (all(w in _INT_WORDS for w in words) or " ".join(words) in _NARROW | _WIDE)


def _has_handle(node: Node | None, at: dict[int, Value]) -> bool:
    return node is not None and any(node.start_byte <= s < node.end_byte for s in at)


def _other(parent: Node, node: Node) -> Node | None:
    left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
    return right if left == node else left


def _nonzero(ctx: Context, node: Node) -> bool:
    """An integer literal other than 0 (`0`, `0x0`, `0ULL` are null pointer constants)."""
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node.type != "number_literal":
        return False
    digits = ctx.src.text(node).lower().rstrip("ul")
    if "." in digits or "e" in digits and not digits.startswith("0x"):
        return False
    try:
        return int(digits, 0) != 0
    except ValueError:
        return digits.strip("0x") != ""


def _operator(ctx: Context, node: Node) -> str:
    op = node.child_by_field_name("operator")
    return ctx.src.text(op) if op is not None else ""
