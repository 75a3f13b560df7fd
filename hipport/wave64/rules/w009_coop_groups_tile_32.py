"""W009 coop-groups-tile-32: a cooperative-groups tile of 32 used as "the warp", and tile members
that HIP lacks.

`tiled_partition<32>` is legal on wave64 and already behaves as a 32-lane logical warp (tile
shuffles pass width 32), so under logical32 it stays. Natively the tile becomes the wave,
`tiled_partition<HIPPORT_WAVE_SIZE>` (`<64>` would not compile on wave32 targets with HIP <= 6.2).
`ballot`, `any`, `all`, `match_any` on a tile do not exist before HIP 7.0 (and `meta_group_rank`
/ `meta_group_size` not in 5.x): they become plain wave operations, restricted to the caller's
32-lane half under logical32. On a `coalesced_group` (which HIP 6.2-6.4 give them only with
HIP_ENABLE_WARP_SYNC_BUILTINS) they are reported: the group's ballot packs its members by
thread_rank, which no plain wave operation does.
"""

from __future__ import annotations

from hipport.model import Edit, Finding
from hipport.registry import W
from hipport.wave64 import syntax as sx
from hipport.wave64.emit import HALF_SHIFT, WAVE, Emitter
from hipport.wave64.facts import Facts, WarpCall
from hipport.wave64.ruledoc import Doc
from hipport.wave64.rules._common import finding, short, template_uses

RULE = W.COOP_GROUPS_TILE_32
# The page `hipport explain W009` and rules/wave64/W009.md show (hipport/wave64/ruledoc.py renders it;
# its "HIP" examples are what the pass makes of `before`).
DOC = Doc(
    what=('Finds cooperative-groups tiles of 32 (`tiled_partition<32>`, `thread_block_tile<32>`, '
          '`tiled_partition(g, 32)`) used as the warp, and the tile members `ballot`, `any`, '
          '`all`, `match_any`, `meta_group_rank`, `meta_group_size` that HIP lacks below 7.0, '
          'and `ballot`, `any`, `all`, `match_any`, `match_all` on a `coalesced_group`, which '
          'HIP lacks by default below 7.0 too.'),
    why=('A 32-thread tile is legal on wave64 and already behaves as a 32-lane logical warp (tile '
         'shuffles pass width 32), so under logical32 it is right as written. The tile members do '
         'not compile on ROCm 5.x. The over-correction `tiled_partition<64>` fails on wave32 '
         'targets (W019).'),
    before=('#include <hip/hip_runtime.h>\n'
            '#include <hip/hip_cooperative_groups.h>\n'
            'namespace cg = cooperative_groups;\n'
            '\n'
            '__global__ void k(const float* in, int* out) {\n'
            '  auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n'
            '  unsigned b = tile.ballot(in[threadIdx.x] > 0.f);\n'
            '  if (tile.thread_rank() == 0) out[threadIdx.x / 32] = __popc(b);\n'
            '}\n'),
    safety=("Tile members become plain wave operations restricted to the caller's 32-lane half "
            '(logical32) or over the whole wave (native): safe, `meta_group_*` is a review (1-D '
            'blocks). Natively the tile becomes `tiled_partition<HIPPORT_WAVE_SIZE>`: review.'),
    refs=('sync', 'arch', 'design'),
)
TILE_TEMPLATES = ("tiled_partition", "thread_block_tile")


def _member_edits(facts: Facts, em: Emitter, wc: WarpCall, strategy: str, n: int | None) -> tuple[list[Edit], str, bool]:
    fnode = sx.call_function(wc.node)
    al = sx.arg_list(wc.node)
    if fnode is None or al is None:
        return [], "", False
    end = wc.node.end_byte
    if strategy == "logical32":
        if n != 32:
            return [], "", False
        if wc.name == "ballot":
            return ([sx.replace(fnode, "(unsigned)(__ballot", RULE), sx.insert(end, f" >> {HALF_SHIFT})", RULE)],
                    "ballot of the caller's 32-lane half", True)
        if wc.name == "any":
            return ([sx.replace(fnode, "((unsigned)(__ballot", RULE),
                     sx.insert(end, f" >> {HALF_SHIFT}) != 0)", RULE)], "vote over the caller's 32-lane half", True)
        if wc.name == "all":
            return ([sx.replace_span(fnode.start_byte, al.start_byte + 1, "((unsigned)(__ballot(!(", RULE),
                     sx.replace_span(end - 1, end, f")) >> {HALF_SHIFT}) == 0)", RULE)],
                    "vote over the caller's 32-lane half", True)
        if wc.name == "match_any":
            return ([sx.replace(fnode, "(unsigned)(hipport_match_any", RULE),
                     sx.insert(end, f" >> {HALF_SHIFT})", RULE), *em.match_helper()],
                    "match within the caller's 32-lane half", True)
        if wc.name == "meta_group_rank":
            return [sx.replace(wc.node, "(threadIdx.x / 32)", RULE)], "the 32-lane warp index (1-D block)", False
        if wc.name == "meta_group_size":
            return [sx.replace(wc.node, "(blockDim.x / 32)", RULE)], "the number of 32-lane warps", False
        return [], "", False
    if n not in (32, 64):  # (a tile of another or unknown size is not the wave)
        return [], "", False
    if wc.name in ("ballot", "any", "all"):
        return [sx.replace(fnode, f"__{wc.name}", RULE)], f"use the wave-wide `__{wc.name}`", True
    if wc.name == "match_any":
        return [sx.replace(fnode, "hipport_match_any", RULE), *em.match_helper()], "use a wave-wide match", True
    if wc.name == "meta_group_rank":
        return [sx.replace(wc.node, "(threadIdx.x / warpSize)", RULE)], "the wave index (1-D block)", False
    if wc.name == "meta_group_size":
        return [sx.replace(wc.node, "(blockDim.x / warpSize)", RULE)], "the number of waves", False
    return [], "", False


