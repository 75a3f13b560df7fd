"""clang's reading of one source (hipport.precise's Model): the translation unit parsed by
libclang as CUDA for the device (`--cuda-device-only`, no CUDA installation: hipport.precise.prelude
stands in for it), with the configuration's include folders and defines, then read for the
values the wave64 facts ask about. Macros are evaluated by probes appended to the file
(`static constexpr auto __hipport_probe_N = (NAME);`, one a line: a probe with an error on its
line resolves nothing); variables and probes by clang's own constant evaluator.

libclang parses in this process and reports its own crashes as a failed parse
(TranslationUnitLoadError): every failure here is a Model with a note, never an exception."""

from __future__ import annotations

import ctypes
import importlib
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from hipport.config import Config
from hipport.precise import Model, prelude

_PROBE = "__hipport_probe_"
_MAX_PROBES = 2000
# `#define NAME body` (object-like: no parenthesis right after the name), continuation lines
# joined; a body a probe can hold has balanced parentheses and none of ; { } # " '.
_OBJECT_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])((?:[^\n\\]|\\.)*)", re.M | re.S)
_PROBE_BODY = re.compile(r"[^;{}#\"'\\]+")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"[A-Za-z_]\w*(=[^\x00-\x1f\x7f]*)?")
_KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing: a missing header does not stop the parse
_EVAL_INT = 1  # CXEval_Int
_K = TypeVar("_K")


def args(config: Config, path: str = "", dirs: tuple[str, ...] = ()) -> list[str] | None:
    """clang's options for the source at `path` in this configuration, or None when a value is
    not one a compile takes (the configuration checked them already: this is the second gate).
    The include folders: the configuration's and `dirs` (where the closure looked), then, last,
    the folders above the file, where hipport.closure finds a tree's own headers."""
    out = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_70", "-nocudainc", "-nocudalib",
           "-std=c++17", "-w", "-ferror-limit=0", "-include", prelude.PRELUDE, "-isystem", prelude.BUILTIN]
    for d in dict.fromkeys((*config.include_paths, *dirs)):
        if not os.path.isabs(d) or any(c < " " for c in d):
            return None
        out.append("-I" + d)
    up = os.path.dirname(path)
    for _ in range(4):  # (hipport.closure: folders above the file)
        up = os.path.dirname(up)
        if not up or up == "/":
            break
        out.append("-idirafter" + up)
    out += ["-idirafter", prelude.HEADERS]
    for d in config.defines:
        if not _DEFINE.fullmatch(d):
            return None
        out.append("-D" + d)
    return out


def _probe_names(sources: list[bytes]) -> list[str]:
    """The object-like macros the sources define, whose body a probe can hold."""
    out: dict[str, None] = {}
    for data in sources:
        for m in _OBJECT_MACRO.finditer(data):
            body = _COMMENT.sub(" ", m.group(2).decode("utf-8", "replace").replace("\\\n", " ")).strip()
            if body and _PROBE_BODY.fullmatch(body) and body.count("(") == body.count(")"):
                out[m.group(1).decode()] = None
    return list(out)[:_MAX_PROBES]


def parse(path: str, data: bytes, headers: Mapping[str, bytes | None], config: Config,
          dirs: tuple[str, ...] = ()) -> Model:
    path = os.path.abspath(path) if path else path
    opts = args(config, path, dirs)
    if opts is None:
        return Model(note="precise mode: an include folder or define is not one a compile takes")
    try:
        return _parse(path, data, headers, opts)
    except Exception as e:  # libclang's failures (a load error, a crash it caught) have no common type
        return Model(note=f"precise mode: clang could not parse the file ({type(e).__name__}: {str(e)[:160]})")


