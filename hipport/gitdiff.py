"""Lines changed since a git revision, so CI on a legacy tree reports only what a PR adds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from hipport.errors import HipportError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines(rev: str, cwd: Path) -> dict[str, set[int] | None]:
    """Absolute path -> added/changed line numbers in the working tree relative to `rev`;
    None for a file that is new as a whole (untracked)."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=cwd, check=True,
                             capture_output=True, text=True).stdout.strip()
        out = subprocess.run(["git", "diff", "--unified=0", "--no-color", "--no-ext-diff", rev, "--"],
                             cwd=cwd, check=True, capture_output=True, text=True,
                             errors="replace").stdout
        untracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=top,
                                   check=True, capture_output=True, text=True).stdout.split()
    except FileNotFoundError:
        raise HipportError("--diff-base needs git on PATH") from None
    except subprocess.CalledProcessError as e:
        raise HipportError(f"--diff-base {rev}: {e.stderr.strip() or 'git failed'}") from None
    lines: dict[str, set[int] | None] = {}
    current: str | None = None
    for line in out.splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            current = None if name == "/dev/null" else str(Path(top, name[2:]).resolve())
        elif current and (m := _HUNK.match(line)):
            start, count = int(m.group(1)), int(m.group(2) or 1)
            seen = lines.setdefault(current, set())
            if seen is not None:
                seen.update(range(start, start + count))
    for name in untracked:  # a new file is all new lines
        lines[str(Path(top, name).resolve())] = None
    return lines
