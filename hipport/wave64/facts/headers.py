"""Header constants: the warp-size constants (and every macro name) that the headers a file
includes define, found next to the file or below its parent folders and read three includes
deep, each header analysed once per (path, mtime, size); and the names the file or its headers
#define (`tree_defines`)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from hipport.config import Config
from hipport.source import SourceFile
from hipport.wave64.facts.names import might_hold_hazards

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_HEADER_CACHE: dict[tuple[str, int, int], tuple[dict[str, tuple[int, bool]], frozenset[str]]] = {}
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"][^>"\n]+[>"])', re.M)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_HEADER_BUSY: set[str] = set()


def _resolve_includes(path: str, specs: list[str]) -> list[str]:
    """Existing files for #include specs, looked up beside `path` and below its parent folders."""
    if not path or path.startswith("<"):
        return []
    base = os.path.dirname(os.path.abspath(path))
    out: list[str] = []
    for spec in specs:
        inc = spec.strip().strip('"<>')
        if not inc or os.path.isabs(inc):
            continue
        d = base
        for _ in range(8):
            cand = os.path.join(d, inc)
            if os.path.isfile(cand):
                out.append(os.path.normpath(cand))
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return out


def _header_consts(path: str, config: Config, depth: int) -> tuple[dict[str, tuple[int, bool]], frozenset[str]]:
    """Warp-size constants a header (and the headers it includes) defines: name -> (value on
    AMD, chosen for AMD: an AMD-only or per-architecture definition); and every macro name they
    #define (a tree's own HIP shims: ggml's vendors/hip.h defines `__shfl_xor_sync`)."""
    try:
        st = os.stat(path)
    except OSError:
        return {}, frozenset()
    key = (path, st.st_mtime_ns, st.st_size)
    hit = _HEADER_CACHE.get(key)
    if hit is not None:
        return hit
    if path in _HEADER_BUSY or st.st_size > 1 << 21:
        return {}, frozenset()
    _HEADER_BUSY.add(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        out: dict[str, tuple[int, bool]] = {}
        names = {m.group(1).decode() for m in _DEFINE.finditer(data)}
        if might_hold_hazards(data) or b"define" in data:
            from hipport.wave64.facts import Facts  # (the façade builds these providers)

            h = Facts(SourceFile(path, data), config, headers=False)
            for name, defs in h.consts.items():
                v = h.const_value(name)
                if v is not None:
                    out[name] = (v, any(d.amd_only for d in defs) or name in h.arch_macros)
            for name in h.arch_macros:
                out.setdefault(name, (64, True))
        if depth < 3:
            for sub in _resolve_includes(path, [m.group(1).decode(errors="replace") for m in _INCLUDE.finditer(data)]):
                sub_consts, sub_names = _header_consts(sub, config, depth + 1)
                for k, v2 in sub_consts.items():
                    out.setdefault(k, v2)
                names |= sub_names
    finally:
        _HEADER_BUSY.discard(path)
    result = (out, frozenset(names))
    _HEADER_CACHE[key] = result
    return result


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
    specs = [m.group(1).decode(errors="replace") for m in _INCLUDE.finditer(fx.data)
             if not (fx.inactive and fx.is_inactive(m.start()))]
    for path in _resolve_includes(fx.src.path, specs):
        consts, defined = _header_consts(path, fx.config, 0)
        for k, v in consts.items():
            fx._headers.setdefault(k, v)
        names |= defined
    fx._header_names = frozenset(names)