def _parse(path: str, data: bytes, headers: Mapping[str, bytes | None], opts: list[str]) -> Model:
    ci = importlib.import_module("clang.cindex")  # (untyped: Any)

    names = _probe_names([data, *(d for d in headers.values() if d)])
    text = data.decode("utf-8", "surrogateescape")
    first = text.count("\n") + 2  # the line of the first probe
    probes = "".join(f"static constexpr auto {_PROBE}{i} = ({n});\n" for i, n in enumerate(names))
    main = (text if text.endswith("\n") else text + "\n") + "\n" + probes
    if not text.endswith("\n"):
        first += 1
    unsaved = [(path, main.encode("utf-8", "surrogateescape"))]
    unsaved += [(p, d) for p, d in headers.items() if d is not None and p != path]
    unsaved += [(p, t.encode()) for p, t in prelude.files()]
    index = ci.Index.create()
    tu = index.parse(path, args=opts, unsaved_files=unsaved, options=_KEEP_GOING)
    bad_lines = {d.location.line for d in tu.diagnostics
                 if d.severity >= 3 and d.location.file is not None and d.location.file.name == path}
    ev = _Evaluator(ci)
    own = {path} | {p for p, d in headers.items() if d is not None}
    values: dict[str, set[tuple[int, int]]] = {}
    at: dict[int, tuple[int, int]] = {}
    tparams: dict[int, set[int | None]] = {}
    types: dict[str, set[int | None]] = {}
    for top in tu.cursor.get_children():
        f = top.location.file
        if f is None or f.name not in own:
            continue
        if f.name == path and top.location.line >= first:
            if top.spelling.startswith(_PROBE) and top.location.line not in bad_lines:
                i = int(top.spelling[len(_PROBE):])
                v = ev.value(top)
                if v is not None and i < len(names):
                    values.setdefault(names[i], set()).add(v)
            continue
        for c, in_template in _walk(ci, top):
            _read(ci, ev, c, in_template, path, values, at, tparams, types)
    return Model(values={n: next(iter(v)) for n, v in values.items() if len(v) == 1},
                 at=at, tparams=_only(tparams), types=_only(types))


def _only(seen: Mapping[_K, set[int | None]]) -> dict[_K, int]:
    """The keys that took one known value (None: a value not known)."""
    out: dict[_K, int] = {}
    for key, vs in seen.items():
        v = next(iter(vs))
        if len(vs) == 1 and v is not None:
            out[key] = v
    return out


def _walk(ci: Any, top: Any) -> Iterator[tuple[Any, bool]]:
    """Every cursor below `top` (itself included), with whether it lies in a template's pattern."""
    k = ci.CursorKind
    templates = (k.FUNCTION_TEMPLATE, k.CLASS_TEMPLATE, k.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)
    stack = [(top, False)]
    while stack:
        c, inside = stack.pop()
        yield c, inside
        below = inside or c.kind in templates
        stack.extend((ch, below) for ch in c.get_children())


_INTS = ("INT", "UINT", "LONG", "ULONG", "LONGLONG", "ULONGLONG", "SHORT", "USHORT", "CHAR_S", "CHAR_U",
         "SCHAR", "UCHAR", "BOOL")


def _read(ci: Any, ev: _Evaluator, c: Any, in_template: bool, path: str,
          values: dict[str, set[tuple[int, int]]], at: dict[int, tuple[int, int]],
          tparams: dict[int, set[int | None]], types: dict[str, set[int | None]]) -> None:
    """What one cursor tells: a constant's value, a typedef's width, a template's arguments."""
    k = ci.CursorKind
    kind = c.kind
    if kind == k.VAR_DECL:
        if c.type.is_const_qualified() and c.type.get_canonical().kind.name in _INTS:
            v = ev.value(c)
            if v is not None:
                values.setdefault(c.spelling, set()).add(v)
                loc = c.location
                if loc.file is not None and loc.file.name == path:
                    at[loc.offset] = v
        if not in_template:
            _type_args(ci, c.type.get_declaration(), path, tparams)
    elif kind == k.ENUM_CONSTANT_DECL:
        try:
            bits = max(32, c.semantic_parent.enum_type.get_size() * 8)
            values.setdefault(c.spelling, set()).add((c.enum_value, bits))
        except Exception:  # an invalid enumerator (its value did not parse)
            pass
    elif kind in (k.TYPEDEF_DECL, k.TYPE_ALIAS_DECL):
        t = c.underlying_typedef_type.get_canonical()
        bits = t.get_size() * 8 if t.kind.name in _INTS else None
        types.setdefault(c.spelling, set()).add(bits if bits in (32, 64) else None)
    elif kind in (k.CALL_EXPR, k.DECL_REF_EXPR, k.TEMPLATE_REF, k.OVERLOADED_DECL_REF):
        r = c.referenced
        if r is None:
            return
        if in_template or r.kind in (k.FUNCTION_TEMPLATE, k.CLASS_TEMPLATE):
            # used where its arguments depend on another template's: values not seen here
            _poison(ci, r, path, tparams)
            return
        _func_args(ci, r, path, tparams)
        parent = r.semantic_parent
        if parent is not None and r.kind in (k.CXX_METHOD, k.CONSTRUCTOR, k.FUNCTION_DECL):
            _type_args(ci, parent, path, tparams)
    elif kind in (k.FIELD_DECL, k.PARM_DECL, k.TYPE_REF) and not in_template:
        _type_args(ci, c.type.get_declaration(), path, tparams)


