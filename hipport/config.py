"""Config: defaults < [tool.hipport] in pyproject.toml or .hipport.toml < command-line flags.

Every value remembers where it came from so `hipport config` can say so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hipport.errors import HipportError

if TYPE_CHECKING:
    from hipport.floor import RocmFloor

WAVE_STRATEGIES = ("auto", "logical32", "native")
LAUNCH_SYNTAXES = ("chevron", "ggl")
BLAS_TARGETS = ("hipblas", "rocblas")
INCLUDE_LAYOUTS = ("current", "flat", "hipify")
# cuComplex, __half, __nv_bfloat16 in rocBLAS/rocSOLVER files: HIP's types (which HIP's own
# functions and arithmetic take) or rocBLAS's (which rocBLAS takes; HIPIFY's --roc writes them)
DATA_TYPES = ("hip", "rocblas")
INCLUDE_QUOTES = ("angle", "keep")  # a quoted CUDA library include: to <...>, or kept "..."
# The library each CUDA library family ports to (the first is the default); `roc` (HIPIFY's
# --roc) picks the roc* one of every family that has one and was not chosen explicitly.
LIBRARY_TARGETS = {"blas": BLAS_TARGETS, "sparse": ("hipsparse", "rocsparse"),
                   "rand": ("hiprand", "rocrand"), "solver": ("hipsolver", "rocsolver"),
                   "fft": ("hipfft",), "dnn": ("miopen", "miopen-hipify")}
ROC_TARGETS = {k: v[-1] for k, v in LIBRARY_TARGETS.items() if v[-1].startswith("roc")}
# dnn: "miopen" renames what is the same in MIOpen; "miopen-hipify" also what HIPIFY's --miopen
# renames, each with an HP016 note (rules/api/miopen_hipify.toml)


@dataclass(frozen=True)
class VerifySpec:
    """How `hipport verify` launches one kernel where the host code does not say (or says it
    differently): `[tool.hipport.verify.KERNEL]`. Expressions name the kernel's parameters (and
    `threads`, the launch's thread count, in `lengths`); they are evaluated by hipport, never
    compiled."""

    block: tuple[int, int, int] | None = None  # threads per block
    grid: str | None = None  # blocks: a number or an expression over the parameters
    size: str | None = None  # the integer parameter that takes the generated sizes
    sizes: tuple[int, ...] = ()  # the sizes (default: around the wave boundaries)
    values: tuple[tuple[str, int | float], ...] = ()  # fixed scalar arguments
    lengths: tuple[tuple[str, str], ...] = ()  # pointer parameter -> its length (expression)
    template: str | None = None  # template arguments, for a kernel no launch instantiates
    wave_dependent: tuple[str, ...] = ()  # outputs laid out per wave by design: not compared


@dataclass(frozen=True)
class Config:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    force_exclude: bool = False  # apply `exclude` to files named on the command line too
    select: tuple[str, ...] = ()  # rule ids or prefixes; empty = all
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()  # (rule, severity) overrides
    wave_strategy: str = "auto"
    rocm: str = "5.2"  # the oldest ROCm the emitted code must compile on
    offload_arch: tuple[str, ...] = ("gfx90a",)
    launch_syntax: str = "chevron"
    blas: str = "hipblas"
    sparse: str = "hipsparse"
    rand: str = "hiprand"
    solver: str = "hipsolver"
    fft: str = "hipfft"
    dnn: str = "miopen"
    roc: bool = False  # every family to its roc* library, unless chosen explicitly
    include_layout: str = "current"
    include_quotes: str = "angle"
    data_types: str = "hip"
    rename_extensions: bool = False
    apply_review_fixes: bool = False
    wave64: bool = True  # run the wave64 pass
    build_files: bool = True  # port CMakeLists.txt, *.cmake, Makefiles, *.mk
    fail_on: str = "warning"
    jobs: int = 0  # 0 = all cores; never more than those (`workers`)
    cache: bool = True
    # The project model (issue 31): include folders the analysis looks headers up in after those
    # beside and above a file (absolute: -I, `include-paths`, then what commands/project.py
    # reads from -p and the tree's build files), the macros the HIP build defines (-D,
    # `defines`: NAME or NAME=VALUE) and the compile database (-p, `compile-commands`).
    include_paths: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    compile_commands: str = ""
    # Precise mode (issue 31): clang (the libclang package) parses each source too, for values
    # the tree-sitter model cannot evaluate (hipport.precise).
    precise: bool = False
    # Headers whose name is unique in the tree (name -> absolute path): a quoted include found
    # nowhere else is taken from here. What is found is in each file's cache key (its deps).
    unique_headers: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)
    verify: tuple[tuple[str, VerifySpec], ...] = ()  # `hipport verify`'s kernel table (by kernel name)
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)  # (key, origin)

    def origin(self, key: str) -> str:
        return dict(self.sources).get(key, "default")

    @property
    def floor(self) -> RocmFloor:
        """The ROCm floor `rocm` names (checked when the configuration is built)."""
        from hipport.floor import floor

        return floor(self.rocm)

    def fingerprint(self) -> str:
        """What the per-file results depend on (the cache key part that is not content)."""
        keep = ("select", "ignore", "severity", "wave_strategy", "rocm", "launch_syntax", "blas",
                "sparse", "rand", "solver", "fft", "dnn", "include_layout", "include_quotes", "rename_extensions", "apply_review_fixes", "wave64", "build_files",
                "offload_arch", "data_types", "include_paths", "defines", "precise")
        return repr(tuple(getattr(self, k) for k in keep))


@cache
def libclang_installed() -> bool:
    """The libclang package precise mode parses with is installed (looked for, not imported)."""
    import importlib.util

    try:
        return importlib.util.find_spec("clang.cindex") is not None
    except (ImportError, ValueError):
        return False


def cores() -> int:
    """The cores this process may run on: its affinity mask (a container or `taskset` may
    give it fewer than the machine has), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def workers(jobs: int) -> int:
    """How many workers a `jobs` setting (config or -j) gets: every core for 0, and never
    more than the cores, whatever a tree's config asks (`jobs = 50` started 50 workers)."""
    n = cores()
    return min(jobs, n) if jobs > 0 else n


