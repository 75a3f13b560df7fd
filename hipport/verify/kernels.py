"""What `hipport verify` knows of a CUDA tree from its parse: each `__global__` kernel's
signature, each `<<<grid, block>>>` launch, and the integer constants the launches are written
with (`constexpr`/`const` declarations, `#define`s, `dim3` locals), evaluated by a small
evaluator that takes what it can prove and says None for anything else (never a guess)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hipport.source import Node, parser, walk

Value = int | float | tuple[int, int, int]

# Element types a harness can fill (C spelling -> (struct code, size)); `unsigned` spellings
# normalised first. Anything else (structs, functors, vector types) is not generated.
SCALARS: dict[str, str] = {
    "float": "f", "double": "d", "int": "i", "unsigned int": "I", "long": "q", "unsigned long": "Q",
    "long long": "q", "unsigned long long": "Q", "short": "h", "unsigned short": "H", "char": "b",
    "signed char": "b", "unsigned char": "B", "bool": "?", "size_t": "Q", "int8_t": "b", "uint8_t": "B",
    "int16_t": "h", "uint16_t": "H", "int32_t": "i", "uint32_t": "I", "int64_t": "q", "uint64_t": "Q",
}
_ALIASES = {"unsigned": "unsigned int", "signed": "int", "signed int": "int", "long int": "long",
            "unsigned long int": "unsigned long", "long long int": "long long",
            "unsigned long long int": "unsigned long long", "short int": "short",
            "unsigned short int": "unsigned short", "std::size_t": "size_t"}
for _n in ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"):
    _ALIASES[f"std::{_n}"] = _n


def scalar_type(text: str) -> str | None:
    """The normalised name of a scalar C type (`const unsigned` -> `unsigned int`), or None."""
    t = " ".join(w for w in text.replace("*", " ").split()
                 if w not in ("const", "volatile", "__restrict__", "__restrict", "restrict"))
    t = _ALIASES.get(t, t)
    return t if t in SCALARS else None


# An index that counts waves: a warp/wave id variable, or a thread index divided by a wave size.
_WAVE_INDEX = re.compile(r"(?i)warp|wave|\bwid\b|/\s*(?:32|64|warpSize)\b|>>\s*[56]\b")

_WAVE_VALUE = re.compile(r"\b(?:__ballot\w*|__activemask|warpSize|__lanemask\w*)\b")


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # the declared base type as written, without `const` and the `*`
    pointer: bool
    const: bool  # a pointer to const: input only
    depth: int = 0  # levels of indirection (2: a pointer to pointers, which is not generated)


@dataclass(frozen=True)
class Kernel:
    name: str  # as declared
    qualified: str  # with its namespaces (kl::poly_kernel)
    file: Path
    line: int
    params: tuple[Param, ...]
    template: tuple[str, ...]  # template parameter names, in order
    body: str  # the body's text (what it reads, writes and accumulates into)

    def reads(self, name: str) -> bool:
        """The body reads `name`: any use but a plain store `name[...] = ...` (an alias such as
        `const float* row = name + k` counts as a read)."""
        for m in re.finditer(rf"(?<![\w.>]){re.escape(name)}\b", self.body):
            j = m.end()
            while j < len(self.body) and self.body[j] in " \t\n":
                j += 1
            if j >= len(self.body) or self.body[j] != "[":
                return True
            depth, j = 1, j + 1
            while j < len(self.body) and depth:
                depth += {"[": 1, "]": -1}.get(self.body[j], 0)
                j += 1
            if not re.match(r"\s*=(?!=)", self.body[j:]):
                return True
        return False

    def wave_indexed(self, name: str) -> str | None:
        """The first store to `name` at an index that counts waves (`out[warp_id] = ...`,
        `out[threadIdx.x / 32] = ...`) or of a whole-wave value (`out[i] = __ballot_sync(...)`),
        as written: an output that follows the wave size by design; None when there is none."""
        # a local computed as a wave number (`int w = threadIdx.x / 32;`) counts as one
        ids = {a.group(1) for a in re.finditer(r"\b([A-Za-z_]\w*)\s*=(?!=)\s*([^;]*)", self.body)
               if _WAVE_INDEX.search(a.group(2)) and not _WAVE_VALUE.search(a.group(2))}
        wave_id = re.compile(rf"{_WAVE_INDEX.pattern}|\b(?:{'|'.join(map(re.escape, sorted(ids)))})\b"
                             if ids else _WAVE_INDEX.pattern, _WAVE_INDEX.flags)
        for m in re.finditer(rf"(?<![\w.>]){re.escape(name)}\s*\[([^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*)\]\s*([-+*|&^]?=)(?!=)",
                             self.body):
            if wave_id.search(m.group(1)):
                return f"{name}[{' '.join(m.group(1).split())}]"
            rhs = self.body[m.end():].split(";", 1)[0]
            if _WAVE_VALUE.search(rhs):  # a whole-wave mask or the wave size itself written out
                return f"{name}[{' '.join(m.group(1).split())}] = {' '.join(rhs.split())[:60]}"
        for m in re.finditer(rf"\batomic\w+\s*\(\s*&\s*{re.escape(name)}\s*\[([^\]]*)\]", self.body):
            if wave_id.search(m.group(1)):
                return f"{name}[{' '.join(m.group(1).split())}]"
        return None

    def accumulates(self, name: str) -> bool:
        """The body adds into `name` with an atomic (`atomicAdd(&name[i], ...)`, `atomicAdd(name, ...)`)."""
        return re.search(rf"\batomic\w+\s*\(\s*&?\s*{re.escape(name)}\b", self.body) is not None


@dataclass(frozen=True)
class Launch:
    kernel: str  # the callee as written (kl::poly_kernel<float, kBlock>)
    name: str  # its plain name (poly_kernel)
    grid: Node
    block: Node
    args: tuple[Node, ...]
    file: Path
    line: int
    scope: Scope


@dataclass
class Scope:
    """Names a launch's expressions may use: its function's locals first, then the tree's globals."""

    names: dict[str, Node] = field(default_factory=dict)
    parent: Scope | None = None
    local: set[str] = field(default_factory=set)  # every name the function declares (values or not)

    def lookup(self, name: str) -> Node | None:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None


