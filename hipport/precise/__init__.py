"""Precise mode (`--precise`, `precise = true`; issue 31): a second reading of a source by clang
(the `libclang` package, an optional extra), as the build would parse it, for what the
tree-sitter model cannot evaluate: macros that expand through function-like macros or token
pasting, constants computed by the compiler (`sizeof(unsigned) * 8`), typedef and `using`
chains, and the values template parameters take where a template is instantiated with a
constant (`reduce<32>(v)`). The wave64 facts consult it (hipport.wave64.facts.precise) only
where their own model finds nothing.

clang only parses (nothing is compiled or run), in this process. Its options are built from
the configuration's include folders and defines, checked as for a compile; any failure of
libclang (missing, a crash it reports, a file it cannot read) makes a `Model` with no values
and a `note` (one line on stderr). Nothing here imports clang: hipport.precise.parse does, on the first parse."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from hipport.cache import blake2b
from hipport.config import Config, libclang_installed

_EMPTY: Mapping[object, object] = MappingProxyType({})


@dataclass(frozen=True)
class Model:
    """What clang resolved in one file: `values`, name -> (value, bits) of the object-like
    macros, const integer variables and enumerators of the file and its headers that have one
    value in it; `at`, (value, bits) of the file's own const integer variables by the offset of
    their name; `tparams`, the one value each of the file's non-type template parameters takes
    where instantiated with constants, by the offset of its name; `types`, the bits (32 or 64)
    of each typedef or alias of an integer type. `note`: why nothing was resolved ("": parsed)."""

    values: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    at: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    tparams: Mapping[int, int] = field(default_factory=dict)
    types: Mapping[str, int] = field(default_factory=dict)
    note: str = ""


def available() -> bool:
    """The libclang package is installed (looked for, not imported)."""
    return libclang_installed()


# Models by (path, content digest, headers' digest, config): a file asked about by several
# Facts of one run (a header's) is parsed once per worker.
_MODELS: dict[tuple[str, bytes, bytes, Config], Model] = {}


def model(path: str, data: bytes, headers: Mapping[str, bytes | None], config: Config,
          dirs: tuple[str, ...] = ()) -> Model:
    """The Model of the source at `path` whose bytes are `data`; `headers` are the bytes of
    its include closure (clang reads those from here, not from the disk), `dirs` the include
    folders it was looked up in."""
    h = blake2b(digest_size=16)
    for p, d in sorted(headers.items()):
        h.update(p.encode("utf-8", "surrogateescape") + b"\0" + (d if d is not None else b"\1") + b"\0")
    h.update("\0".join(dirs).encode("utf-8", "surrogateescape"))
    key = (path, blake2b(data, digest_size=16).digest(), h.digest(), config)
    hit = _MODELS.get(key)
    if hit is not None:
        return hit
    if not available():
        got = Model(note="precise mode: the libclang package is not installed (pip install libclang)")
    else:
        from hipport.precise import parse

        got = parse.parse(path, data, headers, config, dirs)
    if got.note:  # one line a file (models are kept: a file asked about again says nothing more)
        sys.stderr.write(f"{path}:1: note: {got.note}; its values are the default model's\n")
    if len(_MODELS) > 256:
        _MODELS.clear()
    _MODELS[key] = got
    return got
