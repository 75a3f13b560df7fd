"""Header constants: the warp-size constants (and every macro name) that the headers a file
includes define, taken from the file's include closure (hipport.closure: found next to the
file or in a folder above it, three includes deep), each header's own definitions analysed
once per process and content; and the names the file or its headers #define
(`tree_defines`). Nothing here opens a file: what the result depends on is what the
pipeline read and keyed the cache on."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport import closure as closuremod
from hipport.cache import blake2b
from hipport.closure import Closure
from hipport.config import Config
from hipport.source import SourceFile
from hipport.wave64.facts.names import might_hold_hazards

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

Consts = dict[str, tuple[int, bool]]
# A header's own constants and macro names, by (path, content digest, config): the same
# header included by many files of a run is analysed once per worker.
_OWN: dict[tuple[str, bytes, Config], tuple[Consts, frozenset[str]]] = {}
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


def _own_consts(path: str, data: bytes, config: Config) -> tuple[Consts, frozenset[str]]:
    """What one header defines itself: warp-size constants, name -> (value on AMD, chosen
    for AMD: an AMD-only or per-architecture definition); and every macro name it #defines
    (a tree's own HIP shims: ggml's vendors/hip.h defines `__shfl_xor_sync`)."""
    key = (path, blake2b(data, digest_size=16).digest(), config)
    hit = _OWN.get(key)
    if hit is not None:
        return hit
    out: Consts = {}
    names = frozenset(m.group(1).decode() for m in _DEFINE.finditer(data))
    if might_hold_hazards(data) or b"define" in data:
        from hipport.wave64.facts import Facts  # (the façade builds these providers)

        h = Facts(SourceFile(path, data), config, headers=False)
        for name, defs in h.consts.items():
            v = h.const_value(name)
            if v is not None:
                out[name] = (v, any(d.amd_only for d in defs) or name in h.arch_macros)
        for name in h.arch_macros:
            out.setdefault(name, (64, True))
    _OWN[key] = out, names
    return out, names


def _header_consts(cl: Closure, path: str, config: Config, depth: int,
                   busy: set[str]) -> tuple[Consts, frozenset[str]]:
    """What a header and the headers it includes (to the closure's depth) define; the
    nearer definition wins."""
    data = cl.found.get(path)
    if data is None or path in busy:  # not read (too large, unreadable), or an include cycle
        return {}, frozenset()
    consts, names = _own_consts(path, data, config)
    if depth < closuremod.LEVELS:
        busy.add(path)
        consts = dict(consts)
        for spec in closuremod.specs(data):
            sub = cl.resolve(path, spec)
            if sub is None:
                continue
            sub_consts, sub_names = _header_consts(cl, sub, config, depth + 1, busy)
            for k, v in sub_consts.items():
                consts.setdefault(k, v)
            names |= sub_names
        busy.discard(path)
    return consts, names


def header_const(fx: Facts, name: str) -> tuple[int, bool] | None:
    """(value on AMD, chosen for AMD) of a warp-size constant defined in a header this file
    includes (found next to the file or below one of its parent folders, as a tree's own
    include root gives it), following includes three levels deep; None when none defines it."""
    _load_headers(fx)
    return fx._headers.get(name) if fx._headers is not None else None


def tree_defines(fx: Facts, name: str) -> bool:
    """True when this file (outside branches AMD never compiles) or a header it includes
    #defines `name`: the tree maps that CUDA builtin itself."""
    if fx._defined_here is None:  # once per file: a scan per call was quadratic
        fx._defined_here = frozenset(
            m.group(1).decode("utf-8", "replace") for m in _DEFINE.finditer(fx.data)
            if not (fx.inactive and fx.is_inactive(m.start())))
    if name in fx._defined_here:
        return True
    _load_headers(fx)
    return name in fx._header_names


def _load_headers(fx: Facts) -> None:
    if fx._headers is not None:
        return
    fx._headers = {}
    names: set[str] = set()
    cl = closuremod.of(fx.src)
    specs = [m.group(1).decode(errors="replace") for m in closuremod.INCLUDE.finditer(fx.data)
             if not (fx.inactive and fx.is_inactive(m.start()))]
    for spec in specs:
        path = cl.resolve(cl.path, spec)
        if path is None:
            continue
        consts, defined = _header_consts(cl, path, fx.config, 0, set())
        for k, v in consts.items():
            fx._headers.setdefault(k, v)
        names |= defined
    fx._header_names = frozenset(names)
