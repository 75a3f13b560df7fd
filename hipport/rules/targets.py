"""The device functions some AMD targets cannot compile (rules/targets/device.toml), and the HIP
names HIP's NVIDIA platform lacks (rules/targets/nvidia.toml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hipport.errors import HipportError
from hipport.paths import rules_dir

_KEYS = {"targets", "what", "error", "found_by", "functions"}
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Lack:
    targets: frozenset[str]  # --offload-arch processor names
    what: str
    error: str
    backend: bool  # only a full compile (code generation) shows it
    functions: frozenset[str]


@cache
def lacks(root: str | None = None) -> tuple[Lack, ...]:
    import tomllib

    path = Path(root or rules_dir()) / "targets" / "device.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise HipportError(f"invalid TOML: {e}", path) from None
    out = []
    for i, row in enumerate(data.get("lacks", [])):
        where = f"lacks[{i}]"
        if not isinstance(row, dict) or set(row) != _KEYS:
            raise HipportError(f"{where}: needs exactly the keys {sorted(_KEYS)}", path)
        names = row["functions"] + row["targets"]
        if not all(isinstance(n, str) and _WORD.fullmatch(n) for n in names):
            raise HipportError(f"{where}: targets and functions are identifiers", path)
        if row["found_by"] not in ("backend", "front end"):
            raise HipportError(f'{where}: found_by is "backend" or "front end"', path)
        out.append(Lack(frozenset(row["targets"]), str(row["what"]), str(row["error"]),
                        row["found_by"] == "backend", frozenset(row["functions"])))
    return tuple(out)


def processor(arch: str) -> str:
    """`gfx90a:xnack+` -> `gfx90a`: target features do not change the instructions."""
    return arch.split(":", 1)[0]


@cache
def amd_only(root: str | None = None) -> frozenset[str]:
    """HIP names that HIP's AMD platform declares and its NVIDIA platform does not (HP022)."""
    import tomllib

    path = Path(root or rules_dir()) / "targets" / "nvidia.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise HipportError(f"invalid TOML: {e}", path) from None
    names = data.get("names")
    if set(data) != {"hip", "names"} or not isinstance(names, list) \
            or not all(isinstance(n, str) and _WORD.fullmatch(n) for n in names):
        raise HipportError('needs exactly `hip` and `names`, a list of identifiers', path)
    return frozenset(names)
