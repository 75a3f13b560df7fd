"""The one line diff: patience diff over byte lines, for `port --diff`, the report's line
alignment and validate's map of a ported tree it did not port (`--ported`)."""

from __future__ import annotations

from difflib import SequenceMatcher


def split_lines(data: bytes) -> list[bytes]:
    """Lines split on b"\\n" only, each with its newline (a last one without stays apart)."""
    lines = data.split(b"\n")
    last = lines.pop()
    out = [x + b"\n" for x in lines]
    if last:
        out.append(last)  # no newline at the end: kept apart from the same line with one
    return out


Opcode = tuple[str, int, int, int, int]
# A gap with no line unique to both sides is diffed by difflib only while it is this small
# (its cost grows with the product of the sides); a larger one is written as a replacement.
_SMALL_GAP = 250_000


def opcodes(a: list[bytes], b: list[bytes]) -> list[Opcode]:
    """Patience diff: common ends, then lines that occur once on each side (in an order both
    keep) as anchors, recursively; near-linear for a port, which changes lines in place.
    difflib on a whole file is quadratic in its repeated lines (`}`, blank lines)."""
    pairs: list[tuple[int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            pairs.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            pairs.append((ahi, bhi))
        if alo == ahi or blo == bhi:
            continue
        anchors = _anchors(a, alo, ahi, b, blo, bhi)
        if not anchors:
            if (ahi - alo) * (bhi - blo) <= _SMALL_GAP:
                sm = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
                pairs.extend((alo + i + k, blo + j + k)
                             for i, j, n in sm.get_matching_blocks() for k in range(n))
            continue
        prev_a, prev_b = alo, blo
        for i, j in anchors:
            pairs.append((i, j))
            stack.append((prev_a, i, prev_b, j))
            prev_a, prev_b = i + 1, j + 1
        stack.append((prev_a, ahi, prev_b, bhi))
    pairs.sort()
    ops: list[Opcode] = []
    i = j = 0
    for x, y in pairs + [(len(a), len(b))]:
        if x > i or y > j:
            tag = "replace" if x > i and y > j else "delete" if x > i else "insert"
            ops.append((tag, i, x, j, y))
        if x < len(a):
            if ops and ops[-1][0] == "equal" and ops[-1][2] == x:
                ops[-1] = ("equal", ops[-1][1], x + 1, ops[-1][3], y + 1)
            else:
                ops.append(("equal", x, x + 1, y, y + 1))
        i, j = x + 1, y + 1
    return ops


def _anchors(a: list[bytes], alo: int, ahi: int, b: list[bytes], blo: int, bhi: int) -> list[tuple[int, int]]:
    """Lines unique on both sides, as (i, j) pairs in the longest order both sides keep."""
    seen: dict[bytes, int] = {}
    for i in range(alo, ahi):
        seen[a[i]] = -1 if a[i] in seen else i
    inb: dict[bytes, int] = {}
    for j in range(blo, bhi):
        x = b[j]
        if seen.get(x, -1) >= 0:
            inb[x] = -1 if x in inb else j
    cands = [(seen[x], j) for x, j in inb.items() if j >= 0]
    cands.sort()
    # Longest increasing run of j (patience sorting), with back links to rebuild it.
    tails: list[int] = []
    tail_at: list[int] = []
    back = [-1] * len(cands)
    for k, (_, j) in enumerate(cands):
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < j:
                lo = mid + 1
            else:
                hi = mid
        back[k] = tail_at[lo - 1] if lo else -1
        if lo == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[lo], tail_at[lo] = j, k
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(cands[k])
        k = back[k]
    return run[::-1]
