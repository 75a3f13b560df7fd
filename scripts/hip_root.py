#!/usr/bin/env python3
"""Build a HIP toolchain root from Debian's packages, beside the host's own HIP.

    python3 scripts/hip_root.py [sid|trixie|MANIFEST] [--check] [--dest DIR]

`sid` (the default) builds HIP 6.4 with clang 21 from scripts/hip-6.4.packages; `trixie` builds
HIP 5.7 with clang 17 from scripts/hip-5.7.packages (a fallback for users; CI builds sid's).
The root is DEST/NAME, NAME from the manifest, DEST `$HIPPORT_TOOLCHAINS` or /opt/hipport:
/opt/hipport/hip-6.4 by default. It is a minimal Debian (`mmdebstrap --variant=minbase`, from
the mirror the host's apt uses) with the manifest's `install` packages installed by apt (the
compiler, the HIP runtime headers, the device libraries) and its `unpack` packages only unpacked
(the math libraries' headers and CMake files, not their multi-GB runtime libraries): enough to
compile for AMD GPUs, not to link against those libraries. Compiles call the root's clang, e.g.
`chroot ROOT clang++-21 -x hip --offload-arch=gfx90a -fsyntax-only -` (as root) or
`unshare --map-root-user --root=ROOT clang++-21 ...` (any user).

Exactly the manifest's versions are installed; a version the suite no longer has fails the build
naming every such package. The root holds /hipport-toolchain.json, the descriptor hipport reads
(data only; it is never executed), whose `manifest_sha256` is the build's stamp: the root is
rebuilt only when the manifest (or this script's RECIPE) changes, and an up-to-date run returns
at once. A build is made beside the root and renamed into place, so a root is always whole.
`--check` builds nothing: exit 0 when the root is up to date, 1 when not.

Building needs root (mmdebstrap's root mode, chroot) and installs mmdebstrap with apt if it is
missing. Exit codes: 0 done, 1 the build failed, 2 bad usage or manifest.
"""

from __future__ import annotations

import argparse
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# Bump when the steps below change what a root holds: roots an older recipe built are rebuilt.
RECIPE = "1"
FORMAT = 1  # of the descriptor
HERE = Path(__file__).resolve().parent
SUITES = {"sid": HERE / "hip-6.4.packages", "trixie": HERE / "hip-5.7.packages"}
DEFAULT_DEST = Path("/opt/hipport")
DESCRIPTOR = "hipport-toolchain.json"
HOST_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))
# The mirror's release files for sid are past their Valid-Until date (packages are still
# checked against the signed release file; the pins say which versions we take).
APT_OPTS = (("Acquire::Check-Valid-Until", "false"),)

_NAME = re.compile(r"[a-z0-9][a-z0-9+.-]+\Z")
_VERSION = re.compile(r"(?:[0-9]+:)?[0-9][A-Za-z0-9.+~-]*\Z")
_TOOLCHAIN = re.compile(r"[a-z0-9][a-z0-9.-]*\Z")
_LIBRARY = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
_HEADER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*\Z")


class ManifestError(Exception):
    """A manifest that does not parse: the message names the file and line."""


class BuildError(Exception):
    """A build that cannot go on: the message says why (exit 1)."""


@dataclass(frozen=True)
class Pin:
    package: str
    version: str

    def __str__(self) -> str:
        return f"{self.package}={self.version}"


@dataclass(frozen=True)
class Library:
    name: str     # as the ROCm project spells it: hipBLAS
    header: str   # under /usr/include: hipblas/hipblas.h
    pin: Pin


@dataclass(frozen=True)
class Manifest:
    path: Path
    name: str
    suite: str
    clang: str
    install: tuple[Pin, ...]
    unpack: tuple[Pin, ...]
    libraries: tuple[Library, ...]
    sha256: str  # of the manifest's bytes and RECIPE: the stamp a root is built for

    @property
    def pins(self) -> tuple[Pin, ...]:
        return self.install + self.unpack


