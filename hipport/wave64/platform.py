"""Which platform a preprocessor branch is compiled for: CUDA, HIP on AMD, or both.

The macro names are data (rules/wave64/platforms.toml). A condition is evaluated in two
configurations, CUDA (no AMD macro defined) and HIP on AMD, with three-valued logic: a macro the
table does not name is unknown in both. Each branch of an `#if` / `#elif` / `#else` chain is
taken when its condition holds and no earlier one did, so a chain is never mixed: the value of a
branch on AMD accounts for the branches before it.

A branch is
- `inactive` when AMD never compiles it (its AMD value is false),
- `amd` when it was written for AMD: only AMD compiles it (its CUDA value is false), or the
  chain names a platform macro and AMD takes this branch,
- `None` otherwise (CUDA code AMD compiles as well: the pass analyses and rewrites it).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache

from hipport.errors import HipportError
from hipport.paths import rules_dir

Tri = int | None  # a preprocessor value: known integer, or unknown


@dataclass(frozen=True)
class Platforms:
    classes: dict[str, tuple[frozenset[str], re.Pattern[str] | None]]
    defined_unknown: frozenset[str] = frozenset()

    def kind(self, name: str) -> str | None:
        for cls, (names, rx) in self.classes.items():
            if name in names or (rx is not None and rx.fullmatch(name)):
                return cls
        return None


_CLASSES = ("amd", "amd_value", "amd_arch", "nvidia")


@cache
def platforms() -> Platforms:
    path = rules_dir() / "wave64" / "platforms.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise HipportError(f"cannot read the platform macro table: {e}", path) from e
    classes: dict[str, tuple[frozenset[str], re.Pattern[str] | None]] = {}
    unknown: set[str] = set()
    for cls in _CLASSES:
        sect = data.get(cls, {})
        pats = sect.get("patterns", [])
        classes[cls] = (frozenset(sect.get("names", [])), re.compile("|".join(f"(?:{p})" for p in pats))
                        if pats else None)
        unknown |= set(sect.get("defined_unknown", []))
    return Platforms(classes, frozenset(unknown))


# value of `defined(X)` and of X itself per class, in the CUDA and the AMD configuration
_DEFINED = {"cuda": {"amd": 0, "amd_value": 0, "amd_arch": 0, "nvidia": None},
            "amd": {"amd": 1, "amd_value": 1, "amd_arch": None, "nvidia": 0}}
_VALUE = {"cuda": {"amd": 0, "amd_value": 0, "amd_arch": 0, "nvidia": None},
          "amd": {"amd": 1, "amd_value": None, "amd_arch": None, "nvidia": 0}}

_TOKENS = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>!~()&|^?:]))")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


# The project's own platform macros (issue 31): name -> (class, value on AMD), from the macros
# the HIP build defines (-D, `defines`) and those the included headers define only in a branch
# one platform compiles (`#if defined(__HIP_PLATFORM_AMD__) ... #define PROJ_HIP 1`).
Project = frozenset[tuple[str, str, int | None]]
NO_PROJECT: Project = frozenset()


class _Parser:
    """A recursive-descent evaluator of #if expressions over Tri values."""

    def __init__(self, text: str, config: str, project: Project = NO_PROJECT) -> None:
        self.toks: list[tuple[str, str]] = []
        text = _COMMENT.sub(" ", text).replace("\\\n", " ")
        pos = 0
        while pos < len(text):
            m = _TOKENS.match(text, pos)
            if m is None:
                if text[pos:].strip():
                    raise ValueError(text[pos:])
                break
            pos = m.end()
            if m.group(1):
                self.toks.append(("num", m.group(1)))
            elif m.group(2):
                self.toks.append(("id", m.group(2)))
            elif m.group(3):
                self.toks.append(("op", m.group(3)))
        self.i = 0
        self.config = config
        self.table = platforms()
        self.project = {name: (cls, value) for name, cls, value in project}

    def kind(self, name: str) -> str | None:
        got = self.project.get(name)
        return got[0] if got is not None else self.table.kind(name)

    def peek(self) -> str:
        return self.toks[self.i][1] if self.i < len(self.toks) else ""

    def take(self) -> tuple[str, str]:
        t = self.toks[self.i] if self.i < len(self.toks) else ("end", "")
        self.i += 1
        return t

    def parse(self) -> Tri:
        v = self.ternary()
        if self.i < len(self.toks):
            raise ValueError(self.peek())
        return v

    def ternary(self) -> Tri:
        c = self.lor()
        if self.peek() != "?":
            return c
        self.take()
        a = self.ternary()
        if self.take()[1] != ":":
            raise ValueError("?:")
        b = self.ternary()
        if c is None:
            return a if a == b else None
        return a if c else b

    def lor(self) -> Tri:
        v = self.land()
        while self.peek() == "||":
            self.take()
            w = self.land()
            v = 1 if (v or w) else (0 if v == 0 and w == 0 else None)
        return v

    def land(self) -> Tri:
        v = self.binary(0)
        while self.peek() == "&&":
            self.take()
            w = self.binary(0)
            v = 0 if (v == 0 or w == 0) else (1 if v is not None and w is not None else None)
        return v

    _LEVELS = (("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"),
               ("*", "/", "%"))

    def binary(self, level: int) -> Tri:
        if level == len(self._LEVELS):
            return self.unary()
        v = self.binary(level + 1)
        while self.peek() in self._LEVELS[level]:
            op = self.take()[1]
            w = self.binary(level + 1)
            v = _apply(op, v, w)
        return v

    def unary(self) -> Tri:
        kind, tok = self.take()
        if kind == "op" and tok in ("!", "-", "+", "~"):
            v = self.unary()
            if v is None:
                return None
            return {"!": int(not v), "-": -v, "+": v, "~": ~v}[tok]
        if kind == "op" and tok == "(":
            v = self.ternary()
            if self.take()[1] != ")":
                raise ValueError(")")
            return v
        if kind == "num":
            return int(tok, 0) if not tok.startswith("0") or tok.lower().startswith("0x") or tok == "0" \
                else int(tok, 8)
        if kind == "id":
            if tok == "defined":
                paren = self.peek() == "("
                if paren:
                    self.take()
                k, name = self.take()
                if k != "id":
                    raise ValueError(name)
                if paren and self.take()[1] != ")":
                    raise ValueError(")")
                cls = self.kind(name)
                if cls is None or name in self.table.defined_unknown and name not in self.project:
                    return None
                return _DEFINED[self.config][cls]
            if self.peek() == "(":  # a function-like macro: unknown
                depth = 0
                while self.i < len(self.toks):
                    t = self.take()[1]
                    depth += (t == "(") - (t == ")")
                    if depth == 0:
                        break
                return None
            got = self.project.get(tok)
            if got is not None:  # a project macro: its value on AMD, 0 (undefined) on CUDA
                return _VALUE[self.config][got[0]] if self.config == "cuda" or got[1] is None else got[1]
            cls = self.table.kind(tok)
            if cls is not None:
                return _VALUE[self.config][cls]
            return {"true": 1, "false": 0}.get(tok)
        raise ValueError(tok)


