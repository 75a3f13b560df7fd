"""Lines changed since a git revision, so CI on a legacy tree reports only what a PR adds."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from hipport.errors import HipportError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


# git's C-style quoting of unusual path bytes (core.quotePath): \\ \" \a \b \t \n \v \f \r, octal.
_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11, ord("f"): 12,
            ord("r"): 13, ord('"'): 34, ord("\\"): 92}
# No external diff drivers, textconv filters or colour: a tree's .gitattributes and the
# user's git config must not choose what runs, and the output must be plain.
_DIFF = ["diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
         "--src-prefix=a/", "--dst-prefix=b/"]


def unquote(name: bytes) -> bytes:
    """A path as git prints it: as is, or C-quoted in double quotes."""
    if not (len(name) >= 2 and name[:1] == b'"' and name[-1:] == b'"'):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == 92 and i + 1 < len(body):
            nxt = body[i + 1]
            if 48 <= nxt <= 55:  # up to three octal digits: one raw byte
                j = i + 1
                while j < len(body) and j < i + 4 and 48 <= body[j] <= 55:
                    j += 1
                out.append(int(body[i + 1:j], 8) & 0xFF)
                i = j
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def _git(args: list[str], cwd: Path | str) -> bytes:
    # A repository's own config must not start a program (fsmonitor hooks, pagers).
    return subprocess.run(["git", "-c", "core.fsmonitor=false", "--no-pager", *args], cwd=cwd,
                          check=True, capture_output=True).stdout


def changed_lines(rev: str, cwd: Path) -> dict[str, set[int] | None]:
    """Absolute path -> added/changed line numbers in the working tree relative to `rev`;
    None for a file that is new as a whole (untracked)."""
    if not rev or rev.startswith("-"):  # never an option to git (--output=F writes a file)
        raise HipportError(f"--diff-base {rev!r}: expected a git revision such as origin/main")
    try:
        top = _git(["rev-parse", "--show-toplevel"], cwd).decode("utf-8", "surrogateescape").strip()
        commit = _base(rev, cwd)
        out = _git([*_DIFF, commit, "--"], cwd)
        untracked = _git(["ls-files", "-z", "--others", "--exclude-standard"], top).split(b"\0")
    except FileNotFoundError:
        raise HipportError("--diff-base needs git on PATH") from None
    except subprocess.CalledProcessError as e:
        why = e.stderr.decode("utf-8", "replace").strip() or "not a commit in this repository"
        raise HipportError(f"--diff-base {rev}: {why}") from None
    lines: dict[str, set[int] | None] = {}
    current: str | None = None
    for line in out.split(b"\n"):
        if line.startswith(b"+++ "):
            name = unquote(line[4:].rstrip(b"\t"))
            current = None if name == b"/dev/null" else _absolute(top, name[2:])
        elif current and (m := _HUNK.match(line.decode("ascii", "replace"))):
            start, count = int(m.group(1)), int(m.group(2) or 1)
            seen = lines.setdefault(current, set())
            if seen is not None:
                seen.update(range(start, start + count))
    for name in filter(None, untracked):  # a new file is all new lines
        lines[_absolute(top, name)] = None
    return lines


def _base(rev: str, cwd: Path) -> str:
    """The commit to diff against; HEAD in a repository with no commit yet (the first commit a
    pre-commit hook sees) is the empty tree, so every staged line is new."""
    try:
        return _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
                    cwd).decode("ascii").strip()
    except subprocess.CalledProcessError:
        if rev != "HEAD" or _has_head(cwd):
            raise
    return _git(["hash-object", "-t", "tree", os.devnull], cwd).decode("ascii").strip()


def _has_head(cwd: Path) -> bool:
    try:
        _git(["rev-parse", "--verify", "--quiet", "HEAD"], cwd)
    except subprocess.CalledProcessError:
        return False
    return True


def _absolute(top: str, rel: bytes) -> str:
    return str(Path(top, os.fsdecode(rel)).resolve())
