"""`hipport toolchains`: every HIP toolchain validate can compile with, as text or JSON."""

from __future__ import annotations

import json
from typing import Any

from hipport.report.printable import printable
from hipport.validate import toolchains as tcmod
from hipport.validate.driver import Toolchain

FORMAT_VERSION = 1
# The targets the text names when the toolchain knows them (JSON gives every one).
NOTABLE = ("gfx908", "gfx90a", "gfx940", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201")


def record(tc: Toolchain) -> dict[str, Any]:
    known, why = tcmod.targets(tc)
    error = tc.error or (why if not known else "")
    return {"name": tc.name, "hip_version": tc.hip_version, "clang_version": tc.clang_version,
            "clang": tc.clang, "root": tc.root or None, "runs_with": list(tc.prefix), "found": tc.origin,
            "usable": not error, "error": error or None, "targets": list(known),
            "libraries": [{"name": lib.name, "header": lib.header, "version": lib.version or None}
                          for lib in tc.headers]}


def toolchains(fmt: str) -> tuple[str, int]:
    """The listing and the exit status: 0 when at least one toolchain can compile, else 1."""
    found = tcmod.listing()
    records = [record(tc) for tc in found.toolchains]
    code = 0 if any(r["usable"] for r in records) else 1
    if fmt == "json":
        return json.dumps({"version": FORMAT_VERSION, "toolchains": records, "notes": list(found.notes)},
                          indent=2) + "\n", code
    lines: list[str] = []
    for r in records:
        where = f"root {r['root']} (inside it with {r['runs_with'][0].rsplit('/', 1)[-1]})" if r["root"] \
            else f"{r['clang']} (found by {r['found']})"
        lines.append(f"{r['name']}  HIP {r['hip_version']}  clang {r['clang_version'] or '?'}  {where}")
        if r["error"]:
            lines.append(f"  cannot compile: {r['error']}")
        else:
            shown = [t for t in NOTABLE if t in r["targets"]]
            lines.append(f"  targets: {' '.join(shown)} ({len(r['targets'])} gfx targets in all)")
        libs = [f"{x['name']} {x['version']}" if x["version"] else x["name"] for x in r["libraries"]]
        lines.append(f"  libraries: {', '.join(libs) if libs else 'no math library headers'}")
    if not records:
        lines.append("no HIP toolchain found (no hipcc on PATH, in /opt/rocm or /usr, and no root in "
                     f"{tcmod.roots_folder()})")
    lines += [f"note: {n}" for n in found.notes]
    return "".join(printable(line) + "\n" for line in lines), code
