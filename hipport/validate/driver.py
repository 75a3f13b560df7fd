"""hipcc's own clang command, learned once per run, for the compile check's many small calls.

Debian's hipcc is a Perl script that spends about a quarter of a CPU-second per call (Perl,
`uname`, a shell) working out the same clang command again; the check makes two calls per
unit, so on a few hundred units that is a third of its time. hipcc says what it runs when
`HIPCC_VERBOSE=1`: a probe call of the check's own shape shows the clang, the options hipcc
puts before the caller's arguments and the ones it puts after. A later call whose arguments
hipcc passes through untouched (include folders, defines, the language standard, dependency
files, host or device side, a precompiled header, `-fsyntax-only`, `-M` on the host side)
runs that command with its own arguments in the middle, the very command hipcc would have
run. Any other call, or a hipcc whose output is not understood, goes through hipcc.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from hipport.validate import toolchains

# Arguments hipcc passes through to clang as they are, without changing its own options.
_PLAIN = re.compile(r"-[IDU].+|-std=\S+|-W[^l,].*|-w|-fsyntax-only|-MD|--cuda-(host|device)-only")
_WITH_VALUE = {"-I", "-D", "-U", "-isystem", "-include", "-include-pch", "-MF"}
# A word that does not start with "-" is an input to hipcc, which unpacks these itself.
_HIPCC_INPUT = re.compile(r"@.*|.*\.(a|lo)")


@dataclass(frozen=True)
class Direct:
    """hipcc's command for one arch: clang and hipcc's options ahead of the caller's
    arguments (`before`, which holds the --offload-arch) and after them (`after`)."""

    arch: str
    before: tuple[str, ...]
    after: tuple[str, ...]

    def command(self, args: list[str]) -> list[str] | None:
        """The clang command hipcc would run for `hipcc *args`; None when hipcc might treat
        `args` otherwise than the probe (then call hipcc)."""
        if args[:2] != ["-x", "hip"] or len(args) < 4:
            return None
        rest, unit = args[2:-1], args[-1]
        if unit.startswith("-") or _HIPCC_INPUT.fullmatch(unit):
            return None
        mine: list[str] = []
        it = iter(rest)
        for a in it:
            if a == f"--offload-arch={self.arch}":
                continue
            if a in _WITH_VALUE:
                v = next(it, None)
                if v is None or _HIPCC_INPUT.fullmatch(v):
                    return None
                mine += [a, v]
            elif _PLAIN.fullmatch(a) or a == "-MG":
                mine.append(a)
            elif a == "-M" and "--cuda-host-only" in rest:
                mine.append(a)  # hipcc's -M adds --cuda-host-only, here already
            else:
                return None
        if len(rest) == len(mine) or f"--offload-arch={self.arch}" not in rest:
            return None
        return [*self.before, "-x", "hip", *mine, unit, *self.after]


_lock = threading.Lock()
_learned: dict[tuple[str, str], Direct | None] = {}


def direct(hipcc: str, arch: str) -> Direct | None:
    """hipcc's command for `arch`, learned on first use in this process (None: call hipcc)."""
    key = (hipcc, arch)
    with _lock:
        if key not in _learned:
            _learned[key] = _learn(hipcc, arch)
        return _learned[key]


def _learn(hipcc: str, arch: str) -> Direct | None:
    with tempfile.TemporaryDirectory(prefix="hipport-driver-") as d:
        probe = str(Path(d) / "probe.hip")
        Path(probe).write_text("int hipport_probe;\n", encoding="utf-8")
        env = toolchains.amd_env()
        env["HIPCC_VERBOSE"] = "1"
        args = ["-x", "hip", f"--offload-arch={arch}", "-fsyntax-only", probe]
        try:
            p = subprocess.run([hipcc, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return None
        out = p.stdout.decode("utf-8", "replace")
        m = re.search(r"^hipcc-cmd:\s*(.+)$", out, re.M)
        if p.returncode != 0 or m is None:
            return None
        learned = parse(m.group(1), arch, probe)
        if learned is None:
            return None
        # The learned command must do what hipcc did on the probe.
        cmd = learned.command(args)
        try:
            q = subprocess.run(cmd or [], env=toolchains.amd_env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=120)
        except (OSError, subprocess.TimeoutExpired, IndexError):
            return None
        return learned if q.returncode == 0 else None


def parse(line: str, arch: str, probe: str) -> Direct | None:
    """The Direct of a `hipcc-cmd:` line printed for the probe call `-x hip
    --offload-arch=ARCH -fsyntax-only PROBE`; None unless it has exactly that shape."""
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    tail = ["-x", "hip", "-fsyntax-only", probe]
    at = [i for i in range(len(words)) if words[i:i + 4] == tail]
    if len(at) != 1 or words.count(f"--offload-arch={arch}") != 1:
        return None
    before, after = words[:at[0]], words[at[0] + 4:]
    if not before or f"--offload-arch={arch}" not in before or probe in after:
        return None
    return Direct(arch, tuple(before), tuple(after))
