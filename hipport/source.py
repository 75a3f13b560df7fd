"""SourceFile: the bytes of one file, its line index and its tree-sitter-cuda tree.

We work on bytes throughout so that every byte we do not rewrite survives exactly: CRLF,
tabs, a UTF-8 BOM and non-UTF-8 bytes in comments (a Latin-1 comment stays Latin-1).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import tree_sitter
import tree_sitter_cuda

from hipport.model import Span

if TYPE_CHECKING:
    from hipport.closure import Closure

Node = tree_sitter.Node

BOMS_WE_REFUSE = {
    b"\xff\xfe": "UTF-16 (little-endian)",
    b"\xfe\xff": "UTF-16 (big-endian)",
}


class UndecodableError(ValueError):
    """A file we must not touch: binary, or in an encoding we cannot edit by byte span."""


@cache
def language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_cuda.language())


@cache
def parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(language())


def check_editable(data: bytes) -> None:
    """Raise UndecodableError for bytes we cannot safely edit as C++ text."""
    for bom, name in BOMS_WE_REFUSE.items():
        if data.startswith(bom):
            raise UndecodableError(f"{name} text is not supported; convert it to UTF-8")
    if b"\x00" in data[:8192]:
        raise UndecodableError("binary file (NUL bytes)")


@dataclass
class SourceFile:
    path: str
    data: bytes
    _line_starts: list[int] = field(default_factory=list, repr=False)
    _tree: tree_sitter.Tree | None = field(default=None, repr=False)
    # The headers it includes, as the pipeline read them with its bytes (hipport.closure);
    # None: read from the disk when first asked (`closure.of`).
    closure: Closure | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0]
        find = self.data.find
        i = find(b"\n")
        while i != -1:
            starts.append(i + 1)
            i = find(b"\n", i + 1)
        self._line_starts = starts

    @property
    def has_bom(self) -> bool:
        return self.data.startswith(b"\xef\xbb\xbf")

    @property
    def newline(self) -> str:
        return "\r\n" if b"\r\n" in self.data[:65536] else "\n"

    @property
    def tree(self) -> tree_sitter.Tree:
        if self._tree is None:
            self._tree = parser().parse(self.data)
        return self._tree

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a byte offset."""
        i = bisect.bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1

    def span(self, start: int, end: int) -> Span:
        line, col = self.position(start)
        end_line, end_col = self.position(end)
        return Span(start, end, line, col, end_line, end_col)

    def node_span(self, node: Node) -> Span:
        return self.span(node.start_byte, node.end_byte)

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "surrogateescape")

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "surrogateescape")

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self._line_starts[line] if line < len(self._line_starts) else len(self.data)
        return self.data[start:end].rstrip(b"\r\n").decode("utf-8", "replace")

    @property
    def line_count(self) -> int:
        return len(self._line_starts)


def walk(node: Node) -> Iterator[Node]:
    """Every node below `node` in document order, with a cursor (no recursion limit)."""
    cursor = node.walk()
    visited_children = False
    while True:
        if not visited_children:
            yield cursor.node  # type: ignore[misc]
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


def asm_template(src: SourceFile, asm: Node) -> str:
    """The instruction text of a GNU `asm(...)` statement: its string pieces in order, with
    `\\n` and `\\t` as spaces (what a PTX or assembler reader needs)."""
    code = asm.child_by_field_name("assembly_code")
    if code is None:
        return ""
    parts: list[tuple[int, str]] = []
    stack = [code]
    while stack:
        n = stack.pop()
        if n.type in ("string_content", "escape_sequence"):
            parts.append((n.start_byte, src.text(n)))
        else:
            stack.extend(n.children)
    return "".join(t for _, t in sorted(parts)).replace("\\n", " ").replace("\\t", " ").strip()
