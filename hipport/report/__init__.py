"""Views of a RunResult. Each format is a module with `render(run, opts) -> str`; none recomputes."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from hipport.model import RunResult


@dataclass(frozen=True)
class ViewOptions:
    fail_on: str = "warning"
    color: bool = False
    show_source: bool = True
    summary: bool = True  # the text view's table and totals
    writes: bool = True  # the command writes the port (lint, --diff, --check: files "would change")
    show_fixed: bool = False  # text and github: also the notes (sites fixed or kept: done)
    statistics: bool = False  # text: one row per rule instead of one line per finding


Renderer = Callable[[RunResult, ViewOptions], str]


# Format name -> the module under hipport.report that renders it: the CLI's lint --format
# choices are these names, read without importing the views.
VIEWS = {"text": "text", "json": "jsonview", "sarif": "sarif", "github": "github"}


def formats() -> dict[str, Renderer]:
    """Format name -> renderer."""
    return {name: importlib.import_module(f"hipport.report.{module}").render for name, module in VIEWS.items()}
