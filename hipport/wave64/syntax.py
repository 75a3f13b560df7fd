"""Small tree and span helpers shared by the wave64 rules.

Edits are fine-grained by construction: a helper replaces one token or one argument, deletes
one argument, or inserts text at a point. Nothing here replaces a region that holds other code,
because the translate pass renames CUDA identifiers inside such regions with its own edits.
"""

from __future__ import annotations

import re
from functools import cache

import tree_sitter

from hipport.model import Edit
from hipport.source import Node, language

PRIORITY = 10  # above the translate pass's renames (priority 0)

# A tree-sitter query's run time explodes past 65,535 levels of nesting (a sum of 100,000
# terms took minutes); each level takes at least a byte, so a node shorter than this cannot
# reach that depth: below it a query may replace a walk in Python.
QUERY_BYTES = 60_000


@cache
def query(types: tuple[str, ...]) -> tree_sitter.Query:
    """A query capturing (as `n`) every node of `types`, compiled once per process."""
    return tree_sitter.Query(language(), "[" + " ".join(f"({t})" for t in types) + "] @n")


def captured(node: Node, types: tuple[str, ...]) -> list[Node]:
    """The nodes of `types` in `node` (node itself too), as their matches end: inner nodes
    before the nodes around them. Only for a node shorter than QUERY_BYTES."""
    return tree_sitter.QueryCursor(query(types)).captures(node).get("n", [])


def _field(name: str) -> int:
    fid = language().field_id_for_name(name)
    assert fid is not None, name
    return fid


# Field ids: `node.child_by_field_id(F_LEFT)` is twice as fast as `child_by_field_name("left")`,
# which compares the name with each of the grammar's field names on every call.
F_ALTERNATIVE = _field("alternative")
F_ARGUMENT = _field("argument")
F_ARGUMENTS = _field("arguments")
F_ASSEMBLY_CODE = _field("assembly_code")
F_BODY = _field("body")
F_CONDITION = _field("condition")
F_CONSEQUENCE = _field("consequence")
F_DECLARATOR = _field("declarator")
F_DEFAULT_VALUE = _field("default_value")
F_FIELD = _field("field")
F_FUNCTION = _field("function")
F_INDICES = _field("indices")
F_INITIALIZER = _field("initializer")
F_LEFT = _field("left")
F_NAME = _field("name")
F_PATH = _field("path")
F_OPERATOR = _field("operator")
F_OUTPUT_OPERANDS = _field("output_operands")
F_PARAMETERS = _field("parameters")
F_RIGHT = _field("right")
F_SIZE = _field("size")
F_TYPE = _field("type")
F_UPDATE = _field("update")
F_VALUE = _field("value")

_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$")


def unparen(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count:
        node = node.named_child(0)
    return node


@cache
def int_literal(text: str) -> tuple[int, int] | None:
    """(value, bits) of a C integer literal; bits is 64 for a `ll` suffix or a value over 32 bits."""
    m = _INT.match(text.replace("'", ""))
    if not m:
        return None
    digits, suffix = m.groups()
    if digits[:2] in ("0x", "0X"):
        value = int(digits, 16)
    elif digits[:2] in ("0b", "0B"):
        value = int(digits[2:], 2)
    elif len(digits) > 1 and digits[0] == "0":
        value = int(digits, 8)
    else:
        value = int(digits)
    bits = 64 if "ll" in suffix.lower() or value > 0xFFFFFFFF else 32
    return value, bits


def literal_unsigned(text: str) -> bool:
    return "u" in text.lower() or text.lower().startswith("0x")


def call_function(call: Node) -> Node | None:
    return call.child_by_field_id(F_FUNCTION)


def call_name(call: Node, data: bytes) -> str:
    """The called name: `f` for f(), `g` for ns::g(), `h` for t.h(), `k` for k<3>()."""
    fn = call.child_by_field_id(F_FUNCTION)
    while fn is not None:
        t = fn.type
        if t == "identifier" or t == "field_identifier":
            return data[fn.start_byte:fn.end_byte].decode("utf-8", "replace")
        if t == "qualified_identifier":
            fn = fn.child_by_field_id(F_NAME)
        elif t == "field_expression":
            fn = fn.child_by_field_id(F_FIELD)
        elif t == "template_function":
            fn = fn.child_by_field_id(F_NAME)
        else:
            return ""
    return ""


def call_args(call: Node) -> list[Node]:
    args = call.child_by_field_id(F_ARGUMENTS)
    if args is None:
        return []
    return [c for c in args.named_children if c.type != "comment"]


def arg_list(call: Node) -> Node | None:
    return call.child_by_field_id(F_ARGUMENTS)


def field_object(call: Node) -> Node | None:
    """`t` in t.ballot(p)."""
    fn = call.child_by_field_id(F_FUNCTION)
    if fn is not None and fn.type == "field_expression":
        return fn.child_by_field_id(F_ARGUMENT)
    return None


def parent_skipping_parens(node: Node) -> Node | None:
    p = node.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    return p


def enclosing(node: Node, types: tuple[str, ...] | frozenset[str], stop: Node | None = None) -> Node | None:
    p = node.parent
    while p is not None:
        if p.type in types:
            return p
        if stop is not None and p.id == stop.id:
            return None
        p = p.parent
    return None


def inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


# ---- edits ---------------------------------------------------------------------------------

def replace(node: Node, text: str, rule: str) -> Edit:
    return Edit(node.start_byte, node.end_byte, text, rule, PRIORITY)


def replace_span(start: int, end: int, text: str, rule: str) -> Edit:
    return Edit(start, end, text, rule, PRIORITY)


def insert(pos: int, text: str, rule: str) -> Edit:
    return Edit(pos, pos, text, rule, PRIORITY)


def delete_arg(call: Node, index: int, rule: str) -> Edit | None:
    """Delete argument `index` with the comma that separates it from its neighbour."""
    args = call_args(call)
    if index >= len(args):
        return None
    if index + 1 < len(args):
        return Edit(args[index].start_byte, args[index + 1].start_byte, "", rule, PRIORITY)
    if index > 0:
        return Edit(args[index - 1].end_byte, args[index].end_byte, "", rule, PRIORITY)
    return Edit(args[index].start_byte, args[index].end_byte, "", rule, PRIORITY)


def append_arg(call: Node, text: str, rule: str) -> Edit | None:
    args = call_args(call)
    if not args:
        al = arg_list(call)
        if al is None:
            return None
        return Edit(al.start_byte + 1, al.start_byte + 1, text, rule, PRIORITY)
    return Edit(args[-1].end_byte, args[-1].end_byte, ", " + text, rule, PRIORITY)


def wrap(node: Node, before: str, after: str, rule: str) -> list[Edit]:
    return [Edit(node.start_byte, node.start_byte, before, rule, PRIORITY),
            Edit(node.end_byte, node.end_byte, after, rule, PRIORITY)]


def needs_parens_for_mul(node: Node) -> bool:
    """True when `node` must be parenthesised to become the left operand of `/` or `%`."""
    node_t = node.type
    if node_t in ("identifier", "number_literal", "field_expression", "call_expression",
                  "parenthesized_expression", "subscript_expression", "cast_expression"):
        return False
    if node_t == "binary_expression":
        op = node.child_by_field_id(F_OPERATOR)
        return op is None or op.type not in ("*", "/", "%")
    return True