def check(facts: Facts, em: Emitter) -> list[Finding]:
    out: list[Finding] = []
    for fn in facts.device_funcs():
        _model, strategy = em.model(fn), em.strategy(fn)
        for n, name, arg in template_uses(facts, fn):
            if name not in TILE_TEMPLATES:
                continue
            cv = facts.cval(arg, fn)
            if cv is None or cv[0] != 32:
                continue
            msg = f"`{name}<{facts.src.text(arg)}>` is a 32-lane logical warp"
            if strategy == "logical32" or cv[2]:
                out.append(finding(facts, RULE, n, msg + ("; kept: tile shuffles pass width 32" if not cv[2]
                                                          else "; kept: its size is a warp-size constant (W008)"),
                                   fn, kept=True))
                continue
            out.append(finding(facts, RULE, n, msg + "; natively the tile is the whole wave", fn, em.fix(
                f"tile the wave: `{WAVE}`", [sx.replace(arg, WAVE, RULE), *em.prelude()], fn, False)))
        for c in fn.node_list("call_expression"):
            if facts.call_name(c) != "tiled_partition":
                continue
            f = sx.call_function(c)
            if f is None or f.type == "template_function" or (
                    f.type == "qualified_identifier" and (f.child_by_field_id(sx.F_NAME) or f).type == "template_function"):
                continue
            args = sx.call_args(c)
            cv = facts.cval(args[1], fn) if len(args) == 2 else None
            if cv is None or cv[0] != 32:
                continue
            msg = f"`{short(facts.src.text(c), 40)}` is a 32-lane logical warp"
            if strategy == "logical32":
                out.append(finding(facts, RULE, c, msg + "; kept", fn, kept=True))
                continue
            out.append(finding(facts, RULE, c, msg, fn, em.fix(
                "tile the wave: `warpSize`", [sx.replace(args[1], "warpSize", RULE)], fn, False)))
    for wc in facts.calls:
        if wc.family != "tile" or wc.name not in ("ballot", "any", "all", "match_any", "match_all",
                                                  "meta_group_rank", "meta_group_size"):
            continue
        if em.removed(wc.node) or wc.tile is None:
            continue
        if em.tile_votes:
            continue
        fn = wc.fn
        strategy = em.strategy(fn)
        size = facts.tile_size(fn, wc.tile)
        since = ("is not available by default before HIP 7.0" if wc.name not in ("meta_group_rank", "meta_group_size")
                 else "is missing from the HIP 5.x headers")
        what = f"thread_block_tile::{wc.name}"
        if facts.is_group_param(facts.src.text(wc.tile), fn):  # every tile a caller can pass lacks it
            what = f"`{wc.name}` of a group of template type (a thread_block_tile of any size)"
        msg = (f"`{short(facts.src.text(wc.node), 40)}`: {what} {since};"
               f" the ROCm {facts.config.floor} floor lacks it")
        edits, title, mechanical = _member_edits(facts, em, wc, strategy, size)
        if not edits:
            msg += " (rewrite it by hand)"
        out.append(finding(facts, RULE, wc.node, msg, fn, em.fix(title, edits, fn, mechanical)))
    for wc in facts.calls:
        if wc.family != "coalesced" or em.tile_votes or em.removed(wc.node):
            continue
        how = (f"`__{wc.name}(p)` votes over the active lanes, the group where it is still the "
               f"lanes that created it" if wc.name in ("any", "all") else
               "the group's result packs its members by thread_rank(), a wave operation's by lane")
        msg = (f"`{short(facts.src.text(wc.node), 40)}`: coalesced_group::{wc.name} is not in HIP 5.x, "
               f"and HIP 6.2-6.4 declare it only with HIP_ENABLE_WARP_SYNC_BUILTINS defined before "
               f"the HIP headers; the ROCm {facts.config.floor} floor lacks it (rewrite it by hand: {how})")
        out.append(finding(facts, RULE, wc.node, msg, wc.fn))
    return out
