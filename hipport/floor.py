"""The ROCm floor (`--rocm`, `rocm = "6.2"`): the oldest ROCm the output must compile on.

One version type and one parser for every ROCm or HIP version hipport reads (the floor, the
tables' `since` and `floors`, a toolchain's HIP version), and the questions passes ask of the
floor: `floor.has("warp-sync-builtins")` (a feature named in rules/floors.toml with the release
that brought it) and `floor.at_least("6.2")` (a table's `since`). A floor names a release that
rules/floors.toml lists; any other is one line and exit 2.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from typing import Any

from hipport.errors import HipportError
from hipport.paths import rules_dir

Version = tuple[int, ...]  # (6, 2) or (6, 4, 43484): compared as tuples, (6, 2) < (6, 2, 0)

_FLOOR = re.compile(r"\d+\.\d+(\.\d+)?")


@cache
def version(text: str) -> Version:
    """The numbers of a version string, leniently (as HIP prints one, "6.4.43484"): every
    dot-separated part that is a number."""
    return tuple(int(p) for p in text.split(".") if p.isdigit())


@cache
def _table() -> dict[str, Any]:
    with (rules_dir() / "floors.toml").open("rb") as f:
        return tomllib.load(f)


def releases() -> tuple[str, ...]:
    """The ROCm releases a floor can name, oldest first."""
    return tuple(_table()["releases"])


def features() -> dict[str, str]:
    """Feature name -> the first release whose HIP has it."""
    return dict(_table()["features"])


@dataclass(frozen=True, slots=True)
class RocmFloor:
    text: str  # as given: "6.2"
    version: Version

    def __str__(self) -> str:
        return self.text

    def at_least(self, since: str) -> bool:
        """Does the floor's HIP have what arrived in ROCm `since`?"""
        return self.version >= version(since)

    def lacks(self, since: str) -> bool:
        """Is `since` later than the floor (what it names cannot be emitted)?"""
        return not self.at_least(since)

    def has(self, feature: str) -> bool:
        """Does the floor's HIP have `feature` (a name in rules/floors.toml)?"""
        return self.at_least(features()[feature])


def check(text: object) -> str | None:
    """Why `text` is no floor hipport knows (None when it is one)."""
    known = releases()
    if not isinstance(text, str) or not _FLOOR.fullmatch(text):
        return f"a ROCm version such as 5.2 or 6.2 (a release from {known[0]} to {known[-1]})"
    if ".".join(text.split(".")[:2]) not in known:
        return f"a ROCm release hipport knows, from {known[0]} to {known[-1]}"
    return None


@cache
def floor(text: str) -> RocmFloor:
    """The floor `text` names; an unknown one is a usage error."""
    why = check(text)
    if why is not None:
        raise HipportError(f"--rocm must be {why}, not {text!r}")
    return RocmFloor(text, version(text))
