"""The records the providers fill in: functions (`Func`), variables (`Var`), warp-size constants
(`WarpConst`), wrapper macros (`Wrapper`), warp calls (`WarpCall`), shuffle loops (`Loop`),
lane/warp arithmetic sites (`Site`) and groups of functions sharing one model (`Group`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from hipport.source import Node

# The string values the records hold (plain strings at run time, as rules and findings use them).
ConstKind = Literal["macro", "variable", "enumerator", "template", "function"]
Family = Literal["shfl", "ballot", "vote", "activemask", "syncwarp", "match", "reduce", "lane_id", "lanemask", "tile",
                 "coalesced"]
LoopWarp = Literal["32", "rt", "64", "derived", ""]
SiteKind = Literal["lane", "warp", "nwarp", "guard", "stride"]
Origin = Literal["literal", "named", "rt"]
Space = Literal["global", "device", "hd", "host"]


class MacroDef(NamedTuple):
    """One `#define NAME value` (a tuple, as rules index it: `facts.macros[name][0][0]`)."""

    node: Node  # the preproc_def
    text: str  # the value, comments removed
    amd_only: bool  # defined in a branch only AMD compiles


class ArgSpan(NamedTuple):
    """One argument of the call in a wrapper macro's body."""

    start: int
    end: int
    text: str


class IdentUse(NamedTuple):
    """One use of warpSize, a warp-size constant or a wave-size macro."""

    name: str
    node: Node
    fn: Func | None  # None inside raw preprocessor text (`#define X warpSize`)
    start: int
    end: int


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


@dataclass(eq=False, slots=True, frozen=True)
class WarpConst:
    """A named warp-size constant: a macro, constexpr/const variable, enumerator, template default,
    or a zero-argument constexpr function returning one (keyed `name()`, so that only its calls
    match: `warp_size()`)."""

    name: str
    value: int  # 32 or 64
    kind: ConstKind
    node: Node  # the definition
    value_node: Node | None  # the node holding the value (number_literal), or None for macros
    value_span: tuple[int, int]  # bytes of the value literal
    func: Func | None = None
    amd_only: bool = False  # defined in a branch taken only on AMD (#if __HIP_PLATFORM_AMD__)
    users: list[Func] = field(default_factory=list)
    via: str | None = None  # an alias of another warp-size constant (`simd_size = WARP_SIZE`): it follows that one


@dataclass(eq=False, slots=True, frozen=True)
class Wrapper:
    """A function-like macro whose body is one warp shuffle or ballot call:
    `#define SHFL_DOWN(v, o) __shfl_down_sync(0xffffffff, v, o)`."""

    name: str
    node: Node  # the preproc_function_def
    callee: str  # the intrinsic in the body
    callee_span: tuple[int, int]
    args: list[ArgSpan]  # the body call's arguments
    close: int  # byte offset of the body call's closing parenthesis
    params: list[str]


@dataclass(eq=False, slots=True)
class WarpCall:
    node: Node
    fn: Func
    name: str  # callee name as written
    family: Family
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
    warp: LoopWarp  # "32" (literal or 32-constant), "rt" (warpSize), "64", "derived", ""
    shuffles: list[WarpCall] = field(default_factory=list)
    outer: Loop | None = None  # for "derived": the warp loop whose variable starts this one
    exp: bool = False  # over the exponent: `for (l = 0; l <= 4; ++l)` with shuffle offsets `1 << l`


@dataclass(eq=False, slots=True, frozen=True)
class Site:
    """A lane / warp id computation: tid & 31, tid >> 5, blockDim.x / 32, tid < 32 ..."""

    kind: SiteKind
    node: Node  # the binary expression
    const: Node  # the constant operand (31, 32, 5, WARP_SIZE, warpSize)
    origin: Origin  # "named": a warp-size constant; "rt": warpSize
    ceil: Node | None = None  # the `31` of (x + 31) / 32
    fn: Func | None = None


@dataclass(eq=False, slots=True)
class Func:
    node: Node
    name: str
    body: Node | None
    space: Space
    top: Node  # ancestor directly below the translation unit
    tparams: dict[str, Node] = field(default_factory=dict)
    nodes: dict[str, list[Node]] = field(default_factory=dict)
    vars: dict[str, Var] = field(default_factory=dict)
    params: list[Var] = field(default_factory=list)
    env: dict[str, int] = field(default_factory=dict)
    ret: int = 0
    ret_type: Node | None = None
    # names this function calls: a set once it calls one (an empty set each is 216 bytes a function)
    callees: set[str] | frozenset[str] = frozenset()
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


@dataclass(eq=False, slots=True, frozen=True)
class Group:
    """Functions that must agree on one warp width, with the model their evidence gives (warp32,
    agnostic, mixed) and the rewrite strategy chosen for it (logical32, native)."""

    funcs: list[Func]
    model: str = "agnostic"
    strategy: str = "native"

