"""The build-file mapping tables in rules/build/*.toml, checked when loaded.

nvcc.toml: nvcc options and their hipcc counterparts; libraries.toml: CUDA libraries and
their HIP libraries, CMake targets and packages; cmake.toml: CUDA-language variables,
properties, commands and features. A bad entry is an error naming the file and the entry.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from hipport.errors import HipportError
from hipport.paths import rules_dir


@dataclass(frozen=True)
class Option:
    name: str
    value: str  # "none" | "required" | "joined"
    hip: str | None  # tokens with {value} {values} {arch}; None: see `by_value`
    by_value: dict[str, str]  # value -> hip tokens (values not listed are kept as they are)
    note: str | None


@dataclass(frozen=True)
class Library:
    name: str
    link: str  # what -lNAME becomes ("" = dropped)
    target: str  # the CMake imported target ("" = dropped)
    package: str  # the CMake package defining `target`
    supported: bool
    debian: bool
    note: str | None


@dataclass(frozen=True)
class Tables:
    options: dict[str, Option]
    libraries: dict[str, Library]
    prefixes: dict[str, Library]
    variables: dict[str, str]
    architectures: frozenset[str]
    properties: dict[str, str]
    separable: frozenset[str]
    separable_variable: str
    commands: dict[str, str]
    features: dict[str, str]
    long_options: tuple[str, ...] = field(default=())  # option names, longest first
    # every name in `variables` as a whole word, in one pattern (one scan of an argument)
    variable_words: re.Pattern[str] = field(default=re.compile(r"(?!)"))

    def library(self, name: str) -> Library | None:
        hit = self.libraries.get(name)
        if hit is None:
            for prefix, lib in self.prefixes.items():
                if name.startswith(prefix):
                    return Library(name, lib.link, lib.target, lib.package, lib.supported,
                                   lib.debian, lib.note)
        return hit


def _load(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise HipportError(f"cannot read the build rules: {e}", path) from None


def _need(cond: bool, path: Path, what: str) -> None:
    if not cond:
        raise HipportError(what, path)


@cache
def load() -> Tables:
    base = rules_dir() / "build"
    nv_path, lib_path, cm_path = base / "nvcc.toml", base / "libraries.toml", base / "cmake.toml"
    nv, libs, cm = _load(nv_path), _load(lib_path), _load(cm_path)
    options: dict[str, Option] = {}
    for name, e in nv.get("options", {}).items():
        _need(isinstance(e, dict) and not set(e) - {"value", "hip", "if", "note"}, nv_path,
              f"[options.{name!r}]: expected value, hip, if, note")
        _need(e.get("value") in ("none", "required", "joined"), nv_path,
              f"[options.{name!r}]: value must be none, required or joined")
        _need(("hip" in e) != ("if" in e), nv_path, f"[options.{name!r}]: give hip or if")
        options[name] = Option(name, e["value"], e.get("hip"), dict(e.get("if", {})), e.get("note"))
    libraries: dict[str, Library] = {}
    prefixes: dict[str, Library] = {}
    for table, out in (("libraries", libraries), ("prefixes", prefixes)):
        for name, e in libs.get(table, {}).items():
            _need(isinstance(e, dict) and not set(e) - {"link", "target", "package", "status",
                                                        "debian", "note"}, lib_path,
                  f"[{table}.{name}]: unknown key")
            status = e.get("status", "supported")
            _need(status in ("supported", "unsupported"), lib_path, f"[{table}.{name}]: bad status")
            out[name] = Library(name, e.get("link", ""), e.get("target", ""), e.get("package", ""),
                                status == "supported", e.get("debian", True), e.get("note"))
    for key in ("variables", "properties", "commands", "features"):
        _need(isinstance(cm.get(key, {}), dict), cm_path, f"[{key}] must be a table")
    return Tables(options, libraries, prefixes, dict(cm.get("variables", {})),
                  frozenset(cm.get("architectures", [])), dict(cm.get("properties", {})),
                  frozenset(cm.get("separable", [])), str(cm.get("separable_variable", "")),
                  dict(cm.get("commands", {})), dict(cm.get("features", {})),
                  tuple(sorted(options, key=len, reverse=True)), _words(cm.get("variables", {})))


def _words(names: dict[str, str]) -> re.Pattern[str]:
    if not names:
        return re.compile(r"(?!)")
    alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alts})(?![A-Za-z0-9_])")