def _apply(op: str, a: Tri, b: Tri) -> Tri:
    if a is None or b is None:
        return None
    try:
        return {"|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b, "==": lambda: int(a == b),
                "!=": lambda: int(a != b), "<": lambda: int(a < b), ">": lambda: int(a > b),
                "<=": lambda: int(a <= b), ">=": lambda: int(a >= b), "<<": lambda: a << b if 0 <= b < 64 else None,
                ">>": lambda: a >> b if 0 <= b < 64 else None, "+": lambda: a + b, "-": lambda: a - b,
                "*": lambda: a * b, "/": lambda: a // b if b else None, "%": lambda: a % b if b else None}[op]()
    except (ArithmeticError, KeyError):
        return None


@cache
def evaluate(text: str, config: str, project: Project = NO_PROJECT) -> Tri:
    """The value of an #if expression in the `cuda` or `amd` configuration (None: unknown)."""
    try:
        return _Parser(text, config, project).parse()
    except (ValueError, IndexError, RecursionError):
        return None


@cache
def names_platform(text: str, project: Project = NO_PROJECT) -> bool:
    """True when the expression names a macro of the platform table or a project one."""
    table = platforms()
    own = {name for name, _, _ in project}
    return any(table.kind(w) is not None or w in own for w in re.findall(r"[A-Za-z_]\w*", _COMMENT.sub(" ", text)))


def _not(v: Tri) -> Tri:
    return None if v is None else int(not v)


def _and(a: Tri, b: Tri) -> Tri:
    if a == 0 or b == 0:
        return 0
    return 1 if a is not None and b is not None else None


def classify_chain(conds: list[str | None], project: Project = NO_PROJECT) -> list[str | None]:
    """The class of each branch of a chain: `conds` holds each branch's condition in order (as an
    `#if` expression; None for `#else`); `project` the project's own platform macros."""
    out: list[str | None] = []
    prev: dict[str, Tri] = {"cuda": 1, "amd": 1}  # no earlier branch taken
    named = any(c is not None and names_platform(c, project) for c in conds)
    for c in conds:
        taken = {}
        for cfg in ("cuda", "amd"):
            v = 1 if c is None else evaluate(c, cfg, project)
            taken[cfg] = _and(prev[cfg], None if v is None else int(bool(v)))
            prev[cfg] = _and(prev[cfg], _not(None if v is None else int(bool(v))) if c is not None else 0)
        if taken["amd"] == 0:
            out.append("inactive")
        elif taken["cuda"] == 0 or (named and taken["amd"] == 1):
            out.append("amd")
        else:
            out.append(None)
    return out
