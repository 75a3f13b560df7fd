"""A validate run of a few units with one of validate's speed switches on and off: the two
answers must be the same (the switch may only change how fast they come)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import hipport


def validate_both_ways(tmp_path: Path, units: dict[str, bytes], switch: str,
                       *extra: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON documents of `hipport validate` over `units` with `switch` set to 1, then 0."""
    src = tmp_path / "src"
    src.mkdir()
    for name, data in units.items():
        (src / name).write_bytes(data)
    docs = []
    for flag in ("1", "0"):
        p = hipport("validate", src, "--offload-arch", "gfx90a", "--format", "json", "--no-cache", *extra,
                    env={switch: flag})
        assert p.returncode == 1, p.stderr.decode()
        docs.append(json.loads(p.stdout))
    on, off = docs
    assert on["table"] == off["table"]
    return on, off


def outcomes(doc: dict[str, Any]) -> dict[str, str]:
    return {Path(r["file"]).name: r["compile gfx90a"] for r in doc["table"]}
