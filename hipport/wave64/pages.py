"""Write or check the wave64 rule pages, rules/wave64/WNNN.md, from the rule modules.

    python -m hipport.wave64.pages           # write them
    python -m hipport.wave64.pages --check   # exit 1 if a page is not what the modules give
"""

from __future__ import annotations

import sys

from hipport.wave64.registry import RULES
from hipport.wave64.ruledoc import pages_dir, render


def main(argv: list[str] | None = None) -> int:
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    stale = []
    for rid in RULES:
        page, text = pages_dir() / f"{rid}.md", render(rid)
        if check:
            if not page.is_file() or page.read_text(encoding="utf-8") != text:
                stale.append(page.name)
        else:
            page.write_text(text, encoding="utf-8")
    if stale:
        print("stale rule pages (python -m hipport.pages): " + ", ".join(stale), file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