KEYS = {f.name.replace("_", "-"): f.name for f in fields(Config) if f.name not in ("sources", "unique_headers")}
CHOICES = {"wave_strategy": WAVE_STRATEGIES, "launch_syntax": LAUNCH_SYNTAXES,
           **LIBRARY_TARGETS, "include_layout": INCLUDE_LAYOUTS, "include_quotes": INCLUDE_QUOTES,
           "data_types": DATA_TYPES, "fail_on": ("error", "warning", "info", "never")}


def find_config_file(start: Path) -> Path | None:
    """The nearest .hipport.toml, or pyproject.toml with [tool.hipport], at or above `start`."""
    d = start if start.is_dir() else start.parent
    for cand in [d, *d.resolve().parents]:
        for name in (".hipport.toml", "pyproject.toml"):
            p = cand / name
            if p.is_file():
                try:
                    if name == "pyproject.toml" and b"[tool.hipport" not in p.read_bytes():
                        continue
                except OSError as e:
                    raise HipportError(f"cannot read the configuration: {e.strerror or e}", p) from None
                return p
    return None


def _line_of(text: str, key: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith((key + " ", key + "=")):
            return i
    return None


def _header_line(text: str, table: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip().replace(" ", "").startswith(f"[{table}"):
            return i
    return None


def load_file(path: Path) -> dict[str, tuple[Any, int | None]]:
    """The file's hipport settings by Config field name, each with its line."""
    import tomllib  # only where a config file exists: a no-op run over a plain tree skips it

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise HipportError("no such configuration file", path) from None
    except (OSError, UnicodeDecodeError) as e:
        raise HipportError(f"cannot read the configuration: {getattr(e, 'strerror', None) or e}",
                           path) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise HipportError(f"invalid TOML: {e}", path) from None
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data = tool.get("hipport", {}) if isinstance(tool, dict) else {}
    elif isinstance(data.get("tool"), dict) and "hipport" in data["tool"]:
        # The README's pyproject block pasted into .hipport.toml whole: its table is read as
        # pyproject's is, but not beside top-level keys (which would win is unclear).
        for key in data:
            if key != "tool":
                raise HipportError(f"{key!r} beside [tool.hipport]: in .hipport.toml keep the keys at the "
                                   "top (no header) or all under [tool.hipport]", path, _line_of(text, key))
        for key in data["tool"]:
            if key != "hipport":
                raise HipportError(f"[tool.{key}] in .hipport.toml: the file holds hipport's keys only",
                                   path, _header_line(text, f"tool.{key}"))
        data = data["tool"]["hipport"]
    if not isinstance(data, dict):
        raise HipportError("[tool.hipport] must be a table", path)
    out: dict[str, tuple[Any, int | None]] = {}
    for key, value in data.items():
        name = KEYS.get(key) or (key if key in KEYS.values() else None)
        if name is None:
            raise HipportError(f"unknown configuration key {key!r}{_nearest_key(key)}", path, _line_of(text, key))
        line = _line_of(text, key)
        if line is None and isinstance(value, dict):  # a table: its (first) header
            line = _header_line(text, key + ".") or _header_line(text, f"tool.hipport.{key}")
        out[name] = (value, line)
    return out


def _nearest_key(key: str) -> str:
    """The known key a misspelt one most likely meant (listing every key buried it)."""
    import difflib

    if key == "tool":
        return " (in .hipport.toml the keys stand at the top, or under [tool.hipport])"
    close = difflib.get_close_matches(key.lower().replace("_", "-"), sorted(KEYS), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else " (`hipport config` lists the keys)"


_ARCH = re.compile(r"gfx[0-9a-f]{3,5}(:(xnack|sramecc)[+-])*")
_SEVERITIES = ("error", "warning", "info")
_LISTS = ("include", "exclude", "select", "ignore", "offload_arch", "include_paths", "defines")
# The options that set these keys, where not --KEY.
_OPTION = {"include_paths": "--include-dir", "defines": "--define", "compile_commands": "--compile-commands"}
# Lists a command line adds to (a build's -I and -D come on top of the configuration's).
_ADDED = ("include_paths", "defines")
_DEFINE = re.compile(r"[A-Za-z_]\w*(=[^\x00-\x1f\x7f]*)?")
_BOOLS = ("rename_extensions", "apply_review_fixes", "wave64", "cache", "force_exclude", "build_files",
          "roc", "precise")


def _coerce(name: str, value: Any, origin: str, line: int | None = None) -> Any:
    """`value` checked and put in Config's shape; a bad one is an error naming the key, the
    accepted values and where it came from (the config file and line, or the option)."""
    key = name.replace("_", "-")
    cli = origin == "command line"
    where: tuple[str | None, int | None] = (None, None) if cli else (origin, line)
    opt = _OPTION.get(name, f"--{key}") if cli else key

    def bad(expected: str) -> HipportError:
        shown = f"--{key}" if cli else key
        return HipportError(f"{shown} must be {expected}, not {value!r}", *where)

    if name in _LISTS:
        if isinstance(value, str):
            value = (value,)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise bad("a list of strings")
        value = tuple(value)
        if name in ("select", "ignore"):
            for v in value:
                check_rule(v, f"--{key}" if cli else key, *where, prefixes=True)
        if name == "include_paths":
            return tuple(_folder(v, origin, opt, cli, where) for v in value)
        if name == "defines":
            for v in value:
                if not _DEFINE.fullmatch(v):
                    raise HipportError(f"{opt}: {v!r} is not NAME or NAME=VALUE", *where)
        if name == "offload_arch":
            for v in value:
                if not _ARCH.fullmatch(v):
                    raise HipportError(f"{'--' if cli else ''}{key}: {v!r} is not an AMD GPU target "
                                       "(such as gfx90a, gfx942 or gfx90a:xnack+)", *where)
        return value
    if name == "severity":
        if not isinstance(value, dict):
            raise bad('a table of rule = "error" | "warning" | "info"')
        for rule, sev in value.items():
            check_rule(rule, key, *where)
            if sev not in _SEVERITIES:
                raise HipportError(f"{key}.{rule} must be one of {', '.join(_SEVERITIES)}, not {sev!r}",
                                   *where)
        return tuple(sorted(value.items()))
    if name == "verify":
        return _verify_table(value, key, where)
    if name in _BOOLS:
        if not isinstance(value, bool):
            raise bad("true or false")
        if name == "precise" and value:
            if not libclang_installed():
                raise HipportError(f"{'--precise' if cli else 'precise = true'} needs the libclang package: "
                                   "pip install libclang (or '.[precise]' in hipport's clone)", *where)
        return value
    if name == "jobs":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad("a number of worker processes (0 = all cores)")
        return value
    if name == "rocm":
        if isinstance(value, float):
            raise HipportError(f'rocm must be a quoted version such as "{value}" (TOML reads an '
                               f"unquoted {value} as a number, and 6.10 as 6.1)", *where)
        from hipport.floor import check

        why = check(value)
        if why is not None:
            raise bad(why)
        return value
    if name == "compile_commands":
        if not isinstance(value, str) or not value:
            raise bad("a path to compile_commands.json or the folder holding it")
        p = _relative_to(value, origin, cli)
        if not (p / "compile_commands.json" if p.is_dir() else p).is_file():
            raise HipportError(f"{opt}: no compile_commands.json at {value}", *where)
        return str(p)
    if name in CHOICES and value not in CHOICES[name]:
        raise bad(f"one of {', '.join(CHOICES[name])}")
    return value


# What a verify expression may hold: names, numbers and arithmetic (checked again when parsed).
_VERIFY_EXPR = re.compile(r"[A-Za-z_0-9 .+\-*/%()<>&|^?:]+")
_TEMPLATE_ARGS = re.compile(r"[A-Za-z_0-9 :,<>*.]+")
_VERIFY_KEYS = ("block", "grid", "size", "sizes", "values", "lengths", "template", "wave_dependent")


def _verify_table(value: Any, key: str, where: tuple[str | None, int | None]) -> tuple[tuple[str, VerifySpec], ...]:
    """`[verify.KERNEL]` tables checked field by field (docs/verify.md)."""
    if not isinstance(value, dict):
        raise HipportError(f"{key} must be a table of kernels ([{key}.KERNEL])", *where)
    out: list[tuple[str, VerifySpec]] = []
    for kernel, spec in value.items():
        at = f"{key}.{kernel}"
        if not re.fullmatch(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)*", kernel) or not isinstance(spec, dict):
            raise HipportError(f"{at} must be a table named by a kernel", *where)
        for k in spec:
            if k not in _VERIFY_KEYS:
                raise HipportError(f"{at}: unknown key {k!r} (one of {', '.join(_VERIFY_KEYS)})", *where)

        def expr(v: Any, what: str) -> str:
            if isinstance(v, bool) or not isinstance(v, (int, str)) or not _VERIFY_EXPR.fullmatch(str(v)):
                raise HipportError(f"{what} must be a number or an expression over the kernel's parameters, "
                                   f"not {v!r}", *where)
            return str(v)

        block = spec.get("block")
        dims: tuple[int, int, int] | None = None
        if block is not None:
            vals = block if isinstance(block, list) else [block]
            if not 1 <= len(vals) <= 3 or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in vals):
                raise HipportError(f"{at}.block must be a thread count or [x, y, z], not {block!r}", *where)
            dims = (vals + [1, 1])[0], (vals + [1, 1])[1], (vals + [1, 1])[2]
        size = spec.get("size")
        if size is not None and (not isinstance(size, str) or not size.isidentifier()):
            raise HipportError(f"{at}.size must name an integer parameter, not {size!r}", *where)
        sizes = spec.get("sizes", [])
        if not isinstance(sizes, list) or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in sizes):
            raise HipportError(f"{at}.sizes must be a list of positive integers, not {sizes!r}", *where)
        values = spec.get("values", {})
        if not isinstance(values, dict) or any(isinstance(v, bool) or not isinstance(v, (int, float))
                                               for v in values.values()):
            raise HipportError(f"{at}.values must be a table of parameter = number, not {values!r}", *where)
        lengths = spec.get("lengths", {})
        if not isinstance(lengths, dict):
            raise HipportError(f"{at}.lengths must be a table of pointer parameter = length", *where)
        template = spec.get("template")
        if template is not None and (not isinstance(template, str) or not _TEMPLATE_ARGS.fullmatch(template)):
            raise HipportError(f"{at}.template must be template arguments such as \"float, 256\", "
                               f"not {template!r}", *where)
        wave_dep = spec.get("wave_dependent", [])
        if not isinstance(wave_dep, list) or any(not isinstance(v, str) or not v.isidentifier() for v in wave_dep):
            raise HipportError(f"{at}.wave_dependent must be a list of pointer parameter names, "
                               f"not {wave_dep!r}", *where)
        grid = spec.get("grid")
        out.append((kernel, VerifySpec(
            dims, expr(grid, f"{at}.grid") if grid is not None else None, size, tuple(sizes),
            tuple(sorted(values.items())),
            tuple(sorted((k, expr(v, f"{at}.lengths.{k}")) for k, v in lengths.items())), template,
            tuple(wave_dep))))
    return tuple(out)


def _relative_to(value: str, origin: str, cli: bool) -> Path:
    """A path from the command line (from the current folder) or a configuration file (from
    the file's folder), absolute."""
    base = Path.cwd() if cli else Path(origin).resolve().parent
    return Path(os.path.normpath(base / os.path.expanduser(value)))


def _folder(value: str, origin: str, opt: str, cli: bool, where: tuple[str | None, int | None]) -> str:
    p = _relative_to(value, origin, cli)
    if not p.is_dir():
        raise HipportError(f"{opt}: no such folder: {value}", *where)
    if not cli:  # a configuration file is the tree's: its folders stay inside the tree (-I may not)
        home = Path(origin).resolve().parent
        if not Path(os.path.realpath(p)).is_relative_to(home):
            raise HipportError(f"{opt}: {value} is outside the folder of the configuration ({home}); "
                               "give a folder outside the tree with -I", *where)
    return str(p)


def check_rule(token: str, what: str, path: str | None = None, line: int | None = None,
               prefixes: bool = False) -> None:
    """A rule id (W006), kebab-case name (lane-id-mask-31) or, with `prefixes`, an id
    prefix (W0, HP); anything else is an error with the nearest known spelling."""
    known = rule_names()
    t = token.strip()
    if t.upper() in known.values() or t.lower() in known:
        return
    if prefixes and t and any(rid.startswith(t.upper()) for rid in known.values()):
        return
    raise HipportError(f"{what}: unknown rule {token!r}{did_you_mean(t)}", path, line)


def did_you_mean(token: str) -> str:
    import difflib

    known = rule_names()
    ids = set(known.values())
    m = re.fullmatch(r"([A-Za-z]+)0*(\d+)", token)
    if m:  # W04 -> W004: a dropped zero is the likeliest slip
        for width in (3, 2, 4):
            padded = f"{m.group(1).upper()}{int(m.group(2)):0{width}d}"
            if padded in ids:
                return f" (did you mean {padded}?)"
    close = difflib.get_close_matches(token.upper(), sorted(ids), n=1, cutoff=0.6) \
        or difflib.get_close_matches(token.lower(), sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else " (see `hipport rules list`)"


@cache
def rule_names() -> dict[str, str]:
    """kebab-case name -> id, for every rule hipport reports."""
    from hipport.registry import names

    return names()


def build(start: Path | None, overrides: dict[str, Any], config_file: Path | None = None,
          defaults: dict[str, Any] | None = None) -> Config:
    """Defaults (hipport's, then a command's own `defaults`: `hipport hipify` writes HIPIFY's
    spellings), then the nearest config file, then the non-None command-line overrides."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, value in (defaults or {}).items():
        values[name] = _coerce(name, value, "defaults")
        sources[name] = "hipify default"
    path = config_file or (find_config_file(start) if start else None)
    if path:
        for name, (value, line) in load_file(path).items():
            values[name] = _coerce(name, value, str(path), line)
            sources[name] = str(path)
    for name, value in overrides.items():
        if value is None or value == () or value == []:
            continue
        value = _coerce(name, value, "command line")
        if name in _ADDED and name in values:
            value = tuple(dict.fromkeys((*values[name], *value)))
        values[name] = value
        sources[name] = "command line"
    if values.get("roc"):
        for name, target in ROC_TARGETS.items():
            if name not in values:
                values[name] = target
                sources[name] = f"roc ({sources['roc']})"
    if values.get("solver") == "rocsolver" and "blas" not in values:
        # rocSOLVER takes rocBLAS's handle and enums (rocblas_fill, rocblas_operation, ...):
        # cuBLAS names beside cuSOLVER calls must be rocBLAS's too.
        values["blas"] = "rocblas"
        sources["blas"] = f"solver = rocsolver ({sources['solver']})"
    return replace(Config(), **values, sources=tuple(sorted(sources.items())))
