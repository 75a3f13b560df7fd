"""Expression parts looked up once per file: the callee name of a call (`call_name`) and the
operator and operands of a binary expression (`binop`)."""

from __future__ import annotations

from sys import intern
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64 import syntax as sx

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts


def call_name(fx: Facts, call: Node) -> str:
    """`sx.call_name` of a call in this file, looked up once."""
    key = call.id
    name = fx._names.get(key)
    if name is None:
        # (interned: one string per distinct name, not one per call of the file)
        name = fx._names[key] = intern(sx.call_name(call, fx.data))
    return name


def binop(fx: Facts, node: Node) -> tuple[str, Node | None, Node | None]:
    """(operator, left, right) of a binary expression; the operator is looked up once. The
    operands are looked up at each call: kept, they were two Python nodes for every binary
    expression of the file, held until its end (a tenth of the facts' memory)."""
    key = node.id
    op = fx._bin.get(key)
    if op is None:
        o = node.child_by_field_id(sx.F_OPERATOR)
        # (a node's type string is a new object at each read: the interned one is kept)
        op = fx._bin[key] = intern(o.type) if o is not None else ""
    return op, node.child_by_field_id(sx.F_LEFT), node.child_by_field_id(sx.F_RIGHT)
