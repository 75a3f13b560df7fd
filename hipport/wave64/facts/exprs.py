"""Expression parts looked up once per file: the callee name of a call (`call_name`) and the
operator and operands of a binary expression (`binop`)."""

from __future__ import annotations

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
        name = fx._names[key] = sx.call_name(call, fx.data)
    return name


def binop(fx: Facts, node: Node) -> tuple[str, Node | None, Node | None]:
    """(operator, left, right) of a binary expression, looked up once."""
    key = node.id
    got = fx._bin.get(key)
    if got is None:
        op = node.child_by_field_id(sx.F_OPERATOR)
        got = (op.type if op is not None else "", node.child_by_field_id(sx.F_LEFT),
               node.child_by_field_id(sx.F_RIGHT))
        fx._bin[key] = got
    return got
