"""No pass opens a file: every fixture's FileInput (its bytes and its dependencies', read by
hipport.inputs) goes through the passes under an audit hook, and any file opened while code
of hipport/translate or hipport/wave64 is on the stack fails the test. Python's own imports
and hipport's rule tables (its installation's data, not the user's tree) are not a tree's
files and may be read."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from hipport import inputs
from hipport.config import Config
from hipport.passes import port
from hipport.rules import rules_dir
from hipport.workspace import PORTED_ROLES, role_of
from tests.conftest import ROOT

PASSES = tuple(str(ROOT / "hipport" / d) + os.sep for d in ("translate", "wave64"))
OWN = (str(rules_dir()) + os.sep, sys.prefix, sys.base_prefix)
_armed: list[list[str]] = []  # while a pass runs: where the opens it made are recorded


def _hook(event: str, args: tuple[object, ...]) -> None:
    if not _armed or event != "open":
        return
    path = os.fsdecode(args[0]) if isinstance(args[0], (str, bytes, os.PathLike)) else ""
    if path.endswith((".py", ".pyc", ".so")) or path.startswith(OWN) or "__pycache__" in path:
        return  # an import, or hipport's own tables
    f: FrameType | None = sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename.startswith(PASSES):
            _armed[-1].append(f"{path} (opened under {f.f_code.co_filename}:{f.f_lineno})")
            return
        f = f.f_back


sys.addaudithook(_hook)


def _fixtures() -> Iterator[Path]:
    for base in ("fixtures", "examples"):
        for p in sorted((ROOT / base).rglob("*")):
            if p.is_file() and not p.name.startswith("expected") and p.suffix not in (".toml", ".md", ".json"):
                yield p


def test_no_pass_opens_a_file() -> None:
    config = Config()
    opened: list[str] = []
    statuses: dict[str, int] = {}
    for p in _fixtures():
        data = p.read_bytes()
        role = role_of(str(p), data[:65536])
        if role not in PORTED_ROLES:
            continue
        inp = inputs.resolve(str(p), str(p.relative_to(ROOT)), role, data, rel=str(p.relative_to(ROOT)))
        _armed.append(opened)
        try:
            r = port(inp, config)
        finally:
            _armed.pop()
        statuses[r.status.value] = statuses.get(r.status.value, 0) + 1
    assert statuses.get("ported", 0) > 200 and not statuses.get("failed"), statuses
    assert not opened, "\n".join(opened[:20])


def test_the_hook_sees_an_open_from_a_pass(tmp_path: Path) -> None:
    """The check itself: a header read the old way (closure.read inside a pass) is caught."""
    from hipport import closure
    from hipport.wave64.facts import headers

    seen: list[str] = []
    (tmp_path / "w.h").write_text("#define W 32\n")
    _armed.append(seen)
    try:
        exec(compile("closure.read(p, b'#include \"w.h\"\\n')", headers.__file__, "exec"),
             {"closure": closure, "p": str(tmp_path / "k.cu")})
    finally:
        _armed.pop()
    assert any("w.h" in s for s in seen)
