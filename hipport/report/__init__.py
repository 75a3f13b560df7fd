"""Views of a RunResult. Each format is a module with `render(run, opts) -> str`; none recomputes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hipport.model import RunResult


@dataclass(frozen=True)
class ViewOptions:
    fail_on: str = "warning"
    color: bool = False
    show_source: bool = True
    summary: bool = True  # the text view's table and totals


Renderer = Callable[[RunResult, ViewOptions], str]


def formats() -> dict[str, Renderer]:
    """Format name -> renderer; the CLI's --format choices come from here."""
    from hipport.report import github, jsonview, sarif, text

    return {"text": text.render, "json": jsonview.render, "sarif": sarif.render,
            "github": github.render}
