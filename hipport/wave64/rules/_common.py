"""Helpers shared by the rule modules: building findings, typed widening, consumers of a value."""

from __future__ import annotations

from hipport.model import Edit, Finding, Fix, Severity
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import Emitter
from hipport.wave64.facts import Facts, Func, Summary, Var
from hipport.wave64.facts.consts import call_const

MASK_OPS = ("&", "|", "^", "<<", ">>", "~")


def finding(facts: Facts, rule: str, node: Node | tuple[int, int], message: str, fn: Func | None,
            fix: Fix | None = None, kept: bool = False, model: str | None = None) -> Finding:
    """A finding for `rule` at `node`; `kept` sites (already right for the strategy) are info."""
    from hipport.wave64.registry import BY_ID  # the registry imports the rule modules

    info = BY_ID[rule]
    if isinstance(node, tuple):
        span = facts.src.span(*node)
    else:
        span = facts.src.node_span(node)
    severity = Severity.INFO if kept and fix is None else info.severity
    if model is None and fn is not None and fn.group is not None:
        model = fn.group.model
    return Finding(rule=rule, severity=severity, span=span, message=message, fix=fix,
                   kernel=fn.name if fn is not None else None, model=model)


WIDE = "unsigned long long"


def widen_var(var: Var, rule: str) -> list[Edit] | None:
    """Make a 32-bit variable, parameter or array element 64-bit: edit its type token only."""
    if var.is_pointer or var.type_node is None:
        return None
    if var.count != 1 and not var.is_param:
        return None
    return [sx.replace(var.type_node, WIDE, rule)]


def consumer(facts: Facts, node: Node) -> tuple[Node | None, Node]:
    """The first ancestor of `node` that is not a parenthesis or a mask operator, and the child of
    it on the way up (what it consumes)."""
    up = facts.src.ancestors(node)  # (a step a level; `.parent` walks down from the root)
    child = node
    p = next(up, None)
    while p is not None:
        t = p.type
        if t == "parenthesized_expression":
            child, p = p, next(up, None)
            continue
        if t == "binary_expression":
            op = p.child_by_field_id(sx.F_OPERATOR)
            if op is not None and op.type in MASK_OPS:
                child, p = p, next(up, None)
                continue
        if t == "unary_expression":
            op = p.child_by_field_id(sx.F_OPERATOR)
            if op is not None and op.type == "~":
                child, p = p, next(up, None)
                continue
        break
    return p, child


def code(facts: Facts, node: Node) -> str:
    return facts.src.text(node)


def short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


_CONST_PARENTS = {"template_argument_list", "static_assert_declaration", "enumerator", "case_statement",
                  "launch_bounds", "alignas_qualifier", "bitfield_clause", "preproc_if", "preproc_elif"}
_STOP = {"compound_statement", "expression_statement", "function_definition", "for_statement",
         "if_statement", "while_statement", "return_statement", "translation_unit"}


def in_constant_context(facts: Facts, node: Node) -> bool:
    """True when `node` is part of a constant expression: an array bound, a template argument, a
    static_assert, an enumerator or case value, or the initializer of a constexpr / static const."""
    # The answer is the same for every node on the way up to where it is decided, so each is
    # remembered: the sites of a sum of n terms share one walk up, not n walks of n levels.
    memo = facts._constant_context
    seen = [node.id]
    found = _constant_context(facts, node, memo, seen)
    for k in seen:
        memo[k] = found
    return found


def _constant_context(facts: Facts, node: Node, memo: dict[int, bool], seen: list[int]) -> bool:
    child = node
    up = facts.src.ancestors(node)  # (a step a level; `.parent` walks down from the root)
    p = next(up, None)
    while p is not None and p.type not in _STOP:
        known = memo.get(child.id)
        if known is not None:
            return known
        t = p.type
        if t in _CONST_PARENTS:
            return True
        if t == "array_declarator":
            size = p.child_by_field_id(sx.F_SIZE)
            if size is not None and sx.inside(child, size):
                return True
        if t == "init_declarator":
            decl = next(up, None)
            if decl is not None and decl.type in ("declaration", "field_declaration"):
                tn = decl.child_by_field_id(sx.F_TYPE)
                head = facts.data[decl.start_byte:(tn or decl).start_byte]
                if b"constexpr" in head or (b"static" in head and b"const" in head):
                    return True
            return False
        if t == "declaration":
            return False
        child, p = p, next(up, None)
        seen.append(child.id)
    return False


