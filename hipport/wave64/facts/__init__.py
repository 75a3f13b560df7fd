"""Facts shared by the wave64 rules, computed once per file.

Each module of this package computes one fact, in the spirit of LibCST's metadata providers;
`Facts` runs them once per file, in dependency order, and keeps what they find:

- `functions`: the functions of the file and where they run (`__global__`, `__device__`, host),
  its macros, wrapper macros, includes and top-level items; `preproc`: the #if branches AMD
  never compiles or compiles alone;
- `consts` (with `headers`): warp-size constants (`#define WARP_SIZE 32`,
  `constexpr int kWarpSize = 32`, enumerators, template parameters defaulted to 32 or 64, and
  those of included headers), constant values, and the uses of warpSize and of such constants;
- `bodies` (with `decls`): the nodes, parameters and variables of each analysed function;
- `values` and `flow`: value *kinds* (`kinds`) followed through assignments, arithmetic,
  function parameters, return values and shared arrays: thread index, lane id (32-lane or
  hardware), warp id, warp count, wave mask, warp-size constant;
- `calls`, `sites`, `loops`: the warp intrinsic calls, the lane/warp arithmetic sites and the
  shuffle loops; `evidence`: what they say about the warp width a function assumes;
- `groups`: one *model* per group of functions that must agree (a kernel, the device functions
  it calls and every function sharing a warp-size constant with them): "warp32", "agnostic" or
  "mixed", and the rewrite strategy chosen for the group (wave64.md §3, the consistency rule).

Rules read these facts through `Facts` (its attributes and query methods); nothing here decides
what is a finding.
"""

from __future__ import annotations

from hipport.config import Config
from hipport.source import Node, SourceFile
from hipport.wave64.facts import (
    bodies,
    calls,
    consts,
    decls,
    evidence,
    exprs,
    flow,
    functions,
    groups,
    headers,
    loops,
    preproc,
    sites,
    values,
)
from hipport.wave64.facts.data import (
    Func,
    Group,
    IdentUse,
    Loop,
    MacroDef,
    Site,
    Var,
    WarpCall,
    WarpConst,
    Wrapper,
)
from hipport.wave64.facts.kinds import (
    BDIM,
    BID,
    LANE32,
    LANEHW,
    LANEN,
    LANEREL,
    LANES,
    MASK,
    NWARP32,
    NWARPHW,
    SHIFTMASK,
    TID,
    WARP32,
    WARPHW,
    WARPS,
    WS32,
    WS64,
    WSRT,
)
from hipport.wave64.facts.names import (
    BALLOTS,
    BITOPS32,
    LANEMASKS,
    MASK_SOURCES,
    MATCHES,
    QUICK_TOKENS,
    REDUCES,
    SHFL,
    SHFL_SYNC,
    TILE_MEMBERS,
    TILE_SHFL,
    TYPES32,
    TYPES64,
    VOTES,
    WARP_CALLS,
    is_warp_name,
    might_hold_hazards,
    type_bits,
)

__all__ = [
    "BALLOTS", "BDIM", "BID", "BITOPS32", "LANE32", "LANEHW", "LANEMASKS", "LANEN", "LANEREL", "LANES", "MASK",
    "MASK_SOURCES", "MATCHES", "NWARP32", "NWARPHW", "QUICK_TOKENS", "REDUCES", "SHFL", "SHFL_SYNC", "SHIFTMASK",
    "TID", "TILE_MEMBERS", "TILE_SHFL", "TYPES32", "TYPES64", "VOTES", "WARP32", "WARPHW", "WARPS", "WARP_CALLS",
    "WS32", "WS64", "WSRT",
    "Facts", "Func", "Group", "IdentUse", "Loop", "MacroDef", "Site", "Var", "WarpCall", "WarpConst", "Wrapper",
    "is_warp_name", "might_hold_hazards", "type_bits",
]


class Facts:
    """The facts of one file. The providers fill the attributes below in order; the methods are
    the providers' queries (bound here so that rules keep calling `facts.kinds(node, fn)`)."""

    def __init__(self, src: SourceFile, config: Config, headers: bool = True) -> None:
        self.src = src
        self.config = config
        self.data = src.data
        self.funcs: list[Func] = []
        self.by_name: dict[str, list[Func]] = {}
        self.consts: dict[str, list[WarpConst]] = {}
        self.macros: dict[str, list[MacroDef]] = {}
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
        self._range_starts: list[int] = []
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
        self.ident_uses: list[IdentUse] = []
        self._headers: dict[str, tuple[int, bool]] | None = None if headers else {}
        self._header_names: frozenset[str] = frozenset()
        self._defined_here: frozenset[str] | None = None  # names this file #defines (tree_defines)
        self.qual_macros: dict[str, set[str]] = {}  # macros that expand to __device__ / __global__
        self.empty = not might_hold_hazards(self.data)
        if self.empty:
            return
        self._has_gfx = b"__GFX" in self.data  # once: a search per #define grows with the file
        functions.find_qualifier_macros(self)
        functions.scan_top(self, src.root)
        for fn in self.funcs:
            preproc.body_branches(self, fn)
        functions.index_functions(self)
        consts.find_consts(self)
        functions.qualify(self)
        for fn in self.funcs:
            bodies.scan_func(self, fn)
        consts.find_identifier_uses(self)
        flow.propagate(self)
        for fn in self.funcs:
            if fn.device and fn.body is not None and fn.nodes:
                calls.scan_calls(self, fn)
        calls.mark_collective(self)
        for fn in self.funcs:
            if fn.device and fn.nodes:
                sites.scan_sites(self, fn)
                if fn.collective:
                    sites.scan_strides(self, fn)
                loops.scan_loops(self, fn)
                evidence.scan_evidence(self, fn)
        groups.group(self)

    # ---- queries (the providers' functions, bound as methods) ------------------------------

    is_inactive = preproc.is_inactive
    is_amd_only = preproc.is_amd_only
    func_at = functions.func_at
    declared_vars = decls.declared_vars
    external_const = consts.external_const
    const_value = consts.const_value
    eval_text = consts.eval_text
    cval = consts.cval
    header_const = headers.header_const
    tree_defines = headers.tree_defines
    call_name = exprs.call_name
    binop = exprs.binop
    kinds = values.kinds
    classify_binary = values.classify_binary
    lane_idiom = values.lane_idiom
    in_half = values.in_half
    is_half_mask = values.is_half_mask
    in_lane_idiom = values.in_lane_idiom
    sink32 = evidence.sink32
    device_funcs = groups.device_funcs
    model_of_const = groups.model_of_const

    def var(self, fn: Func, name: str) -> Var | None:
        return fn.vars.get(name) or self.gvars.get(name)
