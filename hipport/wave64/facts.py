"""Facts shared by the wave64 rules, computed once per file.

What is here:

- the functions of the file and where they run (`__global__`, `__device__`, host);
- warp-size constants (`#define WARP_SIZE 32`, `constexpr int kWarpSize = 32`, enumerators,
  template parameters defaulted to 32 or 64);
- value *kinds* followed through assignments, arithmetic, function parameters, return values and
  shared arrays: thread index, lane id (32-lane or hardware), warp id, warp count, wave mask,
  warp-size constant (see the bit flags below);
- the warp intrinsic calls, the shuffle loops, the lane/warp arithmetic sites;
- one *model* per group of functions that must agree (a kernel, the device functions it calls
  and every function sharing a warp-size constant with them): "warp32", "agnostic" or "mixed",
  and the rewrite strategy chosen for the group (wave64.md §3, the consistency rule).

Rules read these facts; nothing here decides what is a finding.
"""

from __future__ import annotations

import bisect
import operator
import os
import re
from dataclasses import dataclass, field
from functools import cache

import tree_sitter

from hipport.config import Config
from hipport.source import Node, SourceFile, language
from hipport.wave64 import platform
from hipport.wave64 import syntax as sx

# ---- value kinds (bit flags) -----------------------------------------------------------------
TID = 1 << 0  # thread index: threadIdx.*, linearized or global thread ids
BDIM = 1 << 1  # blockDim-derived
LANE32 = 1 << 2  # lane of a 32-lane warp: tid & 31, tid % 32, tid % WARP_SIZE(32)
LANEHW = 1 << 3  # hardware lane: __lane_id(), tid % warpSize
LANEN = 1 << 4  # a lane whose width follows the strategy: PTX %laneid, tile.thread_rank()
WARP32 = 1 << 5  # warp index: tid >> 5, tid / 32
WARPHW = 1 << 6  # tid / warpSize
NWARP32 = 1 << 7  # warps per block: blockDim.x / 32
NWARPHW = 1 << 8
MASK = 1 << 9  # a wave mask: ballot, activemask, match, lanemask results and masks derived from them
SHIFTMASK = 1 << 10  # a lane mask built by shifting by a lane number (1u << lane)
WS32 = 1 << 11  # a warp-size constant equal to 32
WSRT = 1 << 12  # warpSize
WS64 = 1 << 13  # a warp-size constant equal to 64
LANEREL = 1 << 14  # lane +/- k
BID = 1 << 15  # blockIdx

LANES = LANE32 | LANEHW | LANEN
WARPS = WARP32 | WARPHW

# ---- names -----------------------------------------------------------------------------------
SHFL = {"__shfl": "shfl", "__shfl_up": "shfl_up", "__shfl_down": "shfl_down", "__shfl_xor": "shfl_xor"}
SHFL_SYNC = {k + "_sync": v for k, v in SHFL.items()}
BALLOTS = {"__ballot", "__ballot64", "__ballot_sync"}
VOTES = {"__any", "__all", "__any_sync", "__all_sync", "__uni_sync", "__uni"}
MATCHES = {"__match_any_sync", "__match_all_sync", "__match_any", "__match_all"}
REDUCES = {f"__reduce_{op}_sync" for op in ("add", "min", "max", "and", "or", "xor")}
LANEMASKS = {"__lanemask_lt", "__lanemask_le", "__lanemask_gt", "__lanemask_ge", "__lanemask_eq"}
MASK_SOURCES = BALLOTS | MATCHES | LANEMASKS | {"__activemask"}
BITOPS32 = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll",
            "__fns32": "__fns64", "__builtin_popcount": "__builtin_popcountll",
            "__builtin_ctz": "__builtin_ctzll", "__builtin_clz": "__builtin_clzll",
            "__builtin_ffs": "__builtin_ffsll"}
TILE_MEMBERS = {"ballot", "any", "all", "match_any", "match_all", "meta_group_rank",
                "meta_group_size"}
TILE_SHFL = {"shfl": "shfl", "shfl_up": "shfl_up", "shfl_down": "shfl_down", "shfl_xor": "shfl_xor"}
WARP_CALLS = (set(SHFL) | set(SHFL_SYNC) | BALLOTS | VOTES | MATCHES | REDUCES | LANEMASKS
              | {"__activemask", "__syncwarp", "__lane_id"})

TYPES32 = {"int", "unsigned", "unsigned int", "signed", "signed int", "uint32_t", "int32_t", "uint",
           "unsigned short", "short", "uint16_t", "int16_t", "bool", "char", "unsigned char",
           "uint8_t", "int8_t", "u32", "s32", "uint32", "int32"}
TYPES64 = {"unsigned long long", "unsigned long long int", "long long", "long long int", "uint64_t",
           "int64_t", "size_t", "unsigned long", "unsigned long int", "long", "long int",
           "lane_mask_t", "uint64", "u64", "ulong", "ulonglong", "unsigned __int64"}

# A quick test for files that cannot hold a wave64 hazard.
QUICK_TOKENS = (b"__global__", b"__device__", b"warp", b"Warp", b"WARP", b"wave", b"Wave", b"WAVE", b"__shfl",
                b"__ballot", b"__activemask", b"__syncwarp", b"__any", b"__all", b"__lane_id", b"<<<",
                b"hipLaunchKernelGGL", b"tiled_partition", b"__AMDGCN")


def might_hold_hazards(data: bytes) -> bool:
    """A few substring searches (fast, C): files without any of these hold no wave64 hazard."""
    for t in QUICK_TOKENS:
        if t in data:
            return True
    return False


# Device function bodies without any of these need no analysis.
FUNC_QUICK = re.compile(rb"__(?:shfl|ballot|any|all|uni|activemask|syncwarp|match|reduce_|lane|popc|ffs|clz|brev|"
                        rb"fns|AMDGCN)|warpSize|[Ww]arp|WARP|[Ww]ave|WAVE|\basm\b|tiled_partition|thread_block_tile|"
                        rb"atomic(?:CAS|Exch)|volatile|\.(?:ballot|any|all|shfl)")
# Values that can carry a kind by themselves (the rest only through variables that do).
SEEDS = rb"threadIdx|blockDim|blockIdx|__ballot|__activemask|__match|__lane|lanemask|warpSize|thread_rank|ballot|match_any|[Ll]ane_?[Ii]d\b|laneid"
HOST_QUICK = re.compile(rb"<<<|hipLaunchKernelGGL|warpSize")
_WARP_NAME = re.compile(r"(?i)^k?_?ws$|^k?_?wsz$|^lanes_?per")
_NOT_WARP_NAME = re.compile(r"(?i)num|count|per_?block|_?id$|idx|index|mask|tile|bank")
_COMMENT = re.compile(r"//.*|/\*.*?\*/", re.S)
_FULL_MASK_NAME = re.compile(r"(?i)^(k_?)?(full|all|final|warp)_?(lanes?_?|warp_?)?mask$")
_WRAPPED = re.compile(r"^\s*(__shfl(?:_up|_down|_xor)?(?:_sync)?|__ballot(?:_sync)?)\s*\(")
_UPPER = re.compile(rb"\b(?:[A-Z][A-Z0-9_]*|k[A-Z]\w*)\b")
_LANE_FN = re.compile(r"(?i)^(get_?)?lane_?id$|^laneid$|^lane$")
_WARP_FN = re.compile(r"(?i)warp|lane|shfl|ballot")


_K_NAME = re.compile(r"k[A-Z]\w*")
_FLOAT_32 = re.compile(r"32\.0*(?:[eE]0)?[fF]?")
# `#define DEVICE_FUNCTION static inline __device__`: a macro that declares device functions
_QUAL_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*__(?:device|global)__[^\n]*)$", re.M)


@cache
def _external_name(name: str) -> bool:
    """WARP_SIZE or kWarpSize: the shape of a warp-size constant defined in another file."""
    return name.isupper() and is_warp_name(name) or bool(_K_NAME.fullmatch(name)) and is_warp_name(name)


@cache
def _lane_fn(name: str) -> bool:
    return bool(_LANE_FN.search(name))


@cache
def _full_mask_name(name: str) -> bool:
    return bool(_FULL_MASK_NAME.search(name))


_START = operator.attrgetter("start_byte")
_CONST_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv, "%": operator.mod,
              "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor}


_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WORD = re.compile(rb"\w+")
_WORD_STR = re.compile(r"[A-Za-z_]\w*")
_OWN_HELPER = re.compile(r"hipport_(?:warp_size|match_any|reduce_(?:add|min|max|and|or|xor))")
_SEEDS = re.compile(SEEDS)
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _word_hits(data: bytes, names: list[str]) -> list[tuple[int, int, str]] | None:
    """(start, end, name) of every whole-word occurrence of `names` in `data`, in file order: what
    `re.finditer(rb"\\b(" + b"|".join(map(re.escape, names)) + rb")\\b", data)` finds, found with
    bytes.find. None when a name is not a plain identifier (the caller keeps the pattern then)."""
    hits = []
    n = len(data)
    for name in set(names):
        b = name.encode()
        if not b or not _WORD.fullmatch(b):
            return None
        size = len(b)
        i = data.find(b)
        while i >= 0:
            j = i + size
            if (i == 0 or data[i - 1] not in _WORD_BYTES) and (j == n or data[j] not in _WORD_BYTES):
                hits.append((i, j, name))
            i = data.find(b, i + 1)
    hits.sort()
    return hits


