"""What the wave64 fixes emit, by strategy and ROCm floor (wave64.md §3, §5).

Plain HIP at the call site: non-sync intrinsics (any floor), 64-bit masks, `warpSize` at run time
where a run-time value is enough, and one per-architecture constant, `HIPPORT_WAVE_SIZE`, where a
constant expression is required. That constant and the few helper functions some rewrites need
are emitted inline, once per file, right after the file's top-level `#include` lines.
"""

from __future__ import annotations

import bisect

from hipport import portable
from hipport.model import Applicability, Edit, Fix
from hipport.registry import FixKind
from hipport.source import Node
from hipport.wave64 import syntax as sx
from hipport.wave64.facts import Facts, Func, WarpCall

WAVE = "HIPPORT_WAVE_SIZE"
HALF_SHIFT = "(__lane_id() & 32)"  # base lane of the caller's 32-lane half of a wave64
HALF_MASK64 = "(0xffffffffull << (__lane_id() & 32))"  # the caller's half as a 64-bit *_sync mask
PRELUDE_RULE = "wave64"  # shared insertions carry one rule tag so that identical edits merge

PRELUDE = """\
#ifndef HIPPORT_WAVE_SIZE  // wave size of the device pass: gfx8/gfx9 (CDNA) 64, gfx10+ (RDNA) 32
#if defined(__GFX8__) || defined(__GFX9__)
#define HIPPORT_WAVE_SIZE 64
#elif defined(__GFX10__) || defined(__GFX11__) || defined(__GFX12__) || defined(__HIP_PLATFORM_NVIDIA__)
#define HIPPORT_WAVE_SIZE 32
#else  // host pass: no wave size exists here; 64 only bounds arrays (query it at run time)
#define HIPPORT_WAVE_SIZE 64
#endif
#endif
"""

HOST_WARP_SIZE = """\
static inline int hipport_warp_size() {  // the current device's wave size, queried at run time
  int dev = 0, ws = 64;
  (void)hipGetDevice(&dev);
  (void)hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, dev);
  return ws;
}
"""

MATCH_ANY = """\
template <typename T>
__device__ inline unsigned long long hipport_match_any(T key) {  // __match_any_sync, HIP < 7.0
  unsigned long long todo = __ballot(1), peers = 0;
  while (todo) {
    const int leader = __ffsll(todo) - 1;
    const T lead_key = __shfl(key, leader);
    const unsigned long long same = __ballot(key == lead_key) & todo;
    if (key == lead_key) peers = same;
    todo &= ~(same | (1ull << leader));
  }
  return peers;
}
"""

_REDUCE_STEP = {
    "add": "v += __shfl_xor(v, o, width);",
    "min": "const T u = __shfl_xor(v, o, width); v = u < v ? u : v;",
    "max": "const T u = __shfl_xor(v, o, width); v = u > v ? u : v;",
    "and": "v &= __shfl_xor(v, o, width);",
    "or": "v |= __shfl_xor(v, o, width);",
    "xor": "v ^= __shfl_xor(v, o, width);",
}


def reduce_helper(op: str) -> str:
    return (f"template <typename T>\n"
            f"__device__ inline T hipport_reduce_{op}(T v, int width) {{  // __reduce_{op}_sync, HIP < 7.0\n"
            f"  for (int o = width / 2; o > 0; o >>= 1) {{ {_REDUCE_STEP[op]} }}\n"
            f"  return v;\n"
            f"}}\n")


