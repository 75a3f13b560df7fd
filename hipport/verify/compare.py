"""Comparing what the port wrote at wave 64 with what the original wrote at wave 32: integers
bit for bit, floating point within 2 ULP element by element, and a reduction (an output much
shorter than its inputs, or one accumulated with atomics) within n·ε·Σ|xᵢ| of the wave-32
result. No float64 reference of an arbitrary kernel can be computed, so the wave-32 run is the
reference; the bound is computed in float64 from the inputs that run was given."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from hipport.verify.inputs import FLOAT_CODES, SENTINEL, Buffer

ULPS = 2
EPS = {"f": 2.0 ** -24, "d": 2.0 ** -53}
FMAX = {"f": 3.4028234663852886e38, "d": 1.7976931348623157e308}


@dataclass(frozen=True)
class Difference:
    param: str
    index: int
    expected: str  # what the wave-32 original wrote
    actual: str  # what the wave-64 port wrote
    reduction: bool


def _ordered(bits: int, width: int) -> int:
    """A float's bits as an integer that orders like the float (for ULP distances)."""
    sign = 1 << (width - 1)
    return (sign - (bits & (sign - 1))) if bits & sign else sign + bits


def _show(code: str, raw: bytes) -> str:
    if code in FLOAT_CODES and raw == SENTINEL[code]:
        return "nothing (the sentinel is still there)"
    (v,) = struct.unpack(f"<{code}", raw)
    if code not in FLOAT_CODES and raw == bytes([0xA5]) * len(raw):
        return "nothing (the sentinel is still there)"
    return repr(v)


def written(buf: Buffer, raw: bytes) -> int:
    """Elements of an output the run wrote (no longer the sentinel)."""
    size = struct.calcsize(buf.code)
    sentinel = SENTINEL[buf.code] if buf.code in FLOAT_CODES else bytes([0xA5]) * size
    return sum(1 for i in range(0, len(raw), size) if raw[i:i + size] != sentinel)


def compare(buf: Buffer, ref: bytes, port: bytes, inputs: list[tuple[Buffer, bytes]]) -> Difference | None:
    """The first element where the port's buffer differs from the original's, or None."""
    size = struct.calcsize(buf.code)
    n = len(ref) // size
    if len(port) != len(ref):
        return Difference(buf.param, 0, f"{n} elements", f"{len(port) // size} elements", False)
    if ref == port:
        return None
    if buf.code not in FLOAT_CODES:
        for i in range(n):
            a, b = ref[i * size:(i + 1) * size], port[i * size:(i + 1) * size]
            if a != b:
                return Difference(buf.param, i, _show(buf.code, a), _show(buf.code, b), False)
        return None
    # a reduction: accumulated with atomics, or far fewer elements written than read
    floats_in = [(b, raw) for b, raw in inputs if b.code in FLOAT_CODES and b.role == "input"]
    longest = max((len(raw) // struct.calcsize(b.code) for b, raw in floats_in), default=0)
    reduction = bool(floats_in) and (buf.role == "accumulator" or 4 * written(buf, ref) <= longest)
    bound = 0.0
    if reduction:
        total = 0.0
        for fb, fraw in floats_in:
            total += math.fsum(abs(v) for v in struct.unpack(f"<{len(fraw) // struct.calcsize(fb.code)}{fb.code}", fraw)
                               if math.isfinite(v))
        bound = longest * EPS[buf.code] * total
    width = size * 8
    ints = "<" + {"f": "I", "d": "Q"}[buf.code]
    for i in range(n):
        a, b = ref[i * size:(i + 1) * size], port[i * size:(i + 1) * size]
        if a == b:
            continue
        if SENTINEL[buf.code] in (a, b):
            return Difference(buf.param, i, _show(buf.code, a), _show(buf.code, b), reduction)
        (x,), (y,) = struct.unpack(f"<{buf.code}", a), struct.unpack(f"<{buf.code}", b)
        if math.isnan(x) and math.isnan(y):
            continue
        if math.isfinite(x) and math.isfinite(y):
            (ia,), (ib,) = struct.unpack(ints, a), struct.unpack(ints, b)
            if abs(_ordered(ia, width) - _ordered(ib, width)) <= ULPS:
                continue
            if reduction and abs(x - y) <= bound:
                continue
        elif reduction and not (math.isnan(x) or math.isnan(y)) and bound / EPS[buf.code] > FMAX[buf.code] / 2:
            continue  # a partial sum may overflow in one order and not in another
        return Difference(buf.param, i, _show(buf.code, a), _show(buf.code, b), reduction)
    return None


def reduction_outputs(bufs: list[Buffer], ref: list[bytes]) -> list[str]:
    """The float outputs compared as reductions for one case (for the result's note)."""
    floats_in = [(b, raw) for b, raw in zip(bufs, ref, strict=False) if b.code in FLOAT_CODES and b.role == "input"]
    longest = max((len(raw) // struct.calcsize(b.code) for b, raw in floats_in), default=0)
    return [b.param for b, raw in zip(bufs, ref, strict=False) if b.code in FLOAT_CODES and b.role != "input" and floats_in
            and (b.role == "accumulator" or 4 * written(b, raw) <= longest)]
