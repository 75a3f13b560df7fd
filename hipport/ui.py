"""The one output channel: a rich Console for stderr chatter, stdout for requested data."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hipport.model import RunResult
from hipport.report import ViewOptions, formats
from hipport.report.printable import printable

if TYPE_CHECKING:
    from rich.console import Console


class UI:
    def __init__(self, quiet: bool = False, fail_on: str = "warning", show_fixed: bool = False,
                 statistics: bool = False) -> None:
        self.quiet = quiet
        self.fail_on = fail_on
        self.show_fixed = show_fixed
        self.statistics = statistics
        self._console: Console | None = None

    @property
    def err_console(self) -> Console:
        """Made on first use: a quiet run that prints nothing need not import rich."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True, no_color=bool(os.environ.get("NO_COLOR")),
                                    highlight=False)
        return self._console

    @property
    def color(self) -> bool:
        return sys.stdout.isatty() and not os.environ.get("NO_COLOR")

    def err(self, msg: str) -> None:
        self.err_console.print(printable(msg), markup=False, soft_wrap=True)  # one line each

    @contextmanager
    def progress(self, what: str) -> Iterator[Callable[[int, int], None] | None]:
        """A progress bar on a terminal; nothing at all when stderr is not a TTY."""
        if self.quiet or not self.err_console.is_terminal:
            yield None
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with Progress(TextColumn(f"[bold]{what}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                      TextColumn("{task.fields[current]}", markup=False),
                      console=self.err_console, transient=True) as p:
            task = p.add_task(what, total=None, current="")

            def update(done: int, total: int, current: str = "") -> None:
                name = printable(current)
                p.update(task, completed=done, total=total,
                         current=name if len(name) <= 50 else "…" + name[-49:])

            yield update

    def report(self, result: RunResult, fmt: str, to_stderr: bool = False,
               findings: bool = False, writes: bool = True) -> None:
        """The run in `fmt`. Quiet text shows only failures, or with `findings` (lint -q)
        the findings without the summary."""
        for note in result.notes:
            self.err(f"hipport: {note}")
        if self.quiet and fmt == "text" and not findings:  # quiet still names what failed
            for r in result.files:
                if r.status.value == "failed":
                    self.err(f"{r.path}: error: {r.error}")
            return
        render = formats()[fmt]
        text = render(result, ViewOptions(fail_on=self.fail_on, color=self.color and not to_stderr,
                                          summary=not self.quiet, writes=writes,
                                          show_fixed=self.show_fixed, statistics=self.statistics))
        stream = sys.stderr if to_stderr else sys.stdout
        stream.write(text)
        stream.flush()
