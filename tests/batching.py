"""Units compiled together: most of a small unit's compile is the toolkit's headers, parsed once
a unit, so units that start with the same system includes are built as one translation unit.

`split_head` says what a unit starts with and whether its body can share one; `batch_source`
writes the batch (the head once, each body in a namespace of its own under a `#line` naming its
file, its macros undefined after it); `compile_batched` compiles it and, where it fails, halves
it down to a unit alone, so that a unit that fails alone still fails, with its own errors. What
a unit alone sees and a batch's body does not differ in: the same system includes, in the same
order, before it; the bodies before it in other namespaces (their macros undefined). A body that
reopens a header's namespace, includes, undefines or uses a pragma (other than `unroll`) is
compiled alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_SYSTEM_INCLUDE = re.compile(r"#\s*include\s*<([^>\n]+)>\s*(?://.*)?")
_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)[ \t]*(\w*)", re.M)
_HEADER_NAMESPACE = re.compile(r"^\s*namespace\s+(?:std|cooperative_groups|cub|hipcub|thrust)\s*\{", re.M)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)


def split_head(text: str) -> tuple[tuple[str, ...], int] | None:
    """A unit's head, the system includes it starts with (blank and comment lines between them),
    and the line its body starts at; None where the unit cannot share a batch without a
    difference from its compile alone: an include or `#undef` in the body (the body of a batch
    sits in a namespace, after the other units), a pragma other than `unroll`, a header's
    namespace reopened."""
    lines = text.split("\n")
    head: list[str] = []
    start, comment = 0, False
    for i, line in enumerate(lines):
        bare = line.strip()
        if comment:
            if "*/" in bare and bare.split("*/", 1)[1].strip():
                return None
            comment = "*/" not in bare
            start = i + 1
            continue
        m = _SYSTEM_INCLUDE.fullmatch(bare)
        if m:
            if m.group(1) not in head:
                head.append(m.group(1))
        elif bare.startswith("/*"):
            comment = "*/" not in bare
            if not comment and not bare.endswith("*/"):
                break
        elif bare and not bare.startswith("//"):
            break
        start = i + 1
    body = "\n".join(lines[start:])
    for name, word in _DIRECTIVE.findall(body):
        if name in ("include", "import", "undef") or (name == "pragma" and word != "unroll"):
            return None
    if _HEADER_NAMESPACE.search(body):  # reopened inside the batch's namespace, it is another one
        return None
    if not head or comment:
        return None
    return tuple(head), start


def batch_source(units: Sequence[Path], base: Path) -> str:
    """One unit for `units` of the same head: the head once, then each body in its own namespace
    under a `#line` naming its file (relative to `base`, so that a batch's text does not depend on
    the temporary folder), its macros undefined after it."""
    parts: list[str] = []
    for i, unit in enumerate(units):
        text = unit.read_text(encoding="latin-1")  # the bytes as they are
        split = split_head(text)
        assert split is not None, unit
        head, start = split
        if i == 0:
            parts += [f"#include <{h}>\n" for h in head]
        body = "\n".join(text.split("\n")[start:])
        parts.append(f"namespace hipport_batch_{i} {{\n#line {start + 1} \"{unit.relative_to(base)}\"\n{body}\n}}\n")
        parts += [f"#undef {m}\n" for m in sorted(set(_DEFINE.findall(body)))]
    return "".join(parts)


def compile_batched(units: Sequence[Path], batch: Path, compile_one: Callable[[Path], T],
                    ok: Callable[[T], bool], base: Path) -> dict[Path, T]:
    """Each unit's answer from `compile_one`, from one compile of `batch` (written here, from
    units of one head: `split_head`; `#line`s relative to `base`) when that builds; where it does
    not, each half is tried the same way, down to a unit alone: a unit that fails alone fails,
    with its own errors, and one failing unit costs about two compiles a halving, not one a unit."""
    if len(units) == 1:
        return {units[0]: compile_one(units[0])}
    batch.write_text(batch_source(units, base), encoding="latin-1")
    together = compile_one(batch)
    if ok(together):
        return dict.fromkeys(units, together)
    half = len(units) // 2
    return {**compile_batched(units[:half], batch.with_name(f"{batch.stem}a{batch.suffix}"), compile_one, ok, base),
            **compile_batched(units[half:], batch.with_name(f"{batch.stem}b{batch.suffix}"), compile_one, ok, base)}


def planted(folder: Path, suffix: str) -> list[Path]:
    """Three units of the same head, each in its own folder: `bad` (fails alone) and `one`,
    `two` (build), for the tests that a batch answers for each unit as the unit alone would."""
    unit = "#include <hip/hip_runtime.h>\n#define N 4\n__global__ void k(float* p) {{ p[threadIdx.x] *= {}; }}\n"
    units = []
    for name, value in (("bad", "undeclared_name"), ("one", "N"), ("two", "N + 1")):
        (folder / name).mkdir()
        units.append(folder / name / f"k{suffix}")
        units[-1].write_text(unit.format(value))
    return units