def in_bound_or_template_argument(facts: Facts, node: Node) -> bool:
    """True when `node` is part of an array bound or a template argument: the constant contexts
    W007 (array sizes) and W008 / W009 (template arguments) answer for."""
    child = node
    for p in facts.src.ancestors(node):
        t = p.type
        if t in _STOP or t in ("declaration", "field_declaration", "init_declarator"):
            return False
        if t == "template_argument_list":
            return True
        if t in ("array_declarator", "abstract_array_declarator"):
            size = p.child_by_field_id(sx.F_SIZE)
            if size is not None and sx.inside(child, size):
                return True
        child = p
    return False


def idents_in(facts: Facts, node: Node, name: str) -> list[Node]:
    """Identifier nodes spelled `name` inside `node` (small subtrees only)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            if facts.data[n.start_byte:n.end_byte] == name.encode():
                out.append(n)
            continue
        stack.extend(n.children)
    return out


def template_uses(facts: Facts, fn: Func) -> list[tuple[Node, str, Node]]:
    """(node, template name, first argument) for `name<arg>` in a function, including the
    `ns::name < arg > (t = ...)` form tree-sitter-cuda sometimes produces for a declaration."""
    out = []
    for n in fn.node_list("template_function") + fn.node_list("template_type"):
        name = n.child_by_field_id(sx.F_NAME)
        args = n.child_by_field_id(sx.F_ARGUMENTS)
        if name is None or args is None or not args.named_child_count:
            continue
        out.append((n, facts.src.text(name), args.named_child(0)))
    for n in fn.node_list("pseudo_template"):
        name = n.child_by_field_id(sx.F_LEFT)
        arg = n.child_by_field_id(sx.F_RIGHT)
        if name is None or arg is None:
            continue
        if name.type == "qualified_identifier":
            name = name.child_by_field_id(sx.F_NAME) or name
        out.append((n, facts.src.text(name), arg))
    out.sort(key=lambda t: t[0].start_byte)
    return out


def named_const(facts: Facts, node: Node | None) -> str | None:
    """The warp-size constant a site uses (`WARP_SIZE` in `tid % WARP_SIZE`), or None."""
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            key = call_const(facts, n)  # `warp_size()`, a constexpr function returning 32
            if key is not None:
                return key
            continue
        if n.type == "identifier":
            name = facts.src.text(n)
            if name != "warpSize" and name not in facts.arch_macros and name not in facts.wave_macros and (
                    name in facts.consts or name in facts.macros or
                                       facts.external_const(name, facts.func_at(n.start_byte))):
                return name
            continue
        stack.extend(n.named_children)
    return None


def named_site_message(facts: Facts, what: str, text: str, name: str, strategy: str) -> str:
    """The message of a lane / warp site that assumes 32 lanes through a named constant (kept:
    the constant is the logical warp size, or W008 makes it the wave size at its definition)."""
    where = "defined in another file, 32 on CUDA" if name not in facts.consts and name not in facts.macros \
        else "= 32"
    msg = f"{what} `{text}` assumes 32-lane warps through `{name}` ({where})"
    if strategy == "logical32":
        return msg + "; kept: logical 32-lane warps"
    return msg + f"; kept: it follows `{name}`, which W008 makes the wave size where it is defined"


def tile_relative(facts: Facts, em: Emitter, fn: Func, node: Node) -> bool:
    """True when the mask value of `node` is a tile's ballot and stays one: its bits are the tile's
    members (a CUDA tile ballot is on at most 32 threads), so 32-bit handling of it is exact. Not
    when natively a 32-thread tile becomes the wave (W009 rewrites it and its ballot)."""
    sources = facts.tile_mask_sources(node, fn)
    if not sources:
        return False
    for wc in sources:
        n = facts.tile_size(wc.fn, wc.tile) if wc.tile is not None else None
        if n is not None and (n > 32 or (n == 32 and em.strategy(wc.fn) == "native")):
            return False
    return True


def header_calls(facts: Facts, fn: Func) -> list[tuple[Node, Summary]]:
    """The calls in `fn` of device functions an included header defines, with their summaries
    (hipport.wave64.facts.summaries)."""
    out: list[tuple[Node, Summary]] = []
    if not facts.header_funcs():
        return out
    for c in fn.node_list("call_expression"):
        name = facts.call_name(c)
        s = facts.header_func(name) if name and sx.field_object(c) is None else None
        if s is not None:
            out.append((c, s))
    return out


def agree(strategy: str, s: Summary) -> bool:
    """Does the header's own port of `s` (its group's strategy) match this kernel's strategy?"""
    return s.strategy == strategy
