"""Header constants: the warp-size constants (and every macro name) that the headers a file
includes define, taken from the file's include closure (hipport.closure: found next to the
file or in a folder above it, three includes deep), each header's own definitions analysed
once per process and content; the names the file or its headers #define
(`tree_defines`); and the summaries of the headers' device functions (`header_funcs`,
hipport.wave64.facts.summaries), each header analysed with the headers it includes.
Nothing here opens a file: what the result depends on is what the pipeline read and keyed
the cache on."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from hipport import closure as closuremod
from hipport import directives, memo
from hipport.closure import Closure
from hipport.config import Config
from hipport.memo import Lru
from hipport.source import SourceFile
from hipport.wave64 import platform as platformmod
from hipport.wave64.facts import precise
from hipport.wave64.facts.names import might_hold_hazards
from hipport.wave64.facts.summaries import Summary, macro_strides, summarize

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

Consts = dict[str, tuple[int, bool]]
# The header's integer constants for the including file's constant expressions (issue 31:
# `#define GROUP 32` in a header on an include path): object-like macro bodies (evaluated in
# the including file, so a body naming another header's macro still resolves), and const /
# constexpr integer variables and enumerators with their value. On AMD: an AMD-only
# definition wins.
Bodies = dict[str, str]
Values = dict[str, tuple[int, int]]


# Macros a header defines only in branches one platform compiles: name -> ("amd" | "nvidia",
# value on AMD or None). `#if defined(__HIP_PLATFORM_AMD__) ... #define PROJ_HIP 1` makes
# PROJ_HIP a platform macro of the project, as __HIP_PLATFORM_AMD__ is one of HIP's.
Platform = dict[str, tuple[str, int | None]]


class Own(NamedTuple):
    consts: Consts
    names: frozenset[str]
    bodies: Bodies
    values: Values
    platform: Platform


# A header's own facts, by (path, content digest, config): the same header included by many
# files of a run is analysed once per worker.
_OWN: Lru[tuple[str, bytes, Config], Own] = Lru(1024)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


def _own(path: str, data: bytes, config: Config) -> Own:
    """What one header defines itself: warp-size constants, name -> (value on AMD, chosen
    for AMD: an AMD-only or per-architecture definition); every macro name it #defines
    (a tree's own HIP shims: ggml's vendors/hip.h defines `__shfl_xor_sync`); and its integer
    constants (`Bodies`, `Values`)."""
    key = (path, _read(data).digest, config)
    hit = _OWN.get(key)
    if hit is not None:
        return hit
    shared = memo.shared_name(("own", key)) if len(data) >= SHARE_BYTES else ""
    got = _own_from(memo.shared_get(shared)) if shared else None
    if got is not None:
        return _OWN.put(key, got)
    out: Consts = {}
    bodies: Bodies = {}
    values: Values = {}
    platform: Platform = {}
    names = frozenset(m.group(1).decode() for m in directives.finditer(_DEFINE, data))
    if might_hold_hazards(data) or b"define" in data or b"const" in data or b"enum" in data:
        from hipport.wave64.facts import Facts  # (the façade builds these providers)

        h = Facts(SourceFile(path, data), config, headers=False, always=True, constants_only=True)
        for name, cdefs in h.consts.items():
            v = h.const_value(name)
            if v is not None:
                out[name] = (v, any(d.amd_only for d in cdefs) or name in h.arch_macros)
        for name in h.arch_macros:
            out.setdefault(name, (64, True))
        for name, defs in h.macros.items():
            chosen = next((d for d in defs if d.amd_only), defs[0])
            if chosen.text and not (h.inactive and h.is_inactive(chosen.node.start_byte)):
                bodies[name] = chosen.text
        for name, var in h.gvars.items():
            head = h.data[var.decl.start_byte:var.decl.end_byte]
            if var.value is not None and b"const" in head and not (var.is_array or var.is_pointer):
                cv = h.cval(var.value, None)
                if cv is not None:
                    values[name] = cv[0], cv[1]
        values.update(_enumerators(h))
        if h.amd_only or h.inactive:
            platform = _platform_macros(h)
    own = Own(out, names, bodies, values, platform)
    if shared:
        memo.shared_put(shared, [out, sorted(names), bodies, values, platform])
    return _OWN.put(key, own)


# A header at least this large has its facts offered to a pool's other workers (a smaller one
# costs less to analyse than an entry costs to write).
SHARE_BYTES = 8 << 10


def _own_from(got: Any) -> Own | None:
    """An `Own` from the JSON another worker wrote (None: not one)."""
    if type(got) is not list or len(got) != 5 or not all(type(d) is dict for d in got[:1] + got[2:]) \
            or type(got[1]) is not list:
        return None
    consts, names, bodies, values, platform = got
    ok = (all(type(v) is list and len(v) == 2 and type(v[0]) is int and type(v[1]) is bool for v in consts.values())
          and all(type(n) is str for n in names) and all(type(v) is str for v in bodies.values())
          and all(type(v) is list and len(v) == 2 and all(type(x) is int for x in v) for v in values.values())
          and all(type(v) is list and len(v) == 2 and v[0] in ("amd", "nvidia")
                  and (v[1] is None or type(v[1]) is int) for v in platform.values()))
    if not ok:
        return None
    return Own({k: (v[0], v[1]) for k, v in consts.items()}, frozenset(names), bodies,
               {k: (v[0], v[1]) for k, v in values.items()}, {k: (v[0], v[1]) for k, v in platform.items()})


_DEFINE_VALUE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:[ \t]+(\d+))?[ \t]*(?://[^\n]*|/\*.*?\*/)?$", re.M)


def _platform_macros(h: Facts) -> Platform:
    """The macros every definition of which lies in a branch only AMD compiles ("amd", with
    its value when a number) or only CUDA does ("nvidia")."""
    where: dict[str, set[str]] = {}
    value: dict[str, int | None] = {}
    for m in directives.finditer(_DEFINE, h.data):
        pos = m.start()
        name = m.group(1).decode()
        side = "nvidia" if h.inactive and h.is_inactive(pos) else (
            "amd" if h.amd_only and h.is_amd_only(pos) else "both")
        where.setdefault(name, set()).add(side)
        if side == "amd":
            v = _DEFINE_VALUE.match(h.data, pos)
            value[name] = int(v.group(2)) if v is not None and v.group(2) else None
    return {n: (next(iter(s)), value.get(n)) for n, s in where.items() if len(s) == 1 and "both" not in s}


def _enumerators(h: Facts) -> Values:
    """The header's top-level enumerators with an integer literal value."""
    from hipport.wave64 import syntax as sx

    out: Values = {}
    for item in h.top_items:
        spec = item if item.type == "enum_specifier" else next(
            (c for c in item.named_children if c.type == "enum_specifier"), None)
        body = spec.child_by_field_id(sx.F_BODY) if spec is not None else None
        for e in (body.named_children if body is not None else ()):
            n, v = e.child_by_field_id(sx.F_NAME), e.child_by_field_id(sx.F_VALUE)
            if e.type == "enumerator" and n is not None and v is not None and v.type == "number_literal":
                lit = sx.int_literal(h.src.text(v))
                if lit:
                    out[h.src.text(n)] = lit
    return out


