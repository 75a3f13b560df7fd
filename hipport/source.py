"""SourceFile: the bytes of one file, its line index and its tree-sitter-cuda tree.

We work on bytes throughout so that every byte we do not rewrite survives exactly: CRLF,
tabs, a UTF-8 BOM and non-UTF-8 bytes in comments (a Latin-1 comment stays Latin-1).
"""

from __future__ import annotations

import bisect
import threading
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import tree_sitter
import tree_sitter_cuda

from hipport.linemap import line_starts
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


class _Trees:
    """The trees of the last few bytes parsed, by those bytes: the wave64 facts parse the
    headers a file includes, and the run ports those headers too (on real code a third of the
    parse time went to bytes parsed before). A tree is read only, so one serves every
    SourceFile of the same bytes. Bounded by the bytes parsed (a tree takes some 20 bytes a
    byte of source); most repeats come within a megabyte."""

    LIMIT = 2 << 20

    def __init__(self) -> None:
        self._trees: dict[bytes, tree_sitter.Tree] = {}  # oldest first
        self._held = 0
        self._lock = threading.Lock()  # (one parser: a thread that parses waits its turn)

    def parse(self, data: bytes) -> tree_sitter.Tree:
        with self._lock:
            tree = self._trees.pop(data, None)
            if tree is None:
                tree = parser().parse(data)
                if len(data) > self.LIMIT // 4:  # (a large file would push out all the others)
                    return tree
                self._held += len(data)
                while self._held > self.LIMIT:
                    oldest = next(iter(self._trees))
                    del self._trees[oldest]
                    self._held -= len(oldest)
            self._trees[data] = tree  # (again) the newest
            return tree


_TREES = _Trees()


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
    # The offset where each line starts: 4 bytes a line (a list holds a Python int each, 36).
    _line_starts: array[int] = field(default_factory=lambda: array("I"), repr=False)
    _tree: tree_sitter.Tree | None = field(default=None, repr=False)
    # The headers it includes, as its FileInput brought them (hipport.inputs); None: none
    # (the passes never look at the disk).
    closure: Closure | None = field(default=None, repr=False, compare=False)
    # What tree-sitter parses when it is not `data` (hipport.parseview: the declaration macros
    # of the file and its headers blanked, every offset the same); None: `data`. Made with the
    # tree.
    parse_view: bytes | None = field(default=None, repr=False, compare=False)
    # node_at's last answer and every node above it, root first: the next lookup starts from
    # the nearest of them that holds its bytes.
    _path: list[Node] = field(default_factory=list, repr=False)
    _cursor: tree_sitter.TreeCursor | None = field(default=None, repr=False)  # at _path[-1]
    _up: int = field(default=0, repr=False)  # where on _path the last parent() lookup ended

    def __post_init__(self) -> None:
        self._line_starts = line_starts(self.data)

    @property
    def has_bom(self) -> bool:
        return self.data.startswith(b"\xef\xbb\xbf")

    @property
    def newline(self) -> str:
        return "\r\n" if b"\r\n" in self.data[:65536] else "\n"

    @property
    def tree(self) -> tree_sitter.Tree:
        if self._tree is None:
            from hipport import parseview

            headers = self.closure.found.values() if self.closure is not None else ()
            self.parse_view = parseview.view(self.data, headers)
            self._tree = _TREES.parse(self.parse_view if self.parse_view is not None else self.data)
        return self._tree

    def blanked_before(self, pos: int) -> int:
        """Where the blanked declaration macros right before `pos` begin (`MGPU_DEVICE` before a
        function the parse starts at its return type): `pos` when there are none."""
        view = self.parse_view if self._tree is not None else None
        if view is None:
            return pos
        p = pos
        while p > 0 and view[p - 1:p] in (b" ", b"\t", b"\n", b"\r"):
            p -= 1
        return p if self.data[p:pos].strip() else pos

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def node_at(self, start: int, end: int) -> Node | None:
        """The smallest node that holds the bytes [start, end), as
        `root.descendant_for_byte_range(start, end)` finds it. That walks down from the root
        through every level above the node (n levels in a sum of n terms, which tree-sitter
        nests left-deep); this walks from the last answer up to the nearest node that holds the
        bytes and down from there, so lookups in file order cost the path between neighbours."""
        if start >= end:  # an empty range may fall between nodes: tree-sitter's own rule
            return self.root.descendant_for_byte_range(start, end)
        path = self._path
        cursor = self._cursor
        if cursor is None:
            cursor = self._cursor = self.root.walk()
            path.append(self.root)
        while len(path) > 1 and not (path[-1].start_byte <= start and end <= path[-1].end_byte):
            path.pop()
            cursor.goto_parent()
        node = path[-1]
        if not (node.start_byte <= start and end <= node.end_byte):  # outside the root
            return self.root.descendant_for_byte_range(start, end)
        # The first child (through hidden nodes) that ends after `start` is the only one that
        # can hold the bytes: siblings do not overlap.
        while cursor.goto_first_child_for_byte(start) is not None:
            child = cursor.node
            if child is None or child.start_byte > start or child.end_byte < end:
                cursor.goto_parent()
                break
            path.append(child)
            node = child
        return node

    def parent(self, node: Node) -> Node | None:
        """`node.parent`, taken from node_at's path when `node` lies on it (the last answer, the
        few above it, or where the last parent lookup left off, so a walk up the path is a step
        a level): tree-sitter finds a parent by walking down from the root."""
        path = self._path
        i = self._up
        if not (0 < i < len(path) and path[i] == node):
            i = next((j for j in range(len(path) - 1, max(len(path) - 4, 0), -1) if path[j] == node), 0)
        if i > 0:
            self._up = i - 1
            return path[i - 1]
        return node.parent

    def ancestors(self, node: Node) -> Iterator[Node]:
        """The parent of `node`, its parent and so on to the root, each found in a step: the
        walk starts with node_at on `node`'s bytes, which puts `node` on the path."""
        if node.start_byte < node.end_byte:
            self.node_at(node.start_byte, node.end_byte)
        p = self.parent(node)
        while p is not None:
            yield p
            p = self.parent(p)

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


def children(node: Node) -> list[Node]:
    """`node.children`, without the node keeping them. tree-sitter's Python node keeps the
    list it returns, and with it every child as a Python object, for as long as the node
    lives; the wave64 facts keep nodes for the whole file."""
    out: list[Node] = []
    cursor = node.walk()
    if cursor.goto_first_child():
        out.append(cursor.node)  # type: ignore[arg-type]
        while cursor.goto_next_sibling():
            out.append(cursor.node)  # type: ignore[arg-type]
    return out


def named_children(node: Node) -> list[Node]:
    """`node.named_children`, without the node keeping them (see `children`)."""
    return [c for c in children(node) if c.is_named]


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


def function_lines(src: SourceFile, line: int) -> tuple[int, int] | None:
    """The first and last line (1-based) of the function whose definition starts on `line` or
    the line before it: a compiler's backend reports an error in inlined code there."""
    stack = [src.root]
    while stack:
        n = stack.pop()
        first, last = n.start_point[0] + 1, n.end_point[0] + 1
        if last < line - 1 or first > line:
            continue
        if n.type == "function_definition" and line - 1 <= first <= line:
            return first, last
        stack.extend(n.children)
    return None
