"""The descriptor of a toolchain root (`ROOT/hipport-toolchain.json`, written by
scripts/hip_root.py), read as data and checked field by field.

It names what hipport runs inside the root (its clang) and where the root keeps HIP, so nothing
in it is taken on trust: the file and the root's folder must be written by root or by you and
by nobody else; every field has its type and grammar (no value can read as an option: names
start with a letter or digit, paths with `/`); every path must be absolute, normalised and name
a file or folder that exists inside the root, with symbolic links followed the way a process
chrooted there follows them (an absolute link target is the root's, `..` stops at its top).
A descriptor that fails any check is refused with one line saying which field and why, and the
root is then not a toolchain (`hipport toolchains` shows the note).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hipport.validate.driver import Library

FILE = "hipport-toolchain.json"
FORMAT = 1
MAX_BYTES = 1 << 20
MAX_LIBRARIES = 64
MAX_PACKAGES = 512

_NAME = re.compile(r"[a-z0-9][a-z0-9.+-]{0,63}\Z")  # the root's name (its folder), as hip_root.py allows
_SUITE = re.compile(r"[a-z][a-z0-9-]{0,31}\Z")
_VERSION = re.compile(r"\d{1,4}(?:\.\d{1,9}){1,3}\Z")
_PATH = re.compile(r"(?:/[A-Za-z0-9_][A-Za-z0-9_.+-]*)+\Z")
_LIBRARY = re.compile(r"[A-Za-z][A-Za-z0-9]{0,63}\Z")
_HEADER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.+-]*){0,7}\Z")
_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]{1,99}\Z")
_DEB_VERSION = re.compile(r"(?:[0-9]+:)?[0-9][A-Za-z0-9.+~-]{0,99}\Z")
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_BUILT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z")
_KEYS = ("format", "name", "suite", "hip_version", "clang_version", "clang", "rocm_path", "device_lib_path",
         "libraries", "packages", "manifest_sha256", "built")
_LIBRARY_KEYS = ("name", "header", "package", "version")


class DescriptorError(Exception):
    """A descriptor that does not check: the message names the file and the field."""


@dataclass(frozen=True)
class Descriptor:
    root: str  # the root's folder on this machine (resolved)
    name: str
    suite: str
    hip_version: str
    clang_version: str
    clang: str  # inside the root
    rocm_path: str  # inside the root
    device_lib_path: str  # inside the root
    libraries: tuple[Library, ...]  # whose header is in the root
    manifest_sha256: str
    built: str


def read(root: Path) -> Descriptor:
    """The checked descriptor of `root` (see the module doc); DescriptorError when it does not check."""
    folder = Path(os.path.realpath(root))
    path = folder / FILE
    _trusted(folder, "the root's folder")
    try:
        st = os.lstat(path)
    except OSError as e:
        raise DescriptorError(f"{path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise DescriptorError(f"{path}: not a regular file")
    _trusted(path, "the descriptor")
    if st.st_size > MAX_BYTES:
        raise DescriptorError(f"{path}: larger than {MAX_BYTES} bytes")
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise DescriptorError(f"{path}: not JSON ({e})") from None
    if type(doc) is not dict:
        raise DescriptorError(f"{path}: not a JSON object")

    def bad(field: str, why: str) -> DescriptorError:
        return DescriptorError(f"{path}: `{field}` {why}")

    unknown = sorted(set(doc) - set(_KEYS))
    if unknown:
        raise bad(unknown[0], "is not a field of the descriptor")
    for key in _KEYS:
        if key not in doc:
            raise bad(key, "is missing")
    if type(doc["format"]) is not int or doc["format"] != FORMAT:
        raise bad("format", f"must be {FORMAT}")

    def text(key: str, grammar: re.Pattern[str], what: str, value: Any = None) -> str:
        v = doc[key] if value is None else value
        if type(v) is not str or not grammar.match(v):
            raise bad(key, f"must be {what}, not {json.dumps(v)[:80]}")
        return str(v)

    name = text("name", _NAME, "a toolchain name (letters, digits, . + -)")
    if name != folder.name:
        raise bad("name", f"is {name!r}, but the root's folder is {folder.name!r}")
    suite = text("suite", _SUITE, "a Debian suite name")
    hip_version = text("hip_version", _VERSION, "a version (6.4.43484)")
    clang_version = text("clang_version", _VERSION, "a version (21.1.8)")

    def inside(key: str, kind: str) -> str:
        p = text(key, _PATH, "an absolute path inside the root")
        if os.path.normpath(p) != p or "/../" in p + "/" or "/./" in p + "/":
            raise bad(key, "must be a normalised path")
        found = resolve_in_root(folder, p)
        if found is None:
            raise bad(key, f"names {p}, which is not inside the root")
        try:
            fst = os.stat(found)
        except OSError:
            raise bad(key, f"names {p}, which is not inside the root") from None
        if kind == "program" and not (stat.S_ISREG(fst.st_mode) and fst.st_mode & 0o111):
            raise bad(key, f"names {p}, which is not a program")
        if kind == "folder" and not stat.S_ISDIR(fst.st_mode):
            raise bad(key, f"names {p}, which is not a folder")
        return p

    clang = inside("clang", "program")
    rocm_path = inside("rocm_path", "folder")
    device_lib_path = inside("device_lib_path", "folder")

    libs = doc["libraries"]
    if type(libs) is not list or len(libs) > MAX_LIBRARIES:
        raise bad("libraries", f"must be a list of at most {MAX_LIBRARIES} libraries")
    libraries: list[Library] = []
    for i, lib in enumerate(libs):
        where = f"libraries[{i}]"
        if type(lib) is not dict or sorted(lib) != sorted(_LIBRARY_KEYS):
            raise bad(where, f"must have exactly the fields {', '.join(_LIBRARY_KEYS)}")
        lname = text(where, _LIBRARY, "a library name (hipBLAS)", lib["name"])
        header = text(where, _HEADER, "a header path (hipblas/hipblas.h)", lib["header"])
        text(where, _PACKAGE, "a Debian package name", lib["package"])
        version = text(where, _DEB_VERSION, "a Debian version", lib["version"])
        for d in dict.fromkeys((f"{rocm_path}/include", "/usr/include")):
            found = resolve_in_root(folder, f"{d}/{header}")
            if found is not None and found.is_file():  # a library the root lacks is not listed
                libraries.append(Library(lname, header, version))
                break
    pkgs = doc["packages"]
    if type(pkgs) is not dict or len(pkgs) > MAX_PACKAGES:
        raise bad("packages", f"must be an object of at most {MAX_PACKAGES} package versions")
    for k, v in pkgs.items():
        text("packages", _PACKAGE, "package names", k)
        text("packages", _DEB_VERSION, "Debian versions", v)
    sha = text("manifest_sha256", _SHA256, "a SHA-256 in hex")
    built = text("built", _BUILT, "a UTC time (2026-12-04T20:56:02Z)")
    return Descriptor(str(folder), name, suite, hip_version, clang_version, clang, rocm_path, device_lib_path,
                      tuple(libraries), sha, built)


def _trusted(path: Path, what: str) -> None:
    """Written by root or by you, and by nobody else (no group or other write permission)."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise DescriptorError(f"{path}: {e.strerror}") from None
    if st.st_uid not in (0, os.geteuid()):
        raise DescriptorError(f"{path}: {what} belongs to another user (uid {st.st_uid})")
    if st.st_mode & 0o022:
        raise DescriptorError(f"{path}: others may write {what} (mode {stat.S_IMODE(st.st_mode):04o})")


def resolve_in_root(root: Path, path: str) -> Path | None:
    """Where `path` leads inside `root` for a process whose root it is: symbolic links are
    followed there (an absolute target starts again at the root, `..` stops at its top),
    never out of it. None: a component is missing, or the links loop."""
    todo = [p for p in path.split("/") if p]
    done: list[str] = []
    hops = 0
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        here = root.joinpath(*done, part)
        try:
            st = os.lstat(here)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            if hops > 40:
                return None
            target = os.readlink(here)
            if target.startswith("/"):
                done = []
            todo = [p for p in target.split("/") if p] + todo
            continue
        done.append(part)
    return root.joinpath(*done)