_NONE = Own({}, frozenset(), {}, {}, {})


def _nearer_first(acc: tuple[Consts, Bodies, Values, Platform], got: Own) -> None:
    """Add what `got` defines where `acc` has nothing yet: the nearer definition wins."""
    ours: tuple[dict[str, Any], ...] = acc
    theirs: tuple[dict[str, Any], ...] = (got.consts, got.bodies, got.values, got.platform)
    for mine, more in zip(ours, theirs, strict=True):
        for k, v in more.items():
            mine.setdefault(k, v)


def _header_consts(cl: Closure, path: str, config: Config, depth: int, busy: set[str]) -> Own:
    """What a header and the headers it includes (to the closure's depth) define; the
    nearer definition wins."""
    data = cl.found.get(path)
    if data is None or path in busy:  # not read (too large, unreadable), or an include cycle
        return _NONE
    own = _own(path, data, config)
    if depth >= closuremod.LEVELS:
        return own
    busy.add(path)
    consts, names, bodies, values = dict(own.consts), own.names, dict(own.bodies), dict(own.values)
    platform = dict(own.platform)
    for spec in _read(data).specs:
        sub = cl.resolve(path, spec)
        if sub is None:
            continue
        below = _header_consts(cl, sub, config, depth + 1, busy)
        _nearer_first((consts, bodies, values, platform), below)
        names |= below.names
    busy.discard(path)
    return Own(consts, names, bodies, values, platform)


def header_const(fx: Facts, name: str) -> tuple[int, bool] | None:
    """(value on AMD, chosen for AMD) of a warp-size constant defined in a header this file
    includes (found next to the file or below one of its parent folders, as a tree's own
    include root gives it), following includes three levels deep; None when none defines it."""
    _load_headers(fx)
    return fx._headers.get(name) if fx._headers is not None else None


def header_consts(fx: Facts) -> Consts:
    """The warp-size constants of the included headers: name -> (value on AMD, chosen for AMD)."""
    _load_headers(fx)
    return fx._headers or {}


