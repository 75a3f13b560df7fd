"""Why a unit failed to compile, in one word a porting team can act on.

- `missing-package`: its first error is a header that a package provides (named, with the
  package, from `rules/validate/packages.toml`) and the toolchain lacks: install it; not
  hipport's failure. Where the toolchain has that package's library (the HIP 6.4 root has
  hipBLAS), a header of it not found is the port's to answer for: flagged or unexpected.
- `missing-dependency`: its first error is a header found neither in the project (its folder
  and the repository around it) nor in the toolchain, and not CUDA's or HIP's own (ATen, a JSON
  library): a third-party library, named; give its folder with -I or install it.
- `flagged`: its first error lies on a line where hipport reported a finding (the rule is
  given): hipport said so when porting, the fix is the finding's.
- `unexpected`: anything else: a gap in hipport, to report.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from hipport.errors import HipportError
from hipport.paths import rules_dir
from hipport.validate.driver import Library
from hipport.validate.errors_map import MISSING, Diagnostic

MISSING_PACKAGE, FLAGGED, UNEXPECTED = "missing-package", "flagged", "unexpected"
MISSING_DEPENDENCY = "missing-dependency"
KINDS = (MISSING_PACKAGE, MISSING_DEPENDENCY, FLAGGED, UNEXPECTED)
_NOT_FOUND = re.compile(r"'([^']+)' file not found")
# CUDA's and HIP's own headers: one not found is the port's doing (a name left or misspelt), or
# a ROCm library the toolchain lacks (the package table names those).
_TOOLKIT = re.compile(r"(?:cuda|cu[a-z]+[_.]|cublas|cufft|curand|cusparse|cusolver|cudnn|nvrtc|nvtx|nccl|"
                      r"npp|nvjpeg|nvml|thrust/|cub/|cooperative_groups|crt/|mma\.h|sm_\d|device_|"
                      r"vector_|math_constants|texture_|surface_|driver_|host_|channel_|builtin_types|"
                      r"hip|roc|miopen|amd_|rccl)", re.I)


@dataclass(frozen=True)
class Package:
    name: str
    debian: bool


@dataclass(frozen=True)
class UnitClass:
    kind: str  # MISSING_PACKAGE, FLAGGED, UNEXPECTED
    why: str  # one line: the header and its package, the finding, or the first error

    def to_dict(self) -> dict[str, str]:
        return {"class": self.kind, "why": self.why}


@cache
def packages() -> dict[str, Package]:
    path = rules_dir() / "validate" / "packages.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise HipportError(f"cannot read the package table: {e}", path) from None
    out: dict[str, Package] = {}
    for prefix, entry in data.get("headers", {}).items():
        if not isinstance(entry, dict) or not isinstance(entry.get("package"), str) \
                or set(entry) - {"package", "debian"} or not isinstance(entry.get("debian", True), bool):
            raise HipportError(f"headers.{prefix}: needs `package` (text) and may have `debian` (true/false)", path)
        out[prefix] = Package(entry["package"], entry.get("debian", True))
    return out


def package_of(header: str) -> Package | None:
    """The package providing an #include path: the whole path, else its first folder, else
    the first pattern (a key with `*`, as a shell matches names) that it matches."""
    table = packages()
    got = table.get(header) or table.get(header.split("/", 1)[0])
    if got is None:
        got = next((pkg for key, pkg in table.items() if "*" in key and fnmatch.fnmatchcase(header, key)), None)
    return got


def classify_unit(errors: list[Diagnostic], has: Sequence[Library] = (), toolchain: str = "",
                  in_project: Callable[[str], bool] | None = None) -> UnitClass:
    """`has`: the libraries whose headers the toolchain (named `toolchain`) has; `in_project`:
    is there a file of this include path in the project (None: unknown, nothing is a
    missing dependency)."""
    if not errors:
        return UnitClass(UNEXPECTED, "the compiler failed without an error hipport could read")
    first = errors[0]
    where = f"{first.file}:{first.line}" if first.file else (first.ported_file or "?")
    m = _NOT_FOUND.search(first.message)
    message = first.message
    if first.category == MISSING and m is not None:
        pkg = package_of(m.group(1))
        if pkg is not None:
            lib = next((x for x in has if package_of(x.header) == pkg), None)
            if lib is None:
                note = "" if pkg.debian else ", which Debian 12 does not package"
                return UnitClass(MISSING_PACKAGE, f"{m.group(1)}: install {pkg.name}{note}")
            message += f" ({toolchain or 'the toolchain'} has {lib.name}: <{lib.header}>)"
        elif in_project is not None and first.rule is None and not _TOOLKIT.match(m.group(1)) \
                and not in_project(m.group(1)):
            return UnitClass(MISSING_DEPENDENCY, f"{m.group(1)}: in neither the project nor the toolchain "
                                                 f"(a third-party library: give its folder with -I, or install it)")
    if first.rule is not None:
        return UnitClass(FLAGGED, f"{where}: {first.rule} ({message})")
    return UnitClass(UNEXPECTED, f"{where}: {message}")
