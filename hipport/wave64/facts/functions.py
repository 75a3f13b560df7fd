"""Functions and top-level items: one walk of the top level of the tree (namespaces, extern "C",
classes, templates, #if branches) finds every function definition and where it runs
(`__global__`, `__device__`, host, also through qualifier macros), the object-like macros
(`macros`, `arch_macros`), the shuffle/ballot wrapper macros (`wrappers`), the includes and the
other top-level declarations (`top_items`). `qualify` then marks the functions worth the full
analysis, and `func_at` finds the function around a byte offset."""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from hipport import directives
from hipport.source import Node, children
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import preproc
from hipport.wave64.facts.data import ArgSpan, Func, MacroDef, Space, Wrapper
from hipport.wave64.facts.names import WARP_FN
from hipport.wave64.facts.text import WORD

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

# Device function bodies without any of these need no analysis.
FUNC_QUICK = re.compile(rb"__(?:shfl|ballot|any|all|uni|activemask|syncwarp|match|reduce_|lane|popc|ffs|clz|brev|"
                        rb"fns|AMDGCN)|warpSize|[Ww]arp|WARP|[Ww]ave|WAVE|\basm\b|tiled_partition|thread_block_tile|"
                        rb"atomic(?:CAS|Exch)|volatile|\.(?:ballot|any|all|shfl|match_)")
HOST_QUICK = re.compile(rb"<<<|hipLaunchKernelGGL|warpSize")
_COMMENT = re.compile(r"//.*|/\*.*?\*/", re.S)
_WRAPPED = re.compile(r"^\s*(__shfl(?:_up|_down|_xor)?(?:_sync)?|__ballot(?:_sync)?)\s*\(")
# `#define DEVICE_FUNCTION static inline __device__`: a macro that declares device functions
QUAL_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*__(?:device|global)__[^\n]*)$", re.M)
# a small device function that returns a thread index (`gtid() { return blockIdx.x * blockDim.x +
# threadIdx.x; }`): its callers' `gtid() & 31` are lane ids
_THREAD_HELPER = re.compile(rb"\A[^{]*\{\s*return\b[^;{}]*\bthreadIdx\b[^;{}]*;\s*\}\Z")
_OWN_HELPER = re.compile(r"hipport_(?:warp_size|match_any|reduce_(?:add|min|max|and|or|xor))")


def find_qualifier_macros(fx: Facts) -> None:
    """Macros that expand to `__device__` / `__global__` (`qual_macros`)."""
    for m in directives.finditer(QUAL_MACRO, fx.data):
        qual = {q for q in ("__global__", "__device__", "__host__") if q in m.group(2).decode().split()}
        if qual:
            fx.qual_macros.setdefault(m.group(1).decode(), set()).update(qual)


_NO_QUALS: frozenset[str] = frozenset()


def _header_quals(fx: Facts, name: str) -> frozenset[str]:
    """The qualifiers a declaration macro an included header defines expands to
    (`#define MGPU_DEVICE __device__ __forceinline__` in moderngpu's meta.hxx). Asked for
    every word before every function body: the macros that expand to one are found once."""
    quals = fx._decl_quals
    if quals is None:
        fx.header_consts()  # (the headers are read on this first question, as before)
        quals = fx._decl_quals = {}
        for macro, body in fx._header_bodies.items():
            if "__" in body:
                words = body.split()
                got = frozenset(q for q in ("__global__", "__device__", "__host__") if q in words)
                if got:
                    quals[macro] = got
    return quals.get(name, _NO_QUALS)


def index_functions(fx: Facts) -> None:
    """Functions by name (`by_name`) and by byte range (for `func_at`)."""
    for fn in fx.funcs:
        fx.by_name.setdefault(fn.name, []).append(fn)
    fx._ranges = sorted((f.node.start_byte, f.node.end_byte, f) for f in fx.funcs)
    fx._range_starts = [r[0] for r in fx._ranges]


