#!/usr/bin/env python3
"""Add ROCm-floor spellings (`floors`) to rules/api/cublas.toml.

    python3 tools/gen_floor_spellings.py HIPIFY_CHECKOUT

hipBLAS 6.x declares two forms of every function with complex arguments (and of the `Ex`
functions): `hipblasX`, taking hipblasComplex (and hipblasDatatype_t), and `hipblasX_v2`,
taking hipComplex (and hipDataType) as cuBLAS's take cuComplex. ROCm 7.0 kept only the
hipComplex form, under the plain name. Since hipport ports cuComplex to hipComplex, a floor of
6.x must write `hipblasX_v2` and a floor of 7.0 `hipblasX`; below 6.0 there is no hipComplex
form (the entry's note says so). Which names have a `_v2` form, and the release that added it,
are facts read from HIPIFY's cuBLAS reference table (docs/tables/CUBLAS_API_supported_by_HIP.md);
the entries edited are those whose note records the ROCm 7.0 change (tools/gen_lib_rules.py's
`complex_change_note`, from the hipBLAS declarations of each release). Only the `floors` key of
an entry's line is written; every other byte of the file stays as it is. Not run by the tests.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "rules" / "api" / "cublas.toml"
ROW = re.compile(r"^\|`(\w+)`\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|`(\w+)`\|([^|]*)\|")
LINE = re.compile(r'^(?P<cuda>\w+) = \{ hip = "(?P<hip>\w+)"(?P<rest>.*) \}$')


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    v2: dict[str, tuple[str, str]] = {}
    for line in (Path(sys.argv[1]) / "docs" / "tables" / "CUBLAS_API_supported_by_HIP.md").read_text().splitlines():
        m = ROW.match(line)
        if m and re.search(r"_v2(_64)?$", m.group(2)):
            added = ".".join(m.group(3).strip().split(".")[:2]) or "6.0"
            v2[m.group(1)] = (m.group(2), added)
    lines = TABLE.read_text(encoding="utf-8").splitlines()
    # The hipBLAS names whose entries record the ROCm 7.0 change; their 64-bit-size forms
    # (`_64`, ROCm 6.1 on) changed the same way, though the note sits on the 32-bit entry.
    changed = {m.group("hip") for m in map(LINE.match, lines) if m and "ROCm 7.0 changed" in m.group("rest")}
    out, edited = [], 0
    for line in lines:
        m = LINE.match(line)
        if m and m.group("cuda") in v2 and "floors" not in line and (
                "ROCm 7.0 changed" in m.group("rest")
                or m.group("hip").endswith("_64") and m.group("hip")[:-3] in changed):
            name, added = v2[m.group("cuda")]
            if name.replace("_v2", "") == m.group("hip"):
                line = line[:-2] + f', floors = {{ "{added}" = "{name}", "7.0" = "{m.group("hip")}" }} }}'
                edited += 1
        out.append(line)
    TABLE.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"{edited} entries of {TABLE.relative_to(ROOT)} have floor spellings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