class Emitter:
    """Strategy- and floor-aware edit builders for one file."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.config = facts.config
        self.nl = facts.src.newline
        floor = facts.config.floor
        self.native_sync = floor.has("warp-sync-builtins")  # *_sync, __activemask, __syncwarp
        self.shfl_wraps = floor.has("shfl-wraps-source-lane")  # __shfl masks the source lane
        self.tile_votes = floor.has("tile-votes")  # thread_block_tile::ballot/any/all
        self._insert_pos: int | None = None
        self._removed: list[tuple[int, int]] | None = None
        self._blocks: dict[str, bool] = {}  # block text -> the file holds it already

    # ---- strategy, applicability -----------------------------------------------------------

    @staticmethod
    def strategy(fn: Func) -> str:
        return fn.group.strategy if fn.group is not None else "native"

    @staticmethod
    def model(fn: Func) -> str:
        return fn.group.model if fn.group is not None else "agnostic"

    @staticmethod
    def applicability(fn: Func | None, mechanical: bool = True, model: str | None = None,
                      strategy: str | None = None) -> Applicability:
        """SAFE: a mechanical rewrite in a kernel whose model is unambiguous and whose strategy is
        the model's own (warp32 -> logical32, agnostic -> native). Everything else: REVIEW."""
        if fn is not None and fn.group is not None:
            model, strategy = fn.group.model, fn.group.strategy
        natural = {"warp32": "logical32", "agnostic": "native"}.get(model or "")
        if mechanical and natural is not None and natural == strategy:
            return Applicability.SAFE
        return Applicability.REVIEW

    def fix(self, title: str, edits: list[Edit], fn: Func | None, mechanical: bool = True,
            model: str | None = None, strategy: str | None = None) -> Fix | None:
        if not edits:
            return None
        return Fix(title, self.applicability(fn, mechanical, model, strategy), tuple(edits))

    # ---- shared insertions -----------------------------------------------------------------

    def insert_pos(self) -> int:
        """After the last top-level #include, or before the first function."""
        if self._insert_pos is None:
            f = self.facts
            first = min((fn.top.start_byte for fn in f.funcs), default=0)
            incs = [i for i in f.includes if i.start_byte < first] or f.includes[:1]
            if incs:
                end = incs[-1].end_byte
                nl = f.data.find(b"\n", end - 1)
                self._insert_pos = len(f.data) if nl < 0 else nl + 1
            else:
                line_start = f.data.rfind(b"\n", 0, first) + 1
                self._insert_pos = line_start
        return self._insert_pos

    def _block(self, text: str, rule: str = PRELUDE_RULE, priority: int = sx.PRIORITY) -> list[Edit]:
        """Insert `text` once per file; nothing when the file already holds it (an earlier port
        wrote it: a second port changes nothing)."""
        have = self._blocks.get(text)
        if have is None:  # once per block and file: a search of the whole file
            have = self._blocks[text] = text.replace("\n", self.nl).encode("utf-8") in self.facts.data
        if have:
            return []
        pos = self.insert_pos()
        return [Edit(pos, pos, text.replace("\n", self.nl), rule, priority)]

    def prelude(self) -> list[Edit]:
        return self._block(PRELUDE)

    def portable(self, fix: Fix | None) -> Fix | None:
        """The fix, with the NVIDIA platform's shims when its edits write an AMD-only builtin."""
        if fix is None or not any(portable.needs_shims(e.replacement) for e in fix.edits):
            return fix
        shims = self._block(portable.NVIDIA_SHIMS, FixKind.PORTABLE, portable.PRIORITY)
        return Fix(fix.title, fix.applicability, (*fix.edits, *shims)) if shims else fix

    def host_helper(self) -> list[Edit]:
        return self._block(HOST_WARP_SIZE)

    def match_helper(self) -> list[Edit]:
        return self._block(MATCH_ANY)

    def reduce_helper(self, op: str) -> list[Edit]:
        return self._block(reduce_helper(op))

    # ---- call rewrites ---------------------------------------------------------------------

    def callee(self, wc: WarpCall) -> Node:
        fn = sx.call_function(wc.node)
        assert fn is not None
        return fn

    def drop_sync(self, wc: WarpCall, rule: str) -> list[Edit]:
        """`__shfl_down_sync(mask, v, d)` -> `__shfl_down(v, d)`: rename and delete the mask."""
        edits = [sx.replace(self.callee(wc), wc.name[:-len("_sync")], rule)]
        if wc.mask is not None:
            d = sx.delete_arg(wc.node, 0, rule)
            if d is not None:
                edits.append(d)
        return edits

    def mask64(self, wc: WarpCall, strategy: str, rule: str) -> list[Edit]:
        """Keep a *_sync call (ROCm >= 7.0) and give it a 64-bit mask."""
        m = wc.mask
        if m is None or self.facts.is_half_mask(m):
            return []  # (the caller's half is a 64-bit mask already: what logical32 writes)
        f = self.facts
        cv = f.cval(m, wc.fn)
        full = cv is not None and cv[0] in (0xFFFFFFFF, (1 << 64) - 1)
        k = f.kinds(m, wc.fn)
        from hipport.wave64.facts import MASK
        if strategy == "logical32":
            if full:
                return [sx.replace(m, HALF_MASK64, rule)]
            return sx.wrap(m, "((unsigned long long)(", f") << {HALF_SHIFT})", rule)
        if full:
            return [sx.replace(m, "~0ull", rule)]
        if k & MASK:
            return []  # the variable itself becomes 64-bit (W002)
        return sx.wrap(m, "(unsigned long long)(", ")", rule)

    def half(self, call: Node, rule: str) -> list[Edit]:
        """A 64-bit wave mask -> the caller's 32-lane half: `(unsigned)(X >> (__lane_id() & 32))`."""
        return sx.wrap(call, "(unsigned)(", f" >> {HALF_SHIFT})", rule)

    def width32(self, wc: WarpCall, rule: str) -> Edit | None:
        return sx.append_arg(wc.node, "32", rule)

    # ---- masks ------------------------------------------------------------------------------

    def mask_is_all(self, wc: WarpCall) -> bool:
        """The mask names every active lane: a full literal, __activemask() or a variable holding it."""
        m = wc.mask
        if m is None:
            return True
        f = self.facts
        cv = f.cval(m, wc.fn)
        if cv is not None:
            return cv[0] in (0xFFFFFFFF, (1 << 64) - 1)
        m = sx.unparen(m)
        if m.type == "identifier":
            var = f.var(wc.fn, f.src.text(m))
            if var is None or var.value is None:
                return False
            m = sx.unparen(var.value)
        if m.type == "call_expression":
            name = f.call_name(m)
            if name == "__activemask":
                return True
            if name in ("__ballot", "__ballot_sync"):
                a = sx.call_args(m)
                cv = f.cval(a[-1], wc.fn) if a else None
                return cv is not None and cv[0] == 1
        return False

    def mask_dropped(self, wc: WarpCall) -> bool:
        """True when the rewrite of `wc` deletes its mask argument."""
        if wc.mask is None or not wc.sync:
            return False
        fam = wc.family
        if fam == "vote":
            return (self.model(wc.fn) != "agnostic" and self.strategy(wc.fn) == "logical32") or not self.native_sync
        if self.native_sync:
            return False
        if fam == "ballot":
            return self.mask_is_all(wc)
        return fam in ("shfl", "match", "reduce", "syncwarp")

    def removed(self, node: Node) -> bool:
        """True when `node` lies inside code a rewrite deletes (a dropped *_sync mask)."""
        if self._removed is None:
            spans = sorted((wc.mask.start_byte, -wc.mask.end_byte) for wc in self.facts.calls
                           if wc.mask is not None and self.mask_dropped(wc))
            # Node spans nest or are apart: keep the outermost, which are apart and sorted.
            outer: list[tuple[int, int]] = []
            for s, neg_e in spans:
                if not outer or s >= outer[-1][1]:
                    outer.append((s, -neg_e))
            self._removed = outer
        if not self._removed:
            return False
        start, end = node.start_byte, node.end_byte
        i = bisect.bisect_right(self._removed, (start, 1 << 62)) - 1
        return i >= 0 and end <= self._removed[i][1]
