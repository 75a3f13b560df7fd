"""Map positions between an original file and its port: ported -> original for validate
(a compiler's error in the port, shown at the CUDA line), original -> ported for the HTML
report (a finding shown beside the ported line). One map, so both agree on every line.

A port is a list of byte-span edits on the original, so the ported text is a sequence of
segments that are either copied from the original or written by an edit. A position in a
copied segment maps back exactly; a position inside a replacement maps to the start of the
edit (or, when the replacement has as many lines as the text it replaced, to the same line
of that text). When only the two texts are known (`--ported DIR`), a line diff stands in
for the edits.
"""

from __future__ import annotations

import bisect
from array import array
from dataclasses import dataclass
from typing import NamedTuple

from hipport.linediff import opcodes, split_lines


@dataclass(frozen=True, slots=True)
class Location:
    line: int  # 1-based, in the original
    column: int  # 1-based byte column, in the original
    rewritten: bool = False  # the ported position lies in text hipport wrote


class _Segment(NamedTuple):  # a tuple: one per edit and gap, built for every report page
    p_start: int  # ported offsets [p_start, p_end)
    p_end: int
    o_start: int  # original offsets [o_start, o_end)
    o_end: int
    edited: bool


def line_starts(data: bytes) -> array[int]:
    """The offset where each line of `data` starts (lines end at b"\\n"): hipport's one line
    index, 4 bytes a line (a list holds a Python int each, 36)."""
    starts = array("I" if len(data) < 1 << 32 else "Q", [0])
    find = data.find
    i = find(b"\n")
    while i != -1:
        starts.append(i + 1)
        i = find(b"\n", i + 1)
    return starts


class LineMap:
    """Ported (line, column) <-> original (line, column). Built once per file."""

    def __init__(self, original: bytes, edits: list | tuple = ()) -> None:
        self.original = original
        self._o_lines = line_starts(original)
        segs: list[_Segment] = []
        out: list[bytes] = []
        self.skipped = False  # an edit overlapped an earlier one (apply_edits would refuse them)
        self.rewrites: list[tuple[int, int]] = []  # [start, end) in the port of each applied edit
        self._e_starts: list[int] = []  # the applied edits' original starts and ends
        self._e_ends: list[int] = []
        self._delta: list[int] = []  # ported minus original offset after each applied edit
        pos = 0  # in the original
        p = 0  # in the ported text
        for e in sorted(edits, key=lambda e: (e.start, e.end)):
            if e.start < pos:  # overlapping edits never reach the output; skip defensively
                self.skipped = True
                continue
            if e.start > pos:
                n = e.start - pos
                segs.append(_Segment(p, p + n, pos, e.start, False))
                out.append(original[pos:e.start])
                p += n
            rep = e.replacement.encode("utf-8", "surrogateescape")
            segs.append(_Segment(p, p + len(rep), e.start, e.end, True))
            self.rewrites.append((p, p + len(rep)))
            self._e_starts.append(e.start)
            self._e_ends.append(e.end)
            out.append(rep)
            p += len(rep)
            self._delta.append(p - e.end)
            pos = e.end
        if pos < len(original) or not segs:
            segs.append(_Segment(p, p + len(original) - pos, pos, len(original), False))
            out.append(original[pos:])
        self.ported = b"".join(out)
        self._segs = segs
        self._seg_starts = [s.p_start for s in segs]
        self._p_lines = line_starts(self.ported)

    @classmethod
    def from_texts(cls, original: bytes, ported: bytes) -> LineMap:
        """A line-granular map from a diff of the two texts (no edit list known)."""
        a = split_lines(original)
        b = split_lines(ported)
        starts = [0]
        for line in a:
            starts.append(starts[-1] + len(line))
        edits = []
        for tag, i1, i2, j1, j2 in opcodes(a, b):
            if tag == "equal":
                continue
            rep = b"".join(b[j1:j2]).decode("utf-8", "surrogateescape")
            edits.append(_TextEdit(starts[i1], starts[i2], rep))
        m = cls(original, edits)
        return m

    def original_location(self, line: int, column: int = 1) -> Location:
        """Where ported `line:column` (1-based; clang's byte columns) came from."""
        if line < 1:
            return Location(1, 1)
        if line > len(self._p_lines):
            return Location(len(self._o_lines), 1)
        p_line_start = self._p_lines[line - 1]
        p_line_end = self._p_lines[line] - 1 if line < len(self._p_lines) else len(self.ported)
        off = min(p_line_start + max(column, 1) - 1, max(p_line_end, p_line_start))
        i = bisect.bisect_right(self._seg_starts, off) - 1
        # An offset at the end of one segment and the start of the next belongs to the next,
        # unless the next is an empty deletion.
        while i + 1 < len(self._segs) and self._segs[i + 1].p_start == off and \
                self._segs[i + 1].p_end == off:
            i += 1
        if i < 0:
            return self._loc(0, False)
        seg = self._segs[i]
        if not seg.edited:
            return self._loc(seg.o_start + (off - seg.p_start), False)
        # Inside a replacement: same line of the replaced text when the line counts agree.
        rep = self.ported[seg.p_start:seg.p_end]
        old = self.original[seg.o_start:seg.o_end]
        k = rep.count(b"\n", 0, off - seg.p_start)
        if k and rep.count(b"\n") == old.count(b"\n"):
            o = seg.o_start
            for _ in range(k):
                o = self.original.index(b"\n", o) + 1
            return self._loc(o, True)
        if k == 0 and off - seg.p_start <= seg.o_end - seg.o_start:
            # Same line as the edit start: keep the column where the texts still overlap.
            return self._loc(seg.o_start + (off - seg.p_start), True)
        return self._loc(seg.o_start, True)

    def ported_offset(self, o: int) -> int:
        """Where original offset `o` lies in the port: inside a rewritten stretch, at its
        start; at the start of an edit (an insertion too), before its replacement."""
        k = bisect.bisect_left(self._e_starts, o)  # edits 0..k-1 start before o
        if k == 0:
            return o
        if self._e_ends[k - 1] <= o:
            return o + self._delta[k - 1]
        return self.rewrites[k - 1][0]

    def original_line(self, o: int) -> int:
        """The 1-based line of original offset `o`."""
        return bisect.bisect_right(self._o_lines, o)

    def ported_line(self, p: int) -> int:
        """The 1-based line of ported offset `p`."""
        return bisect.bisect_right(self._p_lines, p)

    def original_line_start(self, line: int) -> int:
        """The offset where original `line` (1-based) starts; past the last: the length."""
        return self._o_lines[line - 1] if line <= len(self._o_lines) else len(self.original)

    def _loc(self, o: int, rewritten: bool) -> Location:
        o = max(0, min(o, len(self.original)))
        i = bisect.bisect_right(self._o_lines, o) - 1
        return Location(i + 1, o - self._o_lines[i] + 1, rewritten)

    def original_line_text(self, line: int) -> str:
        if not 1 <= line <= len(self._o_lines):
            return ""
        s = self._o_lines[line - 1]
        e = self.original.find(b"\n", s)
        return self.original[s:e if e != -1 else len(self.original)].decode("utf-8", "replace")

    def ported_line_text(self, line: int) -> str:
        if not 1 <= line <= len(self._p_lines):
            return ""
        s = self._p_lines[line - 1]
        e = self.ported.find(b"\n", s)
        return self.ported[s:e if e != -1 else len(self.ported)].decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class _TextEdit:
    start: int
    end: int
    replacement: str