@dataclass
class Tree:
    kernels: list[Kernel] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    globals: Scope = field(default_factory=Scope)
    # explicit instantiations (`template __global__ void flush<256>(const int*, int*);`): a
    # template kernel's arguments where no launch gives them
    instantiations: dict[str, str] = field(default_factory=dict)


def _text(n: Node) -> str:
    return (n.text or b"").decode("utf-8", "replace")


def _declarator_name(n: Node) -> tuple[str | None, int]:
    """The identifier under a declarator and how many `*` (or `[]`) were on the way."""
    ptr = 0
    while n is not None and n.type not in ("identifier", "field_identifier"):
        if n.type in ("pointer_declarator", "abstract_pointer_declarator", "array_declarator",
                      "reference_declarator"):
            ptr += 1
        nxt = n.child_by_field_name("declarator")
        if nxt is None:
            ids = [c for c in n.named_children if c.type in ("identifier", "pointer_declarator",
                                                             "reference_declarator", "array_declarator")]
            nxt = ids[0] if ids else None
        n = nxt  # type: ignore[assignment]
    return (_text(n) if n is not None else None), ptr


def _param(p: Node) -> Param | None:
    decl = p.child_by_field_name("declarator")
    if decl is None:
        return None
    name, ptr = _declarator_name(decl)
    if name is None:
        return None
    tnode = p.child_by_field_name("type")
    base = _text(tnode) if tnode is not None else ""
    quals = [_text(c) for c in p.children if c.type == "type_qualifier"]
    if tnode is not None and tnode.type == "sized_type_specifier":
        base = _text(tnode)
    return Param(name, " ".join(base.split()), ptr > 0, "const" in quals, ptr)


def _namespaces(n: Node) -> str:
    parts: list[str] = []
    p = n.parent
    while p is not None:
        if p.type == "namespace_definition":
            nm = p.child_by_field_name("name")
            if nm is not None:
                parts.append(_text(nm))
        p = p.parent
    return "::".join(reversed(parts))


