"""`hipport cache dir|clear`: where results are kept for a tree, and removing them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from hipport.cache import tree_folder
from hipport.errors import HipportError
from hipport.paths import user_cache


def folder(path: Path, everything: bool) -> Path:
    return user_cache() if everything else tree_folder(path if path.is_dir() else path.parent)


def clear(path: Path, everything: bool) -> str:
    """Remove the cache of `path`'s tree (or all of hipport's user cache); says what went."""
    target = folder(path, everything)
    if not target.exists():
        return f"nothing cached in {target}\n"
    if target.is_symlink() or not target.is_dir():
        raise HipportError("not a cache folder hipport made; left alone", target)
    locks = user_cache() / "locks"
    if everything and locks.is_dir():  # a running hipport holds its lock files open
        for p in locks.iterdir():
            p.unlink(missing_ok=True)
    try:
        if everything:
            _clear_all(target, locks)
        else:
            shutil.rmtree(target)
    except OSError as e:
        raise HipportError(f"cannot remove the cache: {e.strerror}", e.filename or target) from None
    return f"removed {target}\n"


def _clear_all(root: Path, locks: Path) -> None:
    for entry in os.scandir(root):
        p = Path(entry.path)
        if p == locks:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(p)
        else:
            p.unlink()