def parse_manifest(path: Path) -> Manifest:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ManifestError(f"{path}: cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ManifestError(f"{path}: not UTF-8") from None
    keys: dict[str, str] = {}
    install: list[Pin] = []
    unpack: list[Pin] = []
    libraries: list[Library] = []
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{path}:{lineno}"
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        verb, args = words[0], words[1:]
        if verb in ("name", "suite", "clang"):
            if len(args) != 1:
                raise ManifestError(f"{where}: `{verb}` takes one value")
            if verb in keys:
                raise ManifestError(f"{where}: `{verb}` given twice")
            value = args[0]
            ok = {"name": _TOOLCHAIN.match(value), "suite": _NAME.match(value),
                  "clang": value.startswith("/usr/bin/") and _HEADER.match(value[1:])}[verb]
            if not ok:
                raise ManifestError(f"{where}: `{verb}` {value!r} is not valid")
            keys[verb] = value
        elif verb in ("install", "unpack"):
            if not args or "=" not in args[0]:
                raise ManifestError(f"{where}: `{verb}` needs PACKAGE=VERSION")
            package, version = args[0].split("=", 1)
            if not _NAME.match(package):
                raise ManifestError(f"{where}: {package!r} is not a Debian package name")
            if not _VERSION.match(version):
                raise ManifestError(f"{where}: {version!r} is not a Debian version")
            if package in seen:
                raise ManifestError(f"{where}: {package} is pinned twice (first on line {seen[package]})")
            seen[package] = lineno
            pin = Pin(package, version)
            if verb == "install":
                if len(args) != 1:
                    raise ManifestError(f"{where}: `install` takes only PACKAGE=VERSION")
                install.append(pin)
                continue
            unpack.append(pin)
            if len(args) == 1:
                continue
            if len(args) != 3:
                raise ManifestError(f"{where}: `unpack` takes PACKAGE=VERSION, then LIBRARY HEADER or nothing")
            library, header = args[1], args[2]
            if not _LIBRARY.match(library):
                raise ManifestError(f"{where}: {library!r} is not a library name")
            if not _HEADER.match(header) or ".." in header.split("/"):
                raise ManifestError(f"{where}: {header!r} is not a header path under /usr/include")
            if any(lib.name == library for lib in libraries):
                raise ManifestError(f"{where}: library {library} is named twice")
            libraries.append(Library(library, header, pin))
        else:
            raise ManifestError(f"{where}: unknown line `{verb}` (name, suite, clang, install, unpack)")
    for key in ("name", "suite", "clang"):
        if key not in keys:
            raise ManifestError(f"{path}: no `{key}` line")
    if not install:
        raise ManifestError(f"{path}: no `install` line (the compiler)")
    digest = hashlib.sha256(data + b"\0recipe " + RECIPE.encode()).hexdigest()
    return Manifest(path, keys["name"], keys["suite"], keys["clang"], tuple(install),
                    tuple(unpack), tuple(libraries), digest)


# -- the host's mirror --------------------------------------------------------------------

def _source_files(places: Iterable[Path]) -> Iterator[Path]:
    for place in places:
        if place.is_dir():
            yield from sorted(p for p in place.iterdir()
                              if p.suffix in (".list", ".sources") and p.is_file())
        elif place.is_file():
            yield place


def host_codename(os_release: Path = Path("/etc/os-release")) -> str:
    """The host's Debian codename (bookworm), or "" where os-release names none."""
    try:
        text = os_release.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    m = re.search(r"^VERSION_CODENAME=\"?([a-z0-9-]*)\"?\s*$", text, re.M)
    return m.group(1) if m else ""


def _uri(word: str) -> bool:
    return re.match(r"(https?|file)://", word) is not None


def host_mirror(places: Iterable[Path] = HOST_SOURCES, codename: str | None = None) -> str:
    """The URI of the first `deb` source the host's apt reads for the host's own release (its
    codename as a suite: not its -security or -updates archive, nor a third party's archive), from
    deb822 `.sources` stanzas or one-line `sources.list` entries."""
    codename = host_codename() if codename is None else codename
    files = list(_source_files(places))
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields: dict[str, str] = {}
                key = ""
                for line in stanza.splitlines():
                    if line.startswith("#") or not line.strip():
                        continue
                    if line[0] in " \t" and key:
                        fields[key] += " " + line.strip()
                        continue
                    key, _, value = line.partition(":")
                    key = key.strip().lower()
                    fields[key] = value.strip()
                if ("deb" in fields.get("types", "").split()
                        and fields.get("enabled", "yes").lower() != "no"
                        and codename in fields.get("suites", "").split()):
                    for uri in fields.get("uris", "").split():
                        if _uri(uri):
                            return uri
        else:
            for line in text.splitlines():
                words = re.sub(r"\[[^\]]*\]", " ", line.split("#", 1)[0]).split()
                if len(words) >= 3 and words[0] == "deb" and words[2] == codename and _uri(words[1]):
                    return words[1]
    named = ", ".join(str(p) for p in files) or "none"
    raise BuildError(f"no Debian mirror for the host's release ({codename or 'no codename'}) in the "
                     f"host's apt sources (read: {named}); set HIPPORT_DEBIAN_MIRROR to the mirror's URI")


# -- the root's state ---------------------------------------------------------------------

def root_of(manifest: Manifest, dest: Path) -> Path:
    return dest / manifest.name


def built_for(root: Path) -> str | None:
    """The manifest hash the root at `root` was built for, or None when it holds none."""
    try:
        data = json.loads((root / DESCRIPTOR).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("manifest_sha256") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def is_current(manifest: Manifest, dest: Path) -> bool:
    root = root_of(manifest, dest)
    return built_for(root) == manifest.sha256 and (root / manifest.clang.lstrip("/")).exists()


def _inside_repository(path: Path) -> Path | None:
    for p in (path, *path.parents):
        if (p / ".git").exists():
            return p
    return None


def _mounts_under(path: Path) -> list[str]:
    """Mount points at or below `path`: a folder holding one is never deleted (a bind-mounted
    /dev inside a root would take the host's device nodes with it)."""
    prefix = str(path.resolve())
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        point = line.split()[4].encode().decode("unicode_escape")
        if point == prefix or point.startswith(prefix + "/"):
            found.append(point)
    return found


def _remove(path: Path) -> None:
    if not os.path.lexists(path):
        return
    mounted = _mounts_under(path)
    if mounted:
        raise BuildError(f"{path} has file systems mounted in it ({', '.join(mounted)}): "
                         "unmount them, then run again")
    if path.is_symlink() or not path.is_dir():
        path.unlink()
    else:
        shutil.rmtree(path)


@contextmanager
def _locked(dest: Path, name: str) -> Iterator[None]:
    with open(dest / f".{name}.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"another build of {name} is running; waiting for it")
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def check_dev_null(path: str = "/dev/null") -> str | None:
    """Check the host's /dev/null is the character device 1:3 with mode 0666 (a root build once
    left it 4755, which broke apt); repair it where we can. A message when it was wrong."""
    st = os.lstat(path)
    if stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1 and os.minor(st.st_rdev) == 3:
        if stat.S_IMODE(st.st_mode) == 0o666:
            return None
        problem = f"{path} had mode {stat.S_IMODE(st.st_mode):04o}"
        try:
            os.chmod(path, 0o666)
        except OSError as e:
            raise BuildError(f"{problem} and cannot be set back to 0666: {e.strerror}") from None
        return f"{problem}; set back to 0666"
    problem = f"{path} was not the character device 1:3"
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.hipport-{os.getpid()}")
    try:
        os.mknod(tmp, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.chmod(tmp, 0o666)
        os.replace(tmp, path)
    except OSError as e:
        raise BuildError(f"{problem} and cannot be made again: {e.strerror}") from None
    return f"{problem}; made again"


# -- building -----------------------------------------------------------------------------

def say(message: str) -> None:
    print(f"hip-root: {message}", file=sys.stderr, flush=True)


def _run(argv: Sequence[str | Path], *, cwd: Path | None = None, input: str | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a program from an argv list (never a shell); its error output goes with a failure."""
    r = subprocess.run([str(a) for a in argv], text=True, capture_output=True, cwd=cwd,
                       input=input, env=env)
    if r.returncode != 0:
        tail = "\n".join((r.stderr or r.stdout or "").strip().splitlines()[-15:])
        raise BuildError(f"`{' '.join(map(str, argv[:3]))} ...` failed ({r.returncode}):\n{tail}")
    return r


class HostApt:
    """apt on the host with its own sources list and state under `where`: reads the suite's
    package list without touching the host's apt state."""

    def __init__(self, where: Path, mirror: str, suite: str) -> None:
        self.where = where
        for d in ("lists/partial", "cache/archives/partial", "debs"):
            (where / d).mkdir(parents=True, exist_ok=True)
        (where / "sources.list").write_text(f"deb {mirror} {suite} main\n")
        self.opts = [
            f"-oDir::Etc::SourceList={where / 'sources.list'}",
            f"-oDir::Etc::SourceParts={where / 'no-parts'}",
            f"-oDir::State::Lists={where / 'lists'}",
            f"-oDir::Cache={where / 'cache'}",
            "-oDir::State::status=/dev/null",
            *(f"-o{key}={value}" for key, value in APT_OPTS),
        ]
        try:  # apt downloads as _apt where that user can write
            import pwd
            os.chown(where / "debs", pwd.getpwnam("_apt").pw_uid, -1)
        except (KeyError, OSError):
            pass

    def update(self) -> None:
        _run(["apt-get", *self.opts, "-q", "update"])

    def available(self, packages: Iterable[str]) -> dict[str, list[str]]:
        out = _run(["apt-cache", *self.opts, "madison", *packages]).stdout
        found: dict[str, list[str]] = {}
        for line in out.splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) == 3 and parts[2].endswith("Packages"):
                found.setdefault(parts[0], []).append(parts[1])
        return found

    def download(self, pins: Sequence[Pin]) -> list[Path]:
        debs = self.where / "debs"
        _run(["apt-get", *self.opts, "-q", "download", *map(str, pins)], cwd=debs)
        return sorted(debs.glob("*.deb"))


def check_pins(manifest: Manifest, available: dict[str, list[str]], mirror: str) -> None:
    gone = []
    for pin in manifest.pins:
        versions = available.get(pin.package, [])
        if pin.version not in versions:
            now = f"{manifest.suite} has {', '.join(versions)}" if versions else f"not in {manifest.suite}"
            gone.append(f"  {pin} ({now})")
    if gone:
        raise BuildError(f"{len(gone)} pinned package version(s) of {manifest.path.name} are no longer "
                         f"in {manifest.suite} at {mirror}:\n" + "\n".join(gone) +
                         f"\nPin versions {manifest.suite} has in {manifest.path}, build, and run the "
                         "rocm64 tests (docs/toolchains.md).")


def _unpack(deb: Path, root: Path) -> None:
    """Unpack a package's files into the root, with tar running inside it (so that a symbolic
    link in the root resolves inside the root, never on the host)."""
    feed = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    assert feed.stdout is not None
    try:
        r = subprocess.run(["chroot", str(root), "tar", "-x", "-f", "-", "-C", "/",
                            "--keep-directory-symlink", "--no-overwrite-dir"],
                           stdin=feed.stdout, capture_output=True, text=True)
    finally:
        feed.stdout.close()
        feed.wait()
    if feed.returncode != 0 or r.returncode != 0:
        raise BuildError(f"unpacking {deb.name} failed: {r.stderr.strip()}")


def _hip_version(root: Path) -> str:
    path = root / "usr/include/hip/hip_version.h"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise BuildError(f"the root has no {path.relative_to(root)}: is libamdhip64-dev installed?") from None
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define HIP_VERSION_{part} (\d+)\s*$", text, re.M)
        if not m:
            raise BuildError(f"{path} has no HIP_VERSION_{part}")
        parts.append(m.group(1))
    return ".".join(parts)


SMOKE = "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"


def describe(manifest: Manifest, root: Path, unpacked: Sequence[Pin]) -> dict[str, object]:
    """The descriptor: what hipport's toolchain discovery reads, facts of the built root."""
    version = _run(["chroot", root, manifest.clang, "--version"]).stdout
    m = re.search(r"clang version (\d+\.\d+\.\d+)", version)
    if not m:
        raise BuildError(f"{manifest.clang} --version says no clang version: {version.strip()!r}")
    _run(["chroot", root, manifest.clang, "-x", "hip", "--offload-arch=gfx90a", "-std=c++17",
          "-fsyntax-only", "-"], input=SMOKE)
    bitcode = sorted(glob.glob(str(root / "usr/lib/**/amdgcn/bitcode/ocml.bc"), recursive=True))
    if not bitcode:
        raise BuildError("the root has no AMD device library (ocml.bc): is the device libs package installed?")
    return {
        "format": FORMAT,
        "name": manifest.name,
        "suite": manifest.suite,
        "hip_version": _hip_version(root),
        "clang_version": m.group(1),
        "clang": manifest.clang,
        "rocm_path": "/usr",
        "device_lib_path": "/" + str(Path(bitcode[0]).parent.relative_to(root)),
        "libraries": [{"name": lib.name, "header": lib.header, "package": lib.pin.package,
                       "version": lib.pin.version}
                      for lib in manifest.libraries if (root / "usr/include" / lib.header).is_file()],
        "packages": {p.package: p.version for p in (*manifest.install, *unpacked)},
        "manifest_sha256": manifest.sha256,
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _ensure_mmdebstrap() -> None:
    if shutil.which("mmdebstrap"):
        return
    say("installing mmdebstrap with apt")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    _run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "mmdebstrap"], env=env)


def build(manifest: Manifest, dest: Path) -> Path:
    root = root_of(manifest, dest)
    work = dest / f".{manifest.name}.build"
    _remove(work)  # what a killed build left
    work.mkdir(mode=0o755)
    try:
        mirror = os.environ.get("HIPPORT_DEBIAN_MIRROR") or host_mirror()
        say(f"building {root} from {manifest.suite} at {mirror}")
        apt = HostApt(work / "apt", mirror, manifest.suite)
        apt.update()
        check_pins(manifest, apt.available(p.package for p in manifest.pins), mirror)
        debs = apt.download(manifest.unpack)
        _ensure_mmdebstrap()
        new = work / "root"
        t0 = time.monotonic()
        _run(["mmdebstrap", "--mode=root", "--variant=minbase", "--format=directory",
              *(f'--aptopt={key} "{value}"' for key, value in APT_OPTS),
              f"--include={','.join(map(str, manifest.install))}",
              manifest.suite, new, mirror])
        say(f"installed {len(manifest.install)} packages and their dependencies "
            f"({time.monotonic() - t0:.0f} s); unpacking {len(debs)}")
        for deb in debs:
            _unpack(deb, new)
        _write_json(new / DESCRIPTOR, describe(manifest, new, manifest.unpack))
        old = dest / f".{manifest.name}.old"
        _remove(old)
        if os.path.lexists(root):
            os.rename(root, old)
        os.rename(new, root)
        _remove(old)
    finally:
        try:
            _remove(work)
        except BuildError as e:
            say(f"warning: {e}")
    return root


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/hip_root.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest", nargs="?", default="sid",
                    help="sid (HIP 6.4, the default), trixie (HIP 5.7) or a manifest file")
    ap.add_argument("--dest", type=Path, default=None,
                    help=f"where roots live (default $HIPPORT_TOOLCHAINS or {DEFAULT_DEST})")
    ap.add_argument("--check", action="store_true", help="build nothing: exit 0 if up to date, else 1")
    args = ap.parse_args(argv)
    try:
        manifest = parse_manifest(SUITES.get(args.manifest, Path(args.manifest)))
    except ManifestError as e:
        print(f"hip-root: {e}", file=sys.stderr)
        return 2
    dest = args.dest or Path(os.environ.get("HIPPORT_TOOLCHAINS") or DEFAULT_DEST)
    if not dest.is_absolute():
        print(f"hip-root: {dest}: the roots' folder must be an absolute path", file=sys.stderr)
        return 2
    repo = _inside_repository(dest)
    if repo is not None:
        print(f"hip-root: {dest} is inside the repository {repo}: roots live outside any "
              "repository (hipport would walk them as part of the tree)", file=sys.stderr)
        return 2
    root = root_of(manifest, dest)
    if args.check:
        current = is_current(manifest, dest)
        say(f"{root} is {'up to date' if current else 'absent or out of date'}")
        return 0 if current else 1
    if is_current(manifest, dest) and os.geteuid() != 0:
        say(f"{root} is up to date")
        return 0
    if os.geteuid() != 0:
        print(f"hip-root: building {root} needs root (mmdebstrap, chroot); run it as root, "
              "e.g. with sudo. Using a built root needs no root (docs/toolchains.md).", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    status = 0
    try:
        dest.mkdir(parents=True, exist_ok=True)
        with _locked(dest, manifest.name):
            if is_current(manifest, dest):
                say(f"{root} is up to date")
            else:
                build(manifest, dest)
                say(f"built {root} in {time.monotonic() - t0:.0f} s")
    except BuildError as e:
        print(f"hip-root: {e}", file=sys.stderr)
        status = 1
    try:  # after every run as root: a root build once broke the host's /dev/null
        problem = check_dev_null()
    except BuildError as e:
        print(f"hip-root: {e}", file=sys.stderr)
        return 1
    if problem:
        say(f"warning: {problem}")
    return status


if __name__ == "__main__":
    sys.exit(main())
