"""The one error type for expected failures: it names the file (and line) and prints as one line."""

from __future__ import annotations

from pathlib import Path


class HipportError(Exception):
    """A user-facing error. `exit_code` 2 means bad usage or input; 1 a failed check."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None,
                 exit_code: int = 2) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.exit_code = exit_code
        super().__init__(message)

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return f"{where}{self.args[0]}"
