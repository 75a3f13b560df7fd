"""The identity of the running hipport: its version and a digest of its own source files.

Every cache key holds it, so an entry made by other code (an editable install after
`git pull`, a patched copy at the same version) is never read as this code's answer."""

from __future__ import annotations

import functools
from hashlib import blake2b
from pathlib import Path

from hipport import __version__


@functools.cache
def build_id() -> str:
    """`<version>+<digest of the package's code>`: about 1.5 MB read once per process."""
    return f"{__version__}+{code_digest(Path(__file__).resolve().parent)}"


def code_digest(root: Path) -> str:
    """A digest of every .py file under root, by relative path and bytes."""
    h = blake2b(digest_size=8)
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix().encode()
        data = p.read_bytes()
        h.update(b"%d:%s:%d:" % (len(rel), rel, len(data)))
        h.update(data)
    return h.hexdigest()
