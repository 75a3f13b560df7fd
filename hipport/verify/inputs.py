"""The cases `hipport verify` runs a kernel with: launch shapes, sizes around the wave
boundaries, scalar arguments, pointer lengths, and the data (random, sparse, special,
mixed-sign; outputs pre-filled with a sentinel). A kernel whose shape, scalar value or pointer
length cannot be found is not guessed at: `plan` says why instead."""

from __future__ import annotations

import math
import random
import re
import struct
import zlib
from dataclasses import dataclass, field, replace

from hipport.config import VerifySpec
from hipport.verify.kernels import (
    SCALARS,
    Evaluator,
    Kernel,
    Launch,
    Param,
    Scope,
    Value,
    _parse_expr,
    dims,
    scalar_type,
)

SIZES = (1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4099)  # around 32 and 64, and a large odd size
KINDS = ("random", "sparse", "special", "mixed-sign")
SIZE_NAMES = re.compile(r"(?i)^(n|size|count|len|length|num_?elements|numel|nelems|n_?elements|num)$")
SENTINEL = {"f": b"\xa5\xa5\xa5\x7f", "d": b"\xa5\xa5\xa5\xa5\xa5\xa5\xf5\x7f"}  # NaNs with a payload
BLOCK_NAMES = re.compile(r"(?i)block|threads|^B$|^BS$|^TPB$|^NT$")  # a template parameter that is the block size
INT_SENTINEL = 0xA5  # every byte
FLOAT_CODES = ("f", "d")
# values for a scalar parameter nothing gives a value to (not the size): small, odd and one past
# a wave of 32, so a port that assumes a multiple of 32 or 64 shows
GENERATED_INTS = (1, 5, 33)
GENERATED_FLOATS = (0.5, -2.0, 3.0)
GENERATED_BOOLS = (1, 0)


@dataclass(frozen=True)
class Buffer:
    param: str
    code: str  # struct code of the element type
    role: str  # "input" (generated data), "output" (sentinel), "accumulator" (zeros)


@dataclass(frozen=True)
class Case:
    size: int
    kind: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    scalars: tuple[tuple[str, int | float], ...]
    lengths: tuple[tuple[str, int], ...]

    @property
    def threads(self) -> int:
        return math.prod(self.grid) * math.prod(self.block)


@dataclass
class Plan:
    kernel: Kernel
    launch: Launch | None
    callee: str  # the kernel as the harness names it (template arguments included)
    params: list[tuple[Param, str]]  # each parameter with how it is passed: a struct code,
    # "ptr:<code>", or "text:<expression>" (a launch argument the harness copies)
    buffers: list[Buffer] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    sized_by: str = ""  # how pointer lengths were found (shown with the result)
    size_param: str | None = None
    rounded: bool = False  # the host code's grid did not cover some sizes: rounded up
    ctypes: dict[str, str] = field(default_factory=dict)  # each generated parameter's C type, as declared

    @property
    def size_counts_data(self) -> bool:
        """A case's size counts its inputs' data (the elements past it only pad a buffer to the
        launch's threads): with a size parameter and no configured lengths."""
        return self.size_param is not None and not self.sized_by.startswith("configuration")


class Unverified(Exception):
    """Why a kernel cannot be checked (a sentence for the report)."""


def _template_args(callee: str) -> list[str]:
    """The template arguments of `ns::k<float, 4>` as written (top-level commas)."""
    last = callee.split("::")[-1] if "<" not in callee else callee[callee.index("<"):]
    if not last.startswith("<"):
        return []
    body, depth, parts, cur = last[1:last.rindex(">")], 0, [], ""
    for ch in body:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _depends(scope: Scope, node: object, name: str) -> bool:
    a = Evaluator(scope, {name: 1 << 20})(node)  # type: ignore[arg-type]
    b = Evaluator(scope, {name: (1 << 20) + (1 << 14)})(node)  # type: ignore[arg-type]
    return a != b