def scan_top(fx: Facts) -> None:
    """One walk of the top level: functions, macros, wrappers, includes, top-level items, #if chains."""
    stack: list[tuple[Node, Node | None, dict[str, Node]]] = [(fx.src.root, None, {})]
    while stack:
        node, top, tparams = stack.pop()
        for child in reversed(node.children):
            t = child.type
            ctop = top if top is not None else child
            if t == "function_definition":
                _add_function(fx, child, ctop, tparams)
            elif t == "template_declaration":
                tp = dict(tparams)
                params = child.child_by_field_id(sx.F_PARAMETERS)
                if params is not None:
                    for p in params.named_children:
                        if p.type == "optional_parameter_declaration":
                            d = p.child_by_field_id(sx.F_DECLARATOR)
                            v = p.child_by_field_id(sx.F_DEFAULT_VALUE)
                            if d is not None and v is not None:
                                tp[fx.src.text(d)] = v
                        elif p.type == "parameter_declaration":
                            d = p.child_by_field_id(sx.F_DECLARATOR)
                            if d is not None:
                                tp[fx.src.text(d)] = p
                stack.append((child, ctop, tp))
            elif t in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else",
                       "preproc_elifdef"):  # a chain is classified at its #if
                preproc.preproc_branch(fx, child)
                stack.append((child, ctop, tparams))
            elif t == "namespace_definition":
                body = child.child_by_field_id(sx.F_BODY)
                if body is not None:
                    stack.append((body, ctop, tparams))
            elif t == "linkage_specification":  # extern "C" { ... } or extern "C" <one definition>
                stack.append((child, ctop, tparams))
            elif t in ("declaration_list", "field_declaration_list"):
                stack.append((child, ctop, tparams))
            elif t in ("struct_specifier", "class_specifier"):
                body = child.child_by_field_id(sx.F_BODY)
                if body is not None:
                    stack.append((body, ctop, tparams))
            elif t == "preproc_def":
                _add_macro(fx, child)
            elif t == "preproc_function_def":
                _add_wrapper(fx, child)
            elif t == "preproc_include":
                if top is None:
                    fx.includes.append(child)
            elif t in ("declaration", "field_declaration", "type_definition", "alias_declaration"):
                fx.top_items.append(child)
                for sub in child.children:
                    if sub.type in ("struct_specifier", "class_specifier"):
                        body = sub.child_by_field_id(sx.F_BODY)
                        if body is not None:
                            stack.append((body, ctop, tparams))
                    elif sub.type == "enum_specifier":
                        fx.top_items.append(sub)
            elif t == "enum_specifier":
                fx.top_items.append(child)
            elif t == "expression_statement":
                fx.top_items.append(child)
    fx.includes.sort(key=lambda n: n.start_byte)


def _add_function(fx: Facts, node: Node, top: Node, tparams: dict[str, Node]) -> None:
    body = node.child_by_field_id(sx.F_BODY)
    start, end = fx.src.blanked_before(node.start_byte), body.start_byte if body is not None else node.end_byte
    quals: set[str] = set()
    if fx.data.find(b"__global__", start, end) >= 0 or fx.data.find(b"__device__", start, end) >= 0:
        quals = {c.type for c in children(node) if not c.is_named}  # building children costs more
    # `#define DEVICE_FUNCTION static inline __device__`, here or in a header: with no such
    # macro anywhere, no word need be looked up (the headers are read on this question, as
    # when each word was)
    if not quals and not fx.qual_macros:
        _header_quals(fx, "")
    if not quals and (fx.qual_macros or fx._decl_quals):
        for w in WORD.findall(fx.data, start, end):
            name = w.decode()
            quals |= fx.qual_macros.get(name) or _header_quals(fx, name)
    space: Space
    if "__global__" in quals:
        space = "global"
    elif "__device__" in quals:
        space = "hd" if "__host__" in quals else "device"
    else:
        space = "host"
    decl = node.child_by_field_id(sx.F_DECLARATOR)
    while decl is not None and decl.type not in ("function_declarator",):
        decl = decl.child_by_field_id(sx.F_DECLARATOR)
    name = ""
    pl = None
    if decl is not None:
        nd = decl.child_by_field_id(sx.F_DECLARATOR)
        if nd is not None:
            if nd.type == "qualified_identifier":
                nd = nd.child_by_field_id(sx.F_NAME) or nd
            if nd.type == "template_function":
                nd = nd.child_by_field_id(sx.F_NAME) or nd
            name = fx.src.text(nd)
        pl = decl.child_by_field_id(sx.F_PARAMETERS)
    fn = Func(node=node, name=name, body=body, space=space, top=top,
              tparams=dict(tparams), ret_type=node.child_by_field_id(sx.F_TYPE))
    if fx.is_inactive(node.start_byte) if fx.inactive else False:
        return
    if _OWN_HELPER.fullmatch(name):
        return  # a helper hipport wrote (emit.py) on an earlier run: already wave64 code
    fn.param_list = pl
    fx.funcs.append(fn)


