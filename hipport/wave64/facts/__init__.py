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
- `summaries` (with `headers`): what each device function of the included headers does with
  lanes (returns a lane id or a 32-bit wave mask, reduces over 32 lanes, is collective), read
  from its code once per header content; kinds, evidence and rules follow them at call sites;
- `calls`, `sites`, `loops`: the warp intrinsic calls, the lane/warp arithmetic sites and the
  shuffle loops; `evidence`: what they say about the warp width a function assumes;
- `groups`: one *model* per group of functions that must agree (a kernel, the device functions
  it calls and every function sharing a warp-size constant with them): "warp32", "agnostic" or
  "mixed", and the rewrite strategy chosen for the group (wave64.md §3, the consistency rule).

Rules read these facts through `Facts` (its attributes and query methods); nothing here decides
what is a finding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from hipport.config import Config
from hipport.precise import Model
from hipport.source import Node, SourceFile
from hipport.wave64.facts import (
    bodies,
    calls,
    consts,
    crosslane,
    decls,
    evidence,
    exprs,
    flow,
    functions,
    groups,
    headers,
    hostsizes,
    loops,
    members,
    preproc,
    sites,
    tiles,
    values,
)
from hipport.wave64.facts.data import (
    ArgSpan,
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
from hipport.wave64.facts.summaries import Summary

__all__ = [
    "BALLOTS", "BDIM", "BID", "BITOPS32", "LANE32", "LANEHW", "LANEMASKS", "LANEN", "LANEREL", "LANES", "MASK",
    "MASK_SOURCES", "MATCHES", "NWARP32", "NWARPHW", "QUICK_TOKENS", "REDUCES", "SHFL", "SHFL_SYNC", "SHIFTMASK",
    "TID", "TILE_MEMBERS", "TILE_SHFL", "TYPES32", "TYPES64", "VOTES", "WARP32", "WARPHW", "WARPS", "WARP_CALLS",
    "WS32", "WS64", "WSRT",
    "ArgSpan", "Facts", "Func", "Group", "IdentUse", "Loop", "MacroDef", "Site", "Summary", "Var", "WarpCall", "WarpConst", "Wrapper",
    "is_warp_name", "might_hold_hazards", "type_bits",
]


# The providers in the order they run: each reads what the ones above it filled in.
PROVIDERS: tuple[Callable[[Facts], None], ...] = (
    functions.find_qualifier_macros,  # qual_macros
    functions.scan_top,  # funcs, macros, arch_macros, wrappers, includes, top_items, #if ranges
    preproc.scan_bodies,  # #if ranges inside function bodies
    functions.index_functions,  # by_name, the ranges of func_at
    consts.find_consts,  # consts (file level and template defaults), gvars
    functions.qualify,  # Func.quick: worth the full analysis
    bodies.scan,  # Func.nodes, params, vars; consts declared in bodies
    # (a header read for its constants stops here: `constants_only`)
    consts.find_identifier_uses,  # ident_uses, aliases, wave_macros, Func.idents, WarpConst.users
    flow.propagate,  # Func.env, genv, Func.ret, Func.callees
    calls.scan,  # Func.calls, calls
    calls.mark_collective,  # Func.collective
    sites.scan,  # Func.sites
    loops.scan,  # Func.loops
    evidence.scan,  # Func.strong32, weak32, agnostic
    groups.group,  # groups, Func.group (model and strategy)
    members.scan,  # member_sites, member_arrays: warp counts at class scope
    crosslane.scan,  # thread_groups: groups with no cross-lane operation
    hostsizes.scan,  # host_counts, host_blocks: launch sizes host code computes by a 32-lane warp
)


# The providers a header read for its constants needs: what it defines (macros, constants,
# variables, enumerators, #if ranges), not what its functions do with lanes. Nothing after
# them adds a constant or changes a value.
_CONSTANTS = PROVIDERS.index(bodies.scan) + 1

# A function's containers the providers fill; the rules only read them.
_FUNC_CONTAINERS = ("tparams", "nodes", "vars", "params", "env", "calls", "loops", "sites", "idents",
                    "strong32", "weak32", "agnostic")
_NO_ITEMS: Mapping[str, object] = MappingProxyType({})


def _share_empty(funcs: list[Func]) -> None:
    """The providers are done and the rules only read: each empty list and dict of a function
    becomes one shared empty tuple or mapping, which nothing can append to. A dozen empty
    containers (700 bytes) were most of the facts of a function the analysis skips."""
    for fn in funcs:
        for name in _FUNC_CONTAINERS:
            value = getattr(fn, name)
            if not value:
                setattr(fn, name, () if type(value) is list else _NO_ITEMS)


class Facts:
    """The facts of one file. The providers fill the attributes below in order; the methods are
    the providers' queries (bound here so that rules keep calling `facts.kinds(node, fn)`)."""

    def __init__(self, src: SourceFile, config: Config, headers: bool = True, always: bool = False,
                 constants_only: bool = False) -> None:
        """`always`: gather the facts of a file with no hazard sign too (a header read for its
        constants); `constants_only`: only what the file defines (headers.py), no analysis of
        its functions."""
        self.src = src
        self.config = config
        self.data = src.data
        # functions
        self.qual_macros: dict[str, set[str]] = {}  # macros that expand to __device__ / __global__
        self.funcs: list[Func] = []
        self.by_name: dict[str, list[Func]] = {}
        self.macros: dict[str, list[MacroDef]] = {}
        self.arch_macros: set[str] = set()
        self.wrappers: dict[str, Wrapper] = {}
        self.includes: list[Node] = []
        self.top_items: list[Node] = []
        self._ranges: list[tuple[int, int, Func]] = []
        self._range_starts: list[int] = []
        # preproc
        self.preproc_conds: list[Node] = []  # #if / #elif conditions and #ifdef names
        self.inactive: list[tuple[int, int]] = []  # byte ranges compiled only for NVIDIA
        self.amd_only: list[tuple[int, int]] = []  # byte ranges compiled only for AMD
        self._inactive_starts: list[int] = []
        self._amd_starts: list[int] = []
        # decls
        self._decl_cache: dict[int, list[Var]] = {}
        # consts
        self.consts: dict[str, list[WarpConst]] = {}
        self.gvars: dict[str, Var] = {}
        self.aliases: set[str] = set()  # macros defined as warpSize
        self.wave_macros: set[str] = set()  # per-architecture wave-size macros (already agnostic)
        self.ident_uses: list[IdentUse] = []
        self._eval_cache: dict[tuple[str, int], tuple[int, int] | None] = {}
        self._cdepth = 0
        self._cvals: dict[tuple[int, Func | None], tuple[int, int, bool] | None] = {}  # cval of binary expressions
        # headers (read lazily, on the first question; none for a header read for another file)
        self._headers: dict[str, tuple[int, bool]] | None = None if headers else {}
        self._header_names: frozenset[str] = frozenset()
        self._include_specs: list[tuple[int, str]] | None = None  # the file's own (headers._file_specs)
        self._decl_quals: dict[str, frozenset[str]] | None = None  # (functions._header_quals)
        self._class_bodies: dict[int, Node | None] = {}  # function node id -> (threads._class_body)
        self._header_bodies: dict[str, str] = {}  # object-like macros of the included headers
        self._header_values: dict[str, tuple[int, int]] = {}  # their integer constants
        self._header_platform: dict[str, tuple[str, int | None]] = {}  # their platform macros
        self._project: frozenset[tuple[str, str, int | None]] | None = None  # project_platform
        self._defined_here: frozenset[str] | None = None  # names this file #defines (tree_defines)
        # precise: clang's Model of the file, read on the first question (False: never, for a header)
        self._precise: Model | bool | None = None if headers else False
        self._header_funcs: dict[str, Summary] | None = None  # the headers' function summaries
        # exprs
        self._bin: dict[int, str] = {}  # the operator of each binary expression, by node id
        self._names: dict[int, str] = {}
        # values and flow
        self.genv: dict[str, int] = {}  # kinds of file-level variables
        self._memo: dict[int, int] = {}
        self._constant_context: dict[int, bool] = {}  # rules/_common.in_constant_context, by node id
        self._plain: set[tuple[Func, str]] = set()
        # calls and groups
        self.calls: list[WarpCall] = []
        self.groups: list[Group] = []
        # members: warp counts of class scope (enumerators, member array bounds)
        self.member_sites: list[Site] = []
        self.member_arrays: list[tuple[Node, Node, Func]] = []  # (bound, member declaration, owner)
        self.host_counts: list[tuple[Node, Func]] = []  # host warp counts (hostsizes)
        self.host_blocks: list[tuple[Node, Node, Func]] = []  # (block, its warp-size factor, host function)
        self.thread_groups: set[int] = set()  # ids of groups with no cross-lane operation (crosslane)
        self._device: list[Func] | None = None
        self._cg: bool | None = None  # the file names cooperative_groups (tiles.uses_cooperative_groups)
        self.empty = not always and not might_hold_hazards(self.data)
        if self.empty:
            return
        self._has_gfx = b"__GFX" in self.data  # once: a search per #define grows with the file
        for provider in PROVIDERS[:_CONSTANTS] if constants_only else PROVIDERS:
            provider(self)
        _share_empty(self.funcs)

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
    header_consts = headers.header_consts
    project_platform = headers.project_platform
    header_body = headers.header_body
    header_value = headers.header_value
    header_func = headers.header_func
    header_funcs = headers.header_funcs
    tree_defines = headers.tree_defines
    call_name = exprs.call_name
    binop = exprs.binop
    kinds = values.kinds
    classify_binary = values.classify_binary
    lane_idiom = values.lane_idiom
    in_half = values.in_half
    is_half_mask = values.is_half_mask
    in_lane_idiom = values.in_lane_idiom
    is_uniform = values.is_uniform
    sink32 = evidence.sink32
    device_funcs = groups.device_funcs
    model_of_const = groups.model_of_const
    tile_mask_sources = tiles.tile_mask_sources
    tile_size = tiles.tile_size
    is_group_param = tiles.is_group_param
    is_thread_group = crosslane.is_thread_group

    def var(self, fn: Func, name: str) -> Var | None:
        return fn.vars.get(name) or self.gvars.get(name)
