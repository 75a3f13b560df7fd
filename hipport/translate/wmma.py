"""WMMA (`nvcuda::wmma`) reported at every use, not only at its `#include <mma.h>`.

HIP has no WMMA: the port keeps each `wmma::fragment`, `wmma::load_matrix_sync` and
`wmma::mma_sync`, and each fails to build. rocWMMA is the counterpart, with other fragment
shapes on CDNA, so nothing is renamed; every use is counted (family `wmma`, unsupported) so that
the headline and API coverage see it (tiny-cuda-nn's 60 uses showed as one header before).
"""

from __future__ import annotations

import re

from hipport.model import FamilyCount, Severity
from hipport.registry import HP
from hipport.translate.context import Context
from hipport.translate.names import SKIP_TYPES

FAMILY = "wmma"
_USE = re.compile(rb"(?<![\w$])(?:nvcuda\s*::\s*)?wmma\s*::\s*([A-Za-z_]\w*)")


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"wmma" not in data or (b"nvcuda" not in data and b"mma.h" not in data):
        return  # `wmma::` of another library (a project's own namespace)
    for m in _USE.finditer(data):
        node = ctx.src.node_at(m.start(), m.start() + 1)
        if node is None or node.type in SKIP_TYPES:
            continue
        if ctx.hip and ctx.hip.covers(m.start(), m.end()):
            continue  # code already written for HIP: not counted, not reported
        name = m.group(1).decode()
        c = ctx.families.setdefault(FAMILY, FamilyCount())
        c.found += 1
        c.unsupported += 1
        ctx.report(HP.UNSUPPORTED_API, Severity.ERROR, m.start(), m.end(),
                   f"nvcuda::wmma::{name} (WMMA) has no HIP equivalent: port it to rocWMMA "
                   f"(rocwmma::{name}, <rocwmma/rocwmma.hpp>), whose fragment shapes differ on CDNA",
                   FAMILY, f"nvcuda::wmma::{name}")
