"""`tex1Dfetch<T>` of a type HIP's texture functions do not take (a struct, a typedef of one).

CUDA's `tex1Dfetch<T>(obj, i)` takes any 4-, 8- or 16-byte `T` (`fComplex`, a struct of two
floats); HIP 5.2's only takes its channel types (`float`, `int2`, `uchar4`, ...). Other types
are fetched through `hipport_tex1Dfetch<T>`, written once per translation unit: a fetch of the
channel type of the same size, copied bit for bit into `T` (HIP's fetch reinterprets the texel's
bits too, so the bytes are those CUDA returns).
"""

from __future__ import annotations

import re

from hipport.model import Severity
from hipport.registry import HP, FixKind
from hipport.source import Node
from hipport.translate.context import Context
from hipport.translate.helpers import write_before
from hipport.translate.names import SKIP_TYPES

_FETCH = re.compile(rb"(?<![\w$])tex1Dfetch\s*<\s*((?:::)?\w+(?:\s*::\s*\w+)*)\s*>")
# What HIP 5.2's __hip_is_itex_channel_type accepts, and the spellings of it code uses.
_CHANNEL = re.compile(r"(?:(?:signed |unsigned )?(?:char|short|int)|unsigned|float|uint|ushort|uchar|"
                      r"(?:u?char|u?short|u?int|float)[124])")
HELPER = "hipport_tex1Dfetch"
BLOCK = """\
#ifndef HIPPORT_TEX1DFETCH
#define HIPPORT_TEX1DFETCH
// hipport: HIP's tex1Dfetch<T> takes only channel types; this fetches the channel type of
// T's size and copies its bits into T, as CUDA's tex1Dfetch<T> returns them.
template <class T> __device__ T hipport_tex1Dfetch(hipTextureObject_t tex, int i) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "a 4-, 8- or 16-byte texel");
  T r;
  if constexpr (sizeof(T) == 4) {
    float v = tex1Dfetch<float>(tex, i);
    __builtin_memcpy(&r, &v, sizeof(T));
  } else if constexpr (sizeof(T) == 8) {
    float2 v = tex1Dfetch<float2>(tex, i);
    __builtin_memcpy(&r, &v, sizeof(T));
  } else {
    float4 v = tex1Dfetch<float4>(tex, i);
    __builtin_memcpy(&r, &v, sizeof(T));
  }
  return r;
}
#endif
"""


def run(ctx: Context) -> None:
    data = ctx.src.data
    if b"tex1Dfetch" not in data:
        return
    first: Node | None = None
    for m in _FETCH.finditer(data):
        t = re.sub(r"\s+", " ", m.group(1).decode())
        if _CHANNEL.fullmatch(t):
            continue
        node = ctx.src.node_at(m.start(), m.start() + len("tex1Dfetch"))
        if node is None or node.type in SKIP_TYPES:
            continue
        ctx.edit(m.start(), m.start() + len("tex1Dfetch"), HELPER, FixKind.TEXFETCH)
        ctx.report(HP.WRITTEN_FOR_HIP, Severity.INFO, m.start(), m.end(),
                   f"HIP's tex1Dfetch<T> takes only channel types: {HELPER}<{t}> (written once "
                   f"in this file) fetches the channel type of the same size and copies its bits",
                   "texture")
        if first is None:
            first = node
    if first is not None:
        write_before(ctx, first, BLOCK, FixKind.TEXFETCH)