def _kernel(fn: Node, path: Path) -> Kernel | None:
    if not any(c.type == "__global__" or _text(c) == "__global__" for c in fn.children):
        return None
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    if decl is None:
        return None
    name_node = decl.child_by_field_name("declarator")
    plist = decl.child_by_field_name("parameters")
    if name_node is None or plist is None:
        return None
    name = _text(name_node)
    params = []
    for p in plist.named_children:
        if p.type == "parameter_declaration":
            prm = _param(p)
            if prm is None:
                return None
            params.append(prm)
    template: tuple[str, ...] = ()
    if fn.parent is not None and fn.parent.type == "template_declaration":
        tl = fn.parent.child_by_field_name("parameters")
        names = []
        for tp in (tl.named_children if tl is not None else []):
            ids = [c for c in walk(tp) if c.type in ("identifier", "type_identifier")]
            names.append(_text(ids[-1]) if ids else "")
        template = tuple(names)
    ns = _namespaces(fn)
    body = fn.child_by_field_name("body")
    return Kernel(name, f"{ns}::{name}" if ns else name, path, fn.start_point[0] + 1, tuple(params), template,
                  _text(body) if body is not None else "")


def _scope_names(root: Node, into: dict[str, Node], *, top: bool) -> None:
    """Constant-like declarations directly in `root` (a file, namespace or function body)."""
    for n in walk(root):
        if n.type == "function_definition" and top and n is not root:
            continue  # a function's locals are its own scope
        if n.type == "preproc_def" and top:
            nm, val = n.child_by_field_name("name"), n.child_by_field_name("value")
            if nm is not None and val is not None:
                expr = _parse_expr(_text(val))
                if expr is not None:
                    into.setdefault(_text(nm), expr)
        elif n.type == "declaration":
            if top and _inside_function(n):
                continue
            for d in n.children_by_field_name("declarator"):
                tnode = n.child_by_field_name("type")
                if d.type == "function_declarator" and tnode is not None and _text(tnode) == "dim3":
                    # `dim3 block(kBlock);` parses as a function declaration (the vexing parse)
                    nm, ps = d.child_by_field_name("declarator"), d.child_by_field_name("parameters")
                    if nm is not None and ps is not None:
                        into[_text(nm)] = ps
                    continue
                if d.type != "init_declarator":
                    continue
                nm = d.child_by_field_name("declarator")
                val = d.child_by_field_name("value")
                if nm is None or nm.type != "identifier" or val is None:
                    continue
                if val.type == "argument_list":  # dim3 block(32, 4)
                    into[_text(nm)] = val
                elif val.type != "initializer_list":
                    into[_text(nm)] = val


def _inside_function(n: Node) -> bool:
    p = n.parent
    while p is not None:
        if p.type == "function_definition":
            return True
        p = p.parent
    return False


_EXPR_CACHE: dict[str, Node | None] = {}


def _parse_expr(text: str) -> Node | None:
    """A macro body as an expression node (None when it is not one)."""
    if text in _EXPR_CACHE:
        return _EXPR_CACHE[text]
    src = f"int __hipport_v = ({text.strip()});".encode()
    tree = parser().parse(src)
    out: Node | None = None
    if not tree.root_node.has_error:
        decl = tree.root_node.named_children[0]
        init = decl.child_by_field_name("declarator")
        out = init.child_by_field_name("value") if init is not None else None
    _EXPR_CACHE[text] = out
    return out


def parse_tree(files: list[Path]) -> Tree:
    """Kernels, launches and global constants of `files` (CUDA sources and headers)."""
    out = Tree()
    fn_scopes: list[tuple[Node, Path, Scope]] = []
    macros: dict[str, tuple[list[str], str]] = {}
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        root = parser().parse(data).root_node
        _scope_names(root, out.globals.names, top=True)
        for m in _INSTANTIATION.finditer(data.decode("utf-8", "replace")):
            out.instantiations.setdefault(m.group(1), m.group(2).strip())
        macros.update(_launch_macros(root))
        for n in walk(root):
            if n.type == "function_definition":
                k = _kernel(n, path)
                if k is not None:
                    out.kernels.append(k)
                elif b"<<<" in (n.text or b"") or macros:
                    scope = Scope(parent=out.globals)
                    body = n.child_by_field_name("body")
                    if body is not None:
                        _scope_names(body, scope.names, top=False)
                    scope.local = {_text(d) for d in walk(n) if d.type == "identifier" and d.parent is not None
                                   and d.parent.type in ("init_declarator", "declaration", "pointer_declarator",
                                                         "parameter_declaration", "array_declarator",
                                                         "reference_declarator")}
                    fn_scopes.append((n, path, scope))
    for fn, path, scope in fn_scopes:
        for n in walk(fn):
            if n.type != "call_expression":
                continue
            line = n.start_point[0] + 1
            fname = n.child_by_field_name("function")
            if fname is not None and fname.type == "identifier" and _text(fname) in macros:
                expanded = _expand(macros[_text(fname)], n)  # a launch written through a macro
                if expanded is None:
                    continue
                n = expanded
            cfg = [c for c in n.children if c.type == "kernel_call_syntax"]
            fnode = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if not cfg or fnode is None or args is None:
                continue
            shape = [c for c in cfg[0].named_children if c.type != "comment"]
            if len(shape) < 2:
                continue
            callee = _text(fnode)
            plain = re.sub(r"<.*", "", callee).split("::")[-1].strip()
            out.launches.append(Launch(callee, plain, shape[0], shape[1], tuple(args.named_children), path,
                                       line, scope))
    return out