def _identifiers(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", text))


def plan(kernel: Kernel, launch: Launch | None, spec: VerifySpec | None,
         default_block: tuple[int, int, int] | None = None, instantiation: str | None = None,
         globals_scope: Scope | None = None) -> Plan:
    """The cases for `kernel` from its launch and the configuration (and, for a kernel with
    neither, the block the command line gave: `--block`, and the template arguments of an
    explicit instantiation); raises Unverified. Every value not read from the host code or the
    configuration is named in the plan's `sized_by`."""
    spec = spec or VerifySpec()
    inferred: list[str] = []
    if launch is None and default_block is not None and spec.block is None and globals_scope is not None:
        fit = shared_block(kernel, globals_scope, default_block)
        if fit is not None:
            default_block = fit[0]
            inferred.append(f"block {fit[0][0]}x{fit[0][1]} from {fit[1]} (--block overflows it)")
    if launch is None and kernel.template and spec.template is None and instantiation is not None:
        spec = replace(spec, template=instantiation)
        inferred.append(f"template arguments <{instantiation}> from the file's explicit instantiation")
    elif launch is None and kernel.template and spec.template is None and default_block is not None:
        # --block instantiates what it can say: a block-size parameter takes the block, a type
        # parameter float; anything else (a functor, a bin count) is not guessed
        targs = []
        for t in kernel.template:
            if BLOCK_NAMES.search(t):
                targs.append(str(math.prod(spec.block or default_block)))
            elif re.fullmatch(r"T|T?[Vv]al(ue)?|Scalar|Real|[Ff]loat\w*|T[A-Z]?\w*_?[Tt]ype|DType", t):
                targs.append("float")
            else:
                raise Unverified(f"a template kernel no launch instantiates, and --block says nothing of its "
                                 f"template parameter {t} (give template = \"...\" in "
                                 f"[tool.hipport.verify.{kernel.name}])")
        spec = replace(spec, template=", ".join(targs))
        inferred.append(f"template arguments <{spec.template}> from --block (block-size parameters the block, "
                        "type parameters float)")
    if launch is None and default_block is not None:
        named = spec.size or next((p.name for p in kernel.params if not p.pointer and SIZE_NAMES.match(p.name)), None)
        b = math.prod(default_block)
        spec = replace(spec, block=spec.block or default_block,
                       grid=spec.grid or (f"({named} + {b} - 1) / {b}" if named else "2"))
    scope = launch.scope if launch is not None else Scope()
    ev = Evaluator(scope)
    # the kernel as the harness names it: a launch's template arguments, locals made values
    if launch is not None:
        targs = _template_args(launch.kernel)
        shown = []
        for a in targs:
            if a in scope.names:
                v = ev.name(a)
                if not isinstance(v, int):
                    raise Unverified(f"template argument {a} is not a constant")
                a = str(v)
            shown.append(a)
        base = re.sub(r"<.*", "", launch.kernel).strip()
        callee = f"{base}<{', '.join(shown)}>" if targs else base
    elif kernel.template and spec.template is None:
        raise Unverified("a template kernel no launch instantiates (give template = \"...\" in "
                         f"[tool.hipport.verify.{kernel.name}])")
    else:
        targs = [a.strip() for a in (spec.template or "").split(",") if a.strip()]
        callee = f"{kernel.qualified}<{spec.template}>" if spec.template else kernel.qualified
    types = dict(zip(kernel.template, targs, strict=False))
    # the block
    block = spec.block or (dims(ev(launch.block)) if launch is not None else None)
    if block is None:
        raise Unverified("no launch shape: no <<<grid, block>>> launch with a constant block, "
                         f"and no block in [tool.hipport.verify.{kernel.name}]")
    # parameters
    passed: list[tuple[Param, str]] = []
    out_types: dict[str, str] = {}
    args = list(launch.args) if launch is not None else []
    fixed = dict(spec.values)
    arg_values: dict[str, Value | None] = {}
    for i, p in enumerate(kernel.params):
        t = types.get(p.type, p.type)
        code = SCALARS.get(scalar_type(t) or "")
        arg = args[i] if i < len(args) else None
        if code is not None:
            out_types[p.name] = scalar_type(t) or t
        if p.pointer:
            if code is None or p.depth > 1:
                raise Unverified(f"unsupported parameter type: {p.type}{'*' * max(p.depth, 1)} {p.name}")
            passed.append((p, f"ptr:{code}"))
        elif code is not None:
            passed.append((p, code))
            arg_values[p.name] = fixed.get(p.name, ev(arg) if arg is not None else None)
        else:
            text = (arg.text or b"").decode() if arg is not None else ""
            if not text or _identifiers(text) & (scope.local | set(scope.names)) or "&" in text:
                raise Unverified(f"unsupported parameter type: {p.type} {p.name} (no launch argument "
                                 "the harness can pass as written)")
            passed.append((p, f"text:{text}"))
    ints = [p for p, how in passed if how in ("i", "I", "q", "Q", "h", "H")]
    size_p = spec.size or next((p.name for p in ints if SIZE_NAMES.match(p.name)), None)
    if size_p is not None and size_p not in {p.name for p in ints}:
        raise Unverified(f"size parameter {size_p!r} is not an integer parameter of {kernel.name}")
    out = Plan(kernel, launch, callee, passed, size_param=size_p, ctypes=out_types)
    for p, how in passed:
        if how.startswith("ptr:"):
            code = how[4:]
            role = "accumulator" if kernel.accumulates(p.name) else \
                "input" if p.const or kernel.reads(p.name) else "output"
            out.buffers.append(Buffer(p.name, code, role))
    if not any(b.role != "input" or not next(q for q, _ in passed if q.name == b.param).const for b in out.buffers):
        raise Unverified("it writes no pointer parameter (nothing to compare)")
    # the size and the grid per size
    size_arg = None
    if size_p is not None and launch is not None:
        idx = [p.name for p in kernel.params].index(size_p)
        node = args[idx] if idx < len(args) else None
        size_arg = (node.text or b"").decode() if node is not None and node.type == "identifier" else None
    grid_node = _parse_expr(spec.grid) if spec.grid is not None else (launch.grid if launch is not None else None)
    if grid_node is None:
        raise Unverified(f"no launch shape: no grid in [tool.hipport.verify.{kernel.name}]")
    # a scalar with no value and no size role (no launch passes one, or hipport cannot evaluate
    # what it passes) takes a small set of values, one per size in turn, and the result says so
    generated: dict[str, tuple[int | float, ...]] = {}
    for name, v in arg_values.items():
        if v is None and name != size_p:
            code = next(how for p, how in passed if p.name == name)
            generated[name] = GENERATED_FLOATS if code in FLOAT_CODES else \
                GENERATED_BOOLS if code == "?" else GENERATED_INTS
    if generated:
        inferred.append("generated values for " + ", ".join(
            f"{n} ({', '.join(map(str, vs))}, one per size in turn)" for n, vs in generated.items()))
    lengths_cfg = dict(spec.lengths)
    # a configured value rebinds the name the launch passes for it (the grid may use it)
    fixed_args: dict[str, Value] = {}
    for i, p in enumerate(kernel.params):
        if p.name in fixed and i < len(args) and args[i].type == "identifier":
            fixed_args[(args[i].text or b"").decode()] = fixed[p.name]
    if size_p is not None:
        sizes = list(spec.sizes or SIZES)
    else:
        g0 = dims(ev(grid_node))
        if g0 is None:
            raise Unverified("no launch shape: the grid is not a constant expression")
        sizes = list(spec.sizes) or sorted({math.prod(block) * g for g in (1, 2, g0[0])})
    missing = [b.param for b in out.buffers if b.param not in lengths_cfg]
    if lengths_cfg and missing and spec.lengths:
        out.sized_by = f"configuration ({', '.join(lengths_cfg)}), " + \
            (f"{size_p} or threads" if size_p else "threads") + f" for {', '.join(missing)}"
    elif lengths_cfg:
        out.sized_by = "configuration"
    else:
        out.sized_by = f"{size_p} or the launch's threads, whichever is larger" if size_p else "the launch's threads"
    for si, size in enumerate(sizes):
        over: dict[str, Value] = {k: v for k, v in arg_values.items() if v is not None}
        over.update({k: vs[si % len(vs)] for k, vs in generated.items()})
        if size_p is not None:
            over[size_p] = size
        if spec.grid is not None:
            grid = dims(Evaluator(Scope(), over)(grid_node))
        elif size_p is not None:
            rebound = {**fixed_args, **({size_arg: size} if size_arg else {})}
            grid = dims(Evaluator(scope, rebound)(grid_node))
            if size_arg and _depends(scope, grid_node, size_arg) and (grid is None or grid[0] < 1 or
                                                                    math.prod(grid) * math.prod(block) < size):
                # the host code's grid floors (kN / kBlock): rounded up to cover the size
                grid = (-(-size // math.prod(block)), *(grid[1:] if grid else (1, 1)))  # type: ignore[assignment]
                out.rounded = True
        else:
            grid = (size // math.prod(block), 1, 1)
        if grid is None or min(grid) < 1:
            raise Unverified(f"no launch shape: the grid for {size_p or 'the size'} = {size} is not a "
                             "constant expression")
        threads = math.prod(grid) * math.prod(block)
        names: dict[str, Value] = {**over, "threads": threads}
        lengths = []
        for buf in out.buffers:
            if buf.param in lengths_cfg:
                n = Evaluator(Scope(), names)(_parse_expr(lengths_cfg[buf.param]))
                if not isinstance(n, int) or n < 0:
                    raise Unverified(f"lengths.{buf.param} = {lengths_cfg[buf.param]!r} is not an integer here")
            else:
                n = max(size, threads) if size_p is not None else threads
            lengths.append((buf.param, max(int(n), 1)))
        scal = tuple((p.name, v) for p, how in passed if len(how) == 1
                     and isinstance(v := over.get(p.name), (int, float)))
        for kind in KINDS:
            out.cases.append(Case(size, kind, grid, block, scal, tuple(lengths)))
    if inferred:
        out.sized_by = "; ".join([out.sized_by, *inferred])
    return out


_SHARED = re.compile(r"__shared__\s+[\w:\s]+?\b([A-Za-z_]\w*)\s*\[([^\]]+)\](?:\s*\[([^\]]+)\])?\s*;")


def shared_block(kernel: Kernel, scope: Scope,
                 block: tuple[int, int, int]) -> tuple[tuple[int, int, int], str] | None:
    """A smaller block when `block` overflows a `__shared__` array the kernel indexes by the
    thread index (`s[threadIdx.x]` with `__shared__ float s[64]`; `tile[threadIdx.y][threadIdx.x]`):
    the block the kernel is written for, with the declaration that says so; None otherwise."""
    bx: list[int] = []
    by: list[int] = []
    why = ""
    ev = Evaluator(scope)
    for m in _SHARED.finditer(kernel.body):
        name = re.escape(m.group(1))
        dims_ = [ev(_parse_expr(d)) for d in (m.group(2), m.group(3)) if d is not None]
        if not all(isinstance(d, int) and d > 0 for d in dims_):
            continue
        ext = [int(d) for d in dims_ if isinstance(d, int)]
        idx = r"\s*\[\s*threadIdx\.([xy])\s*\]"
        for u in re.finditer(rf"(?<![\w.]){name}{idx}(?:{idx})?", kernel.body):
            stmt = re.split(r"[;{}]", kernel.body[:u.start()])[-1]
            if re.search(r"threadIdx\.[xy]\s*<", stmt):
                continue  # a guarded use (`if (threadIdx.x < BINS) s[threadIdx.x] = 0;`) bounds nothing
            for axis, n in zip((u.group(1), u.group(2)), ext, strict=False):
                if axis is not None:
                    (bx if axis == "x" else by).append(n)
                    why = why or f"`{' '.join(m.group(0).split())}` indexed by the thread index"
    x = min(bx, default=block[0])
    y = min(by, default=block[1]) if "threadIdx.y" in kernel.body else 1
    if x >= block[0] and y >= block[1] or x * y > 1024 or x * y < 32:
        return None  # a block below a whole warp would make the original's full-mask calls invalid
    return (min(x, block[0]), y, 1), why


# --- data -----------------------------------------------------------------------------------------

def _floats(kind: str, n: int, rng: random.Random, code: str = "f") -> list[float]:
    if kind == "random":
        return [rng.random() for _ in range(n)]
    if kind == "sparse":
        return [rng.random() if rng.random() < 0.1 else 0.0 for _ in range(n)]
    if kind == "mixed-sign":
        return [rng.uniform(-100.0, 100.0) for _ in range(n)]
    tiny = 1e-40 if code == "f" else 1e-310  # a denormal of the type
    special = (math.nan, math.inf, -math.inf, tiny, -tiny, 1e30, -1e30, 0.0, -0.0, 1.0)
    return [special[i % len(special)] if rng.random() < 0.5 else rng.uniform(-1, 1) for i in range(n)]


def _ints(kind: str, n: int, code: str, rng: random.Random) -> list[int]:
    bits = struct.calcsize(code) * 8
    signed = code.islower()
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    if code == "?":
        return [rng.randint(0, 1) if kind != "sparse" else int(rng.random() < 0.1) for _ in range(n)]
    top = min(hi, 1000)
    if kind == "random":
        return [rng.randint(0, top) for _ in range(n)]
    if kind == "sparse":
        return [rng.randint(1, min(hi, 100)) if rng.random() < 0.1 else 0 for _ in range(n)]
    if kind == "mixed-sign":
        return [rng.randint(-top, top) if signed else rng.randint(0, top) for _ in range(n)]
    special = (0, 1, hi, hi - 1, 1 << (bits - 2), 255, 65535 & hi)
    return [special[i % len(special)] if rng.random() < 0.5 else rng.randint(0, top) for i in range(n)]


def data(buf: Buffer, n: int, kind: str, seed: str) -> bytes:
    """The bytes of one buffer of a case (little-endian, as the emulator's host is)."""
    if buf.role == "accumulator":
        return bytes(n * struct.calcsize(buf.code))
    if buf.role == "output":
        if buf.code in FLOAT_CODES:
            return SENTINEL[buf.code] * n
        return bytes([INT_SENTINEL]) * (n * struct.calcsize(buf.code))
    rng = random.Random(zlib.crc32(f"{seed}/{buf.param}/{n}/{kind}".encode()))
    if buf.code in FLOAT_CODES:
        return struct.pack(f"<{n}{buf.code}", *_floats(kind, n, rng, buf.code))
    return struct.pack(f"<{n}{buf.code}", *_ints(kind, n, buf.code, rng))


def scalar_bytes(code: str, value: int | float) -> bytes:
    """A scalar argument in its own type, padded to 8 bytes."""
    v: int | float = float(value) if code in FLOAT_CODES else int(value)
    return struct.pack(f"<{code}", v).ljust(8, b"\0")


def case_file(p: Plan, cases: list[Case], seed: str) -> bytes:
    """What the harness reads: the cases in order (see harness.py)."""
    out = [b"HPV1", struct.pack("<I", len(cases))]
    for c in cases:
        out.append(struct.pack("<6I", *c.grid, *c.block))
        lengths = dict(c.lengths)
        scalars = dict(c.scalars)
        bufs = {b.param: b for b in p.buffers}
        for prm, how in p.params:
            if how.startswith("ptr:"):
                n = lengths[prm.name]
                out.append(struct.pack("<Q", n))
                out.append(data(bufs[prm.name], n, c.kind, seed))
            elif len(how) == 1:
                out.append(scalar_bytes(how, scalars[prm.name]))
    return b"".join(out)
