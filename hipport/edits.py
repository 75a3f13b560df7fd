"""The one place text changes: apply non-overlapping edits to the original bytes."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from hipport.model import Edit


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end:  # insertion: clashes only with an edit that strictly contains the point
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


def resolve(edits: list[Edit]) -> tuple[list[Edit], list[tuple[Edit, Edit]]]:
    """Deduplicate edits and settle overlaps; returns (edits in file order, conflicts).

    Higher priority wins: a lower-priority edit inside a higher-priority one is superseded
    silently (the wave64 rewrite of a call already says what the call becomes). Any other
    overlap is a conflict: the loser is dropped and returned so the caller can report it.
    """
    unique = list(dict.fromkeys(edits))
    # Edits can only clash within a run of edits that overlap one another, so settle each run
    # on its own: runs are a few edits long, where one sorted list of a whole file's accepted
    # edits would cost a shift of that list per edit.
    by_pos = sorted(range(len(unique)), key=lambda i: (unique[i].start, unique[i].end,
                                                       -unique[i].priority, i))
    accepted: list[Edit] = []
    conflicts: list[tuple[int, Edit, Edit]] = []  # (the loser's index, winner, loser)
    run: list[int] = []
    reach = -1
    for i in by_pos:
        e = unique[i]
        if run and e.start >= reach:
            _settle(unique, run, accepted, conflicts)
            run = []
        run.append(i)
        reach = max(reach, e.end) if len(run) > 1 else e.end
    if run:
        _settle(unique, run, accepted, conflicts)
    # Report conflicts in the order edits are weighed: by priority, then as given.
    conflicts.sort(key=lambda c: (-unique[c[0]].priority, c[0]))
    return accepted, [(a, b) for _, a, b in conflicts]


def _settle(unique: list[Edit], run: list[int], accepted: list[Edit],
            conflicts: list[tuple[int, Edit, Edit]]) -> None:
    """Weigh one run of edits (indexes into `unique`, in file order) by priority, then as
    given; append the winners to `accepted` in file order and the losers to `conflicts`."""
    if len(run) == 1:
        accepted.append(unique[run[0]])
        return
    kept: list[Edit] = []  # kept sorted by (start, end)
    keys: list[tuple[int, int]] = []
    for i in sorted(run, key=lambda i: (-unique[i].priority, i)):
        e = unique[i]
        # Kept edits never overlap, so their ends are sorted too: scan back from the
        # last one that starts before e ends, and stop at the first that ends before e.
        j = bisect.bisect_right(keys, (e.end, 1 << 62)) - 1
        clash = None
        while j >= 0:
            a = kept[j]
            j -= 1
            if a.end < e.start:
                break
            if _overlaps(e, a) or (a.start, a.end) == (e.start, e.end) != (e.start, e.start):
                clash = a
                break
        if clash is None:
            pos = bisect.bisect_right(keys, (e.start, e.end))
            keys.insert(pos, (e.start, e.end))
            kept.insert(pos, e)
            continue
        superseded = clash.priority > e.priority and clash.start <= e.start and e.end <= clash.end
        if not superseded and clash.replacement != e.replacement:
            conflicts.append((i, clash, e))
    accepted.extend(kept)


def keep_comments(edits: Sequence[Edit], data: bytes) -> list[Edit]:
    """The same edits, with every comment inside a replaced range left in place.

    A rewrite replaces code by byte span (a deleted mask, a rewritten call), and a comment
    written in that code is the author's, not the rewrite's: the edit is split around it, its
    replacement going where the range starts. A `//` comment keeps the line break that ends it
    (and the indentation after), or the code after it would become comment. A comment the
    replacement already holds (copied with an argument) is not kept twice."""
    out: list[Edit] = []
    for e in edits:
        if e.start == e.end or data.find(b"/", e.start, e.end) < 0:
            out.append(e)
            continue
        spans = [c for c in _comments(data, e.start, e.end)
                 if data[c[0]:c[1]].decode("utf-8", "surrogateescape") not in e.replacement]
        if not spans:
            out.append(e)
            continue
        pos, text = e.start, e.replacement
        for k, (cs, ce) in enumerate(spans):
            if pos < cs or text:
                out.append(Edit(pos, cs, text, e.rule, e.priority))
            text, pos = "", ce
            if data.startswith(b"//", cs):
                nl = data.find(b"\n", ce, e.end)
                if nl >= 0:  # keep the line break, and the indentation of the next line
                    pos = nl + 1
                    while pos < e.end and data[pos] in b" \t":
                        pos += 1
                continue
            gap = data[ce:spans[k + 1][0] if k + 1 < len(spans) else e.end]
            if not gap.strip():
                pos += len(gap)  # only blanks before the next comment or the end: keep them
            elif any(b in b" \t\r\n" for b in gap):
                text = " "  # `/* all */, v` -> `/* all */ v`
        if pos < e.end or text:
            out.append(Edit(pos, e.end, text, e.rule, e.priority))
    return out


def _comments(data: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The comments wholly inside data[start:end], which starts at a token (an edit's range):
    string and character literals are skipped; a raw string gives up (no comments kept)."""
    out: list[tuple[int, int]] = []
    i = start
    while i < end:
        c = data[i]
        if c == 0x2F and i + 1 < end:  # /
            nxt = data[i + 1]
            if nxt == 0x2A:  # /* ... */
                close = data.find(b"*/", i + 2, end)
                if close < 0:
                    break
                out.append((i, close + 2))
                i = close + 2
                continue
            if nxt == 0x2F:  # // ... up to the line break
                nl = data.find(b"\n", i, end)
                stop = end if nl < 0 else nl
                if data[stop - 1:stop] == b"\r":
                    stop -= 1
                out.append((i, stop))
                i = stop
                continue
        elif c in (0x22, 0x27):  # " or '
            if c == 0x22 and i > start and data[i - 1] == 0x52:  # R"(...)"
                return []
            j = i + 1
            while j < end and data[j] != c:
                j += 2 if data[j] == 0x5C else 1  # a backslash escapes the next byte
            i = j + 1
            continue
        i += 1
    return out


def apply_edits(data: bytes, edits: Sequence[Edit]) -> bytes:
    """Apply resolved edits (in file order, non-overlapping) to `data`."""
    if not edits:
        return data
    out: list[bytes] = []
    pos = 0
    for e in edits:
        if e.start < pos:
            raise ValueError(f"overlapping edits at byte {e.start} ({e.rule})")
        out.append(data[pos:e.start])
        out.append(e.replacement.encode("utf-8", "surrogateescape"))
        pos = e.end
    out.append(data[pos:])
    return b"".join(out)
