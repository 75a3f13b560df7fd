"""Comparing what the port wrote at wave 64 with what the original wrote at wave 32: integers
bit for bit, floating point within 2 ULP element by element, and a reduction (an output much
shorter than its inputs, or one accumulated with atomics) within n·ε·Σ|xᵢ|. A reduction to one
total that the wave-32 run computed as the float64 sum of its inputs is compared with that sum;
any other (partials per block, a kernel that is not a sum) with the wave-32 result, as no float64
reference of an arbitrary kernel can be computed. The bound and the sum are computed in float64
from the inputs the runs were given; each result says which reference it used."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from hipport.verify.inputs import FLOAT_CODES, SENTINEL, Buffer

ULPS = 2
FLOAT64 = "the float64 sum of the inputs"
WAVE32 = "the wave-32 result"
EPS = {"f": 2.0 ** -24, "d": 2.0 ** -53}
FMAX = {"f": 3.4028234663852886e38, "d": 1.7976931348623157e308}


@dataclass(frozen=True)
class Difference:
    param: str
    index: int
    expected: str  # what the wave-32 original wrote
    actual: str  # what the wave-64 port wrote
    reduction: bool
    basis: str = ""  # a reduction's reference: FLOAT64 or WAVE32


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


def compare(buf: Buffer, ref: bytes, port: bytes, inputs: list[tuple[Buffer, bytes]],
            count: int | None = None) -> Difference | None:
    """The first element where the port's buffer differs from the original's, or None.
    `count`: the size parameter's value (the inputs' elements past it are not the kernel's data)."""
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
    reduction, bound, total = _reduction(buf, ref, inputs, count)
    width = size * 8
    ints = "<" + {"f": "I", "d": "Q"}[buf.code]
    for i in range(n):
        a, b = ref[i * size:(i + 1) * size], port[i * size:(i + 1) * size]
        if a == b:
            continue
        if SENTINEL[buf.code] in (a, b):
            return Difference(buf.param, i, _show(buf.code, a), _show(buf.code, b), reduction,
                              WAVE32 if reduction else "")
        (x,), (y,) = struct.unpack(f"<{buf.code}", a), struct.unpack(f"<{buf.code}", b)
        if total is not None and i == total[0]:  # the one total, against its float64 sum
            if math.isfinite(y) and abs(y - total[1]) <= bound:
                continue
            return Difference(buf.param, i, f"{x!r} (the float64 sum of the inputs is {total[1]!r})",
                              _show(buf.code, b), True, FLOAT64)
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
        return Difference(buf.param, i, _show(buf.code, a), _show(buf.code, b), reduction,
                          WAVE32 if reduction else "")
    return None


def _values(b: Buffer, raw: bytes, count: int | None) -> tuple[float, ...]:
    n = len(raw) // struct.calcsize(b.code)
    return struct.unpack(f"<{n}{b.code}", raw)[:count]


def _reduction(buf: Buffer, ref: bytes, inputs: list[tuple[Buffer, bytes]],
               count: int | None) -> tuple[bool, float, tuple[int, float] | None]:
    """Whether a float output is a reduction (accumulated with atomics, or far fewer elements
    written than read); its bound n·ε·Σ|xᵢ| (float64, from the inputs the runs were given); and,
    when the original wrote one element only and it is the float64 sum of the inputs within that
    bound, (its index, that sum): the kernel sums its input, and the sum is its reference."""
    floats_in = [(b, raw) for b, raw in inputs if b.code in FLOAT_CODES and b.role == "input"]
    longest = max((len(_values(b, raw, count)) for b, raw in floats_in), default=0)
    if buf.code not in FLOAT_CODES or buf.role == "input" or not floats_in or \
            not (buf.role == "accumulator" or 4 * written(buf, ref) <= longest):
        return False, 0.0, None
    values = [v for b, raw in floats_in for v in _values(b, raw, count)]
    bound = longest * EPS[buf.code] * math.fsum(abs(v) for v in values if math.isfinite(v))
    size = struct.calcsize(buf.code)
    initial = bytes(size) if buf.role == "accumulator" else SENTINEL[buf.code]
    touched = [i for i in range(len(ref) // size) if ref[i * size:(i + 1) * size] != initial]
    if len(touched) != 1 or not all(math.isfinite(v) for v in values):
        return True, bound, None
    exact = math.fsum(values)
    (x,) = struct.unpack(f"<{buf.code}", ref[touched[0] * size:(touched[0] + 1) * size])
    return True, bound, ((touched[0], exact) if math.isfinite(x) and abs(x - exact) <= bound else None)


def reduction_outputs(bufs: list[Buffer], ref: list[bytes], count: int | None = None) -> list[str]:
    """The float outputs compared as reductions in one case, each with its reference."""
    ins = list(zip(bufs, ref, strict=True))
    out = []
    for b, raw in ins:
        red, _, total = _reduction(b, raw, ins, count)
        if red:
            out.append(f"{b.param} ({FLOAT64 if total is not None else WAVE32})")
    return out
