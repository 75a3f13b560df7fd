"""Issue 33's papercuts, each through the real command line: what a new user trips on first."""

from __future__ import annotations

import re

import click
import typer

from hipport.cli import app
from tests.conftest import hipport


def _commands() -> list[tuple[str, ...]]:
    """Every command and subcommand path (`port`, `rules lookup`, ...)."""
    out: list[tuple[str, ...]] = []

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, (*path, name))
        else:
            out.append(path)

    walk(typer.main.get_command(app), ())
    return out


def test_help_is_readable_at_80_columns() -> None:
    """Rich's option table folded choice lists mid-word (`<auto|logical32|nativ` / `e>`) and read
    help text as markup (`pip install 'hipport[precise]'` lost `[precise]`)."""
    for path in _commands():
        r = hipport(*path, "--help", env={"COLUMNS": "80"})
        text = r.stdout.decode()
        assert r.returncode == 0, (path, r.stderr)
        assert all(len(line) <= 80 for line in text.splitlines()), (path, text)
        cmd = typer.main.get_command(app)
        for name in path:
            assert isinstance(cmd, click.Group)
            cmd = cmd.commands[name]
        for p in cmd.params:
            if isinstance(p.type, click.Choice):
                shown = "<" + "|".join(map(str, p.type.choices)) + ">"
                assert shown in text, (path, shown, text)  # on one line, whole
    port = hipport("port", "--help", env={"COLUMNS": "80"}).stdout.decode()
    assert "'hipport[precise]'" in re.sub(r"\s+", " ", port)