_INSTANTIATION = re.compile(r"(?m)^\s*template\s+(?:__global__\s+)?(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+"
                            r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:\w+::)*(\w+)\s*<([^;{}]*)>\s*\(")


def _launch_macros(root: Node) -> dict[str, tuple[list[str], str]]:
    """Function-like macros whose body is a launch: `#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)`."""
    out: dict[str, tuple[list[str], str]] = {}
    for n in walk(root):
        if n.type != "preproc_function_def":
            continue
        nm, ps, val = (n.child_by_field_name(f) for f in ("name", "parameters", "value"))
        if nm is None or ps is None or val is None or "<<<" not in _text(val):
            continue
        out[_text(nm)] = ([_text(c) for c in ps.children if c.type in ("identifier", "...")], _text(val))
    return out


def _expand(macro: tuple[list[str], str], call: Node) -> Node | None:
    """A launch macro's call, expanded and parsed: the call expression with the launch."""
    params, body = macro
    args_node = call.child_by_field_name("arguments")
    args = [_text(a) for a in (args_node.named_children if args_node is not None else []) if a.type != "comment"]
    named = [p for p in params if p != "..."]
    if len(args) < len(named):
        return None
    values = dict(zip(named, args, strict=False))
    values["__VA_ARGS__"] = ", ".join(args[len(named):])
    text = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: values.get(m.group(0), m.group(0)), body.replace("\\\n", " "))
    tree = parser().parse(f"void __hipport_f() {{ {text}; }}".encode())
    for n in walk(tree.root_node):
        if n.type == "call_expression" and any(c.type == "kernel_call_syntax" for c in n.children):
            return n
    return None


# --- the evaluator ----------------------------------------------------------------------------