def project_platform(fx: Facts) -> platformmod.Project:
    """The project's platform macros for this file's #if chains: the macros the HIP build
    defines (`defines`: AMD only, with their value) and the included headers' (see Platform)."""
    if fx._project is not None:
        return fx._project
    out: dict[str, tuple[str, int | None]] = {}
    if fx.src.closure is not None and fx.src.closure.found:
        _load_headers(fx)
        out.update(fx._header_platform)
    for d in fx.config.defines:
        name, _, v = d.partition("=")
        out[name] = ("amd", int(v, 0) if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", v) else None)
    fx._project = frozenset((n, c, v) for n, (c, v) in out.items())
    return fx._project


def header_body(fx: Facts, name: str) -> str | None:
    """The body of an object-like macro an included header defines (None: none does)."""
    _load_headers(fx)
    return fx._header_bodies.get(name)


def header_value(fx: Facts, name: str) -> tuple[int, int] | None:
    """(value, bits) of an integer constant an included header defines: a macro whose body
    evaluates here, a const/constexpr variable or an enumerator."""
    _load_headers(fx)
    body = fx._header_bodies.get(name)
    got = fx.eval_text(body, 1) if body is not None else fx._header_values.get(name)
    if got is None and fx.config.precise:
        got = precise.value(fx, name)
    return got


def tree_defines(fx: Facts, name: str) -> bool:
    """True when this file (outside branches AMD never compiles) or a header it includes
    #defines `name`: the tree maps that CUDA builtin itself."""
    if fx._defined_here is None:  # once per file: a scan per call was quadratic
        fx._defined_here = frozenset(
            m.group(1).decode("utf-8", "replace") for m in directives.finditer(_DEFINE, fx.data)
            if not (fx.inactive and fx.is_inactive(m.start())))
    if name in fx._defined_here:
        return True
    _load_headers(fx)
    return name in fx._header_names


def _file_specs(fx: Facts) -> list[str]:
    """The include specs of the file outside branches AMD never compiles (the search once per
    file: the #if chains may still be being classified when the headers are first asked about)."""
    if fx._include_specs is None:
        fx._include_specs = [(m.start(), m.group(1).decode(errors="replace"))
                             for m in closuremod.includes(fx.data)]
    if not fx.inactive:
        return [spec for _pos, spec in fx._include_specs]
    return [spec for pos, spec in fx._include_specs if not fx.is_inactive(pos)]


def _load_headers(fx: Facts) -> None:
    if fx._headers is not None:
        return
    fx._headers = {}
    names: set[str] = set()
    bodies: Bodies = {}
    values: Values = {}
    platform: Platform = {}
    cl = closuremod.of(fx.src)
    for spec in _file_specs(fx):
        path = cl.resolve(cl.path, spec)
        if path is None:
            continue
        got = _header_consts(cl, path, fx.config, 0, set())
        _nearer_first((fx._headers, bodies, values, platform), got)
        names |= got.names
    fx._header_names = frozenset(names)
    fx._header_platform = platform
    fx._header_bodies = bodies
    fx._header_values = values


# ---- function summaries (hipport.wave64.facts.summaries) -------------------------------------

# Headers worth summarising: a device function in them may do something with lanes (names too:
# a header defining `get_lane_id()` is summarised, so that its code, not the name, says what it
# returns). Substring tests: a regex alternation over every header was a tenth of the run.
_SUMMARY_TOKENS = (b"threadIdx", b"lane", b"Lane", b"warp", b"Warp", b"ballot", b"shfl", b"__any", b"__all",
                   b"__match", b"__reduce_", b"__popc", b"__clz", b"__ffs", b"__brev", b"tiled_partition",
                   b"__activemask")


def _worth_summarising(data: bytes) -> bool:
    return any(t in data for t in _SUMMARY_TOKENS)


# A header's summaries, by (path, content digest, config, the headers it reaches and their
# contents): its facts read their declaration macros and callees from those.
_SUMS: Lru[tuple[object, ...], dict[str, Summary]] = Lru(1024)
_BUSY: set[tuple[object, ...]] = set()  # being built: an include cycle answers nothing


class _Read(NamedTuple):
    specs: list[str]
    quick: bool
    digest: bytes


# By content: each file's closure brings its own copy of a header's bytes, and every file and
# header that includes it asks (the include search over a large header cost more than its facts).
_READ: Lru[bytes, _Read] = Lru(1024, 64 << 20, lambda data, _read: len(data))  # (it holds the bytes: 64 MB at most)


def _read(data: bytes) -> _Read:
    """The include specs, summary test and digest of a header's bytes, once per content."""
    hit = _READ.get(data)
    if hit is None:
        hit = _READ.put(data, _Read(closuremod.specs(data), _worth_summarising(data), closuremod.digest(data)))
    return hit


def _reach(cl: Closure, path: str) -> dict[str, bytes]:
    """The headers `path` includes, to the closure's depth, with their bytes."""
    out: dict[str, bytes] = {}
    todo = [(path, 0)]
    while todo:
        p, depth = todo.pop()
        data = cl.found.get(p)
        if data is None or depth > closuremod.LEVELS:
            continue
        for spec in _read(data).specs:
            sub = cl.resolve(p, spec)
            if sub is not None and sub not in out and sub != path and cl.found.get(sub) is not None:
                out[sub] = cl.found[sub]  # type: ignore[assignment]
                todo.append((sub, depth + 1))
    return out


def _summaries(cl: Closure, path: str, config: Config) -> dict[str, Summary]:
    """The summaries of the device functions one header defines (once per content and
    reachable headers)."""
    data = cl.found.get(path)
    if data is None:
        return {}
    read = _read(data)
    if not read.quick:
        return _macro_strides(path, data)
    reach = _reach(cl, path)
    if not any(b"__device__" in d or b"__global__" in d for d in (data, *reach.values())):
        # No function of it can be device code: a qualifier is spelt in it, or in a macro
        # of a header it reaches (functions._add_function). "lane" in "plane" let every GL
        # header through the test above, and the facts of a large one cost a quarter second.
        return _macro_strides(path, data)
    key = (path, read.digest, config,
           tuple(sorted((p, _read(d).digest) for p, d in reach.items())), cl.dirs, cl.fallback)
    hit = _SUMS.get(key)
    if hit is not None:
        return hit
    if key in _BUSY:
        return {}
    shared = memo.shared_name(("summaries", key)) if len(data) >= SHARE_BYTES else ""
    got = _summaries_from(memo.shared_get(shared)) if shared else None
    if got is not None:
        return _SUMS.put(key, got)
    _BUSY.add(key)
    try:
        from hipport.wave64.facts import Facts  # (the façade builds these providers)

        sub = Closure(path, {path: data, **reach}, dirs=cl.dirs, fallback=cl.fallback)
        h = Facts(SourceFile(path, data, closure=sub), config, always=True)
        out = {**_macro_strides(path, data), **summarize(h)}
    finally:
        _BUSY.discard(key)
    if shared:
        memo.shared_put(shared, [[k, [getattr(v, f) for f in _SUMMARY_FIELDS]] for k, v in out.items()])
    return _SUMS.put(key, out)


_SUMMARY_FIELDS = tuple(f.name for f in dataclasses.fields(Summary))
_SUMMARY_TYPES = tuple(dataclasses.fields(Summary))


def _summaries_from(got: Any) -> dict[str, Summary] | None:
    """Summaries from the JSON another worker wrote (None: not summaries)."""
    if type(got) is not list:
        return None
    out: dict[str, Summary] = {}
    for entry in got:
        if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not str:
            return None
        name, row = entry
        if type(row) is not list or len(row) != len(_SUMMARY_FIELDS):
            return None
        for value, f in zip(row, _SUMMARY_TYPES, strict=True):
            want = f.type  # the annotation, a string (`from __future__ import annotations`)
            if not (type(value).__name__ == want or (want == "int | None" and (value is None or type(value) is int))):
                return None
        out[name] = Summary(*row)
    return out


_STRIDES: Lru[tuple[str, bytes], dict[str, Summary]] = Lru(1024)


def _macro_strides(path: str, data: bytes) -> dict[str, Summary]:
    key = (path, _read(data).digest)
    hit = _STRIDES.get(key)
    if hit is None:
        hit = _STRIDES.put(key, macro_strides(path, data))
    return hit


def header_funcs(fx: Facts) -> dict[str, Summary]:
    """The summaries of the device functions the included headers define (the nearer
    definition wins; two in one header are merged), and of the strided macros of the file
    and its headers (`summaries.macro_strides`)."""
    if fx._header_funcs is not None:
        return fx._header_funcs
    # the file's own strided macros first (its functions are analysed with it: no summary)
    # (computed here, not kept: a file is analysed once, and its digest and include search
    # would cost more than its macros)
    out: dict[str, Summary] = macro_strides(fx.src.path, fx.data) if b"#" in fx.data else {}
    fx._header_funcs = out
    cl = closuremod.of(fx.src)
    if not cl.found:
        return fx._header_funcs
    seen = {cl.path}
    level = [p for p in (cl.resolve(cl.path, spec) for spec in _file_specs(fx)) if p is not None]
    for _depth in range(closuremod.LEVELS + 1):
        below: list[str] = []
        for path in level:
            if path in seen:
                continue
            seen.add(path)
            for name, s in _summaries(cl, path, fx.config).items():
                out.setdefault(name, s)
            data = cl.found.get(path)
            for spec in _read(data).specs if data is not None else ():
                sub = cl.resolve(path, spec)
                if sub is not None and sub not in seen:
                    below.append(sub)
        level = below
    fx._header_funcs = out
    return out


def header_func(fx: Facts, name: str) -> Summary | None:
    """The summary of `name` when an included header defines it as a device function and this
    file does not define it."""
    if name in fx.by_name:
        return None
    return header_funcs(fx).get(name)
