"""Macro bodies parsed on their own, so launches and calls written inside `#define`s are
rewritten with the same code as everywhere else."""

from __future__ import annotations

from functools import lru_cache

from hipport.source import Node, SourceFile

_PREFIX = b"void __hipport_macro__() {\n"


@lru_cache(maxsize=64)
def _parse(path: str, body: bytes) -> SourceFile:
    # Line continuations become spaces of the same length, so offsets stay identical.
    text = _PREFIX + body.replace(b"\\\r\n", b"   ").replace(b"\\\n", b"  ") + b";\n}\n"
    return SourceFile(path, text)


def macro_fragment(src: SourceFile, arg: Node) -> tuple[SourceFile, int]:
    """The `preproc_arg` body as a parsed function body, and `shift` such that
    fragment offset = body offset - shift (body offsets count from `arg.start_byte`)."""
    return _parse(src.path, src.data[arg.start_byte:arg.end_byte]), -len(_PREFIX)
