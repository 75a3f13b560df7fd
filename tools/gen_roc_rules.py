#!/usr/bin/env python3
"""Generate the roc* alternative tables rules/api/{rocsparse,rocrand,rocsolver}.toml.

    python3 tools/gen_roc_rules.py HIPIFY_CHECKOUT

The TOML files are the committed source of truth; this script is how they were produced. It
is not run by the tests. Its inputs are facts: which rocSPARSE / rocRAND / rocSOLVER name a
CUDA name corresponds to, and the ROCm release that added it, read from the API reference
tables a checkout of ROCm/HIPIFY publishes (docs/tables/CU*_API_supported_by_ROC.md), and the
CUDA names of hipport's own hip* tables (rules/api/cusparse.toml, ...), so that every CUDA name
the hip* port knows is known to the roc* port too: a name rocSPARSE lacks is `unsupported`
there, with the hipSPARSE spelling as the alternative, never silently left to the hip* table
(one file would then mix two libraries).

Headers are written here as data (checked against Debian's librocsparse-dev and
librocrand-dev 5.3 and rocSOLVER's install layout).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipport.config import version_tuple  # noqa: E402
from hipport.rules import load_table  # noqa: E402

BASE = "5.2"
ROW = re.compile(r"^\|`(?P<cuda>\w+)`\|(?P<ca>[^|]*)\|(?P<cd>[^|]*)\|(?P<cc>[^|]*)\|(?P<cr>[^|]*)\|"
                 r"(?:`(?P<roc>\w+)`)?\s*\|(?P<a>[^|]*)\|(?P<d>[^|]*)\|(?P<c>[^|]*)\|(?P<r>[^|]*)\|(?P<e>[^|]*)\|")

FAMILIES = {
    # family: (HIPIFY table, base table, library, option, note on every function, headers)
    "rocsparse": (
        "CUSPARSE_API_supported_by_ROC.md", "cusparse", "rocSPARSE", "--sparse rocsparse",
        "rocSPARSE's argument list can differ from cuSPARSE's (descriptors, an info object, "
        "buffers, a `rocsparse_operation` per matrix): check the arguments against rocSPARSE's",
        {"cusparse.h": ("rocsparse/rocsparse.h", "rocsparse.h"),
         "cusparse_v2.h": ("rocsparse/rocsparse.h", "rocsparse.h")}),
    "rocrand": (
        "CURAND_API_supported_by_ROC.md", "curand", "rocRAND", "--rand rocrand", None,
        {"curand.h": ("rocrand/rocrand.h", None), "curand_kernel.h": ("rocrand/rocrand_kernel.h", None),
         "curand_discrete.h": ("rocrand/rocrand_discrete.h", None),
         "curand_discrete2.h": ("rocrand/rocrand_discrete.h", None),
         "curand_globals.h": ("rocrand/rocrand_common.h", None),
         "curand_lognormal.h": ("rocrand/rocrand_log_normal.h", None),
         "curand_mrg32k3a.h": ("rocrand/rocrand_mrg32k3a.h", None),
         "curand_mtgp32.h": ("rocrand/rocrand_mtgp32.h", None),
         "curand_mtgp32_host.h": ("rocrand/rocrand_mtgp32.h", None),
         "curand_mtgp32_kernel.h": ("rocrand/rocrand_mtgp32.h", None),
         "curand_mtgp32dc_p_11213.h": ("rocrand/rocrand_mtgp32_11213.h", None),
         "curand_normal.h": ("rocrand/rocrand_normal.h", None),
         "curand_normal_static.h": ("rocrand/rocrand_normal.h", None),
         "curand_philox4x32_x.h": ("rocrand/rocrand_philox4x32_10.h", None),
         "curand_poisson.h": ("rocrand/rocrand_poisson.h", None),
         "curand_precalc.h": ("rocrand/rocrand_xorwow_precomputed.h", None),
         "curand_uniform.h": ("rocrand/rocrand_uniform.h", None)}),
    "rocsolver": (
        "CUSOLVER_API_supported_by_ROC.md", "cusolver", "rocSOLVER", "--solver rocsolver",
        "rocSOLVER takes no workspace arguments (it allocates its own) and returns rocblas_status: "
        "drop the workspace and its size from the call, and the *_bufferSize query before it",
        {"cusolverDn.h": ("rocsolver/rocsolver.h", None), "cusolver_common.h": ("rocsolver/rocsolver.h", None),
         "cusolverRf.h": ("rocsolver/rocsolver.h", None), "cusolverSp.h": ("rocsolver/rocsolver.h", None)}),
}


# Handle, stream and descriptor management: the same arguments in the roc* library.
SAME_ARGS = re.compile(r"((Create|Destroy)(\w*(Descr|Info))?|[SG]etStream|[SG]etPointerMode|GetVersion|[SG]etMat\w+)$")


# Facts HIPIFY's tables leave out, checked against Debian's librocrand-dev 5.3 headers:
# cuRAND's default state is XORWOW's, as rocRAND's rocrand_state_xorwow is.
EXTRA = {"rocrand": {n: "rocrand_state_xorwow" for n in
                     ("curandState", "curandState_t", "curandStateXORWOW", "curandStateXORWOW_t")}}


def since(v: str) -> str:
    v = v.strip()
    if not v:
        return BASE
    short = ".".join(v.split(".")[:2])
    return short if version_tuple(short) > version_tuple(BASE) else BASE


def guess_kind(cuda: str) -> str:
    if re.fullmatch(r"[A-Z0-9_]+", cuda):
        return "enum"
    if cuda.endswith("_t") or cuda[0].isupper():
        return "type"
    return "function"


def q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def generate(hipify: Path, family: str) -> str:
    table, base_name, library, option, fn_note, headers = FAMILIES[family]
    rows: dict[str, dict[str, str]] = {}
    for line in (hipify / "docs" / "tables" / table).read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group("cuda")] = {k: (v or "").strip() for k, v in m.groupdict().items()}
    for cuda, roc in EXTRA.get(family, {}).items():
        rows[cuda] = {"cuda": cuda, "roc": roc, "a": "", "d": "", "r": "", "e": ""}
    _, base, base_headers, _ = load_table(ROOT / "rules" / "api" / f"{base_name}.toml")
    known = {m.cuda: m for m in base}
    names = sorted(set(known) | {c for c, r in rows.items() if r["roc"]})
    out = [f"# {known and base[0].family or base_name} -> {library}, the table used with `{option}` "
           f"(or `--roc`); the default port is the hip* library ({base_name}.toml).",
           "# Same CUDA names as that table: a name the roc* library lacks is unsupported here, with",
           "# the hip* spelling as the alternative. Names and first ROCm releases: HIPIFY's API reference",
           f"# tables ({table}); since is floored at {BASE}.",
           "# Generated by tools/gen_roc_rules.py; edit by hand or regenerate.", "",
           f'family = "{family}"', f'title = "{library} ({option})"', f'library = "{library}"',
           f'since = "{BASE}"', "", "[names]"]
    counts = {"supported": 0, "unsupported": 0}
    for cuda in names:
        r = rows.get(cuda)
        b = known.get(cuda)
        kind = b.kind if b else guess_kind(cuda)
        if r and r["roc"]:
            parts = [f"hip = {q(r['roc'])}", f"kind = {q(kind)}"]
            s = since(r["a"])
            if s != BASE:
                parts.append(f'since = "{s}"')
            if r["e"]:
                parts.append('status = "experimental"')
            elif r["d"] or r["r"]:
                parts.append('status = "deprecated"')
                when = r["d"] or r["r"]
                parts.append(f"note = {q(f'{library} deprecated it in ROCm {when}')}")
            elif kind == "function" and fn_note and not SAME_ARGS.search(cuda):
                parts += ['report = "HP016"', f"note = {q(fn_note)}"]
            counts["supported"] += 1
        else:
            alt = f"{b.hip} (the {base_name.replace('cu', 'hip', 1)} port: {option.split()[0]} {base_name.replace('cu', 'hip', 1)})" \
                if b and b.hip and b.status != "unsupported" else None
            parts = [f"kind = {q(kind)}", 'status = "unsupported"']
            if alt:
                parts.append(f"alt = {q(alt)}")
            counts["unsupported"] += 1
        out.append(f"{cuda} = {{ {', '.join(parts)} }}")
    out.insert(5, f"# Counts: supported {counts['supported']}, unsupported {counts['unsupported']}.")
    out += ["", "[headers]"]
    for h in base_headers:
        if h.cuda not in headers:
            out.append(f'{q(h.cuda)} = {{ status = "unsupported", note = "no {library} header: use the '
                       f'{base_name.replace("cu", "hip", 1)} port ({option.split()[0]} {base_name.replace("cu", "hip", 1)})" }}')
    for cuda, (hip, flat) in headers.items():
        out.append(f'{q(cuda)} = {{ hip = {q(hip)}' + (f", flat = {q(flat)}" if flat else "") + " }")
    return "\n".join(out) + "\n"


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    hipify = Path(sys.argv[1])
    for family in sys.argv[2:] or FAMILIES:
        text = generate(hipify, family)
        path = ROOT / "rules" / "api" / f"{family}.toml"
        path.write_text(text, encoding="utf-8")
        print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
