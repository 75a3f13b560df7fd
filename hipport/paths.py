"""Where hipport's own files are: its data (rules/) and its folder in the user's cache."""

from __future__ import annotations

import os
from pathlib import Path

from hipport.errors import HipportError


def rules_dir() -> Path:
    """The rules/ folder: beside the package in a checkout, hipport/_rules when installed."""
    here = Path(__file__).resolve().parent
    for cand in (here.parent / "rules", here / "_rules"):
        if (cand / "api").is_dir():
            return cand
    raise HipportError("cannot find the rules/ directory of the hipport installation")


def user_cache() -> Path:
    """hipport's folder in the user's cache: $XDG_CACHE_HOME when it is an absolute path, as
    the XDG Base Directory spec says (a relative one is ignored: it would put the cache
    wherever the run happens to start, inside the tree it reads), else ~/.cache."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "hipport"
