"""The API pass: CUDA names, headers, argument rewrites and kernel launches to HIP."""

from __future__ import annotations

from hipport import hipaware
from hipport.config import Config
from hipport.model import Finding, Severity
from hipport.registry import HP
from hipport.rules import RuleSet
from hipport.source import SourceFile
from hipport.translate import (
    atomics,
    bf16,
    cgroups,
    devicecalls,
    deviceptr,
    includes,
    launches,
    literals,
    minmax,
    names,
    overloads,
    ptx,
    rounding,
    targets,
    texfetch,
    tileshfl,
    vectorops,
    wmma,
)
from hipport.translate.context import Context

# Sub-passes, in order; each reads the tree and adds edits and findings to the context.
SUBPASSES = (
    ("names", "rename CUDA identifiers, namespaces and macro bodies; rewrite arguments", names.run),
    ("cgroups", "write cg::reduce (reduce.h) and meta_group_rank/size in HIP terms", cgroups.run),
    ("overloads", "keep overloads the renaming makes identical once, under a guard", overloads.run),
    ("vectorops", "keep vector compound assignments HIP defines itself off AMD", vectorops.run),
    ("devicecalls", "report kernels launched and runtime calls made from device code", devicecalls.run),
    ("deviceptr", "integer uses of CUdeviceptr and texture/surface objects (pointers in HIP)", deviceptr.run),
    ("atomics", "write atomicInc_system/atomicDec_system as system-scope CAS loops", atomics.run),
    ("rounding", "write directed-rounding arithmetic (__fadd_rd, ...) HIP declares but lacks", rounding.run),
    ("tileshfl", "tile shuffles of vector and struct values, word by word", tileshfl.run),
    ("bf16", "float values stored into bfloat16 below ROCm 6.2, as explicit conversions", bf16.run),
    ("texfetch", "fetch textures of non-channel types through a bit copy", texfetch.run),
    ("targets", "report device functions a target in offload_arch cannot compile", targets.run),
    ("ptx", "report inline PTX that the wave64 pass does not port", ptx.run),
    ("wmma", "report every use of WMMA (nvcuda::wmma), which HIP lacks", wmma.run),
    ("minmax", "min/max of a built-in coordinate: CUDA's unsigned overload, written", minmax.run),
    ("literals", "a space between a string literal and the macro name glued to it", literals.run),
    ("includes", "map #include lines; add the HIP runtime include where needed", includes.run),
    ("spaced-launches", "close up spaced launch chevrons (k << < g, b >> > (...))", launches.spaced),
    ("launches", "rewrite <<<...>>> launches as hipLaunchKernelGGL (--launch-syntax ggl)", launches.run),
)


def run(src: SourceFile, config: Config, rules: RuleSet) -> Context:
    ctx = Context(src, config, rules)
    ctx.hip = hipaware.find(src.data, rules.names, rules.namespaces, rules.hip_names)
    if src.root.has_error:
        _parse_findings(ctx)
    for _, _, fn in SUBPASSES:
        fn(ctx)
    for job in ctx.later:
        job()
    return ctx


def hip_note(ctx: Context) -> list[Finding]:
    """The one note of a file with code already written for HIP (left as it is)."""
    if not ctx.hip:
        return []
    start, end, message = ctx.hip.note()
    return [Finding(HP.ALREADY_HIP, Severity.INFO, ctx.src.span(start, end), message)]


def _parse_findings(ctx: Context) -> None:
    """One finding per parse region: the outermost ERROR (or MISSING) nodes, those that start on
    a line the one before ends on taken together (a `missing )` and the ERROR after it on one
    line were two notes); the code in them is still ported.

    Only subtrees that contain an error are entered, so a clean file costs nothing here.
    """
    regions: list[tuple[int, int, list[str]]] = []  # start, end, what each node is
    stack = [ctx.src.root]
    while stack:  # depth first, children in order: the nodes come in the file's order
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            what = f"missing {node.type}" if node.is_missing else ""
            if regions and ctx.src.position(node.start_byte)[0] <= ctx.src.position(regions[-1][1])[0]:
                start, end, kinds = regions[-1]
                regions[-1] = (start, max(end, node.end_byte), [*kinds, what])
            else:
                regions.append((node.start_byte, node.end_byte, [what]))
            continue
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    for start, end, kinds in regions:
        what = kinds[0] if len(kinds) == 1 and kinds[0] else "code tree-sitter-cuda cannot parse"
        ctx.report(HP.PARSE_ERROR, Severity.INFO, start, end,
                   f"{what}; identifiers in it were ported token by token, check this region")