_CEIL = re.compile(r"(?i)(ceil|div_?up|divup|cdiv|round_?up|div_round_up|iDivUp)")
_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F']+|0[bB][01']+|\d[\d']*)([uUlL]*)")


def _number(text: str) -> int | float | None:
    t = text.replace("'", "")
    m = _INT_LITERAL.fullmatch(t)
    if m:
        return int(m.group(1).replace("'", ""), 0) if not re.fullmatch(r"0\d+", m.group(1)) else int(m.group(1), 8)
    try:
        return float(t.rstrip("fFlL"))
    except ValueError:
        return None


class Evaluator:
    """Evaluates a launch's expressions in its scope; `overrides` rebinds names (the size)."""

    def __init__(self, scope: Scope, overrides: dict[str, Value] | None = None) -> None:
        self.scope = scope
        self.overrides = overrides or {}
        self._busy: set[str] = set()

    def __call__(self, n: Node | None) -> Value | None:
        if n is None:
            return None
        try:
            return self._eval(n)
        except (ZeroDivisionError, TypeError, ValueError, OverflowError, RecursionError):
            return None

    def name(self, name: str) -> Value | None:
        if name in self.overrides:
            return self.overrides[name]
        node = self.scope.lookup(name)
        if node is None or name in self._busy:
            return None
        self._busy.add(name)
        try:
            return self(node)
        finally:
            self._busy.discard(name)

    def _eval(self, n: Node) -> Value | None:
        t = n.type
        if t == "number_literal":
            return _number(_text(n))
        if t in ("identifier", "type_identifier"):
            return self.name(_text(n))
        if t == "qualified_identifier":
            return self.name(_text(n).split("::")[-1].strip())
        if t in ("parenthesized_expression", "type_descriptor"):
            inner = n.named_children
            return self._eval(inner[-1]) if inner else None
        if t == "true":
            return 1
        if t == "false":
            return 0
        if t == "parameter_list":  # dim3 name(kX, kY) read as a declaration
            exprs = [_parse_expr(_text(c)) for c in n.named_children]
            return _dim3([self._eval(e) if e is not None else None for e in exprs])
        if t == "argument_list":  # dim3 name(x, y, z)
            return _dim3([self._eval(c) for c in n.named_children])
        if t == "unary_expression":
            op = _text(n.child_by_field_name("operator") or n.children[0])
            v = self._eval(n.child_by_field_name("argument") or n.named_children[-1])
            if not isinstance(v, (int, float)):
                return None
            num: int | float = v
            return {"-": lambda: -num, "+": lambda: num, "~": lambda: ~int(num), "!": lambda: int(not num)}[op]()
        if t == "binary_expression":
            a = self._eval(n.child_by_field_name("left"))  # type: ignore[arg-type]
            b = self._eval(n.child_by_field_name("right"))  # type: ignore[arg-type]
            op = _text(n.child_by_field_name("operator"))  # type: ignore[arg-type]
            if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
                return None
            return _binary(op, a, b)
        if t == "conditional_expression":
            c = self._eval(n.child_by_field_name("condition"))  # type: ignore[arg-type]
            if not isinstance(c, (int, float)):
                return None
            return self._eval(n.child_by_field_name("consequence" if c else "alternative"))  # type: ignore[arg-type]
        if t in ("cast_expression", "static_cast_expression"):
            v = self._eval(n.child_by_field_name("value") or n.named_children[-1])
            return v
        if t == "call_expression":
            fn = _text(n.child_by_field_name("function")).split("::")[-1]  # type: ignore[arg-type]
            args_node = n.child_by_field_name("arguments")
            vals = [self._eval(c) for c in (args_node.named_children if args_node is not None else [])]
            if fn.startswith("static_cast") and vals:
                return vals[0]
            if fn in ("dim3", "make_uint3", "uint3"):
                return _dim3(vals)
            if any(not isinstance(v, (int, float)) for v in vals):
                return None
            nums: list[int | float] = [v for v in vals if isinstance(v, (int, float))]
            if fn in ("min", "std::min", "fmin") and len(nums) == 2:
                return min(nums)
            if fn in ("max", "std::max", "fmax") and len(nums) == 2:
                return max(nums)
            if _CEIL.search(fn) and len(nums) == 2 and all(isinstance(v, int) for v in nums):
                a, b = int(nums[0]), int(nums[1])
                return -(-a // b) if "round" not in fn.lower() else -(-a // b) * b
            return None
        if t == "initializer_list":
            return _dim3([self._eval(c) for c in n.named_children])
        return None


def _dim3(vals: list[Value | None]) -> tuple[int, int, int] | None:
    if not 1 <= len(vals) <= 3 or any(not isinstance(v, int) for v in vals):
        return None
    ints = [int(v) for v in vals if isinstance(v, int)] + [1] * (3 - len(vals))
    return ints[0], ints[1], ints[2]


def _binary(op: str, a: int | float, b: int | float) -> int | float | None:
    if isinstance(a, int) and isinstance(b, int):
        if op == "/":
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b >= 0) else -q
        if op == "%":
            return a - b * int(_binary("/", a, b) or 0)
        ops: dict[str, Callable[[int, int], int]] = {
            "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
            "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y, "&": lambda x, y: x & y,
            "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "<": lambda x, y: int(x < y),
            ">": lambda x, y: int(x > y), "<=": lambda x, y: int(x <= y), ">=": lambda x, y: int(x >= y),
            "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
            "&&": lambda x, y: int(bool(x and y)), "||": lambda x, y: int(bool(x or y))}
        return ops[op](a, b) if op in ops else None
    fa, fb = float(a), float(b)
    fops: dict[str, Callable[[float, float], float]] = {
        "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y, "/": lambda x, y: x / y}
    return fops[op](fa, fb) if op in fops else None


def dims(v: Value | None) -> tuple[int, int, int] | None:
    """A grid or block value as three extents (an integer is x)."""
    if isinstance(v, tuple):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return v, 1, 1
    return None


def local_names(launch: Launch) -> Iterator[str]:
    """The names a launch's function declares (an argument naming one is not file scope)."""
    yield from launch.scope.names
