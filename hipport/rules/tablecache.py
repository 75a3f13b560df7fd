"""The compiled rule tables, kept in the user cache as checked JSON.

Parsing thousands of TOML entries costs more than a small port, so `load` keeps what it
builds in `<user cache>/tables/`, one file per version of the tables and selection. The file
is data: JSON whose every field is checked against the table classes when it is read (no
pickle, no marshal). A damaged file, one of another format or version, or one that anyone
but this user could have written is built again, never an error, never run.

Each table class is stored as columns, one JSON array per field (or, for a field that is
mostly its default, the rows that differ): a whole column is checked at once, and the
records are filled column by column, both in C. Loading takes less time than the pickle did
(benchmarks: `python3 -c 'import hipport.rules as r; r.load()'`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import deque
from collections.abc import Callable
from functools import cache
from itertools import repeat
from pathlib import Path
from typing import Any

from hipport.buildid import build_id
from hipport.cache import blake2b
from hipport.paths import user_cache
from hipport.rules import (
    KINDS,
    STATUSES,
    HeaderMap,
    Mapping,
    Overrides,
    RuleSet,
    are_words,
    complete,
    tables_digest,
)

FORMAT = 1  # bump when the document's layout changes (the classes' fields are hashed in anyway)
_NONE = type(None)
# What a field's annotation allows, as the set of value types a JSON column may hold.
_TYPES: dict[str, frozenset[type]] = {
    "str": frozenset({str}), "str | None": frozenset({str, _NONE}), "int | None": frozenset({int, _NONE}),
    "bool": frozenset({bool}),
}
_PAIRS = "tuple[tuple[str, str], ...]"  # Mapping.floors: arrays of two strings in JSON
# Values a field must take, beyond its type.
_CHOICES: dict[str, frozenset[str]] = {"kind": frozenset(KINDS), "status": frozenset(STATUSES)}
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+){0,2}")  # what `since` and floors hold (rules._is_version)


class Invalid(ValueError):
    """A table file that this hipport did not write as it is."""


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    out = dataclasses.fields(cls)
    unknown = [f.name for f in out if f.type not in _TYPES and f.type != _PAIRS]
    if unknown:  # a new field of a type this module cannot store yet: add it to _TYPES
        raise TypeError(f"{cls.__name__}: no JSON column for {', '.join(unknown)}")
    if hasattr(cls, "__post_init__") or not hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: `_records` sets slots and runs no __post_init__")
    return out


@cache
def _shape() -> str:
    """The classes' fields, as the file name holds them: a field added or changed names
    another file, so no file of an older shape is ever read."""
    spec = ";".join(f"{c.__name__}:" + ",".join(f"{f.name}={f.type}" for f in dataclasses.fields(c))
                    for c in (Mapping, HeaderMap, Overrides))
    return blake2b(f"{FORMAT}:{spec}".encode(), digest_size=6).hexdigest()


def path_for(name: str, root: str | None = None) -> Path:
    return user_cache() / "tables" / f"{build_id().replace('+', '-')}-t{_shape()}-{tables_digest(root)}-{name}.json"


# --- dump ------------------------------------------------------------------------------------

def _columns(cls: type, rows: list[Any]) -> dict[str, Any]:
    """One entry per field: the values of every row, or for a field with a default that most
    rows keep, {"at": [row, ...], "v": [value, ...]} of the rows that differ."""
    out: dict[str, Any] = {}
    for f in _fields(cls):
        col = [getattr(r, f.name) for r in rows]
        if f.type == _PAIRS:
            col = [[list(p) for p in v] for v in col]
        default = [] if f.type == _PAIRS else f.default
        if default is not dataclasses.MISSING:
            at = [i for i, v in enumerate(col) if v != default]
            if len(at) * 2 < len(col):
                out[f.name] = {"at": at, "v": [col[i] for i in at]}
                continue
        out[f.name] = col
    return out


def dump(rs: RuleSet, label: str) -> bytes:
    """The tables as the document `load` reads; `label` (the file's name) says which build."""
    # Every Mapping once, in order: the names, the qualified names, the namespaces, then each
    # override table's names. The dicts are rebuilt from them (each is keyed by `cuda`).
    maps = [*rs.names.values(), *rs.qualified.values(), *rs.namespaces.values(),
            *(m for o in rs.overrides for m in o.names.values())]
    doc = {
        "format": FORMAT, "shape": _shape(), "label": label,
        "counts": [len(rs.names), len(rs.qualified), len(rs.namespaces)],
        "mappings": _columns(Mapping, maps),
        "headers": _columns(HeaderMap, list(rs.headers.values())), "n_headers": len(rs.headers),
        "families": rs.families, "namespace_families": sorted(rs.namespace_families),
        "overrides": [[o.family, sorted(o.unless), sorted(o.when), len(o.names)] for o in rs.overrides],
    }
    return json.dumps(doc, separators=(",", ":")).encode()


# --- load: every field checked -----------------------------------------------------------------

def _records(cls: type, cols: Any, n: int) -> list[Any]:
    """The n records of a frozen slotted dataclass stored by `_columns`, every value checked.

    A frozen dataclass's __init__ sets each field through object.__setattr__, which would be
    most of the load: the records are made empty and their slots set column by column
    instead, in C (as pickle restores a slotted object), once the column is checked."""
    fields = _fields(cls)
    if type(cols) is not dict or set(cols) != {f.name for f in fields}:
        raise Invalid(f"{cls.__name__}: not the fields of this hipport's tables")
    first = cols[fields[0].name]  # a field every row has: its column says how many there are
    if type(first) is not list or len(first) != n:
        raise Invalid(f"{cls.__name__}: expected {n} rows")
    objs: list[Any] = list(map(object.__new__, repeat(cls, n)))
    for f in fields:
        put = getattr(cls, f.name).__set__  # the slot's own descriptor
        v = cols[f.name]
        if type(v) is dict:  # the rows that differ from the default
            at, vals = v.get("at"), v.get("v")
            if f.default is dataclasses.MISSING or set(v) != {"at", "v"} or type(at) is not list \
                    or type(vals) is not list or len(at) != len(vals):
                raise Invalid(f"{f.name}: a malformed sparse column")
            if at and (not set(map(type, at)) <= {int} or min(at) < 0 or max(at) >= n):
                raise Invalid(f"{f.name}: row numbers out of range")
            vals = _checked(f, vals)
            deque(map(put, objs, repeat(f.default, n)), 0)
            deque(map(put, map(objs.__getitem__, at), vals), 0)
        elif type(v) is list and len(v) == n:
            deque(map(put, objs, _checked(f, v)), 0)
        else:
            raise Invalid(f"{f.name}: expected {n} values")
    return objs


def _checked(f: dataclasses.Field[Any], col: list[Any]) -> list[Any]:
    """The values of field `f`, checked (whole-column checks: they run in C)."""
    if f.type == _PAIRS:
        return [_pairs(f, x) for x in col]
    if not set(map(type, col)) <= _TYPES[str(f.type)]:
        raise Invalid(f"{f.name}: a value of the wrong type")
    choices = _CHOICES.get(f.name)
    if choices is not None and not set(col) <= choices:
        raise Invalid(f"{f.name}: a value that is not one of {sorted(choices)}")
    if f.name == "since" and not all(map(_VERSION.fullmatch, set(col))):
        raise Invalid("since: a value that is not a version")
    return col


def _pairs(f: dataclasses.Field[Any], v: Any) -> tuple[tuple[str, str], ...]:
    if type(v) is not list or not all(type(p) is list and len(p) == 2 and type(p[0]) is str
                                      and type(p[1]) is str and _VERSION.fullmatch(p[0]) for p in v):
        raise Invalid(f"{f.name}: expected pairs of a version and a name")
    return tuple((a, b) for a, b in v)


def _strs(v: Any) -> list[str]:
    if type(v) is not list or not set(map(type, v)) <= {str}:
        raise Invalid("expected a list of strings")
    return v


def _count(v: Any) -> int:
    if type(v) is not int or v < 0:
        raise Invalid("expected a count")
    return v


def load(data: bytes, label: str) -> RuleSet:
    """The RuleSet `dump` wrote under this label; Invalid for anything else, including a
    document that would make a later step fail (a table name the scanner cannot find, a
    version that does not read as one)."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and undecodable bytes
        raise Invalid(f"not JSON: {e}") from None
    if type(doc) is not dict or doc.get("format") != FORMAT or doc.get("shape") != _shape() \
            or doc.get("label") != label:
        raise Invalid("another format, or another build's file")
    counts = doc.get("counts")
    if type(counts) is not list or len(counts) != 3:
        raise Invalid("a malformed document")
    n_names, n_qualified, n_spaces = map(_count, counts)
    overrides = doc.get("overrides")
    if type(overrides) is not list or not all(type(o) is list and len(o) == 4 for o in overrides):
        raise Invalid("malformed overrides")
    total = n_names + n_qualified + n_spaces + sum(_count(o[3]) for o in overrides)
    maps = _records(Mapping, doc.get("mappings"), total)
    families, ns_families = doc.get("families"), _strs(doc.get("namespace_families"))
    if type(families) is not dict or not set(map(type, families.values())) <= {str}:
        raise Invalid("malformed families")
    rs = RuleSet()
    at = 0
    for table, n in ((rs.names, n_names), (rs.qualified, n_qualified), (rs.namespaces, n_spaces)):
        table.update((m.cuda, m) for m in maps[at:at + n])
        at += n
    out = []
    for family, unless, when, n in overrides:
        if type(family) is not str:
            raise Invalid("malformed overrides")
        out.append(Overrides(family, frozenset(_strs(unless)), {m.cuda: m for m in maps[at:at + n]},
                             frozenset(_strs(when))))
        at += n
    if not are_words([*rs.names, *rs.namespaces, *(k.split("::")[0] for k in rs.qualified)]):
        raise Invalid("a table name that is not a word")
    rs.headers = {h.cuda: h for h in _records(HeaderMap, doc.get("headers"), _count(doc.get("n_headers")))}
    rs.families = families
    rs.namespace_families = frozenset(ns_families)
    rs.overrides = tuple(out)
    complete(rs)
    return rs


# --- the file ------------------------------------------------------------------------------------

def _ours(path: Path) -> bytes | None:
    """The bytes of a table file that only this user can have written, else None (built
    again): even as data, the tables decide what a port writes."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        for st in (os.fstat(fd), os.stat(path.parent)):
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def cached(name: str, build: Callable[[], RuleSet], root: str | None = None) -> RuleSet:
    """`build()` once per version of the tables, kept in the user's cache folder."""
    path = path_for(name, root)
    data = _ours(path)
    if data is not None:
        try:
            return load(data, path.name)
        except Invalid:  # damaged, foreign or stale: built again below, and replaced
            pass
    rs = build()
    try:
        from hipport.cache import make_private
        from hipport.workspace import write_atomic

        make_private(path.parent)
        os.chmod(path.parent, 0o700)
        write_atomic(path, dump(rs, path.name), mode=0o600)
        for old in path.parent.iterdir():  # earlier builds (and pickles of old versions): never read
            if old != path and (old.name.endswith(f"-{name}.json") or old.suffix == ".pickle"):
                old.unlink(missing_ok=True)
    except OSError:  # a read-only home is fine: just slower next time
        pass
    return rs
