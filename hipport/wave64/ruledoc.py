"""A wave64 rule's documentation page, rendered from the rule's own module.

Each rule module (hipport/wave64/rules/wNNN_*.py) holds its code, its id, name, summary and
severity, and its `DOC`: the prose and a CUDA example. The page's "HIP" examples are what the
pass makes of that example under each strategy, so a page always shows what hipport emits.
`hipport explain WNNN` and rules/wave64/WNNN.md are this page:

    python -m hipport.pages           # write rules/wave64/*.md (and the HP pages)
    python -m hipport.pages --check   # exit 1 if a page is not what the modules give
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.model import Applicability
from hipport.source import SourceFile

HEADINGS = ("What it does", "Why is this bad?", "Example", "Fix safety", "Options", "How to suppress",
            "References")


@dataclass(frozen=True)
class Doc:
    what: str
    why: str
    before: str  # a CUDA example, the whole file
    safety: str
    refs: tuple[str, ...]  # keys of ROCM_REFS
    rocm: str = "5.2"  # the ROCm floor the example is ported at
    suppress_line: str = ""


ROCM_REFS = {
    "sync": "HIP 6.2 adds the `*_sync` warp builtins behind `HIP_ENABLE_WARP_SYNC_BUILTINS`; HIP 7.0 enables"
            " them by default and adds `__syncwarp` and `__reduce_*_sync` (ROCm/clr CHANGELOG.md, HIP 6.2 and 7.0);"
            " masks must be 64-bit (`static_assert` in `amd_warp_sync_functions.h`, tag rocm-6.2.0).",
    "ballot": "`__ballot`, `__activemask`, `__match_*` return `unsigned long long` on every AMD target; the"
              " upper 32 bits are zero on wave32 (HIP 5.2 `amd_warp_functions.h`; HIP docs, warp cross-lane"
              " functions).",
    "width": "`__shfl*(var, lane, width = warpSize)`: the default width is the wave size, 64 on CDNA (HIP 5.2"
             " and 7.x `amd_warp_functions.h`).",
    "warpsize7": "HIP 7.0: `warpSize` is no longer `constexpr` (ROCm/clr CHANGELOG.md, HIP 7.0); it cannot size"
                 " arrays, be a template argument or appear in `static_assert` (turboderp-org/exllamav2 PR #815,"
                 " ROCm/rocm-libraries issue #3153).",
    "arch": "AMD's recipe for a compile-time wave size: `__GFX8__` / `__GFX9__` -> 64, else 32 (HIP docs,"
            " `how-to/hip_cpp_language_extensions.rst`, warpSize); host code must query"
            " `hipDeviceAttributeWarpSize` at run time (vllm-project/vllm PR #22822).",
    "waves": "CDNA GPUs (gfx9: MI100, MI200, MI300, MI350) run 64-lane wavefronts; RDNA (gfx10+) runs 32-lane"
             " waves under HIP (`-mwavefrontsize64` is not supported by the HIP runtime).",
    "design": "hipport design notes: shared/design/wave64.md §3 (strategies and the consistency rule) and §4"
              " (this hazard).",
}


OPTIONS = ("- `wave-strategy` (`auto`, `logical32`, `native`; default `auto`): `auto` keeps 32-lane logical "
           "warps in kernels written for them and makes mixed kernels wave-agnostic; wave-agnostic kernels "
           "stay wave-agnostic under every strategy.\n"
           "- `rocm` (default `5.2`): the oldest ROCm the emitted code must compile on. Below 7.0 no `*_sync` "
           "builtin is emitted; below 5.7 computed `__shfl` source lanes are masked.\n"
           "- `apply-review-fixes` (default `false`): apply review fixes too.\n")



def port(code: str, strategy: str, rocm: str) -> str:
    """The example with every fix the pass offers applied (safe and review)."""
    from hipport.wave64 import run

    config = replace(Config(), wave_strategy=strategy, rocm=rocm)  # type: ignore[arg-type]
    edits = [e for f in run(SourceFile("t.cu", code.encode()), config) if f.fix is not None
             and f.fix.applicability in (Applicability.SAFE, Applicability.REVIEW) for e in f.fix.edits]
    accepted, conflicts = resolve(edits)
    if conflicts:
        raise ValueError(f"the example's fixes conflict: {conflicts}")
    return apply_edits(code.encode(), accepted).decode()


# Where a port holds the NVIDIA shims (hipport/portable.py), the page shows this line in their
# place and the block once, folded, after the examples: 18 lines of the same code in each
# example would bury the rewrite the page is about.
SHIMS_LINE = "// ... the NVIDIA shims (hipport/portable.py): below the examples ...\n"
SHIMS_FOLDED = ("<details>\n<summary>The NVIDIA shims: written once per file whose port uses an AMD builtin, "
                "compiled only on HIP's NVIDIA platform, where they give the builtins in CUDA's terms"
                "</summary>\n\n```hip\n{}```\n\n</details>\n\n")


def render(rule_id: str) -> str:
    from hipport import portable
    from hipport.wave64.registry import RULES

    info = RULES[rule_id]
    d: Doc = info.load().DOC
    logical = port(d.before, "logical32", d.rocm)
    native = port(d.before, "native", d.rocm)
    shims = portable.NVIDIA_SHIMS in logical + native
    logical, native = (x.replace(portable.NVIDIA_SHIMS, SHIMS_LINE) for x in (logical, native))
    folded = SHIMS_FOLDED.format(portable.NVIDIA_SHIMS) if shims else ""
    floor = "" if d.rocm == "5.2" else f" (ROCm floor {d.rocm})"
    refs = "\n".join(f"- {ROCM_REFS[r]}" for r in d.refs)
    return (
        f"# {rule_id}: {info.name}\n\n"
        f"## What it does\n\n{d.what}\n\n"
        f"## Why is this bad?\n\n{d.why}\n\n"
        f"## Example\n\nCUDA:\n\n```cuda\n{d.before}```\n\n"
        f"HIP with `--wave-strategy logical32`{floor}:\n\n```hip\n{logical}```\n\n"
        f"HIP with `--wave-strategy native`{floor}:\n\n```hip\n{native}```\n\n"
        f"{folded}"
        f"## Fix safety\n\n{d.safety}\n\n"
        f"## Options\n\n{OPTIONS}\n"
        f"## How to suppress\n\nOn the line, or alone on the line above, by id or by name:\n\n"
        f"```cuda\n// hipport: ignore[{rule_id}]\n// hipport: ignore[{info.name}]\n```\n\n"
        f"`// hipport: ignore` silences every rule; a suppression that silences nothing is reported as HP900.\n\n"
        f"## References\n\n{refs}\n"
    )


def pages_dir() -> Path:
    from hipport.paths import rules_dir

    return rules_dir() / "wave64"
