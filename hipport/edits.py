"""The one place text changes: apply non-overlapping edits to the original bytes."""

from __future__ import annotations

import bisect

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


def apply_edits(data: bytes, edits: list[Edit]) -> bytes:
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
