"""`port --diff`: a patch that `git apply` and `patch -p1` accept and that reproduces what
`port -o` writes, byte for byte.

Lines are split on b"\\n" only (a U+2028 or form feed in a comment is not a line break),
bytes are never decoded, a last line without a newline gets git's marker, and paths are
relative to the repository's top (else the current folder), as `git diff` writes them.
"""

from __future__ import annotations

import os
from pathlib import Path

from hipport.linediff import Opcode, opcodes, split_lines
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
    return b"".join(head) + b"".join(hunks(split_lines(a), split_lines(b)))


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