def _template_of(ci: Any, spec: Any) -> Any:
    t = ci.conf.lib.clang_getSpecializedCursorTemplate(spec)
    return None if t is None or t.kind.is_invalid() else t


def _params(ci: Any, template: Any) -> list[Any]:
    k = ci.CursorKind
    kinds = (k.TEMPLATE_TYPE_PARAMETER, k.TEMPLATE_NON_TYPE_PARAMETER, k.TEMPLATE_TEMPLATE_PARAMETER)
    return [p for p in template.get_children() if p.kind in kinds]


def _record(ci: Any, spec: Any, template: Any | None, path: str,
            tparams: dict[int, set[int | None]]) -> None:
    if template is None:
        return
    n = spec.get_num_template_arguments()
    for i, p in enumerate(_params(ci, template)):
        loc = p.location
        if p.kind != ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER or loc.file is None or loc.file.name != path:
            continue
        if i < n and spec.get_template_argument_kind(i) == ci.TemplateArgumentKind.INTEGRAL:
            tparams.setdefault(loc.offset, set()).add(spec.get_template_argument_value(i))
        else:
            tparams.setdefault(loc.offset, set()).add(None)


def _func_args(ci: Any, r: Any, path: str, tparams: dict[int, set[int | None]]) -> None:
    k = ci.CursorKind
    if r.kind in (k.FUNCTION_DECL, k.CXX_METHOD, k.CONSTRUCTOR) and r.get_num_template_arguments() > 0:
        _record(ci, r, _template_of(ci, r), path, tparams)


def _type_args(ci: Any, decl: Any, path: str, tparams: dict[int, set[int | None]]) -> None:
    k = ci.CursorKind
    if decl is None or decl.kind not in (k.STRUCT_DECL, k.CLASS_DECL):
        return
    if decl.get_num_template_arguments() > 0:
        _record(ci, decl, _template_of(ci, decl), path, tparams)


def _poison(ci: Any, template: Any, path: str, tparams: dict[int, set[int | None]]) -> None:
    k = ci.CursorKind
    t = template
    if t.kind not in (k.FUNCTION_TEMPLATE, k.CLASS_TEMPLATE):
        t = _template_of(ci, t)
        if t is None:
            return
    for p in _params(ci, t):
        loc = p.location
        if p.kind == k.TEMPLATE_NON_TYPE_PARAMETER and loc.file is not None and loc.file.name == path:
            tparams.setdefault(loc.offset, set()).add(None)


class _Evaluator:
    """clang_Cursor_Evaluate, which the Python bindings do not wrap: (value, bits) of a
    variable whose initialiser is an integer constant, or None."""

    def __init__(self, ci: Any) -> None:
        lib = ci.conf.lib
        self._lib = lib
        lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
        lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
        for name, res in (("clang_EvalResult_getKind", ctypes.c_int),
                          ("clang_EvalResult_isUnsignedInt", ctypes.c_uint),
                          ("clang_EvalResult_getAsUnsigned", ctypes.c_ulonglong),
                          ("clang_EvalResult_getAsLongLong", ctypes.c_longlong),
                          ("clang_EvalResult_dispose", None)):
            fn = getattr(lib, name)
            fn.argtypes = [ctypes.c_void_p]
            fn.restype = res

    def value(self, c: Any) -> tuple[int, int] | None:
        t = c.type.get_canonical()
        if t.kind.name not in _INTS:
            return None
        bits = max(32, t.get_size() * 8)
        res = self._lib.clang_Cursor_Evaluate(c)
        if not res:
            return None
        try:
            if self._lib.clang_EvalResult_getKind(res) != _EVAL_INT:
                return None
            if self._lib.clang_EvalResult_isUnsignedInt(res):
                v = int(self._lib.clang_EvalResult_getAsUnsigned(res))
            else:
                v = int(self._lib.clang_EvalResult_getAsLongLong(res))
            return (v & ((1 << bits) - 1) if v < 0 else v), bits
        finally:
            self._lib.clang_EvalResult_dispose(res)
