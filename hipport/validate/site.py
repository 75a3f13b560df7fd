"""Where a toolchain's compiler runs, and how this machine's paths cross into it and back.

For a HIP installed on this machine a `Site` changes nothing. A toolchain in a root of its own
(`Toolchain.root`) runs its clang inside the root (the toolchain's argv prefix: `chroot ROOT`, or
`unshare --map-root-user --root=ROOT`), where only the root's files exist. So the folders of
this machine it must read (the ported tree, an include folder of the project outside it) are
mirrored inside the root, under one scratch folder, each at its own absolute path
(`ROOT/tmp/hipport-mirror-XXXX/work/ported/a.hip` holds `/work/ported/a.hip`), their files hard
linked (copied where a link cannot be made) and their symbolic links kept as links; a folder
under /usr or /opt, or one holding the root, is never mirrored (inside the root those are the
root's own). The compiler's arguments name those files as the root sees them (`command`), and
every path it prints is turned back into this machine's (`host_path`): the user's file for a
mirrored one, `ROOT/usr/include/...` for one of the root's. The mirror is removed on `close`.
Nothing here runs a program.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from hipport.validate import toolchains
from hipport.validate.driver import Toolchain

# An option whose value is glued to it: `-I/x`, `--rocm-path=/x`.
_GLUED = re.compile(r"(-I|-isystem|-iquote|-idirafter|-L|--[A-Za-z][\w-]*=)(/.*)\Z", re.S)
_NEVER = ("/usr", "/opt", "/proc", "/sys", "/dev")


class Site:
    """Where `tc`'s compiler runs (see the module doc)."""

    def __init__(self, tc: Toolchain) -> None:
        self.tc = tc
        self._mirror: str | None = None  # the mirror's folder on this machine (inside the root)
        self._seen_as = ""  # that folder as the root sees it
        self._placed: list[str] = []  # folders of this machine mirrored
        self.tmp: str | None = None  # a folder (of this machine) for the compiler's temporary files

    def __enter__(self) -> Site:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def scratch(self) -> str | None:
        """Where to make a folder the compiler writes in (inside the root); None: anywhere."""
        return self.tc.scratch

    @property
    def mirror_prefix(self) -> str:
        """The mirror's folder as the compiler sees it ("" where there is none)."""
        return self._seen_as

    def place(self, folder: Path) -> None:
        """Make `folder` (of this machine) readable by the compiler at its own path."""
        if not self.tc.root:
            return
        d = os.path.normpath(os.path.abspath(folder))
        root = self.tc.root
        if d == root or d.startswith(root + "/") or root.startswith(d + "/") or d == "/" \
                or any(d == n or d.startswith(n + "/") for n in _NEVER):
            return  # the root's own, or more than a project
        if any(d == p or d.startswith(p + "/") for p in self._placed):
            return
        if self._mirror is None:
            self._mirror = tempfile.mkdtemp(prefix="hipport-mirror-", dir=self.tc.scratch)
            self._seen_as = self.tc.inside(self._mirror)
        self._placed.append(d)
        _link_tree(Path(d), Path(self._mirror + d))

    def path(self, p: str) -> str:
        """A path of this machine as the compiler sees it."""
        if not self.tc.root:
            return p
        if self._mirror is not None and any(p == d or p.startswith(d + "/") for d in self._placed):
            return self._seen_as + p
        return self.tc.inside(p)

    def arg(self, a: str) -> str:
        if a.startswith("/"):
            return self.path(a)
        m = _GLUED.match(a)
        return m.group(1) + self.path(m.group(2)) if m else a

    def command(self, args: Sequence[str]) -> list[str]:
        """The toolchain's command for hipcc-style `args` whose paths are this machine's."""
        if not self.tc.root:
            return self.tc.command(args)
        return self.tc.command([self.arg(a) for a in args])

    @property
    def env(self) -> dict[str, str]:
        """The compiler's environment (toolchains.compile_env), its temporary files in `tmp`
        when one is given: a compile that is killed leaves nothing elsewhere in the root."""
        env = toolchains.compile_env(self.tc)
        if self.tmp is not None and self.tc.root:
            env["TMPDIR"] = self.path(self.tmp)
        return env

    def host_path(self, p: str) -> str:
        """A path the compiler named, as this machine sees it."""
        if not self.tc.root or not p.startswith("/"):
            return p
        if self._seen_as and p.startswith(self._seen_as + "/"):
            return p[len(self._seen_as):]
        return self.tc.host_path(p)

    def close(self) -> None:
        if self._mirror is not None:
            shutil.rmtree(self._mirror, ignore_errors=True)
            self._mirror = None


def _link_tree(src: Path, dst: Path) -> None:
    """dst becomes a copy of src's tree: files hard-linked where they can be, else copied;
    symbolic links as links. What cannot be read is left out (the compile then says so)."""
    for here, dirs, files in os.walk(src):
        rel = os.path.relpath(here, src)
        out = dst / rel if rel != "." else dst
        out.mkdir(parents=True, exist_ok=True)
        for name in [*dirs, *files]:
            s, t = Path(here, name), out / name
            if s.is_symlink():
                try:
                    t.symlink_to(os.readlink(s))
                except OSError:
                    pass
                if name in dirs:
                    dirs.remove(name)  # a link to a folder is kept as a link, not walked
                continue
            if name in dirs:
                continue
            try:
                os.link(s, t)
            except FileExistsError:
                pass
            except OSError:
                try:
                    shutil.copy2(s, t)
                except OSError:
                    pass
