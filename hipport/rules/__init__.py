"""Load the API mapping tables in rules/api/*.toml (data) into one lookup structure.

Tables are validated here: an unknown key or a bad value is an error naming the file, the
entry and the key, so a typo in a table never silently changes a port.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from hipport.cache import blake2b
from hipport.errors import HipportError
from hipport.floor import version
from hipport.model import fast_pickle
from hipport.paths import rules_dir

STATUSES = ("supported", "unsupported", "deprecated", "experimental")
KINDS = ("function", "type", "enum", "macro", "device", "namespace", "header", "field")
ENTRY_KEYS = {"hip", "kind", "status", "since", "args", "note", "alt", "report", "hipsolver", "level",
              "floors", "header", "value", "define", "expr"}
FILE_KEYS = {"family", "title", "library", "since", "names", "headers", "namespaces", "overrides", "hipify_flat"}
# Families used only when the config selects them, replacing the family they stand in for.
ALTERNATIVES = {"rocblas": "cublas", "rocsparse": "cusparse", "rocrand": "curand",
                "rocsolver": "cusolver", "miopen_hipify": "cudnn", "rocblas_types": "complex"}


@fast_pickle  # for the pool; the user cache stores these as JSON (hipport.rules.tablecache)
@dataclass(frozen=True, slots=True)
class Mapping:
    cuda: str
    hip: str | None
    kind: str
    status: str
    since: str
    family: str
    args: str | None = None
    note: str | None = None
    alt: str | None = None
    report: str | None = None  # a rule id to report at every use (e.g. HP009), with `note`
    # The hipSOLVER spelling of a cuBLAS enum or type, for where cuSOLVER takes it: hipSOLVER
    # had enums of its own until ROCm 6.0 made them aliases of hipBLAS's (translate/solver.py).
    hipsolver: str | None = None
    # For a CUDA version macro (CUDART_VERSION): the CUDA version whose API HIP at the floor
    # covers, in the macro's own numbering; `hip` is the HIP macro defined under the same
    # meaning (translate/versions.py).
    level: int | None = None
    # Spellings that depend on the ROCm floor: (floor, HIP name) from the lowest floor up; at a
    # floor at or above one, its name replaces `hip` (hipBLAS 6.x's `_v2` functions that take
    # hipComplex, which ROCm 7.0 renamed back). Resolved when the tables load (`load`).
    floors: tuple[tuple[str, str], ...] = ()
    # The header that declares the HIP name where CUDA's own headers declare the CUDA one
    # without being asked (cuBLAS brings `__nv_bfloat16`, nvcc's runtime brings the host
    # `isfinite` of <math.h>): a file that uses the name gets it (translate/includes.py). A
    # CUDA header of the [headers] tables stands for its HIP header at the floor (`load`).
    header: str | None = None
    # For a struct member (kind "field") that HIP's struct gains at `since`: the value every AMD
    # GPU reports, written for a read of the member below that floor (`prop.deviceOverlap`).
    value: str | None = None
    # A macro the HIP header declares the name under only when it is defined (MIOpen 6.x's
    # graph API needs MIOPEN_BETA_API), or declares it as CUDA's code calls it only then
    # (hipBLAS 5.x-6.x take hipComplex for hipblasComplex under
    # ROCM_MATHLIBS_API_USE_HIP_COMPLEX): a file that uses the name defines it before its
    # includes (translate/includes.py). For the `hip` spelling only, not a `floors` one.
    define: str | None = None
    # For a group member (`cooperative_groups::grid_group::num_blocks`): the HIP expression a
    # call `g.member()` is written as where HIP lacks the member (unsupported, or newer than
    # the floor), `{g}` standing for the group (translate/cgroups.py).
    expr: str | None = None


@fast_pickle
@dataclass(frozen=True, slots=True)
class HeaderMap:
    cuda: str
    hip: str | None
    flat: str | None
    family: str
    status: str = "supported"
    note: str | None = None
    since: str = "5.2"  # first ROCm that ships the HIP header
    needs: str | None = None  # what a program that includes it needs besides HIP (said, HP014)
    # The HIP header by ROCm floor, (floor, path) from the lowest floor up, as Mapping.floors:
    # `cuda_bf16.h` is hip/hip_bfloat16.h below 5.7 and hip/hip_bf16.h from it. Resolved when
    # the tables load.
    floors: tuple[tuple[str, str], ...] = ()
    # The ROCm release from which `hip` no longer declares what CUDA's header did, because HIP
    # moved it to the header `floors` names last (GL interop left hip_runtime_api.h in 6.0 for
    # hip_gl_interop.h, 5.6+): below the floors, that header is included too where it exists.
    moved: str | None = None
    # Does HIPIFY write this library's flat header ("hipblas.h"), or its folder's
    # ("hiprand/hiprand.h")? The file's `hipify_flat` (default true); include-layout "hipify".
    hipify_flat: bool = True


@fast_pickle
@dataclass(frozen=True, slots=True)
class Overrides:
    """A table's own spellings of names another table maps (`[overrides]`): rocBLAS writes
    `CUDA_R_32F`, a runtime name, as `rocblas_datatype_f32_r`. They hold in a file that uses a
    name of `family` (or of one of `when`, where the table gives it) and none of the families in
    `unless` (translate/overrides.py)."""
    family: str
    unless: frozenset[str]
    names: dict[str, Mapping]
    when: frozenset[str] = frozenset()  # empty: the table's own family


@dataclass(eq=False)  # hashed by identity: per-RuleSet caches key on it
class RuleSet:
    names: dict[str, Mapping] = field(default_factory=dict)
    qualified: dict[str, Mapping] = field(default_factory=dict)  # keys containing "::"
    headers: dict[str, HeaderMap] = field(default_factory=dict)
    namespaces: dict[str, Mapping] = field(default_factory=dict)
    families: dict[str, str] = field(default_factory=dict)  # id -> title
    namespace_families: frozenset[str] = frozenset()
    hip_names: frozenset[str] = frozenset()  # every HIP name we emit: a ported file's names
    implied: tuple[Mapping, ...] = ()  # the names with a `header`, for the includes pass
    overrides: tuple[Overrides, ...] = ()  # of the families loaded, in load order

    def lookup(self, name: str) -> Mapping | None:
        return self.qualified.get(name) if "::" in name else self.names.get(name)


def _fail(path: Path, msg: str) -> HipportError:
    return HipportError(msg, path)


def load_table(path: Path) -> tuple[dict, list[Mapping], list[HeaderMap], list[Mapping]]:
    """The file's metadata (with its `[overrides]` as meta["overrides"], or None), names,
    headers and namespaces."""
    import tomllib  # only when the tables are rebuilt (see `cached`)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise _fail(path, f"invalid TOML: {e}") from None
    unknown = set(data) - FILE_KEYS
    if unknown:
        raise _fail(path, f"unknown top-level key(s): {', '.join(sorted(unknown))}")
    family = data.get("family") or path.stem
    default_since = str(data.get("since", "5.2"))
    names: list[Mapping] = []
    for cuda, entry in data.get("names", {}).items():
        names.append(_entry(path, family, default_since, cuda, entry))
    headers: list[HeaderMap] = []
    hipify_flat = data.get("hipify_flat", True)
    if not isinstance(hipify_flat, bool):
        raise _fail(path, "hipify_flat must be true or false")
    for cuda, h in data.get("headers", {}).items():
        if not isinstance(h, dict) or set(h) - {"hip", "flat", "status", "note", "since", "needs", "floors", "moved"}:
            raise _fail(path, f"[headers] {cuda!r}: expected a table with "
                              "hip/flat/status/note/since/needs/floors/moved")
        floors = h.get("floors", {})
        if not isinstance(floors, dict) or floors and not h.get("hip") or not all(
                isinstance(k, str) and _is_version(k) and isinstance(v, str) and _HEADER.fullmatch(v)
                for k, v in floors.items()):
            raise _fail(path, f"[headers] {cuda!r}: 'floors' must be a table of \"ROCm version\" = "
                              "header path, beside a 'hip' path")
        moved = h.get("moved")
        if moved is not None and not (isinstance(moved, str) and _is_version(moved) and floors):
            raise _fail(path, f"[headers] {cuda!r}: 'moved' must be a \"ROCm version\", beside 'floors'")
        headers.append(HeaderMap(cuda, h.get("hip"), h.get("flat"), family,
                                 h.get("status", "supported" if h.get("hip") else "unsupported"),
                                 h.get("note"), str(h.get("since", default_since)), h.get("needs"),
                                 tuple(sorted(floors.items(), key=lambda kv: version(kv[0]))), moved,
                                 hipify_flat))
    spaces = [_entry(path, family, default_since, ns, {"kind": "namespace", **e})
              for ns, e in data.get("namespaces", {}).items()]
    meta = {"family": family, "title": data.get("title", family),
            "overrides": _overrides(path, family, default_since, data.get("overrides"))}
    return meta, names, headers, spaces


def _overrides(path: Path, family: str, default_since: str, o: object) -> Overrides | None:
    if o is None:
        return None
    if not isinstance(o, dict) or set(o) - {"unless", "when", "names"} or not isinstance(o.get("names"), dict):
        raise _fail(path, "[overrides]: expected a table with 'names' (and optionally 'when', 'unless')")
    lists = {}
    for key in ("unless", "when"):
        v = o.get(key, [])
        if not isinstance(v, list) or not all(isinstance(u, str) for u in v):
            raise _fail(path, f"[overrides] {key}: expected a list of family ids")
        lists[key] = frozenset(v)
    names = {cuda: _entry(path, family, default_since, cuda, e) for cuda, e in o["names"].items()}
    return Overrides(family, lists["unless"], names, lists["when"])


def _entry(path: Path, family: str, default_since: str, cuda: str, e: object) -> Mapping:
    where = f"[names] {cuda}"
    if not isinstance(e, dict):
        raise _fail(path, f"{where}: expected an inline table")
    bad = set(e) - ENTRY_KEYS
    if bad:
        raise _fail(path, f"{where}: unknown key(s) {', '.join(sorted(bad))}")
    status = e.get("status", "supported")
    if status not in STATUSES:
        raise _fail(path, f"{where}: status must be one of {', '.join(STATUSES)}")
    kind = e.get("kind")
    if kind not in KINDS:
        raise _fail(path, f"{where}: kind must be one of {', '.join(KINDS)}")
    hip = e.get("hip")
    if status != "unsupported" and (hip is None or hip == "" and kind != "macro" and not e.get("args")):
        # "" removes the name: a macro HIP does without, or a call its `args` rewrite replaces
        raise _fail(path, f"{where}: a {status} entry needs a 'hip' name")
    solver = e.get("hipsolver")
    if solver is not None and (not isinstance(solver, str) or not solver.isidentifier() or not hip):
        raise _fail(path, f"{where}: 'hipsolver' must be an identifier, beside a 'hip' name")
    level = e.get("level")
    if level is not None and (not isinstance(level, int) or kind != "macro" or not hip):
        raise _fail(path, f"{where}: 'level' must be an integer, on a macro with a 'hip' name")
    floors = e.get("floors", {})
    value = e.get("value")
    if value is not None and (not isinstance(value, str) or kind != "field" or not value.isdigit()):
        raise _fail(path, f"{where}: 'value' must be a number in a string, on a kind = \"field\" entry")
    header = e.get("header")
    if header is not None and (not isinstance(header, str) or not _HEADER.fullmatch(header)):
        raise _fail(path, f"{where}: 'header' must be a header's path, such as \"hip/hip_fp16.h\"")
    define = e.get("define")
    if define is not None and (not isinstance(define, str) or not define.isidentifier() or not hip):
        raise _fail(path, f"{where}: 'define' must be a macro name, beside a 'hip' name")
    expr = e.get("expr")
    if expr is not None and (not isinstance(expr, str) or kind != "function" or cuda.count("::") != 2):
        raise _fail(path, f"{where}: 'expr' must be an expression, on a group member "
                          "(\"cooperative_groups::TYPE::member\", kind = \"function\")")
    if not isinstance(floors, dict) or floors and not hip or not all(
            isinstance(k, str) and _is_version(k) and isinstance(v, str) and v.isidentifier()
            for k, v in floors.items()):
        raise _fail(path, f"{where}: 'floors' must be a table of \"ROCm version\" = HIP name, "
                          "beside a 'hip' name")
    return Mapping(cuda, hip, kind, status, str(e.get("since", default_since)), family,
                   e.get("args"), e.get("note"), e.get("alt"), e.get("report"), solver, level,
                   tuple(sorted(floors.items(), key=lambda kv: version(kv[0]))), header, value, define, expr)


_HEADER = re.compile(r"[\w./-]+\.h")  # what a header path in the tables looks like
_WORD_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$"


def are_words(names: list[str]) -> bool:
    """Is every name a word ([A-Za-z0-9_$]+), as the name scanner finds them (translate/scan.py)?
    One pass in C over all of them: the tables hold thousands."""
    if not names:
        return True
    joined = " ".join(names)
    return all(names) and joined.isascii() and joined.count(" ") == len(names) - 1 \
        and not joined.encode().translate(None, _WORD_CHARS + b" ")


def _is_version(v: str) -> bool:
    return all(p.isdigit() for p in v.split(".")) and v.count(".") <= 2


def at_floor(m: Mapping, rocm: str) -> Mapping:
    """`m` as written at ROCm floor `rocm`: the spelling of the highest `floors` entry at or
    below it (and that floor as `since`, when later than the entry's own)."""
    hip, since = m.hip, m.since
    for floor, name in m.floors:
        if version(floor) <= version(rocm):
            hip = name
            if version(floor) > version(since):
                since = floor
    if hip == m.hip:
        return m
    # `define` is the base spelling's: a floors spelling (hipBLAS's _v2, which takes hipComplex
    # itself) is declared without it.
    return replace(m, hip=hip, since=since, define=None)


def header_at_floor(h: HeaderMap, rocm: str) -> HeaderMap:
    """`h` at ROCm floor `rocm`: the path of the highest `floors` entry at or below it."""
    hip = h.hip
    for floor, path in h.floors:
        if version(floor) <= version(rocm):
            hip = path
    if hip == h.hip:
        return h
    return replace(h, hip=hip)


@cache
def tables_digest(root: str | None = None) -> str:
    """Which version of the tables this is: a hash of their names and contents (an edit
    that keeps size and mtime, or a checkout, still changes it; 1.5 MB hash in ~2 ms)."""
    h = blake2b(digest_size=16)
    for sub in ("api", "build", "targets"):  # build files and targets key results too
        base = os.path.join(root or rules_dir(), sub)
        if not os.path.isdir(base):
            continue
        for e in sorted(os.scandir(base), key=lambda e: e.name):
            if e.name.endswith(".toml"):
                with open(e.path, "rb") as f:
                    data = f.read()
                h.update(f"{sub}/{e.name}\0{len(data)}\0".encode())
                h.update(data)
    return h.hexdigest()


def for_config(config: Any) -> RuleSet:
    """The tables a configuration ports with: its library choices and its ROCm floor."""
    return load(libraries_key(config), rocm=config.rocm)


def libraries_key(config: Any) -> str:
    """The alternative families `config` selects, as `load` takes them ("hipblas" for none)."""
    values = {config.blas, config.sparse, config.rand, config.solver, config.dnn.replace("-", "_")}
    if getattr(config, "data_types", "hip") == "rocblas":
        values.add("rocblas_types")
    chosen = sorted(values & set(ALTERNATIVES))
    return ",".join(chosen) or "hipblas"


@cache
def load(blas: str = "hipblas", root: str | None = None, rocm: str | None = None) -> RuleSet:
    """All tables, with alternative families (rocBLAS, rocSPARSE, ...; `blas` names those
    selected, comma-separated) swapped in, and spellings for ROCm floor `rocm` (default: the
    lowest floor, the spellings the entries' `hip` gives)."""
    from hipport.rules import tablecache  # (it stores the classes of this package)

    return tablecache.cached(f"rules-{blas}-{rocm or 'base'}", lambda: _load(blas, root, rocm), root)


def _load(blas: str, root: str | None, rocm: str | None = None) -> RuleSet:
    base = Path(root) if root else rules_dir()
    rs = RuleSet()
    selected = set(blas.split(",")) & set(ALTERNATIVES)
    ns_fams: set[str] = set()
    overrides: list[Overrides] = []
    for path in sorted((base / "api").glob("*.toml")):
        meta, names, headers, spaces = load_table(path)
        fam = meta["family"]
        if fam in ALTERNATIVES and fam not in selected:
            continue
        rs.families[fam] = meta["title"]
        if meta["overrides"] is not None:
            overrides.append(meta["overrides"])
        for m in names:
            (rs.qualified if "::" in m.cuda else rs.names)[m.cuda] = m
        for h in headers:
            rs.headers[h.cuda] = h
        for s in spaces:
            rs.namespaces[s.cuda] = s
            ns_fams.add(fam)
    # An alternative family wins over the one it replaces, whatever the file order.
    for fam in sorted(selected):
        for path in sorted((base / "api").glob("*.toml")):
            meta, names, headers, _ = load_table(path)
            if meta["family"] == fam:
                for m in names:
                    (rs.qualified if "::" in m.cuda else rs.names)[m.cuda] = m
                for h in headers:
                    rs.headers[h.cuda] = h
    if rocm:
        for table in (rs.names, rs.qualified, *(o.names for o in overrides)):
            for k, m in table.items():
                if m.floors:
                    table[k] = at_floor(m, rocm)
        for k, h in rs.headers.items():
            if h.floors:
                rs.headers[k] = header_at_floor(h, rocm)
    # A name's `header` may be a CUDA header of the tables: its HIP header at this floor.
    for table in (rs.names, *(o.names for o in overrides)):
        for k, m in table.items():
            mapped = rs.headers.get(m.header) if m.header else None
            if mapped is not None and mapped.hip:
                table[k] = replace(m, header=mapped.hip)
    rs.namespace_families = frozenset(ns_fams)
    rs.overrides = tuple(overrides)
    complete(rs)
    return rs


def complete(rs: RuleSet) -> None:
    """Fill in what follows from the tables: every HIP name a port writes, and the names that
    bring a header (built here and when the tables are read back from the user cache)."""
    rs.hip_names = frozenset(m.hip for m in rs.names.values() if m.hip) | frozenset(
        m.hip for o in rs.overrides for m in o.names.values() if m.hip)
    rs.implied = tuple(m for m in rs.names.values() if m.header)
