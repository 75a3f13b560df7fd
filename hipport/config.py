"""Config: defaults < [tool.hipport] in pyproject.toml or .hipport.toml < command-line flags.

Every value remembers where it came from so `hipport config` can say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

from hipport.errors import HipportError

WAVE_STRATEGIES = ("auto", "logical32", "native")
LAUNCH_SYNTAXES = ("chevron", "ggl")
BLAS_TARGETS = ("hipblas", "rocblas")
INCLUDE_LAYOUTS = ("current", "flat")


@dataclass(frozen=True)
class Config:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ()  # rule ids or prefixes; empty = all
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()  # (rule, severity) overrides
    wave_strategy: str = "auto"
    rocm: str = "5.2"  # the oldest ROCm the emitted code must compile on
    offload_arch: tuple[str, ...] = ("gfx90a",)
    launch_syntax: str = "chevron"
    blas: str = "hipblas"
    include_layout: str = "current"
    rename_extensions: bool = False
    apply_review_fixes: bool = False
    wave64: bool = True  # run the wave64 pass
    fail_on: str = "warning"
    jobs: int = 0  # 0 = all cores
    cache: bool = True
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)  # (key, origin)

    def origin(self, key: str) -> str:
        return dict(self.sources).get(key, "default")

    def rocm_at_least(self, version: str) -> bool:
        return version_tuple(self.rocm) >= version_tuple(version)

    def fingerprint(self) -> str:
        """What the per-file results depend on (the cache key part that is not content)."""
        keep = ("select", "ignore", "severity", "wave_strategy", "rocm", "launch_syntax", "blas",
                "include_layout", "rename_extensions", "apply_review_fixes", "wave64")
        return repr(tuple(getattr(self, k) for k in keep))


@cache
def version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".") if p.isdigit())


KEYS = {f.name.replace("_", "-"): f.name for f in fields(Config) if f.name != "sources"}
CHOICES = {"wave_strategy": WAVE_STRATEGIES, "launch_syntax": LAUNCH_SYNTAXES,
           "blas": BLAS_TARGETS, "include_layout": INCLUDE_LAYOUTS,
           "fail_on": ("error", "warning", "info", "never")}


def find_config_file(start: Path) -> Path | None:
    """The nearest .hipport.toml, or pyproject.toml with [tool.hipport], at or above `start`."""
    d = start if start.is_dir() else start.parent
    for cand in [d, *d.resolve().parents]:
        for name in (".hipport.toml", "pyproject.toml"):
            p = cand / name
            if p.is_file():
                if name == "pyproject.toml" and b"[tool.hipport" not in p.read_bytes():
                    continue
                return p
    return None


def _line_of(text: str, key: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith((key + " ", key + "=")):
            return i
    return None


def load_file(path: Path) -> dict[str, Any]:
    import tomllib  # only where a config file exists: a no-op run over a plain tree skips it

    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise HipportError(f"invalid TOML: {e}", path) from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("hipport", {})
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = KEYS.get(key) or (key if key in KEYS.values() else None)
        if name is None:
            raise HipportError(f"unknown configuration key {key!r} (known: {', '.join(sorted(KEYS))})",
                               path, _line_of(text, key))
        out[name] = value
    return out


def _coerce(name: str, value: Any, origin: str) -> Any:
    default = getattr(Config, name, None)
    if name == "severity" and isinstance(value, dict):
        value = tuple(sorted(value.items()))
    elif isinstance(default, tuple) and isinstance(value, (list, tuple)):
        value = tuple(value)
    elif isinstance(default, tuple) and isinstance(value, str):
        value = (value,)
    if name in CHOICES and value not in CHOICES[name]:
        raise HipportError(f"{name.replace('_', '-')} must be one of {', '.join(CHOICES[name])}, "
                           f"not {value!r}", origin if origin != "command line" else None)
    return value


def build(start: Path | None, overrides: dict[str, Any], config_file: Path | None = None) -> Config:
    """Defaults, then the nearest config file, then the non-None command-line overrides."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    path = config_file or (find_config_file(start) if start else None)
    if path:
        for name, value in load_file(path).items():
            values[name] = _coerce(name, value, str(path))
            sources[name] = str(path)
    for name, value in overrides.items():
        if value is None or value == () or value == []:
            continue
        values[name] = _coerce(name, value, "command line")
        sources[name] = "command line"
    return replace(Config(), **values, sources=tuple(sorted(sources.items())))
