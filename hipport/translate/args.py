"""Argument rewrites where HIP's signature differs from CUDA's, named by the tables' `args`.

Each transform inserts text around one argument (never retyping it), so renames inside the
argument still apply and a second run sees HIP names and does nothing. A call parsed from a
macro body on its own has offsets relative to that fragment: `base` shifts them back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from hipport.edits import apply_edits, resolve
from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.rules import Mapping
from hipport.source import Node, SourceFile, walk
from hipport.translate.context import Context
from hipport.translate.helpers import declared_in_scope


@dataclass(frozen=True)
class Call:
    ctx: Context
    src: SourceFile  # the file, or a macro-body fragment
    base: int  # add to fragment offsets to get file offsets
    arglist: Node
    args: list[Node]

    def wrap(self, arg: Node, before: str, after: str) -> None:
        self.ctx.edit(self.base + arg.start_byte, self.base + arg.start_byte, before, FixKind.ARGS)
        self.ctx.edit(self.base + arg.end_byte, self.base + arg.end_byte, after, FixKind.ARGS)


def call_arguments(name_node: Node) -> tuple[Node, list[Node]] | None:
    """The argument_list and its arguments when `name_node` is the callee of a call."""
    call = name_node.parent
    while call is not None and call.type in ("template_function", "qualified_identifier"):
        call = call.parent
    if call is None or call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    if fn is None or not (fn.start_byte <= name_node.start_byte < fn.end_byte):
        return None
    arglist = call.child_by_field_name("arguments")
    if arglist is None:
        return None
    return arglist, [c for c in arglist.named_children if c.type != "comment"]


def hip_symbol(c: Call, n: int) -> None:
    if n < len(c.args) and not c.src.text(c.args[n]).startswith("HIP_SYMBOL"):
        c.wrap(c.args[n], "HIP_SYMBOL(", ")")


def fn_cast(c: Call, n: int) -> None:
    if n < len(c.args) and c.args[n].type != "cast_expression" \
            and "_cast<" not in c.src.text(c.args[n]):
        c.wrap(c.args[n], "reinterpret_cast<const void*>(", ")")


def _void_pointer(c: Call, arg: Node, const_ok: bool = True) -> bool:
    """Is `arg` a name the enclosing function declares once, as a `void *` (so that its address,
    a `void **`, needs no cast)? Only a declaration in the same function counts: a
    global of that name may be shadowed by a local of another type further out of view."""
    if arg.type != "identifier" or c.src is not c.ctx.src:
        return False
    name = c.src.text(arg)
    fn = next((a for a in c.src.ancestors(arg) if a.type == "function_definition"), None)
    if fn is None:
        return False
    declared = c.ctx.declared.get(fn.id)
    if declared is None:  # one walk per function, however many of its calls ask
        declared = c.ctx.declared[fn.id] = _declared_names(c, fn)
    found = [(node, inner) for node, inner in declared.get(name, ()) if node.start_byte < arg.start_byte]
    if len(found) != 1:
        return False
    decl, inner = found[0]
    kind = decl.child_by_field_name("type")
    below = inner.child_by_field_name("declarator")
    const = any(ch.type == "type_qualifier" for ch in decl.children)
    return (kind is not None and c.src.text(kind) == "void" and inner.type == "pointer_declarator"
            and below is not None and below.type == "identifier" and (const_ok or not const))


def _declared_names(c: Call, fn: Node) -> dict[str, list[tuple[Node, Node]]]:
    """name -> (declaration, its declarator of the name) of every variable and parameter a
    function declares."""
    out: dict[str, list[tuple[Node, Node]]] = {}
    for node in walk(fn):
        if node.type in ("declaration", "parameter_declaration"):
            for d in node.children_by_field_name("declarator"):
                inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                target = inner
                while target is not None and target.type in ("pointer_declarator", "reference_declarator"):
                    target = target.child_by_field_name("declarator")
                if inner is not None and target is not None and target.type == "identifier":
                    out.setdefault(c.src.text(target), []).append((node, inner))
    return out


def host_malloc_flags(c: Call, n: int) -> None:
    if len(c.args) == n:  # no flags argument: HIP's C API needs one
        close = c.base + c.arglist.end_byte - 1
        c.ctx.edit(close, close, ", hipHostMallocDefault", FixKind.ARGS)


def void_pp(c: Call, n: int) -> None:
    """`cudaHostGetDevicePointer(&typedPtr, ...)`: CUDA's C++ API takes any `T**`, HIP's C API
    only `void**`."""
    if n >= len(c.args) or c.args[n].type == "cast_expression" or "_cast<" in c.src.text(c.args[n]):
        return
    arg = c.args[n]
    operand = arg.child_by_field_name("argument") if arg.type == "pointer_expression" else None
    if operand is not None and c.src.text(arg).startswith("&") and _void_pointer(c, operand, const_ok=False):
        return  # `&p` of a `void *p` is a `void **` already
    c.wrap(arg, "reinterpret_cast<void**>(", ")")


def void_p(c: Call, n: int) -> None:
    """`cuMemFree(dptr)` as `hipFree`: HIP's takes `void *`, and the CUdeviceptr it is given is
    `void *` on AMD but CUDA's integer on HIP's NVIDIA platform. A C-style cast converts both."""
    if n < len(c.args) and c.args[n].type != "cast_expression" and "_cast<" not in c.src.text(c.args[n]):
        c.wrap(c.args[n], "(void *)(", ")")


def const_char_pp(c: Call, n: int) -> None:
    """`nvrtcCompileProgram(prog, n, opts)`: NVRTC takes `const char* const*`, hipRTC (up to
    ROCm 6) `const char**`, to which a `char*[]` or `const char* const*` does not convert. A
    C-style cast, the one that also takes a NULL and compiles as C; none where the argument
    is a name this file declares only as `const char* name[]` or `const char** name`."""
    if n >= len(c.args) or c.args[n].type == "cast_expression":
        return
    text = c.src.text(c.args[n]).strip()
    if text in ("NULL", "nullptr", "0"):
        return
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        decls = re.findall(rb"\bchar\b[\s*]*(?:const\b[\s*]*)*" + re.escape(text.encode()) + rb"\b\s*(\[?)",
                           c.ctx.src.data)
        plain = re.findall(rb"\bconst\s+char\s*\*\s*(?:\*\s*" + re.escape(text.encode()) + rb"\b|"
                           + re.escape(text.encode()) + rb"\s*\[)", c.ctx.src.data)
        if decls and len(plain) == len(decls):
            return
    c.wrap(c.args[n], "(const char**)(", ")")


def default(c: Call, n: int, value: str) -> None:
    """CUDA's C++ API defaults the last parameter; HIP's C API needs it written."""
    if len(c.args) == n:
        close = c.base + c.arglist.end_byte - 1
        c.ctx.edit(close, close, f", {value}", FixKind.ARGS)


def load(c: Call, n: int) -> None:
    """`__ldcs(p)` with its name removed: `(*(p))`, a plain load (the cache hint is dropped)."""
    if len(c.args) == n + 1:
        c.wrap(c.args[n], "*(", ")")


def store(c: Call, n: int) -> None:
    """`__stcs(p, v)` with its name removed: `(*(p) = v)`, a plain store."""
    if len(c.args) == n + 2:
        c.wrap(c.args[n], "*(", ")")
        between = c.src.data[c.args[n].end_byte:c.args[n + 1].start_byte]
        comma = between.find(b",")
        if comma != -1:
            at = c.base + c.args[n].end_byte + comma
            c.ctx.edit(at, at + 1, " =", FixKind.ARGS)


def no_size_callback(c: Call, n: int) -> None:
    """`cuOccupancyMaxPotentialBlockSize(&g, &b, f, callback, smem, limit)`: HIP's takes no
    callback that sizes dynamic shared memory per block size, only the fixed `smem`. A null
    callback means exactly that and goes; any other is left for a person (HP001)."""
    if n + 1 >= len(c.args):
        return
    arg, nxt = c.args[n], c.args[n + 1]
    if c.src.text(arg).strip() in ("NULL", "nullptr", "0", "(CUoccupancyB2DSize)0", "(CUoccupancyB2DSize)NULL"):
        c.ctx.edit(c.base + arg.start_byte, c.base + nxt.start_byte, "", FixKind.ARGS)
        return
    c.ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, c.base + arg.start_byte, c.base + arg.end_byte,
                 "HIP's occupancy calculator has no callback that sizes dynamic shared memory "
                 "per block size: pass the size for the largest block (and drop this argument), "
                 "or compute it for the block size returned and check again", "driver")


_TRAP = ("cudaBoundaryModeTrap", "hipBoundaryModeTrap")


def boundary_mode(c: Call, n: int) -> None:
    """`surf2Dwrite(v, s, x, y, mode)`: HIP's surface functions take no boundary mode from 5.3
    (5.2's took one and ignored it), so a mode argument N goes at every floor. CUDA's default,
    the trap, keeps its meaning on HIP's NVIDIA platform; another mode is said (HP011). CUDA's
    reads that return the value (`surf2Dread<T>(s, x, y)`) have no HIP form: reported (HP001)."""
    call = c.arglist.parent
    fn = call.child_by_field_name("function") if call is not None else None
    if fn is not None and fn.type == "template_function" and c.src.text(fn).split("<")[0].endswith("read"):
        name = c.src.text(fn).split("<")[0].strip()
        c.ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, c.base + fn.start_byte, c.base + fn.end_byte,
                     f"HIP's {name} reads through a pointer and returns nothing: write "
                     f"`T v; {name}(&v, ...);` (the same arguments, without a boundary mode)",
                     "device", name)
        return
    if len(c.args) != n + 1:
        return
    arg = c.args[n]
    c.ctx.edit(c.base + c.args[n - 1].end_byte, c.base + arg.end_byte, "", FixKind.ARGS, priority=1)
    mode = c.src.text(arg).strip()
    if mode not in _TRAP:
        c.ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, c.base + arg.start_byte, c.base + arg.end_byte,
                     f"the boundary mode `{mode}` is dropped: HIP's surface functions take none "
                     "from ROCm 5.3 (5.2 ignored it); AMD GPUs drop out-of-range surface writes "
                     "and read zeros whatever the mode, and on HIP's NVIDIA platform the call now "
                     "uses CUDA's default, cudaBoundaryModeTrap", "device")


_LOCATION_VARS = re.compile(rb"\b(?:struct\s+)?cudaMemLocation\s+(\w+)\s*[;=({]")


def mem_location(c: Call, n: int) -> None:
    """CUDA 13's `cudaMemAdvise(p, n, advice, loc)` and `cudaMemPrefetchAsync(p, n, loc, flags,
    stream)` take a `cudaMemLocation`; HIP 5.2 (like CUDA 12) takes the device ordinal, and its
    prefetch has no flags. The argument is a variable the file declares as a cudaMemLocation:
    `loc` becomes its device ordinal (hipCpuDeviceId for a host location), and a zero `flags`
    goes."""
    if n >= len(c.args) or c.args[n].type != "identifier":
        return
    name = c.src.text(c.args[n]).encode()
    where = [m.start() for m in _LOCATION_VARS.finditer(c.ctx.src.data) if m.group(1) == name]
    if not where or (c.src is c.ctx.src and not declared_in_scope(c.ctx, c.args[n], where)):
        return
    arg = c.args[n]
    end = arg.end_byte
    if n == 2 and len(c.args) >= 4:  # cudaMemPrefetchAsync's flags, which HIP does without
        flags = c.args[3]
        if c.src.text(flags).strip() != "0":
            c.ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, c.base + flags.start_byte, c.base + flags.end_byte,
                         "hipMemPrefetchAsync has no flags argument: drop it by hand if these "
                         "flags may go", "runtime")
            return
        end = flags.end_byte  # `loc, 0` becomes the ordinal alone
    loc = name.decode()
    c.ctx.edit(c.base + arg.start_byte, c.base + end,
               f"({loc}.type == hipMemLocationTypeDevice ? {loc}.id : hipCpuDeviceId)", FixKind.ARGS)
    c.ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, c.base + arg.start_byte, c.base + arg.end_byte,
                 f"wrote the device ordinal of {loc}: HIP takes one where CUDA 13 takes a "
                 f"cudaMemLocation (a host location is hipCpuDeviceId)", "runtime")


_ORDER = FixKind.ARGS_ORDER  # the rule of `order` edits, which a moved argument's text leaves out


def _ported_text(ctx: Context, start: int, end: int) -> str:
    """The text of file bytes [start, end) with the edits made inside it applied: an argument
    as it reads once its CUDA names are renamed, to write elsewhere."""
    inner = [e for e in ctx.edits if start <= e.start and e.end <= end and e.rule != _ORDER]
    kept, _ = resolve(inner)
    return apply_edits(ctx.src.data[:end], kept)[start:].decode("utf-8", "surrogateescape")


def order(c: Call, items: list[str]) -> None:
    """MIOpen's argument order: output argument i is CUDA's argument `items[i]` (an index) or
    the text `items[i]` (a value MIOpen takes and CUDA has none of). Each argument slot keeps its
    place and spacing and gets the text of the argument moved there, with its renames; slots
    past the new count go, new ones are appended. The moved text is taken once every rename is
    made (ctx.later), and the slot edits outrank the renames inside the slot."""
    args, ctx, base = c.args, c.ctx, c.base

    def text(item: str) -> str:
        if item.isdigit():
            a = args[int(item)]
            return _ported_text(ctx, base + a.start_byte, base + a.end_byte)
        return item

    def job() -> None:
        for i, item in enumerate(items[:len(args)]):
            if item != str(i):
                a = args[i]
                ctx.edit(base + a.start_byte, base + a.end_byte, text(item), _ORDER, priority=1)
        if len(items) < len(args):  # `, dropped, ...` after the last kept argument goes
            start = args[len(items) - 1].end_byte if items else args[0].start_byte
            ctx.edit(base + start, base + args[-1].end_byte, "", _ORDER, priority=1)
        elif len(items) > len(args):
            at = base + args[-1].end_byte
            ctx.edit(at, at, "".join(f", {text(i)}" for i in items[len(args):]), _ORDER, priority=1)

    ctx.later.append(job)


_ELEMENT_TYPE = r"\s*<\s*((?:[\w:]+\s*<[^<>;]*>|[\w:][\w:\s*]*?))\s*(?:,[^;{}()]*?)?>\s*&?\s*"


def device_value(c: Call, n: int) -> None:
    """Arguments from `n` on that are an element of a `thrust::device_vector` (`v.front()`,
    `v.back()`, `v[i]`): a `thrust::device_reference`, which CUDA's Thrust converts where an
    algorithm takes a value (an initial value, a step) and rocThrust 6's deduce as the
    accumulator's type and fail on. Cast to the vector's element type, as CUDA converts it."""
    for arg in c.args[n:]:
        vector = None
        if arg.type == "subscript_expression":
            vector = arg.child_by_field_name("argument")
        elif arg.type == "call_expression":
            fn, params = arg.child_by_field_name("function"), arg.child_by_field_name("arguments")
            if fn is not None and fn.type == "field_expression" and params is not None \
                    and not params.named_child_count:
                field = fn.child_by_field_name("field")
                if field is not None and c.src.text(field) in ("front", "back"):
                    vector = fn.child_by_field_name("argument")
        if vector is None or vector.type != "identifier":
            continue
        before = c.src.data[:vector.start_byte].decode("utf-8", "replace")
        name = re.escape(c.src.text(vector))
        found = list(re.finditer(rf"(?<![\w:])(?:thrust::)?device_vector{_ELEMENT_TYPE}\b{name}\b", before))
        if found:
            c.wrap(arg, f"static_cast<{' '.join(found[-1].group(1).split())}>(", ")")


TRANSFORMS: dict[str, Callable[[Call, int], None]] = {
    "device_value": device_value,
    "mem_location": mem_location,
    "hip_symbol": hip_symbol,
    "fn_cast": fn_cast,
    "host_malloc_flags": host_malloc_flags,
    "void_pp": void_pp,
    "void_p": void_p,
    "const_char_pp": const_char_pp,
    "no_size_callback": no_size_callback,
    "load": load,
    "store": store,
    "boundary_mode": boundary_mode,
}


def apply(ctx: Context, name_node: Node, m: Mapping, src: SourceFile | None = None,
          base: int = 0) -> None:
    found = call_arguments(name_node)
    if found is None or not m.args or ctx.floor.lacks(m.since):
        return  # below its floor the call is reported (HP003): the rewrite is the newer form's
    call = Call(ctx, src or ctx.src, base, *found)
    for spec in m.args.split(","):
        kind, _, param = spec.strip().partition(":")
        if kind == "default":  # default:N=VALUE, the value written when the call has N arguments
            count, _, value = param.partition("=")
            default(call, int(count), value)
            continue
        if kind == "noop":  # noop:VALUE, a call HIP does without: its arguments, then VALUE
            open_ = base + call.arglist.start_byte
            close = base + call.arglist.end_byte - 1
            ctx.edit(base + name_node.start_byte, open_ + 1, "((void)(", FixKind.ARGS, priority=1)
            ctx.edit(close, close + 1, f"), {param})", FixKind.ARGS, priority=1)
            continue
        if kind == "order":  # order:N=I J ..., CUDA's N arguments in the HIP function's order
            count, _, value = param.partition("=")
            if len(call.args) == int(count):
                order(call, value.split())
            else:
                ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, base + name_node.start_byte, base + name_node.end_byte,
                           f"{m.hip} takes {m.cuda}'s arguments in another order, and this call "
                           f"has {len(call.args)} where {count} were expected: order them by hand "
                           f"({m.note or m.hip})", m.family, m.cuda)
            continue
        if kind == "cast":  # cast:TYPE, every argument cast to TYPE (`umin(a, b)` -> `min((unsigned int)(a), ...)`)
            for arg in call.args:
                call.wrap(arg, f"({param})(", ")")
            continue
        if kind == "overload":  # overload:N=NAME, CUDA's C++ overload of N arguments is HIP's NAME
            count, _, value = param.partition("=")
            if len(call.args) == int(count):
                ctx.edit(base + name_node.start_byte, base + name_node.end_byte, value, FixKind.ARGS, priority=1)
            continue
        fn = TRANSFORMS.get(kind)
        if fn is None:
            ctx.report(HP.OVERLAPPING_REWRITES, Severity.ERROR, base + name_node.start_byte, base + name_node.end_byte,
                       f"unknown argument transform {kind!r} in the rules for {m.cuda}")
            continue
        fn(call, int(param or 0))
