"""Precise values (`--precise`, issue 31): what clang's reading of the file (hipport.precise)
resolves where the tree-sitter model found nothing: a macro that expands through a
function-like macro or token pasting, a constant the compiler computes, a template
parameter's value where the template is instantiated with constants, and the width of a
typedef. Consulted by `consts` and `headers` only after their own model gave None: never over
what it knows. With precise mode off (the default), this module answers None without
importing hipport.precise or clang."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.precise import Model, model
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts.data import Func
from hipport.wave64.facts.names import is_warp_name

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts


def _model(fx: Facts) -> Model | None:
    """The file's Model, parsed on the first question; None with precise mode off, for a
    header read for another file's constants, and for bytes with no place on disk."""
    if not fx.config.precise or fx._precise is False:
        return None
    if not isinstance(fx._precise, Model):
        cl = fx.src.closure
        if cl is None or not cl.path:
            fx._precise = False
            return None
        fx._precise = model(cl.path, fx.data, cl.found, fx.config, cl.dirs)
    return fx._precise


def note(fx: Facts) -> str:
    """Why precise mode resolved nothing in this file ("": it parsed, or was not asked)."""
    return fx._precise.note if isinstance(fx._precise, Model) else ""


def value(fx: Facts, name: str) -> tuple[int, int] | None:
    """(value, bits) of a file-level or header name: an object-like macro, a const integer
    variable or an enumerator with one value in the translation unit."""
    m = _model(fx)
    return m.values.get(name) if m is not None else None


def warp_value(fx: Facts, name: str) -> int | None:
    """The value of a warp-size constant (a warp-size name equal to 32 or 64), or None."""
    v = value(fx, name) if is_warp_name(name) else None
    return v[0] if v is not None and v[0] in (32, 64) else None


def declared(fx: Facts, declarator: Node) -> tuple[int, int] | None:
    """(value, bits) of the const integer variable this file declares at `declarator`."""
    m = _model(fx)
    if m is None or not m.at:
        return None
    n: Node | None = declarator
    while n is not None:  # `x = ...` and `x[...]`: the name's own offset is clang's location
        if n.type in ("identifier", "field_identifier"):
            return m.at.get(n.start_byte)
        n = n.child_by_field_id(sx.F_DECLARATOR)
    return None


def tparam(fx: Facts, fn: Func, name: str) -> int | None:
    """The one value `fn`'s template parameter `name` takes where the template is
    instantiated with constants (None: not instantiated so, or with several values)."""
    m = _model(fx)
    node = fn.tparams.get(name)
    if m is None or node is None or not m.tparams:
        return None
    decl = node if node.type == "parameter_declaration" else node.parent
    d = decl.child_by_field_id(sx.F_DECLARATOR) if decl is not None else None
    return m.tparams.get(d.start_byte) if d is not None else None


def cval(fx: Facts, node: Node, fn: Func | None) -> tuple[int, int, bool] | None:
    """consts.cval's answer for an identifier its own model left unresolved."""
    if node.type == "type_descriptor" and node.named_child_count == 1:
        node = node.named_child(0)
    if node.type not in ("identifier", "type_identifier") or _model(fx) is None:
        return None
    name = fx.src.text(node)
    v: tuple[int, int] | None
    if fn is not None and name in fn.tparams:
        t = tparam(fx, fn, name)
        v = (t, 32) if t is not None else None
    elif fn is not None and name in fn.vars:
        v = declared(fx, fn.vars[name].declarator)
    elif fn is not None and any(p.name == name for p in fn.params):
        return None
    else:
        v = value(fx, name)
    if v is None:
        return None
    return v[0], v[1], v[0] in (32, 64) and is_warp_name(name)


def type_bits(fx: Facts, name: str) -> int | None:
    """32 or 64: the width of the integer type a typedef or alias names (None: not known)."""
    m = _model(fx)
    return m.types.get(name) if m is not None else None
