"""A HIP toolchain for AMD as data, and the clang command it runs for a hipcc-style call.

Debian's hipcc (HIP 5.2) is a Perl script that joins clang's path, its own options, the
caller's arguments and some libraries into one string and hands it to a shell; an argument
ending in `.a` or `.lo`, or a line of an `@file`, is unpacked with more shell commands. So
hipport never runs hipcc: `toolchains.py` reads what hipcc would add from the
installation's files into a `Toolchain` (a frozen record: the clang, the versions and the
option lists), and `Toolchain.command(args)` puts those options around `args` the way
hipcc.pl does for the AMD platform, giving an argv list to run as it is:

    clang  [C options  -O3]                   when a C input is compiled
           [C++ options --offload-arch=A...   when a C++ or HIP input is compiled
            (--cuda-host-only with -M) -O3 (-mllvm inlining options) --hip-device-lib-path=D]
           [link options -O3 system libraries] unless -c, -E or -M (hipcc adds them even to
                                                -fsyntax-only and -S, where clang ignores them)
           ARGS, with `-x hip` / `-x c` before an input hipcc would mark so
           [libraries after the inputs]        unless -c, -E or -M

`-O3` is hipcc's default only when the call gives no `-O`; the inlining options are left out
at `-O0`, as hipcc leaves them. `tests/validate/test_driver.py` checks the command word for
word against the one hipcc prints (HIPCC_VERBOSE=1) for every call shape hipport makes.
A second toolchain (another HIP unpacked elsewhere) is another `Toolchain` value. A toolchain
in a root of its own (scripts/hip_root.py) has `root` and `prefix`: the argv that runs a program
inside the root (`chroot ROOT` as root, `unshare --map-root-user --root=ROOT` otherwise), put
ahead of its clang; its paths (clang, `--rocm-path`, what it is given to compile) are the ones
the root sees, and `inside` / `host_path` turn them into each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

_ARCH_OPTIONS = ("--offload-arch=", "--amdgpu-target=")
# Options whose value is the next word: that word is not an input file.
_TAKES_VALUE = frozenset({"-o", "-I", "-D", "-U", "-isystem", "-iquote", "-idirafter", "-include",
                          "-include-pch", "-MF", "-MT", "-MQ", "-Xclang", "-mllvm", "-L"})
# hipcc compiles these as HIP when no `-x` comes first (HIP_COMPILE_CXX_AS_HIP, its default).
_HIP_SUFFIXES = (".cpp", ".cxx", ".cc", ".C", ".cu", ".cuh", ".hip")


@dataclass(frozen=True)
class Library:
    """A library whose headers a toolchain has (hipBLAS: hipblas/hipblas.h)."""

    name: str  # "hipBLAS"
    header: str  # its main header, as `#include <...>` names it
    version: str = ""  # the package's version, where the toolchain says it


@dataclass(frozen=True)
class Toolchain:
    """One HIP installation's compiler for AMD GPUs: what hipcc would run, as data."""

    name: str  # "hip-5.2": how listings and results name it
    clang: str  # the clang++ hipcc runs (absolute)
    hip_version: str  # "5.2.21153"
    clang_version: str  # "15.0.6"
    rocm_path: str
    c_options: tuple[str, ...] = ()  # ahead of a C input's arguments
    cxx_options: tuple[str, ...] = ()  # ahead of a C++ or HIP input's arguments (before the archs)
    inline_options: tuple[str, ...] = ()  # HIP, unless -O0: -mllvm -amdgpu-early-inline-all=true ...
    device_lib_options: tuple[str, ...] = ()  # HIP: --hip-device-lib-path=...
    link_options: tuple[str, ...] = ()  # when linking, ahead of the arguments (before -O3)
    system_libraries: tuple[str, ...] = ()  # when linking, after -O3: -lgcc_s -lgcc ...
    libraries: tuple[str, ...] = ()  # when linking, after the arguments: -lamdhip64 ...
    default_optimization: str = "-O3"
    error: str = ""  # why it cannot compile (its clang is missing, ...); "" when it can
    root: str = ""  # the folder of a root of its own; "" for a HIP on this machine's own file system
    prefix: tuple[str, ...] = ()  # with `root`: the argv that runs a program inside it
    headers: tuple[Library, ...] = ()  # the libraries whose headers it has
    origin: str = ""  # where it was found, for people: "hipcc on PATH", a descriptor's path, ...

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def version(self) -> str:
        """"HIP 5.2.21153 / clang 15.0.6": for people and cache keys."""
        return f"HIP {self.hip_version} / clang {self.clang_version}"

    @property
    def scratch(self) -> str | None:
        """Where files it must read can be put (inside the root); None: anywhere."""
        return f"{self.root}/tmp" if self.root else None

    def inside(self, path: str) -> str:
        """A path of this machine as the toolchain sees it: one inside the root loses the
        root's folder; any other is unchanged (inside a root it names the root's own file)."""
        if self.root and (path == self.root or path.startswith(self.root + "/")):
            return path[len(self.root):] or "/"
        return path

    def host_path(self, path: str) -> str:
        """A path the toolchain named (an absolute one inside a root) as this machine sees it."""
        if self.root and path.startswith("/"):
            return self.root + path
        return path

    def command(self, args: Sequence[str]) -> list[str]:
        """The argv hipcc would run for `hipcc ARGS` on the AMD platform (see the module doc)."""
        archs: list[str] = []
        tool: list[str] = []
        lang: str | None = None  # the language a `-x` named
        has_c = has_hip = need_c = need_cxx = compile_only = deps = False
        opt = ""
        i = 0
        while i < len(args):
            a = args[i]
            if a.startswith(_ARCH_OPTIONS):
                archs.append(a.split("=", 1)[1])
                i += 1
                continue
            if a in ("-c", "-E", "-M"):
                compile_only = True
                deps = deps or a == "-M"
            if a.startswith("-O"):
                opt = a
            if a == "-x" and i + 1 < len(args):
                lang = args[i + 1]
                has_c, has_hip = lang == "c", lang == "hip"
                tool += [a, lang]
                i += 2
                continue
            if a in _TAKES_VALUE and i + 1 < len(args):
                tool += [a, args[i + 1]]
                i += 2
                continue
            if not a.startswith("-"):  # an input
                if lang is None and a.endswith(".c"):
                    has_c = True
                    tool += ["-x", "c"]
                elif lang is None and a.endswith(_HIP_SUFFIXES):
                    has_hip = True
                    tool += ["-x", "hip"]
                if has_c:
                    need_c = True
                elif has_hip or lang == "c++":
                    need_cxx = True
            tool.append(a)
            i += 1
        default = [] if opt else [self.default_optimization]
        cmd = [*self.prefix, self.clang]
        if need_c:
            cmd += [*self.c_options, *default]
        if need_cxx:
            cmd += self.cxx_options
            if has_hip:
                cmd += [f"--offload-arch={a}" for a in archs]
            if deps:
                cmd.append("--cuda-host-only")  # hipcc's -M checks the host side
            cmd += default
            if has_hip:
                cmd += [*(self.inline_options if opt != "-O0" else ()), *self.device_lib_options]
        if not compile_only:
            cmd += [*self.link_options, *default, *self.system_libraries]
        cmd += tool
        if not compile_only:
            cmd += self.libraries
        return cmd