def _add_wrapper(fx: Facts, node: Node) -> None:
    name_node = node.child_by_field_id(sx.F_NAME)
    value = node.child_by_field_id(sx.F_VALUE)
    params = node.child_by_field_id(sx.F_PARAMETERS)
    if name_node is None or value is None or params is None:
        return
    if fx.inactive and fx.is_inactive(node.start_byte):
        return
    raw = fx.data[value.start_byte:value.end_byte].decode("utf-8", "surrogateescape")
    m = _WRAPPED.match(raw)
    if m is None or not raw.rstrip().endswith(")"):
        return
    close = value.start_byte + len(raw.rstrip()) - 1
    inner_start = value.start_byte + m.end()
    args, depth, start = [], 0, inner_start
    for i in range(inner_start, close):
        ch = fx.data[i:i + 1]
        if ch in (b"(", b"["):
            depth += 1
        elif ch in (b")", b"]"):
            depth -= 1
            if depth < 0:
                return  # the call closes before the end of the body: not a single call
        elif ch == b"," and depth == 0:
            args.append(_arg_span(fx, start, i))
            start = i + 1
    args.append(_arg_span(fx, start, close))
    names = [fx.src.text(p) for p in params.named_children if p.type == "identifier"]
    fx.wrappers[fx.src.text(name_node)] = Wrapper(
        fx.src.text(name_node), node, m.group(1),
        (value.start_byte + m.start(1), value.start_byte + m.end(1)), args, close, names)


def _arg_span(fx: Facts, start: int, end: int) -> ArgSpan:
    text = fx.data[start:end].decode("utf-8", "surrogateescape")
    lead = len(text) - len(text.lstrip())
    return ArgSpan(start + lead, start + len(text.rstrip()), text.strip())


def _add_macro(fx: Facts, node: Node) -> None:
    name_node = node.child_by_field_id(sx.F_NAME)
    value = node.child_by_field_id(sx.F_VALUE)
    if name_node is None or value is None:
        return
    if fx.inactive and fx.is_inactive(node.start_byte):
        return
    name = fx.src.text(name_node)
    text = _COMMENT.sub(" ", fx.src.text(value)).strip()
    amd = bool(fx.amd_only) and fx.is_amd_only(node.start_byte)
    fx.macros.setdefault(name, []).append(MacroDef(node, text, amd))
    p = node.parent if fx._has_gfx else None  # .parent walks down from the root
    while p is not None and p.type != "translation_unit":
        if p.type in ("preproc_if", "preproc_elif"):
            cond = p.child_by_field_id(sx.F_CONDITION)
            if cond is not None and b"__GFX" in fx.data[cond.start_byte:cond.end_byte]:
                fx.arch_macros.add(name)  # chosen per architecture: already wave-agnostic
                break
        p = p.parent


def qualify(fx: Facts) -> None:
    """Which functions need the full analysis: a cheap byte search, then callers of those."""
    # (and the collective functions of the headers: a kernel calling one is analysed)
    extra = sorted(set(fx.consts) | set(fx.wrappers) | fx.aliases | fx.wave_macros |
                   {n for n, s in fx.header_funcs().items() if s.collective or s.ret})
    extra_rx = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in extra) + rb")\b") if extra else None
    pending = []
    for fn in fx.funcs:
        body = fn.body
        if body is None:
            continue
        raw = fx.data[fn.node.start_byte:body.end_byte]
        quick = FUNC_QUICK if fn.device else HOST_QUICK
        if quick.search(raw) or (extra_rx is not None and extra_rx.search(raw)) or (
                fn.device and WARP_FN.search(fn.name)) or (fn.device and _THREAD_HELPER.search(raw)):
            fn.quick = True
        elif fn.device:
            pending.append((fn, raw))
    for _ in range(3):  # device functions that call a qualifying local function
        names = {f.name for f in fx.funcs if f.quick and f.device and f.name}
        if not names or not pending:
            break
        rx = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\s*[<(]")
        still = []
        for fn, raw in pending:
            if rx.search(raw):
                fn.quick = True
            else:
                still.append((fn, raw))
        if len(still) == len(pending):
            break
        pending = still


def func_at(fx: Facts, pos: int) -> Func | None:
    i = bisect.bisect_right(fx._range_starts, pos) - 1
    while i >= 0:
        s, e, f = fx._ranges[i]
        if s <= pos < e:
            return f
        if i > 0 and fx._ranges[i - 1][1] > pos:
            i -= 1
            continue
        return None
    return None
