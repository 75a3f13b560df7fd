"""`port --diff`: a patch that `git apply` and `patch -p1` accept and that reproduces what
`port -o` writes, byte for byte.

Lines are split on b"\\n" only (a U+2028 or form feed in a comment is not a line break),
bytes are never decoded, a last line without a newline gets git's marker, and paths are
relative to the repository's top (else the current folder), as `git diff` writes them.
"""

from __future__ import annotations

import os
from difflib import SequenceMatcher
from pathlib import Path

from hipport.model import FileStatus, RunResult
from hipport.workspace import WorkFile, repository_top

NO_NEWLINE = b"\\ No newline at end of file\n"


def render(result: RunResult, files: list[WorkFile]) -> bytes:
    real = {wf.display: wf.file for wf in files}
    top = repository_top()
    out: list[bytes] = []
    for r in result.files:
        if r.path not in real or r.status == FileStatus.FAILED:
            continue
        old = _relative(real[r.path], top)
        new = old
        if r.output_path and os.path.basename(r.output_path) != os.path.basename(old):
            new = os.path.join(os.path.dirname(old), os.path.basename(r.output_path))
        if r.ported is not None and r.original is not None:
            out.append(file_patch(old, new, r.original, r.ported))
        elif new != old:  # renamed, content as it is (port -o writes it under the new name)
            out.append(b"diff --git " + _quote("a/" + old) + b" " + _quote("b/" + new) + b"\n"
                       b"similarity index 100%\n" + _renames(old, new))
    return b"".join(out)


def _renames(old: str, new: str) -> bytes:
    return (b"rename from " + _quote(old, prefix=False) + b"\n"
            b"rename to " + _quote(new, prefix=False) + b"\n")


def file_patch(old: str, new: str, a: bytes, b: bytes) -> bytes:
    """One file's part of the patch, with git's header (and its rename lines)."""
    qa, qb = _quote("a/" + old), _quote("b/" + new)
    head = [b"diff --git " + qa + b" " + qb + b"\n"]
    if old != new:
        head.append(_renames(old, new))
    head += [b"--- " + qa + b"\n", b"+++ " + qb + b"\n"]
    return b"".join(head) + b"".join(hunks(_lines(a), _lines(b)))


def hunks(a: list[bytes], b: list[bytes], context: int = 3) -> list[bytes]:
    out: list[bytes] = []
    for group in _grouped(opcodes(a, b), len(a), len(b), context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(b"@@ -%s +%s @@\n" % (_range(i1, i2), _range(j1, j2)))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_line(b" ", x) for x in a[a1:a2])
                continue
            out.extend(_line(b"-", x) for x in a[a1:a2])
            out.extend(_line(b"+", x) for x in b[b1:b2])
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


def _grouped(ops: list[Opcode], na: int, nb: int, n: int) -> list[list[Opcode]]:
    """Changes with up to `n` lines of context each side; changes closer than 2n share a hunk."""
    if not any(op[0] != "equal" for op in ops):
        return []
    codes = list(ops)
    if codes[0][0] == "equal":
        _, i1, i2, j1, j2 = codes[0]
        codes[0] = ("equal", max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    if codes[-1][0] == "equal":
        _, i1, i2, j1, j2 = codes[-1]
        codes[-1] = ("equal", i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    last = lines.pop()
    out = [x + b"\n" for x in lines]
    if last:
        out.append(last)  # no newline at the end: kept apart from the same line with one
    return out


def _line(sign: bytes, x: bytes) -> bytes:
    return sign + x if x.endswith(b"\n") else sign + x + b"\n" + NO_NEWLINE


def _range(start: int, stop: int) -> bytes:
    n = stop - start
    first = start + 1 if n else start
    return b"%d" % first if n == 1 else b"%d,%d" % (first, n)


_ESCAPES = {ord('"'): b'\\"', ord("\\"): b"\\\\", ord("\t"): b"\\t", ord("\n"): b"\\n",
            ord("\r"): b"\\r", 7: b"\\a", 8: b"\\b", 11: b"\\v", 12: b"\\f"}


def _quote(path: str, prefix: bool = True) -> bytes:
    """A path as git writes it: bare, or C-quoted when it has a byte git would quote."""
    raw = path.encode("utf-8", "surrogateescape")
    if not any(c < 0x20 or c >= 0x7F or c in (0x22, 0x5C) for c in raw):
        return raw
    body = b"".join(_ESCAPES.get(c) or (b"\\%03o" % c if c < 0x20 or c >= 0x7F else bytes([c]))
                    for c in raw)
    return b'"' + body + b'"'


def _relative(path: str, top: Path) -> str:
    return Path(os.path.relpath(path, top)).as_posix()


__all__ = ["render", "file_patch"]