_EVAL_TOKENS = re.compile(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|[-+*/%&|^~()]")
_SPACES = re.compile(r"\s+")


@cache
def _eval_digits(expr: str) -> int | None:
    """The value of an expression of integers and operators (macro bodies), or None."""
    try:
        value = eval(expr, {"__builtins__": {}}, {})  # noqa: S307 - digits and operators only
    except Exception:
        return None
    return value if isinstance(value, int) else None


class _WordSet:
    """Whether `re.compile(b"|".join(rb"\\b" + re.escape(n) + rb"\\b" for n in names)).search(data, start, end)`
    matches, without compiling a pattern per file: plain identifiers are looked up among the words of the
    range (the same matches, since a word can only match where it starts and ends on a boundary);
    any other name keeps a compiled pattern."""

    __slots__ = ("words", "rx")

    def __init__(self, names) -> None:
        words = set()
        other = []
        for n in names:
            b = n.encode()
            if b and _WORD.fullmatch(b):
                words.add(b)
            else:
                other.append(b"\\b" + re.escape(b) + b"\\b")
        self.words = words
        self.rx = re.compile(b"|".join(other)) if other else None

    def hits(self, data: bytes, start: int, end: int, words: set[bytes]) -> bool:
        """Whether the pattern matches in data[start:end], whose words (`_range_words`) are `words`."""
        if self.rx is not None and self.rx.search(data, start, end):
            return True
        return not self.words.isdisjoint(words)


def _range_words(data: bytes, start: int, end: int) -> set[bytes]:
    """The words that lie whole in data[start:end] (a word cut by `start` is no match for \\bname\\b)."""
    if start > 0 and data[start - 1] in _WORD_BYTES:
        m = _WORD.match(data, start, end)
        if m is not None:
            start = m.end()
    return set(_WORD.findall(data, start, end))


@cache
def is_warp_name(name: str) -> bool:
    """WARP_SIZE, kWarpSize, WARPSIZE, THREADS_PER_WARP, WAVEFRONT_SIZE, WS ... but not
    WARPS_PER_BLOCK, kNumWarps, WARP_ID, FULL_WARP_MASK."""
    if _NOT_WARP_NAME.search(name):
        return False
    words = [w.lower() for w in _WORDS.findall(name)]
    if any(w in ("warps", "waves") for w in words):
        return False
    if any(w.startswith(("warp", "wave")) for w in words):
        return True
    return bool(_WARP_NAME.search(name))


@cache
def type_bits(text: str) -> int | None:
    t = " ".join(text.replace("const", " ").replace("volatile", " ").replace("static", " ")
                 .replace("__restrict__", " ").split())
    if t in TYPES32:
        return 32
    if t in TYPES64:
        return 64
    return None


_WRAPPING_DECLARATORS = frozenset({"pointer_declarator", "array_declarator", "reference_declarator",
                                   "parenthesized_declarator"})

_KIND_TYPES = frozenset({"identifier", "field_expression", "parenthesized_expression", "cast_expression",
                         "comma_expression", "binary_expression", "call_expression", "conditional_expression",
                         "subscript_expression", "unary_expression", "assignment_expression"})

# ---- data ------------------------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class Var:
    name: str
    decl: Node  # declaration, parameter_declaration or field_declaration
    type_node: Node | None
    declarator: Node  # the declarator of this one name (init_declarator, array_declarator, ...)
    bits: int | None
    value: Node | None = None
    is_param: bool = False
    is_array: bool = False
    is_shared: bool = False
    is_pointer: bool = False
    size_node: Node | None = None
    index: int = 0  # position among the declarators of `decl`
    count: int = 1


@dataclass(eq=False, slots=True)
class WarpConst:
    """A named warp-size constant: a macro, constexpr/const variable, enumerator or template default."""

    name: str
    value: int  # 32 or 64
    kind: str  # "macro", "variable", "enumerator", "template"
    node: Node  # the definition
    value_node: Node | None  # the node holding the value (number_literal), or None for macros
    value_span: tuple[int, int]  # bytes of the value literal
    func: Func | None = None
    amd_only: bool = False  # defined in a branch taken only on AMD (#if __HIP_PLATFORM_AMD__)
    users: list[Func] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Wrapper:
    """A function-like macro whose body is one warp shuffle or ballot call:
    `#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)`."""

    name: str
    node: Node  # the preproc_function_def
    callee: str  # the intrinsic in the body
    callee_span: tuple[int, int]
    args: list[tuple[int, int, str]]  # (start, end, text) of the body call's arguments
    close: int  # byte offset of the body call's closing parenthesis
    params: list[str]


@dataclass(eq=False, slots=True)
class WarpCall:
    node: Node
    fn: Func
    name: str  # callee name as written
    family: str  # shfl, ballot, vote, activemask, syncwarp, match, reduce, lane_id, lanemask, tile
    base: str = ""  # shfl, shfl_up, shfl_down, shfl_xor for shuffles; any/all/uni for votes
    sync: bool = False
    args: list[Node] = field(default_factory=list)
    mask: Node | None = None
    value: Node | None = None
    lane: Node | None = None  # source lane / delta / lane mask of a shuffle
    width: Node | None = None
    tile: Node | None = None  # the tile object of a member call
    wrapper: Wrapper | None = None  # called through a wrapper macro


@dataclass(eq=False, slots=True)
class Loop:
    node: Node
    var: str
    start: Node | None
    bound: Node | None
    down: bool
    warp: str  # "32" (literal or 32-constant), "rt" (warpSize), "64", "derived", ""
    shuffles: list[WarpCall] = field(default_factory=list)
    outer: Loop | None = None  # for "derived": the warp loop whose variable starts this one
    exp: bool = False  # over the exponent: `for (l = 0; l <= 4; ++l)` with shuffle offsets `1 << l`


@dataclass(eq=False, slots=True)
class Site:
    """A lane / warp id computation: tid & 31, tid >> 5, blockDim.x / 32, tid < 32 ..."""

    kind: str  # lane, warp, nwarp, guard
    node: Node  # the binary expression
    const: Node  # the constant operand (31, 32, 5, WARP_SIZE, warpSize)
    origin: str  # "literal", "named" (a warp-size constant), "rt" (warpSize)
    ceil: Node | None = None  # the `31` of (x + 31) / 32
    fn: Func | None = None


@dataclass(eq=False, slots=True)
class Func:
    node: Node
    name: str
    body: Node | None
    space: str  # global, device, hd, host
    top: Node  # ancestor directly below the translation unit
    tparams: dict[str, Node] = field(default_factory=dict)
    nodes: dict[str, list[Node]] = field(default_factory=dict)
    vars: dict[str, Var] = field(default_factory=dict)
    params: list[Var] = field(default_factory=list)
    env: dict[str, int] = field(default_factory=dict)
    ret: int = 0
    ret_type: Node | None = None
    callees: set[str] = field(default_factory=set)
    calls: list[WarpCall] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    idents: list[tuple[str, Node]] = field(default_factory=list)  # warpSize and warp-constant uses
    collective: bool = False
    strong32: list[Node] = field(default_factory=list)
    weak32: list[Node] = field(default_factory=list)
    agnostic: list[Node] = field(default_factory=list)
    group: Group | None = None
    quick: bool = False  # worth the full analysis (warp-related tokens in its body)
    param_list: Node | None = None  # the parameter_list, read by _parse_params for analysed functions only

    @property
    def device(self) -> bool:
        return self.space in ("global", "device", "hd")

    def node_list(self, kind: str) -> list[Node]:
        return self.nodes.get(kind, [])


@dataclass(eq=False, slots=True)
class Group:
    funcs: list[Func]
    model: str = "agnostic"
    strategy: str = "native"


# ---- the facts -------------------------------------------------------------------------------

_COLLECT_QUERY: tree_sitter.Query | None = None


def _collect_query() -> tree_sitter.Query:
    global _COLLECT_QUERY
    if _COLLECT_QUERY is None:
        # one pattern with alternatives: a fifth faster to run than one pattern per type
        _COLLECT_QUERY = tree_sitter.Query(language(), "[" + " ".join(f"({t}) @{t}" for t in sorted(_COLLECT)) + "]")
    return _COLLECT_QUERY


_COLLECT = frozenset({
    "call_expression", "binary_expression", "declaration", "assignment_expression", "for_statement",
    "while_statement", "do_statement", "gnu_asm_expression", "subscript_expression",
    "return_statement", "template_function", "template_type", "enumerator",
})


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


class Facts:
    def __init__(self, src: SourceFile, config: Config, headers: bool = True) -> None:
        self.src = src
        self.config = config
        self.data = src.data
        self.funcs: list[Func] = []
        self.by_name: dict[str, list[Func]] = {}
        self.consts: dict[str, list[WarpConst]] = {}
        self.macros: dict[str, list[tuple[Node, str, bool]]] = {}  # name -> (preproc_def, value, amd_only)
        self.gvars: dict[str, Var] = {}
        self.genv: dict[str, int] = {}
        self.includes: list[Node] = []
        self.preproc_conds: list[Node] = []  # #if / #elif conditions and #ifdef names
        self.inactive: list[tuple[int, int]] = []  # byte ranges compiled only for NVIDIA
        self.amd_only: list[tuple[int, int]] = []  # byte ranges compiled only for AMD
        self._inactive_starts: list[int] = []
        self._amd_starts: list[int] = []
        self.top_items: list[Node] = []
        self.groups: list[Group] = []
        self.calls: list[WarpCall] = []
        self._memo: dict[int, int] = {}
        self._ranges: list[tuple[int, int, Func]] = []
        self.aliases: set[str] = set()
        self.arch_macros: set[str] = set()
        self.wave_macros: set[str] = set()  # per-architecture wave-size macros (already agnostic)
        self.wrappers: dict[str, Wrapper] = {}
        self._cdepth = 0
        self._decl_cache: dict[int, list[Var]] = {}
        self._eval_cache: dict[tuple[str, int], tuple[int, int] | None] = {}
        self._bin: dict[int, tuple[str, Node | None, Node | None]] = {}
        self._names: dict[int, str] = {}
        self._plain: set[tuple[Func, str]] = set()
        self._device: list[Func] | None = None
        self.ident_uses: list[tuple[str, Node, Func | None, int, int]] = []
        self._headers: dict[str, tuple[int, bool]] | None = None if headers else {}
        self._header_names: frozenset[str] = frozenset()
        self._defined_here: frozenset[str] | None = None  # names this file #defines (tree_defines)
        self.qual_macros: dict[str, set[str]] = {}  # macros that expand to __device__ / __global__
        self.empty = not might_hold_hazards(self.data)
        if self.empty:
            return
        self._has_gfx = b"__GFX" in self.data  # once: a search per #define grows with the file
        for m in _QUAL_MACRO.finditer(self.data):
            qual = {q for q in ("__global__", "__device__", "__host__") if q in m.group(2).decode().split()}
            if qual:
                self.qual_macros.setdefault(m.group(1).decode(), set()).update(qual)
        self._scan_top(src.root)
        for fn in self.funcs:
            self._body_branches(fn)
        for fn in self.funcs:
            self.by_name.setdefault(fn.name, []).append(fn)
        self._ranges = sorted((f.node.start_byte, f.node.end_byte, f) for f in self.funcs)
        self._range_starts = [r[0] for r in self._ranges]
        self._find_consts()
        self._qualify()
        for fn in self.funcs:
            self._scan_func(fn)
        self._find_identifier_uses()
        self._propagate()
        for fn in self.funcs:
            if fn.device and fn.body is not None and fn.nodes:
                self._scan_calls(fn)
        self._mark_collective()
        for fn in self.funcs:
            if fn.device and fn.nodes:
                self._scan_sites(fn)
                if fn.collective:
                    self._scan_strides(fn)
                self._scan_loops(fn)
                self._scan_evidence(fn)
        self._group()

    # ---- top level -------------------------------------------------------------------------

    def _scan_top(self, root: Node) -> None:
        stack: list[tuple[Node, Node | None, dict[str, Node]]] = [(root, None, {})]
        while stack:
            node, top, tparams = stack.pop()
            for child in reversed(node.children):
                t = child.type
                ctop = top if top is not None else child
                if t == "function_definition":
                    self._add_function(child, ctop, tparams)
                elif t == "template_declaration":
                    tp = dict(tparams)
                    params = child.child_by_field_id(sx.F_PARAMETERS)
                    if params is not None:
                        for p in params.named_children:
                            if p.type == "optional_parameter_declaration":
                                d = p.child_by_field_id(sx.F_DECLARATOR)
                                v = p.child_by_field_id(sx.F_DEFAULT_VALUE)
                                if d is not None and v is not None:
                                    tp[self.src.text(d)] = v
                            elif p.type == "parameter_declaration":
                                d = p.child_by_field_id(sx.F_DECLARATOR)
                                if d is not None:
                                    tp[self.src.text(d)] = p
                    stack.append((child, ctop, tp))
                elif t in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else",
                           "preproc_elifdef"):  # a chain is classified at its #if
                    self._preproc_branch(child)
                    stack.append((child, ctop, tparams))
                elif t == "namespace_definition":
                    body = child.child_by_field_id(sx.F_BODY)
                    if body is not None:
                        stack.append((body, ctop, tparams))
                elif t == "linkage_specification":  # extern "C" { ... } or extern "C" <one definition>
                    stack.append((child, ctop, tparams))
                elif t in ("declaration_list", "field_declaration_list"):
                    stack.append((child, ctop, tparams))
                elif t in ("struct_specifier", "class_specifier"):
                    body = child.child_by_field_id(sx.F_BODY)
                    if body is not None:
                        stack.append((body, ctop, tparams))
                elif t == "preproc_def":
                    self._add_macro(child)
                elif t == "preproc_function_def":
                    self._add_wrapper(child)
                elif t == "preproc_include":
                    if top is None:
                        self.includes.append(child)
                elif t in ("declaration", "field_declaration", "type_definition", "alias_declaration"):
                    self.top_items.append(child)
                    for sub in child.children:
                        if sub.type in ("struct_specifier", "class_specifier"):
                            body = sub.child_by_field_id(sx.F_BODY)
                            if body is not None:
                                stack.append((body, ctop, tparams))
                        elif sub.type == "enum_specifier":
                            self.top_items.append(sub)
                elif t == "enum_specifier":
                    self.top_items.append(child)
                elif t == "expression_statement":
                    self.top_items.append(child)
        self.includes.sort(key=lambda n: n.start_byte)

    def _preproc_branch(self, node: Node) -> None:
        """Classify every branch of the chain that starts at `node` (an #if / #ifdef / #ifndef; its
        #elif / #else are reached through it): see `platform.classify_chain`."""
        t = node.type
        if t not in ("preproc_if", "preproc_ifdef"):
            for c in (node.child_by_field_id(sx.F_CONDITION), node.child_by_field_id(sx.F_NAME)):
                if c is not None and t != "preproc_else":
                    self.preproc_conds.append(c)
            return
        branches: list[tuple[str | None, int, Node]] = []  # (condition as #if text, body start, node)
        n: Node | None = node
        while n is not None:
            if n.type in ("preproc_ifdef", "preproc_elifdef"):
                name = n.child_by_field_id(sx.F_NAME)
                if name is None:
                    return
                if n is node:
                    self.preproc_conds.append(name)
                neg = self.data[n.start_byte:name.start_byte].rstrip().endswith((b"ifndef", b"elifndef"))
                text = ("!" if neg else "") + f"defined({self.src.text(name)})"
                branches.append((text, name.end_byte, n))
            elif n.type in ("preproc_if", "preproc_elif"):
                cond = n.child_by_field_id(sx.F_CONDITION)
                if cond is None:
                    return
                if n is node:
                    self.preproc_conds.append(cond)
                branches.append((self.src.text(cond), cond.end_byte, n))
            elif n.type == "preproc_else":
                branches.append((None, n.start_byte + 5, n))
            else:
                break
            n = n.child_by_field_id(sx.F_ALTERNATIVE)
        classes = platform.classify_chain([b[0] for b in branches])
        for i, ((_c, start, bnode), cls) in enumerate(zip(branches, classes, strict=True)):
            if cls is None:
                continue
            end = branches[i + 1][2].start_byte if i + 1 < len(branches) else bnode.end_byte
            if cls == "inactive":
                self._add_range(self.inactive, self._inactive_starts, (start, end))
            else:
                self._add_range(self.amd_only, self._amd_starts, (start, end))

    def _body_branches(self, fn: Func) -> None:
        """#if chains inside a function body (the top-level scan does not enter bodies)."""
        body = fn.body
        if body is None or self.data.find(b"#if", body.start_byte, body.end_byte) < 0:
            return
        stack = [body]
        while stack:
            n = stack.pop()
            for c in n.children:
                if c.type in ("preproc_if", "preproc_ifdef"):
                    self._preproc_branch(c)
                if c.child_count:
                    stack.append(c)

    @staticmethod
    def _add_range(ranges: list[tuple[int, int]], starts: list[int], r: tuple[int, int]) -> None:
        """Keep `ranges` disjoint: preprocessor branches nest, so a range inside one already kept
        adds nothing and one around kept ranges replaces them."""
        i = bisect.bisect_right(starts, r[0])
        if i and ranges[i - 1][0] <= r[0] and r[1] <= ranges[i - 1][1]:
            return
        j = i
        while j < len(ranges) and ranges[j][0] < r[1]:
            j += 1
        del ranges[i:j]
        del starts[i:j]
        starts.insert(i, r[0])
        ranges.insert(i, r)

    def is_inactive(self, pos: int) -> bool:
        """True inside a preprocessor branch that AMD never compiles."""
        i = bisect.bisect_right(self._inactive_starts, pos)
        return bool(i) and self.inactive[i - 1][0] <= pos < self.inactive[i - 1][1]

    def is_amd_only(self, pos: int) -> bool:
        """True inside a branch written for AMD (see `platform`), AMD compiles."""
        i = bisect.bisect_right(self._amd_starts, pos)
        return bool(i) and self.amd_only[i - 1][0] <= pos < self.amd_only[i - 1][1] and not (
            self.inactive and self.is_inactive(pos))

    def _add_function(self, node: Node, top: Node, tparams: dict[str, Node]) -> None:
        body = node.child_by_field_id(sx.F_BODY)
        start, end = node.start_byte, body.start_byte if body is not None else node.end_byte
        quals: set[str] = set()
        if self.data.find(b"__global__", start, end) >= 0 or self.data.find(b"__device__", start, end) >= 0:
            quals = {c.type for c in node.children if not c.is_named}  # building children costs more
        if not quals and self.qual_macros:  # `#define DEVICE_FUNCTION static inline __device__`
            for w in _WORD.findall(self.data, start, end):
                quals |= self.qual_macros.get(w.decode(), set())
        if "__global__" in quals:
            space = "global"
        elif "__device__" in quals:
            space = "hd" if "__host__" in quals else "device"
        else:
            space = "host"
        decl = node.child_by_field_id(sx.F_DECLARATOR)
        while decl is not None and decl.type not in ("function_declarator",):
            decl = decl.child_by_field_id(sx.F_DECLARATOR)
        name = ""
        pl = None
        if decl is not None:
            nd = decl.child_by_field_id(sx.F_DECLARATOR)
            if nd is not None:
                if nd.type == "qualified_identifier":
                    nd = nd.child_by_field_id(sx.F_NAME) or nd
                if nd.type == "template_function":
                    nd = nd.child_by_field_id(sx.F_NAME) or nd
                name = self.src.text(nd)
            pl = decl.child_by_field_id(sx.F_PARAMETERS)
        fn = Func(node=node, name=name, body=body, space=space, top=top,
                  tparams=dict(tparams), ret_type=node.child_by_field_id(sx.F_TYPE))
        if self.is_inactive(node.start_byte) if self.inactive else False:
            return
        if _OWN_HELPER.fullmatch(name):
            return  # a helper hipport wrote (emit.py) on an earlier run: already wave64 code
        fn.param_list = pl
        self.funcs.append(fn)

    def _add_wrapper(self, node: Node) -> None:
        name_node = node.child_by_field_id(sx.F_NAME)
        value = node.child_by_field_id(sx.F_VALUE)
        params = node.child_by_field_id(sx.F_PARAMETERS)
        if name_node is None or value is None or params is None:
            return
        if self.inactive and self.is_inactive(node.start_byte):
            return
        raw = self.data[value.start_byte:value.end_byte].decode("utf-8", "surrogateescape")
        m = _WRAPPED.match(raw)
        if m is None or not raw.rstrip().endswith(")"):
            return
        close = value.start_byte + len(raw.rstrip()) - 1
        inner_start = value.start_byte + m.end()
        args, depth, start = [], 0, inner_start
        for i in range(inner_start, close):
            ch = self.data[i:i + 1]
            if ch in (b"(", b"["):
                depth += 1
            elif ch in (b")", b"]"):
                depth -= 1
                if depth < 0:
                    return  # the call closes before the end of the body: not a single call
            elif ch == b"," and depth == 0:
                args.append(self._arg_span(start, i))
                start = i + 1
        args.append(self._arg_span(start, close))
        names = [self.src.text(p) for p in params.named_children if p.type == "identifier"]
        self.wrappers[self.src.text(name_node)] = Wrapper(
            self.src.text(name_node), node, m.group(1),
            (value.start_byte + m.start(1), value.start_byte + m.end(1)), args, close, names)

    def _arg_span(self, start: int, end: int) -> tuple[int, int, str]:
        text = self.data[start:end].decode("utf-8", "surrogateescape")
        lead = len(text) - len(text.lstrip())
        return start + lead, start + len(text.rstrip()), text.strip()

    def _add_macro(self, node: Node) -> None:
        name_node = node.child_by_field_id(sx.F_NAME)
        value = node.child_by_field_id(sx.F_VALUE)
        if name_node is None or value is None:
            return
        if self.inactive and self.is_inactive(node.start_byte):
            return
        name = self.src.text(name_node)
        text = _COMMENT.sub(" ", self.src.text(value)).strip()
        amd = bool(self.amd_only) and self.is_amd_only(node.start_byte)
        self.macros.setdefault(name, []).append((node, text, amd))
        p = node.parent if self._has_gfx else None  # .parent walks down from the root
        while p is not None and p.type != "translation_unit":
            if p.type in ("preproc_if", "preproc_elif"):
                cond = p.child_by_field_id(sx.F_CONDITION)
                if cond is not None and b"__GFX" in self.data[cond.start_byte:cond.end_byte]:
                    self.arch_macros.add(name)  # chosen per architecture: already wave-agnostic
                    break
            p = p.parent

    # ---- declarations ----------------------------------------------------------------------

    def _var_from_declarator(self, d: Node, decl: Node, type_node: Node | None, index: int,
                             count: int) -> Var | None:
        value = None
        target = d
        is_array = is_pointer = False
        size = None
        tt = target.type
        if tt == "init_declarator":
            value = target.child_by_field_id(sx.F_VALUE)
            target = target.child_by_field_id(sx.F_DECLARATOR) or target
            tt = target.type
        while tt in _WRAPPING_DECLARATORS:
            if tt == "pointer_declarator":
                is_pointer = True
            elif tt == "array_declarator":
                is_array = True
                if size is None:
                    size = target.child_by_field_id(sx.F_SIZE)
            nxt = target.child_by_field_id(sx.F_DECLARATOR)
            if nxt is None:
                nxt = next((c for c in target.named_children), None)
                if nxt is None:
                    break
            target = nxt
            tt = target.type
        if tt not in ("identifier", "field_identifier"):
            return None
        data = self.data
        tstart = target.start_byte
        shared = data.find(b"__shared__", decl.start_byte, tstart) >= 0 and any(
            data[c.start_byte:c.end_byte] == b"__shared__" for c in decl.children if c.type == "type_qualifier")
        bits = None if (is_pointer or type_node is None) else type_bits(
            data[type_node.start_byte:type_node.end_byte].decode("utf-8", "surrogateescape"))
        return Var(data[tstart:target.end_byte].decode("utf-8", "surrogateescape"), decl, type_node, d,
                   bits, value, False, is_array, shared, is_pointer, size, index, count)

    def declared_vars(self, decl: Node) -> list[Var]:
        cached = self._decl_cache.get(decl.id)
        if cached is not None:
            return cached
        out = self._declared_vars(decl)
        self._decl_cache[decl.id] = out
        return out

    def _declared_vars(self, decl: Node) -> list[Var]:
        type_node = decl.child_by_field_id(sx.F_TYPE)
        ds = decl.children_by_field_id(sx.F_DECLARATOR)
        out = []
        for i, d in enumerate(ds):
            v = self._var_from_declarator(d, decl, type_node, i, len(ds))
            if v is not None:
                out.append(v)
        return out

    # ---- constants -------------------------------------------------------------------------

    def _find_consts(self) -> None:
        self._arch_aliases()
        for name, defs in self.macros.items():
            if name in self.arch_macros:
                continue
            for node, text, amd in defs:
                v = self.eval_text(text)
                if v is None or v[0] not in (32, 64) or not is_warp_name(name):
                    continue
                value = node.child_by_field_id(sx.F_VALUE)
                if value is None:
                    continue
                raw = self.data[value.start_byte:value.end_byte]
                m = re.search(rb"\b(32|64)\b", raw)
                span = (value.start_byte + m.start(), value.start_byte + m.end()) if m else (
                    value.start_byte, value.end_byte)
                self.consts.setdefault(name, []).append(WarpConst(
                    name=name, value=v[0], kind="macro", node=node, value_node=None, value_span=span,
                    amd_only=amd))
        for item in self.top_items:
            self._consts_in_decl(item, None)
            if item.type == "declaration" and not (self.inactive and self.is_inactive(item.start_byte)):
                for var in self.declared_vars(item):  # (a declaration AMD never compiles does not count)
                    self.gvars[var.name] = var
        for fn in self.funcs:
            for name, tp in fn.tparams.items():
                if tp.type == "number_literal" and is_warp_name(name):
                    lit = sx.int_literal(self.src.text(tp))
                    if lit and lit[0] in (32, 64) and tp.parent is not None:
                        self.consts.setdefault(name, []).append(WarpConst(
                            name=name, value=lit[0], kind="template", node=tp.parent, value_node=tp,
                            value_span=(tp.start_byte, tp.end_byte), func=fn))

    def _arch_aliases(self) -> None:
        """A macro defined as a per-architecture wave size (`#define WARP_SIZE HIPPORT_WAVE_SIZE`,
        which hipport writes) is one too, however the chain evaluates on one architecture."""
        if not self.arch_macros:
            return
        for _ in range(8):
            more = {name for name, defs in self.macros.items() if name not in self.arch_macros
                    and _WORD_STR.fullmatch(defs[0][1]) and defs[0][1] in self.arch_macros}
            if not more:
                return
            self.arch_macros |= more

    def _consts_in_decl(self, item: Node, fn: Func | None) -> None:
        if item.type == "enum_specifier":
            body = item.child_by_field_id(sx.F_BODY)
            for e in (body.named_children if body is not None else []):
                if e.type != "enumerator":
                    continue
                n, v = e.child_by_field_id(sx.F_NAME), e.child_by_field_id(sx.F_VALUE)
                if n is None or v is None or v.type != "number_literal":
                    continue
                lit = sx.int_literal(self.src.text(v))
                name = self.src.text(n)
                if lit and lit[0] in (32, 64) and is_warp_name(name):
                    self.consts.setdefault(name, []).append(WarpConst(
                        name=name, value=lit[0], kind="enumerator", node=e, value_node=v,
                        value_span=(v.start_byte, v.end_byte), func=fn,
                        amd_only=bool(self.amd_only) and self.is_amd_only(e.start_byte)))
            return
        if item.type not in ("declaration", "field_declaration"):
            return
        if self.inactive and self.is_inactive(item.start_byte):
            return
        head = self.data[item.start_byte:(item.child_by_field_id(sx.F_TYPE) or item).start_byte]
        if b"const" not in head and b"constexpr" not in head:
            return
        for var in self.declared_vars(item):
            if var.value is None or var.value.type != "number_literal" or var.is_array or var.is_pointer:
                continue
            lit = sx.int_literal(self.src.text(var.value))
            if lit and lit[0] in (32, 64) and is_warp_name(var.name):
                self.consts.setdefault(var.name, []).append(WarpConst(
                    name=var.name, value=lit[0], kind="variable", node=var.declarator, value_node=var.value,
                    value_span=(var.value.start_byte, var.value.end_byte), func=fn,
                    amd_only=bool(self.amd_only) and self.is_amd_only(item.start_byte)))

    def external_const(self, name: str, fn: Func | None) -> bool:
        """A warp-size name this file uses but does not define (a macro from a header): 32 on CUDA."""
        if not _external_name(name):
            return False
        if name in self.macros or name in self.gvars or name in self.consts or name.startswith("__") \
                or name == "warpSize" or platform.platforms().kind(name) is not None:
            return False  # (HIPPORT_WAVE_SIZE and the like are per-architecture wave sizes)
        if fn is not None and (name in fn.vars or name in fn.tparams):
            return False
        h = self.header_const(name)
        if h is not None:  # defined in an included header: 32 there, and not chosen for AMD
            return h[0] == 32 and not h[1]
        return True

    def header_const(self, name: str) -> tuple[int, bool] | None:
        """(value on AMD, chosen for AMD) of a warp-size constant defined in a header this file
        includes (found next to the file or below one of its parent folders, as a tree's own
        include root gives it), following includes three levels deep; None when none defines it."""
        self._load_headers()
        return self._headers.get(name) if self._headers is not None else None

    def tree_defines(self, name: str) -> bool:
        """True when this file (outside branches AMD never compiles) or a header it includes
        #defines `name`: the tree maps that CUDA builtin itself."""
        if self._defined_here is None:  # once per file: a scan per call was quadratic
            self._defined_here = frozenset(
                m.group(1).decode("utf-8", "replace") for m in _DEFINE.finditer(self.data)
                if not (self.inactive and self.is_inactive(m.start())))
        if name in self._defined_here:
            return True
        self._load_headers()
        return name in self._header_names

    def _load_headers(self) -> None:
        if self._headers is not None:
            return
        self._headers = {}
        names: set[str] = set()
        specs = [m.group(1).decode(errors="replace") for m in _INCLUDE.finditer(self.data)
                 if not (self.inactive and self.is_inactive(m.start()))]
        for path in _resolve_includes(self.src.path, specs):
            consts, defined = _header_consts(path, self.config, 0)
            for k, v in consts.items():
                self._headers.setdefault(k, v)
            names |= defined
        self._header_names = frozenset(names)

    def const_value(self, name: str) -> int | None:
        """The value a warp-size constant takes on AMD (an AMD-only definition wins)."""
        defs = self.consts.get(name)
        if not defs:
            return None
        for d in defs:
            if d.amd_only:
                return d.value
        return defs[0].value

    def eval_text(self, text: str, depth: int = 0) -> tuple[int, int] | None:
        """Evaluate a macro body made of integer literals, other macros and + - * / << >> & | ~."""
        if depth > 8 or not text:
            return None
        key = (text, depth)
        if key in self._eval_cache:
            return self._eval_cache[key]
        value = self._eval_text(text, depth)
        self._eval_cache[key] = value
        return value

    def _eval_text(self, text: str, depth: int) -> tuple[int, int] | None:
        toks = _EVAL_TOKENS.findall(text)
        if not toks or "".join(toks) != _SPACES.sub("", text):
            return None
        out = []
        bits = 32
        for t in toks:
            if t[0].isdigit():
                lit = sx.int_literal(t)
                if lit is None:
                    return None
                out.append(str(lit[0]))
                bits = max(bits, lit[1])
            elif t[0].isalpha() or t[0] == "_":
                defs = self.macros.get(t)
                if not defs:
                    return None
                v = self.eval_text(defs[0][1], depth + 1)
                if v is None:
                    return None
                out.append(str(v[0]))
                bits = max(bits, v[1])
            else:
                out.append("//" if t == "/" else t)
        value = _eval_digits(" ".join(out))
        if value is None:
            return None
        if value < 0 or "~" in toks:
            value &= (1 << bits) - 1
        return value, bits

    def cval(self, node: Node | None, fn: Func | None = None) -> tuple[int, int, bool] | None:
        """(value, bits, named) of an integer constant expression; named: uses a warp constant."""
        if node is None:
            return None
        t = node.type
        if t == "number_literal":
            lit = sx.int_literal(self.src.text(node))
            return (lit[0], lit[1], False) if lit else None
        if t == "parenthesized_expression":
            return self.cval(node.named_child(0), fn) if node.named_child_count else None
        if t == "identifier":
            name = self.src.text(node)
            cv = self.const_value(name)
            if cv is not None:
                return cv, 32, True
            if fn is not None and name in fn.tparams and fn.tparams[name].type == "number_literal":
                lit = sx.int_literal(self.src.text(fn.tparams[name]))
                return (lit[0], lit[1], False) if lit else None
            defs = self.macros.get(name)
            if defs:
                v = self.eval_text(defs[0][1])
                return (v[0], v[1], False) if v else None
            if self.external_const(name, fn):
                return 32, 32, True
            if _full_mask_name(name) and name not in self.gvars and (fn is None or name not in fn.vars):
                return 0xFFFFFFFF, 32, False
            g = self.gvars.get(name)
            if g is not None and g.value is not None and (fn is None or name not in fn.vars):
                head = self.data[g.decl.start_byte:g.decl.end_byte]
                if b"const" in head and g.value.type not in ("argument_list", "initializer_list"):
                    self._cdepth += 1
                    try:
                        return self.cval(g.value, None) if self._cdepth < 8 else None
                    finally:
                        self._cdepth -= 1
            if fn is not None:
                var = fn.vars.get(name)
                if var is not None and var.value is not None and var.value.type == "number_literal":
                    head = self.data[var.decl.start_byte:var.decl.end_byte]
                    if b"const" in head:
                        lit = sx.int_literal(self.src.text(var.value))
                        return (lit[0], lit[1], False) if lit else None
            return None
        if t == "unary_expression":
            op = node.child_by_field_id(sx.F_OPERATOR)
            a = self.cval(node.child_by_field_id(sx.F_ARGUMENT), fn)
            if a is None or op is None:
                return None
            mask = (1 << a[1]) - 1
            if op.type == "~":
                return (~a[0]) & mask, a[1], a[2]
            if op.type == "-":
                return (-a[0]) & mask, a[1], a[2]
            return a
        if t == "cast_expression":
            val = self.cval(node.child_by_field_id(sx.F_VALUE), fn)
            tn = node.child_by_field_id(sx.F_TYPE)
            bits = type_bits(self.src.text(tn)) if val is not None and tn is not None else None
            if val is None or bits is None:
                return val
            return val[0] & ((1 << bits) - 1), bits, val[2]  # `(unsigned long long)(1)` is 64-bit
        if t == "binary_expression":
            o, left, right = self.binop(node)
            a = self.cval(left, fn)
            if a is None:
                return None
            b = self.cval(right, fn)
            if b is None or not o:
                return None
            try:
                v = _CONST_OPS[o](a[0], b[0])
            except (KeyError, ZeroDivisionError):
                return None
            return v, max(a[1], b[1]), a[2] or b[2]
        return None

    # ---- function bodies -------------------------------------------------------------------

    def _scan_func(self, fn: Func) -> None:
        body = fn.body
        if body is None:
            return
        if not fn.quick:
            return
        nodes: dict[str, list[Node]] = tree_sitter.QueryCursor(_collect_query()).captures(body)
        for lst in nodes.values():
            lst.sort(key=_START)
        self._parse_params(fn)
        decl = fn.node.child_by_field_id(sx.F_DECLARATOR)
        if decl is not None and b"<" in self.data[decl.start_byte:decl.end_byte]:
            stack = [decl]
            while stack:
                n = stack.pop()
                if n.type in ("template_type", "template_function"):
                    nodes.setdefault(n.type, []).append(n)
                stack.extend(n.children)
        if self.inactive:
            for k, lst in nodes.items():
                nodes[k] = [n for n in lst if not self.is_inactive(n.start_byte)]
        fn.nodes = nodes
        for d in nodes.get("declaration", []):
            for v in self.declared_vars(d):
                fn.vars[v.name] = v
        self._misparsed_declarations(fn)
        for e in nodes.get("enumerator", []):
            parent = e.parent.parent if e.parent is not None else None
            if parent is not None and parent.type == "enum_specifier":
                self._consts_in_decl(parent, fn)
        find = self.data.find
        for d in nodes.get("declaration", []):
            start, end = d.start_byte, d.end_byte
            if (find(b"32", start, end) >= 0 or find(b"64", start, end) >= 0) and find(b"const", start, end) >= 0:
                self._consts_in_decl(d, fn)

    def _misparsed_declarations(self, fn: Func) -> None:
        """tree-sitter-cuda sometimes reads `ns::tile_t<32> t = f();` as `(ns::tile_t < 32) > (t = f())`.
        Register such a `t` as a variable and the `tile_t < 32` part as a template use."""
        binop = self.binop
        data = self.data
        for b in fn.nodes.get("binary_expression", []):
            raw = data[b.start_byte:b.end_byte]
            if b"<" not in raw or b"=" not in raw:  # cheaper than the three field lookups of binop
                continue
            op, left, right = binop(b)
            if op != ">" or left is None or right is None:
                continue
            if left.type != "binary_expression" or right.type != "assignment_expression":
                continue
            lop = left.child_by_field_id(sx.F_OPERATOR)
            tname = left.child_by_field_id(sx.F_LEFT)
            target = right.child_by_field_id(sx.F_LEFT)
            if lop is None or lop.type != "<" or tname is None or target is None or target.type != "identifier":
                continue
            if tname.type not in ("identifier", "qualified_identifier") or b.parent is None or \
                    b.parent.type != "expression_statement":
                continue
            fn.nodes.setdefault("pseudo_template", []).append(left)
            name = self.src.text(target)
            fn.vars.setdefault(name, Var(name=name, decl=b.parent, type_node=left, declarator=right, bits=None,
                                         value=right.child_by_field_id(sx.F_RIGHT)))

    def _parse_params(self, fn: Func) -> None:
        pl = fn.param_list
        if pl is None:
            return
        params = [p for p in pl.named_children if p.type in ("parameter_declaration", "optional_parameter_declaration")]
        for i, p in enumerate(params):
            d = p.child_by_field_id(sx.F_DECLARATOR)
            if d is None:
                continue
            v = self._var_from_declarator(d, p, p.child_by_field_id(sx.F_TYPE), i, len(params))
            if v is not None:
                v.is_param = True
                fn.params.append(v)
                fn.vars[v.name] = v

    def _qualify(self) -> None:
        """Which functions need the full analysis: a cheap byte search, then callers of those."""
        extra = sorted(set(self.consts) | set(self.wrappers) | self.aliases | self.wave_macros)
        extra_rx = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in extra) + rb")\b") if extra else None
        pending = []
        for fn in self.funcs:
            body = fn.body
            if body is None:
                continue
            raw = self.data[fn.node.start_byte:body.end_byte]
            quick = FUNC_QUICK if fn.device else HOST_QUICK
            if quick.search(raw) or (extra_rx is not None and extra_rx.search(raw)) or (
                    fn.device and _WARP_FN.search(fn.name)):
                fn.quick = True
            elif fn.device:
                pending.append((fn, raw))
        for _ in range(3):  # device functions that call a qualifying local function
            names = {f.name for f in self.funcs if f.quick and f.device and f.name}
            if not names or not pending:
                break
            rx = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\s*[<(]")
            still = []
            for fn, raw in pending:
                if rx.search(raw):
                    fn.quick = True
                else:
                    still.append((fn, raw))
            if len(still) == len(pending):
                break
            pending = still

    def _uses_const_names(self, raw: bytes) -> bool:
        if not self.consts:
            return False
        return any(name.encode() in raw for name in self.consts)

    def func_at(self, pos: int) -> Func | None:
        i = bisect.bisect_right(self._range_starts, pos) - 1
        while i >= 0:
            s, e, f = self._ranges[i]
            if s <= pos < e:
                return f
            if i > 0 and self._ranges[i - 1][1] > pos:
                i -= 1
                continue
            return None
        return None

    def _find_identifier_uses(self) -> None:
        self.aliases = {n for n, defs in self.macros.items() if defs[0][1] == "warpSize"}
        self.wave_macros = {n for n, defs in self.macros.items()
                            if defs[0][1] in ("__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__")
                            or n in self.arch_macros}
        names = ["warpSize", "__AMDGCN_WAVEFRONT_SIZE__", "__AMDGCN_WAVEFRONT_SIZE"]
        names += [n for n in self.consts] + sorted(self.aliases | self.wave_macros)
        hits = _word_hits(self.data, names)
        if hits is None:
            pattern = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in names) + rb")\b")
            hits = [(m.start(), m.end(), m.group(1).decode()) for m in pattern.finditer(self.data)]
        self.ident_uses = []
        root = self.src.root
        for start, end, name in hits:
            node = root.descendant_for_byte_range(start, end)
            if node is None or node.type not in ("identifier", "type_identifier", "field_identifier"):
                # inside raw preprocessor text (#define X warpSize) we still record it
                if node is None or node.type != "preproc_arg":
                    continue
            if self.inactive and self.is_inactive(start):
                continue
            fn = self.func_at(start)
            if node.type == "preproc_arg":
                self.ident_uses.append((name, node, None, start, end))
                continue
            self.ident_uses.append((name, node, fn, start, end))
            if fn is not None:
                fn.idents.append((name, node))
                for c in self.consts.get(name, []):
                    if c.func is None or c.func is fn:
                        c.users.append(fn)

    # ---- kinds -----------------------------------------------------------------------------

    def call_name(self, call: Node) -> str:
        """`sx.call_name` of a call in this file, looked up once."""
        key = call.id
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = sx.call_name(call, self.data)
        return name

    def binop(self, node: Node) -> tuple[str, Node | None, Node | None]:
        """(operator, left, right) of a binary expression, looked up once."""
        key = node.id
        got = self._bin.get(key)
        if got is None:
            op = node.child_by_field_id(sx.F_OPERATOR)
            got = (op.type if op is not None else "", node.child_by_field_id(sx.F_LEFT),
                   node.child_by_field_id(sx.F_RIGHT))
            self._bin[key] = got
        return got

    def kinds(self, node: Node | None, fn: Func) -> int:
        if node is None:
            return 0
        key = node.id
        k = self._memo.get(key)
        if k is None:
            k = self._kinds(node, fn)
            self._memo[key] = k
        return k

    def _kinds(self, node: Node, fn: Func) -> int:
        t = node.type
        if t not in _KIND_TYPES:
            return 0
        if t == "identifier":
            name = self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")
            k = fn.env.get(name, 0) | self.genv.get(name, 0) if (fn.env or self.genv) else 0
            if (fn, name) in self._plain:
                return k
            if name == "warpSize" or name in self.aliases or name in self.wave_macros or \
                    name.startswith("__AMDGCN_WAVEFRONT_SIZE"):
                k |= WSRT
            elif name in self.consts:
                k |= WS64 if self.const_value(name) == 64 else WS32
            elif name in fn.tparams and is_warp_name(name):
                v = fn.tparams[name]
                if v.type == "number_literal":
                    k |= WS64 if self.src.text(v) == "64" else WS32
            elif self.external_const(name, fn):
                k |= WS32
            elif not k:
                self._plain.add((fn, name))  # never anything special: skip the checks next time
            return k
        if t == "field_expression":
            arg = node.child_by_field_id(sx.F_ARGUMENT)
            if arg is not None and arg.type == "identifier":
                a = self.data[arg.start_byte:arg.end_byte]
                if a == b"threadIdx":
                    return TID
                if a == b"blockDim":
                    return BDIM
                if a == b"blockIdx":
                    return BID
            return 0
        if t in ("parenthesized_expression", "cast_expression", "comma_expression"):
            inner = node.child_by_field_id(sx.F_VALUE) if t == "cast_expression" else (
                node.child_by_field_id(sx.F_RIGHT) if t == "comma_expression" else
                (node.named_child(0) if node.named_child_count else None))
            return self.kinds(inner, fn)
        if t == "binary_expression":
            return self._binary_kinds(node, fn)
        if t == "call_expression":
            return self._call_kinds(node, fn)
        if t == "conditional_expression":
            return (self.kinds(node.child_by_field_id(sx.F_CONSEQUENCE), fn)
                    | self.kinds(node.child_by_field_id(sx.F_ALTERNATIVE), fn))
        if t == "subscript_expression":
            arg = node.child_by_field_id(sx.F_ARGUMENT)
            if arg is not None and arg.type == "identifier":
                name = self.src.text(arg)
                var = fn.vars.get(name) or self.gvars.get(name)
                if var is not None and (var.is_array or var.is_pointer):
                    return (fn.env.get(name, 0) | self.genv.get(name, 0)) & (MASK | LANES)
            return 0
        if t == "unary_expression":
            op = node.child_by_field_id(sx.F_OPERATOR)
            ka = self.kinds(node.child_by_field_id(sx.F_ARGUMENT), fn)
            if op is not None and op.type in ("~", "+"):
                return ka & (MASK | SHIFTMASK | TID | LANES)
            return 0
        if t == "assignment_expression":
            return self.kinds(node.child_by_field_id(sx.F_RIGHT), fn)
        return 0

    def _binary_kinds(self, node: Node, fn: Func) -> int:
        op, left, right = self.binop(node)
        if not op:
            return 0
        lk = self.kinds(left, fn)
        rk = self.kinds(right, fn)
        if op in ("&", "%", ">>", "/", "<<"):
            site = self.classify_binary(node, fn, lk, rk)
            if site is not None:
                return {"lane32": LANE32, "lanert": LANEHW, "warp32": WARP32, "warprt": WARPHW,
                        "nwarp32": NWARP32, "nwarprt": NWARPHW}.get(site, 0)
        if op in ("&", "|", "^"):
            k = (lk | rk) & (MASK | SHIFTMASK)
            return k
        if op == "<<":
            if (rk & (LANES | LANEREL)) and not (lk & (MASK | TID)) and self.cval(left, fn) is not None:
                return SHIFTMASK
            return lk & (MASK | SHIFTMASK)
        if op == ">>":
            if (rk & (LANES | LANEREL)) and self.cval(left, fn) is not None:
                return SHIFTMASK
            return lk & (MASK | SHIFTMASK)
        if op in ("+", "-"):
            k = (lk | rk) & (TID | BDIM)
            if (lk | rk) & LANES:
                k |= ((lk | rk) & LANES) | LANEREL
            if op == "-" and lk & (MASK | SHIFTMASK):
                k |= lk & (MASK | SHIFTMASK)
            if op == "-" and self.cval(left, fn) is not None and rk & LANES:
                k |= LANEREL
            return k
        if op == "*":
            return (lk | rk) & (TID | BDIM) if (lk | rk) & TID else 0
        return 0

    def lane_idiom(self, node: Node | None) -> int | None:
        """31 for `__lane_id() & 31` (the lane of a 32-lane logical warp), 32 for
        `__lane_id() & 32` (the first lane of the caller's 32-lane half of a wave64): the
        logical-32 forms hipport writes, which say the code runs as 32-lane warps."""
        if node is None:
            return None
        node = sx.unparen(node)
        if node.type != "binary_expression":
            return None
        op, left, right = self.binop(node)
        if op != "&" or left is None or right is None:
            return None
        left = sx.unparen(left)
        if left.type != "call_expression" or self.call_name(left) != "__lane_id" or sx.call_args(left):
            return None
        right = sx.unparen(right)
        if right.type != "number_literal":
            return None
        lit = sx.int_literal(self.src.text(right))
        return lit[0] if lit is not None and lit[0] in (31, 32) else None

    def in_half(self, node: Node) -> bool:
        """Is `node` (or a mask it is ANDed into) shifted by `>> (__lane_id() & 32)`: the
        caller's 32-lane half that hipport writes under logical32?"""
        child, p = node, node.parent
        while p is not None:
            if p.type == "parenthesized_expression":
                child, p = p, p.parent
                continue
            if p.type != "binary_expression":
                return False
            op, left, right = self.binop(p)
            if op == ">>":
                return left is not None and left.id == child.id and self.lane_idiom(right) == 32
            if op != "&":
                return False
            child, p = p, p.parent
        return False

    def is_half_mask(self, node: Node | None) -> bool:
        """`(M << (__lane_id() & 32))`: a 32-lane mask placed on the caller's half of the wave,
        the 64-bit *_sync mask hipport writes under logical32 (`0xffffffffull << ...`)."""
        if node is None:
            return False
        node = sx.unparen(node)
        if node.type != "binary_expression":
            return False
        op, _left, right = self.binop(node)
        return op == "<<" and self.lane_idiom(right) == 32

    def in_lane_idiom(self, call: Node) -> bool:
        """Is this `__lane_id()` call the left side of a `lane_idiom`?"""
        p = sx.parent_skipping_parens(call)
        return p is not None and self.lane_idiom(p) is not None

    def classify_binary(self, node: Node, fn: Func, lk: int | None = None,
                        rk: int | None = None) -> str | None:
        """lane32 / lanert / warp32 / warprt / nwarp32 / nwarprt for lane and warp arithmetic."""
        op, left, right = self.binop(node)
        if left is None or right is None:
            return None
        if lk is None:
            lk = self.kinds(left, fn)
        if rk is None:
            rk = self.kinds(right, fn)
        if op == "&":
            for _a, ak, b, _bk in ((left, lk, right, rk), (right, rk, left, lk)):
                if not ak & TID:
                    continue
                c = self.cval(b, fn)
                if c is not None and c[0] == 31:
                    return "lane32"
                if c is None and self._is_rt_minus_one(b, fn):
                    return "lanert"
            return None
        if op == "%":
            if not lk & TID:
                return None
            c = self.cval(right, fn)
            if c is not None and c[0] == 32:
                return "lane32"
            if c is None and (rk & WSRT or (rk & WS64 and c is None)):
                return "lanert"
            return None
        if op in (">>", "/"):
            c = self.cval(right, fn)
            want = 5 if op == ">>" else 32
            base = sx.unparen(left)
            ceil = False
            if base.type == "binary_expression":
                bop, _bl, br = self.binop(base)
                if bop == "+":
                    cc = self.cval(br, fn)
                    if cc is not None and cc[0] == 31:
                        ceil = True
            if c is not None and c[0] == want:
                if lk & TID and not ceil:
                    return "warp32"
                if lk & BDIM or (ceil and lk & TID):
                    return "nwarp32"
                return None
            if op == "/" and c is None and rk & WSRT:
                if lk & TID:
                    return "warprt"
                if lk & BDIM:
                    return "nwarprt"
        return None

    def _is_rt_minus_one(self, node: Node, fn: Func) -> bool:
        node = sx.unparen(node)
        if node.type != "binary_expression":
            return False
        op, left, right_node = self.binop(node)
        right = self.cval(right_node, fn)
        return (op == "-" and right is not None and right[0] == 1
                and bool(self.kinds(left, fn) & WSRT))

    def _call_kinds(self, node: Node, fn: Func) -> int:
        name = self.call_name(node)
        if name in MASK_SOURCES or name in ("hipport_match_any",):
            return MASK
        if name == "__lane_id":
            return LANEHW
        if name in ("ballot", "match_any", "match_all"):
            obj = sx.field_object(node)
            if obj is not None:
                return MASK
        if name == "thread_rank":
            obj = sx.field_object(node)
            if obj is not None and obj.type == "identifier" and self._is_tile_var(self.src.text(obj), fn):
                return LANEN
            return TID
        if name in ("min", "max", "umin", "umax"):
            args = sx.call_args(node)
            return self.kinds(args[0], fn) & (TID | LANES) if args else 0
        callees = self.by_name.get(name)
        if callees:
            k = 0
            for c in callees:
                k |= c.ret
            return k
        if _lane_fn(name):
            return LANEN
        return 0

    def _is_tile_var(self, name: str, fn: Func) -> bool:
        var = fn.vars.get(name)
        if var is None:
            return False
        if var.value is not None and b"tiled_partition" in self.data[var.value.start_byte:var.value.end_byte]:
            return True
        return var.type_node is not None and b"thread_block_tile" in self.data[
            var.type_node.start_byte:var.type_node.end_byte]

    def _propagate(self) -> None:
        """Follow kinds through assignments, parameters, returns and arrays to a fixed point."""
        flows: list[tuple[Func, str, Node, bool]] = []  # (fn, target, value, global)
        calls: list[tuple[Func, Func, list[Node]]] = []  # (caller, callee, arguments)
        returns: list[tuple[Func, list[Node]]] = []
        for fn in self.funcs:
            if not fn.nodes:
                continue
            for v in fn.vars.values():
                if v.value is not None and v.value.type not in ("argument_list", "initializer_list"):
                    flows.append((fn, v.name, v.value, False))
            for a in fn.nodes.get("assignment_expression", []):
                left = a.child_by_field_id(sx.F_LEFT)
                right = a.child_by_field_id(sx.F_RIGHT)
                if left is None or right is None:
                    continue
                lt = left.type
                while lt in ("subscript_expression", "parenthesized_expression", "pointer_expression"):
                    left = left.child_by_field_id(sx.F_ARGUMENT) or (
                        left.named_child(0) if left.named_child_count else left)
                    lt = left.type
                    if lt == "identifier":
                        break
                if lt == "identifier":
                    name = self.src.text(left)
                    glob = name not in fn.vars and name in self.gvars
                    flows.append((fn, name, right, glob))
            for c in fn.nodes.get("call_expression", []):
                name = self.call_name(c)
                targets = self.by_name.get(name)
                if not targets:
                    continue
                fn.callees.add(name)
                args = sx.call_args(c)
                for target in targets:
                    if target.params and args:
                        calls.append((fn, target, args))
            for g in fn.nodes.get("gnu_asm_expression", []):
                text = self.src.text(g)
                k = 0
                if "%laneid" in text:
                    k = LANEN
                elif "lanemask" in text or "activemask" in text or "vote.ballot" in text:
                    k = MASK
                if k:
                    outs = g.child_by_field_id(sx.F_OUTPUT_OPERANDS)
                    for op in (outs.named_children if outs is not None else []):
                        val = op.child_by_field_id(sx.F_VALUE)
                        if val is not None and val.type == "identifier":
                            fn.env[self.src.text(val)] = fn.env.get(self.src.text(val), 0) | k
            rets = [rs.named_child(0) for rs in fn.nodes.get("return_statement", []) if rs.named_child_count]
            if rets:
                returns.append((fn, rets))
        names = sorted(set(self.consts) | self.aliases | self.wave_macros | set(self.wrappers) |
                       {f.name for f in self.funcs if f.quick and f.name})
        seed = _WordSet(names)
        data = self.data
        active = []
        pending: list[tuple[tuple[Func, str, Node, bool], int, int, set[bytes]]] = []
        for f in flows:
            vnode = f[2]
            start, end = vnode.start_byte, vnode.end_byte
            if _SEEDS.search(data, start, end):
                active.append(f)
                continue
            words = _range_words(data, start, end)
            if seed.hits(data, start, end, words):
                active.append(f)
            else:
                pending.append((f, start, end, words))
        for _ in range(8):
            self._memo.clear()
            changed = False
            for fn, name, value, glob in active:
                k = self.kinds(value, fn)
                if not k:
                    continue
                env = self.genv if glob else fn.env
                old = env.get(name, 0)
                if old | k != old:
                    env[name] = old | k
                    changed = True
            for fn, rets in returns:
                r = 0
                for node in rets:
                    r |= self.kinds(node, fn)
                if r | fn.ret != fn.ret:
                    fn.ret |= r
                    changed = True
            for fn, target, args in calls:
                for p, a in zip(target.params, args, strict=False):
                    k = self.kinds(a, fn)
                    if k:
                        old = target.env.get(p.name, 0)
                        if old | k != old:
                            target.env[p.name] = old | k
                            changed = True
            if pending:  # values that mention a variable which now has a kind
                tracked = {n for f in self.funcs for n, k in f.env.items() if k} | {n for n, k in self.genv.items() if k}
                tracked |= {p.name for f in self.funcs if f.env for p in f.params if f.env.get(p.name)}
                if tracked:
                    rx = _WordSet(tracked)
                    more, still = [], []
                    for pend in pending:
                        if rx.hits(data, pend[1], pend[2], pend[3]):
                            more.append(pend[0])
                        else:
                            still.append(pend)
                    if more:
                        active += more
                        pending = still
                        changed = True
            if not changed:
                break
        self._memo.clear()

    # ---- warp calls, sites, loops ----------------------------------------------------------

    def _scan_calls(self, fn: Func) -> None:
        for c in fn.nodes.get("call_expression", []):
            name = self.call_name(c)
            if not name:
                continue
            obj = sx.field_object(c)
            wc: WarpCall | None = None
            if obj is not None:
                if name in TILE_MEMBERS or name in TILE_SHFL:
                    if obj.type == "identifier" and self._is_tile_var(self.src.text(obj), fn):
                        wc = WarpCall(c, fn, name, "tile", base=TILE_SHFL.get(name, name),
                                      args=sx.call_args(c), tile=obj)
                        if name in TILE_SHFL:
                            a = wc.args
                            wc.value = a[0] if a else None
                            wc.lane = a[1] if len(a) > 1 else None
                if wc is not None:
                    fn.calls.append(wc)
                    self.calls.append(wc)
                continue
            if name in self.wrappers and name not in WARP_CALLS:
                wc = self._wrapped_call(c, fn, self.wrappers[name])
                if wc is not None:
                    fn.calls.append(wc)
                    self.calls.append(wc)
                continue
            if name not in WARP_CALLS:
                continue
            args = sx.call_args(c)
            if name in SHFL or name in SHFL_SYNC:
                sync = name in SHFL_SYNC
                off = 1 if sync else 0
                wc = WarpCall(c, fn, name, "shfl", base=(SHFL_SYNC if sync else SHFL)[name], sync=sync,
                              args=args, mask=args[0] if sync and args else None)
                if len(args) > off:
                    wc.value = args[off]
                if len(args) > off + 1:
                    wc.lane = args[off + 1]
                if len(args) > off + 2:
                    wc.width = args[off + 2]
            elif name in BALLOTS:
                sync = name.endswith("_sync")
                wc = WarpCall(c, fn, name, "ballot", base="ballot", sync=sync, args=args,
                              mask=args[0] if sync and args else None)
                wc.value = args[-1] if args else None
            elif name in VOTES:
                sync = name.endswith("_sync")
                wc = WarpCall(c, fn, name, "vote", base=name.strip("_").replace("_sync", ""), sync=sync,
                              args=args, mask=args[0] if sync and args else None)
                wc.value = args[-1] if args else None
            elif name == "__activemask":
                wc = WarpCall(c, fn, name, "activemask", args=args)
            elif name == "__syncwarp":
                wc = WarpCall(c, fn, name, "syncwarp", sync=True, args=args, mask=args[0] if args else None)
            elif name in MATCHES:
                sync = name.endswith("_sync")
                wc = WarpCall(c, fn, name, "match", base="any" if "any" in name else "all", sync=sync,
                              args=args, mask=args[0] if sync and args else None)
                wc.value = args[1 if sync else 0] if len(args) > (1 if sync else 0) else None
            elif name in REDUCES:
                wc = WarpCall(c, fn, name, "reduce", base=name[len("__reduce_"):-len("_sync")], sync=True,
                              args=args, mask=args[0] if args else None)
                wc.value = args[1] if len(args) > 1 else None
            elif name == "__lane_id":
                wc = WarpCall(c, fn, name, "lane_id", args=args)
            elif name in LANEMASKS:
                wc = WarpCall(c, fn, name, "lanemask", args=args)
            if wc is not None:
                fn.calls.append(wc)
                self.calls.append(wc)

    def _wrapped_call(self, c: Node, fn: Func, w: Wrapper) -> WarpCall | None:
        """A call of a wrapper macro, with the macro's parameters mapped to the call's arguments."""
        args = sx.call_args(c)
        if len(args) != len(w.params):
            return None
        by_param = dict(zip(w.params, args, strict=False))
        mapped = [by_param.get(a[2]) for a in w.args]
        if w.callee.startswith("__ballot"):
            return WarpCall(c, fn, w.name, "ballot", base="ballot", args=args, value=mapped[-1], wrapper=w)
        off = 1 if w.callee.endswith("_sync") else 0
        wc = WarpCall(c, fn, w.name, "shfl", base=(SHFL_SYNC if off else SHFL)[w.callee], args=args, wrapper=w)
        if len(mapped) > off:
            wc.value = mapped[off]
        if len(mapped) > off + 1:
            wc.lane = mapped[off + 1]
            if wc.lane is None:
                return None  # a constant inside the macro: nothing to follow
        if len(w.args) > off + 2:
            wc.width = mapped[off + 2]
            if wc.width is None:
                return None  # the macro fixes the width itself
        return wc

    def _mark_collective(self) -> None:
        for fn in self.funcs:
            if not fn.device or not fn.nodes:
                continue
            pl = fn.param_list
            fn.collective = bool(fn.calls) or bool(fn.idents) or bool(fn.nodes.get("gnu_asm_expression")) or any(
                b"tiled_partition" in self.data[n.start_byte:n.end_byte] or
                b"Warp" in self.data[n.start_byte:n.end_byte]
                for n in fn.nodes.get("template_function", []) + fn.nodes.get("template_type", [])) or (
                pl is not None and b"thread_block_tile" in self.data[pl.start_byte:pl.end_byte])  # takes a tile
            if not fn.collective:
                fn.collective = bool(_WARP_FN.search(fn.name)) or any(
                    name not in self.by_name and _WARP_FN.search(name) for name in self._called_names(fn))
        # a function whose callee is collective, or that passes lane values to one, counts too
        for _ in range(4):
            changed = False
            for fn in self.funcs:
                if fn.collective or not fn.device:
                    continue
                if any(c.collective for name in fn.callees for c in self.by_name.get(name, [])):
                    fn.collective = True
                    changed = True
            if not changed:
                break

    def _called_names(self, fn: Func) -> set[str]:
        return {self.call_name(c) for c in fn.nodes.get("call_expression", [])}

    def _scan_sites(self, fn: Func) -> None:
        if not fn.collective:
            return
        for b in fn.nodes.get("binary_expression", []):
            o, left, right = self.binop(b)
            if not o:
                continue
            if o in ("&", "%", ">>", "/"):
                kind = self.classify_binary(b, fn)
            else:
                kind = None
            if kind is None and o == "/" and right is not None and right.type == "number_literal" and \
                    left is not None and _FLOAT_32.fullmatch(self.src.text(right)):
                lk = self.kinds(left, fn)  # a warp count or id by float division: `blockDim.x / 32.f`
                if lk & (TID | BDIM) and not lk & (LANES | WARPS):
                    fn.sites.append(Site("nwarp" if lk & BDIM and not lk & TID else "warp", b, right, "literal",
                                         None, fn))
                    continue
            if kind is not None and left is not None and right is not None:  # (a kind implies both operands)
                const = right
                if o == "&" and self.kinds(right, fn) & TID and not self.kinds(left, fn) & TID:
                    const = left
                rt = kind.endswith("rt")
                if rt:
                    origin = "rt"
                else:
                    cv = self.cval(const, fn)
                    origin = "named" if cv is not None and cv[2] else "literal"
                ceil = None
                base = sx.unparen(left) if left is not None else None
                if base is not None and base.type == "binary_expression":
                    bop, _bl, br = self.binop(base)
                    if bop == "+":
                        cc = self.cval(br, fn)
                        if cc is not None and cc[0] == 31:
                            ceil = br
                k = {"lane32": "lane", "lanert": "lane", "warp32": "warp", "warprt": "warp",
                     "nwarp32": "nwarp", "nwarprt": "nwarp"}[kind]
                fn.sites.append(Site(k, b, const, origin, ceil, fn))
                continue
            if o in ("<", "<=", ">", ">=", "%") and self._lane_vs_count(b, fn):
                continue
            if o in ("<", ">=") and (fn.calls or fn.idents):
                if right is not None and self.kinds(left, fn) & TID and not self.kinds(left, fn) & (LANES | WARPS):
                    cv = self.cval(right, fn)
                    if cv is not None and cv[0] == 32:
                        fn.sites.append(Site("guard", b, right, "named" if cv[2] else "literal", None, fn))
                    elif cv is None and self.kinds(right, fn) & WSRT and sx.unparen(right).type == "identifier":
                        fn.sites.append(Site("guard", b, right, "rt", None, fn))

    def _lane_vs_count(self, b: Node, fn: Func) -> bool:
        """`lane < BLOCK / 32`: a lane compared with a warp count computed from a constant."""
        o, left, right = self.binop(b)
        pairs = ((left, right),) if o == "%" else ((left, right), (right, left))
        for lane, count in pairs:
            if lane is None or count is None or not self.kinds(lane, fn) & LANES:
                continue
            c = sx.unparen(count)
            if c.type != "binary_expression":
                continue
            cop, cleft, cright = self.binop(c)
            cv = self.cval(cright, fn)
            if cright is None or not cop or cv is None or cv[2] or (cop, cv[0]) not in (("/", 32), (">>", 5)):
                continue
            if self.cval(cleft, fn) is None:
                continue
            if any(s.node.id == c.id for s in fn.sites):
                continue
            fn.sites.append(Site("nwarp", c, cright, "literal", None, fn))
            return True
        return False

    def _scan_strides(self, fn: Func) -> None:
        """`for (c = lane; c < n; c += 32)`: a loop striding over lanes by the warp size."""
        for fs in fn.nodes.get("for_statement", []):
            init = fs.child_by_field_id(sx.F_INITIALIZER)
            update = fs.child_by_field_id(sx.F_UPDATE)
            if init is None or update is None or update.type != "assignment_expression":
                continue
            op = update.child_by_field_id(sx.F_OPERATOR)
            left = update.child_by_field_id(sx.F_LEFT)
            step = update.child_by_field_id(sx.F_RIGHT)
            if op is None or op.type != "+=" or left is None or step is None or left.type != "identifier":
                continue
            value = None
            if init.type == "declaration":
                vs = self.declared_vars(init)
                if len(vs) == 1 and vs[0].name == self.src.text(left):
                    value = vs[0].value
            elif init.type == "assignment_expression":
                value = init.child_by_field_id(sx.F_RIGHT)
            if value is None or not self.kinds(value, fn) & (TID | LANES):
                continue
            cv = self.cval(step, fn)
            if cv is not None and cv[0] == 32:
                fn.sites.append(Site("stride", update, step, "named" if cv[2] else "literal", None, fn))
            elif cv is None and self.kinds(step, fn) & WSRT and sx.unparen(step).type == "identifier":
                fn.sites.append(Site("stride", update, step, "rt", None, fn))

    def _scan_loops(self, fn: Func) -> None:
        loops: list[Loop] = []
        for fs in fn.nodes.get("for_statement", []):
            lp = self._loop(fs, fn)
            if lp is not None:
                loops.append(lp)
        by_id = {lp.node.id: lp for lp in loops}
        # a loop whose start derives from an enclosing warp loop's variable (bitonic j = k >> 1)
        for lp in loops:
            if lp.warp or lp.start is None:
                continue
            outer = sx.enclosing(lp.node, ("for_statement",), fn.body)
            while outer is not None:
                o = by_id.get(outer.id)
                if o is not None and o.warp and re.search(rb"\b" + o.var.encode() + rb"\b",
                                                          self.data[lp.start.start_byte:lp.start.end_byte]):
                    lp.warp = "derived"
                    lp.outer = o.outer or o
                    break
                outer = sx.enclosing(outer, ("for_statement",), fn.body)
        for wc in fn.calls:
            if wc.family not in ("shfl", "tile") or wc.lane is None:
                continue
            lane = sx.unparen(wc.lane)
            if lane.type == "binary_expression":  # `1 << l` of a butterfly over the exponent
                op, bl, br = self.binop(lane)
                if op != "<<" or bl is None or br is None or self.src.text(bl).rstrip("uU") != "1" \
                        or br.type != "identifier":
                    continue
                lane = br
            elif lane.type != "identifier":
                continue
            name = self.src.text(lane)
            outer = sx.enclosing(wc.node, ("for_statement",), fn.body)
            while outer is not None:
                lp = by_id.get(outer.id)
                if lp is not None and lp.var == name:
                    lp.shuffles.append(wc)
                    break
                outer = sx.enclosing(outer, ("for_statement",), fn.body)
        for lp in loops:  # shuffles pinned below 32 lanes (16-lane groups) do not make a warp loop
            lp.shuffles = [wc for wc in lp.shuffles if wc.width is None or self._width_at_least_32(wc)]
        fn.loops = [lp for lp in loops if lp.shuffles]

    def _width_at_least_32(self, wc: WarpCall) -> bool:
        cv = self.cval(wc.width, wc.fn)
        return cv is None or cv[0] >= 32

    def _loop(self, fs: Node, fn: Func) -> Loop | None:
        init = fs.child_by_field_id(sx.F_INITIALIZER)
        cond = fs.child_by_field_id(sx.F_CONDITION)
        update = fs.child_by_field_id(sx.F_UPDATE)
        var = None
        start = None
        if init is not None:
            if init.type == "declaration":
                vs = self.declared_vars(init)
                if len(vs) == 1:
                    var, start = vs[0].name, vs[0].value
            elif init.type == "assignment_expression":
                left = init.child_by_field_id(sx.F_LEFT)
                if left is not None and left.type == "identifier":
                    var, start = self.src.text(left), init.child_by_field_id(sx.F_RIGHT)
        if var is None or start is None or update is None:
            return None
        utext = _SPACES.sub("", self.src.text(update))
        down = utext in (f"{var}>>=1", f"{var}/=2", f"{var}={var}/2", f"{var}={var}>>1")
        up = utext in (f"{var}<<=1", f"{var}*=2", f"{var}={var}*2", f"{var}={var}<<1")
        if not (down or up):
            if utext in (f"{var}++", f"++{var}", f"{var}+=1", f"{var}={var}+1") and cond is not None \
                    and cond.type == "binary_expression":
                # a butterfly over the exponent: offsets `1 << l` for l = 0..4 cover 32 lanes
                sv = self.cval(start, fn)
                op = cond.child_by_field_id(sx.F_OPERATOR)
                left, right = cond.child_by_field_id(sx.F_LEFT), cond.child_by_field_id(sx.F_RIGHT)
                bv = self.cval(right, fn) if right is not None else None
                if sv is not None and sv[0] == 0 and left is not None and self.src.text(left) == var and \
                        op is not None and bv is not None and not bv[2] and \
                        ((op.type == "<=" and bv[0] == 4) or (op.type == "<" and bv[0] == 5)):
                    return Loop(fs, var, start, cond, False, "32", exp=True)
            return None
        bound = None
        if cond is not None and cond.type == "binary_expression":
            left = cond.child_by_field_id(sx.F_LEFT)
            if left is not None and left.type == "identifier" and self.src.text(left) == var:
                bound = cond.child_by_field_id(sx.F_RIGHT)
        warp = ""
        probe = start if down else bound
        if probe is not None:
            cv = self.cval(probe, fn)
            if cv is not None and cv[0] == (16 if down else 32):
                warp = "32"
            elif cv is None and (self.kinds(probe, fn) & WSRT or self._rt_half(probe, fn)):
                warp = "rt"
            elif cv is not None and cv[0] == (32 if down else 64) and cv[2]:
                warp = "64"
        return Loop(fs, var, start, bound, down, warp)

    def _rt_half(self, node: Node, fn: Func) -> bool:
        """`warpSize / 2` or `warpSize >> 1`: the first delta of a wave-wide reduction."""
        node = sx.unparen(node)
        if node.type != "binary_expression":
            return False
        op, left, right = self.binop(node)
        cv = self.cval(right, fn)
        return op in ("/", ">>") and cv is not None and cv[0] == (2 if op == "/" else 1) \
            and bool(self.kinds(left, fn) & WSRT)

    def _scan_evidence(self, fn: Func) -> None:
        """Sort the function's warp-size sites into 32-lane, wave-agnostic and weak 32 evidence."""
        for s in fn.sites:
            if s.origin == "rt":
                fn.agnostic.append(s.node)
            elif s.kind != "guard":
                fn.strong32.append(s.node)
        for lp in fn.loops:
            warp = lp.outer.warp if lp.warp == "derived" and lp.outer is not None else lp.warp
            if warp == "32":
                fn.strong32.append(lp.node)
            elif warp in ("rt", "64"):
                fn.agnostic.append(lp.node)
        if fn.body is not None:  # warp-size macros from another file (#define WARP_SIZE 32 in a header)
            for word in set(_UPPER.findall(self.data, fn.body.start_byte, fn.body.end_byte)):  # each name once
                if self.external_const(word.decode(), fn):
                    fn.strong32.append(fn.body)
                    break
        for name, node in fn.idents:
            if name == "warpSize" or name.startswith("__AMDGCN") or name in self.aliases or name in self.wave_macros:
                fn.agnostic.append(node)
            elif self.const_value(name) == 32:
                fn.strong32.append(node)
            elif self.const_value(name) == 64:
                fn.agnostic.append(node)
        for wc in fn.calls:
            if wc.family == "lane_id":
                (fn.strong32 if self.in_lane_idiom(wc.node) else fn.agnostic).append(wc.node)
            elif wc.family == "shfl" and wc.width is None and wc.lane is not None:
                cv = self.cval(wc.lane, fn)
                if cv is not None and cv[0] in (16, 31) and not cv[2] and not self._in_warp_loop(wc):
                    fn.strong32.append(wc.node)
            elif wc.family in ("ballot", "activemask", "match") and self.sink32(wc.node, fn):
                fn.weak32.append(wc.node)
        for n in fn.nodes.get("template_function", []) + fn.nodes.get("template_type", []) + \
                fn.nodes.get("pseudo_template", []):
            raw = self.data[n.start_byte:n.end_byte]
            if b"tiled_partition" in raw or b"thread_block_tile" in raw:
                if n.type == "pseudo_template" or n.type == "binary_expression":
                    arg = n.child_by_field_id(sx.F_RIGHT)
                else:
                    args = n.child_by_field_id(sx.F_ARGUMENTS)
                    arg = args.named_child(0) if args is not None and args.named_child_count else None
                cv = self.cval(arg, fn)
                if cv is not None and cv[0] == 32:
                    fn.weak32.append(n)
                elif cv is not None and cv[0] == 64:
                    fn.agnostic.append(n)
        for d in fn.nodes.get("declaration", []):
            for v in self.declared_vars(d):
                if v.bits == 32 and (fn.env.get(v.name, 0) & MASK) and not (fn.env.get(v.name, 0) & SHIFTMASK):
                    fn.weak32.append(v.declarator)

    def _in_warp_loop(self, wc: WarpCall) -> bool:
        return any(wc in lp.shuffles for lp in wc.fn.loops)

    def sink32(self, node: Node, fn: Func) -> bool:
        """True when the value of `node` is converted to a 32-bit type right where it is used."""
        p = node.parent
        while p is not None and p.type in ("parenthesized_expression",):
            _child, p = p, p.parent
        if p is None:
            return False
        if p.type == "init_declarator":
            var = fn.vars.get(self.src.text(p.child_by_field_id(sx.F_DECLARATOR) or p))
            return var is not None and var.bits == 32
        if p.type == "cast_expression":
            tn = p.child_by_field_id(sx.F_TYPE)
            return tn is not None and type_bits(self.src.text(tn)) == 32
        if p.type == "assignment_expression":
            left = p.child_by_field_id(sx.F_LEFT)
            if left is not None and left.type == "identifier":
                var = fn.vars.get(self.src.text(left)) or self.gvars.get(self.src.text(left))
                return var is not None and var.bits == 32
        if p.type == "argument_list":
            call = p.parent
            if call is not None and call.type == "call_expression":
                name = self.call_name(call)
                if name in BITOPS32:
                    return True
        return False

    # ---- groups and models -----------------------------------------------------------------

    def _group(self) -> None:
        device = [f for f in self.funcs if f.device and f.nodes]
        parent: dict[int, int] = {id(f): id(f) for f in device}
        objs = {id(f): f for f in device}

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a: Func, b: Func) -> None:
            if id(a) in parent and id(b) in parent:
                ra, rb = find(id(a)), find(id(b))
                if ra != rb:
                    parent[ra] = rb

        for f in device:
            for name in f.callees:
                for g in self.by_name.get(name, []):
                    union(f, g)
        for defs in self.consts.values():
            users = [u for d in defs for u in d.users if id(u) in parent and d.func is None]
            for u in users[1:]:
                union(users[0], u)
        for w in self.wrappers.values():  # one macro body serves every caller: one strategy
            users = [wc.fn for wc in self.calls if wc.wrapper is w and id(wc.fn) in parent]
            for u in users[1:]:
                union(users[0], u)
        groups: dict[int, list[Func]] = {}
        for f in device:
            groups.setdefault(find(id(f)), []).append(f)
        del objs
        for funcs in groups.values():
            grp = Group(funcs)
            strong = any(f.strong32 for f in funcs)
            weak = any(f.weak32 for f in funcs)
            agn = any(f.agnostic for f in funcs)
            if strong and agn:
                grp.model = "mixed"
            elif strong or (weak and not agn):
                grp.model = "warp32"
            else:
                grp.model = "agnostic"
            grp.strategy = self._strategy(grp.model)
            for f in funcs:
                f.group = grp
            self.groups.append(grp)

    def _strategy(self, model: str) -> str:
        if model == "agnostic":
            return "native"
        s = self.config.wave_strategy
        if s in ("logical32", "native"):
            return s
        return "logical32" if model == "warp32" else "native"

    # ---- queries for rules -----------------------------------------------------------------

    def device_funcs(self) -> list[Func]:
        if self._device is None:
            self._device = [f for f in self.funcs if f.device and f.nodes and f.group is not None]
        return self._device

    def model_of_const(self, c: WarpConst) -> tuple[str, str]:
        """(model, strategy) for a file-level constant: that of its users, else from its value."""
        for u in c.users:
            if u.group is not None:
                return u.group.model, u.group.strategy
        if c.func is not None and c.func.group is not None:
            return c.func.group.model, c.func.group.strategy
        model = "warp32" if c.value == 32 else "agnostic"
        return model, self._strategy(model)

    def var(self, fn: Func, name: str) -> Var | None:
        return fn.vars.get(name) or self.gvars.get(name)
