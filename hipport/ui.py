"""The one output channel: a rich Console for stderr chatter, stdout for requested data."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hipport.model import RunResult
from hipport.report import ViewOptions, formats


class UI:
    def __init__(self, quiet: bool = False, fail_on: str = "warning") -> None:
        no_color = bool(os.environ.get("NO_COLOR"))
        self.err_console = Console(stderr=True, no_color=no_color, highlight=False)
        self.quiet = quiet
        self.fail_on = fail_on

    @property
    def color(self) -> bool:
        return sys.stdout.isatty() and not os.environ.get("NO_COLOR")

    def err(self, msg: str) -> None:
        self.err_console.print(msg, markup=False)

    @contextmanager
    def progress(self, what: str) -> Iterator[Callable[[int, int], None] | None]:
        """A progress bar on a terminal; nothing at all when stderr is not a TTY."""
        if self.quiet or not self.err_console.is_terminal:
            yield None
            return
        with Progress(TextColumn(f"[bold]{what}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=self.err_console, transient=True) as p:
            task = p.add_task(what, total=None)

            def update(done: int, total: int) -> None:
                p.update(task, completed=done, total=total)

            yield update

    def report(self, result: RunResult, fmt: str, to_stderr: bool = False) -> None:
        if self.quiet and fmt == "text":
            return
        render = formats()[fmt]
        text = render(result, ViewOptions(fail_on=self.fail_on,
                                          color=self.color and not to_stderr))
        stream = sys.stderr if to_stderr else sys.stdout
        stream.write(text)
        stream.flush()
