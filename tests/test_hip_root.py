"""The HIP toolchain roots scripts/hip_root.py builds from Debian's packages (issue 29).

Without a network: the manifests parse and pin every library the issue names, a bad manifest is
an error naming its file and line, the host's mirror is read from apt's sources, the stamp says
when a root is current. Marked `rocm64`: the HIP 6.4 root exists (a failure, not a skip, where
HIPPORT_REQUIRE_TOOLCHAINS names hip-6.4, as CI sets it), its descriptor tells the truth, and
every library header compiles inside it with its own clang, called from an argv list.
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "hip_root.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hip_root", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hip_root"] = module
    spec.loader.exec_module(module)
    return module


hr = _load()

# The libraries issue 29 names for HIP 6.4; trixie's HIP 5.7 lacks two of them.
ISSUE_LIBRARIES = {"hipBLAS", "hipBLASLt", "rocBLAS", "hipFFT", "rocFFT", "hipCUB", "rocThrust",
                   "rocPRIM", "hipSOLVER", "rocSOLVER", "hipSPARSE", "rocSPARSE", "hipRAND",
                   "rocRAND", "MIOpen", "RCCL"}
NOT_IN_TRIXIE = {"hipBLASLt", "MIOpen"}


def _script(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=120)


# -- manifests ----------------------------------------------------------------------------

def test_hip64_manifest_pins_the_compiler_and_every_library_of_the_issue() -> None:
    m = hr.parse_manifest(hr.SUITES["sid"])
    assert (m.name, m.suite, m.clang) == ("hip-6.4", "sid", "/usr/bin/clang++-21")
    assert {"hipcc", "libamdhip64-dev", "rocm-device-libs-21", "clang-21"} <= {p.package for p in m.install}
    named = {lib.name for lib in m.libraries}
    assert ISSUE_LIBRARIES <= named, f"not in the manifest: {sorted(ISSUE_LIBRARIES - named)}"
    for lib in m.libraries:  # a library's headers are unpacked, never installed with its runtime
        assert lib.pin in m.unpack and lib.pin.package.endswith("-dev")


def test_hip57_manifest_is_trixies_fallback_with_what_trixie_has() -> None:
    m = hr.parse_manifest(hr.SUITES["trixie"])
    assert (m.name, m.suite, m.clang) == ("hip-5.7", "trixie", "/usr/bin/clang++-17")
    assert {lib.name for lib in m.libraries} == ISSUE_LIBRARIES - NOT_IN_TRIXIE


GOOD = "name t\nsuite sid\nclang /usr/bin/clang++-21\ninstall hipcc=7.0.2+dfsg-3\n"


@pytest.mark.parametrize("text, line, message", [
    pytest.param(GOOD + "instal clang-21=1:21.1.8-14\n", 5, "unknown line `instal`", id="typo-in-a-verb"),
    pytest.param(GOOD + "install clang-21\n", 5, "needs PACKAGE=VERSION", id="pin-without-version"),
    pytest.param(GOOD + "install clang-21=latest\n", 5, "not a Debian version", id="version-not-a-version"),
    pytest.param(GOOD + "unpack hipcc=7.0.2\n", 5, "pinned twice (first on line 4)", id="package-pinned-twice"),
    pytest.param(GOOD + "unpack libhipblas-dev=6.4.4-1 hipBLAS\n", 5, "LIBRARY HEADER", id="library-without-header"),
    pytest.param(GOOD + "unpack libx-dev=1 X ../../etc/passwd\n", 5, "not a header path", id="header-outside-include"),
    pytest.param(GOOD + "install -oAPT::X=1\n", 5, "not a Debian package name", id="option-shaped-package"),
    pytest.param(GOOD.replace("clang /usr/bin/", "clang /tmp/"), 3, "not valid", id="clang-outside-usr-bin"),
    pytest.param(GOOD + "suite trixie\n", 5, "given twice", id="suite-given-twice"),
])
def test_a_bad_manifest_is_an_error_naming_file_and_line(tmp_path: Path, text: str, line: int,
                                                         message: str) -> None:
    path = tmp_path / "bad.packages"
    path.write_text(text)
    with pytest.raises(hr.ManifestError) as e:
        hr.parse_manifest(path)
    assert str(e.value).startswith(f"{path}:{line}: ") and message in str(e.value)


def test_a_manifest_without_a_compiler_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.packages"
    path.write_text("name t\nsuite sid\nclang /usr/bin/clang++-21\n")
    with pytest.raises(hr.ManifestError, match="no `install` line"):
        hr.parse_manifest(path)


def test_the_script_reports_a_bad_manifest_in_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.packages"
    path.write_text(GOOD + "install clang-21\n")
    r = _script(path, "--check", "--dest", tmp_path / "roots")
    assert r.returncode == 2
    assert r.stderr == f"hip-root: {path}:5: `install` needs PACKAGE=VERSION\n"


def test_roots_are_refused_inside_a_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    r = _script("sid", "--check", "--dest", tmp_path / "roots")
    assert r.returncode == 2 and "inside the repository" in r.stderr, r.stderr


def test_missing_pins_are_all_named() -> None:
    m = hr.parse_manifest(hr.SUITES["sid"])
    available = {p.package: [p.version] for p in m.pins}
    available["hipcc"] = ["7.1.0-1"]
    del available["libmiopen-dev"]
    with pytest.raises(hr.BuildError) as e:
        hr.check_pins(m, available, "http://mirror.invalid/debian")
    text = str(e.value)
    assert "2 pinned package version(s)" in text
    assert "hipcc=7.0.2+dfsg-3 (sid has 7.1.0-1)" in text
    assert "libmiopen-dev=6.4.3+dfsg-1+b1 (not in sid)" in text
    hr.check_pins(m, {p.package: ["0", p.version] for p in m.pins}, "http://mirror.invalid/debian")


# -- the host's mirror --------------------------------------------------------------------

def test_the_mirror_is_the_one_the_hosts_release_comes_from(tmp_path: Path) -> None:
    d = tmp_path / "sources.list.d"
    d.mkdir()
    (d / "a-third-party.sources").write_text(
        "Types: deb\nURIs: https://vendor.invalid/apt\nSuites: nodistro\nComponents: main\n")
    (d / "debian.sources").write_text(
        "Types: deb\nURIs: http://security.invalid/debian-security\nSuites: bookworm-security\n"
        "Components: main\n\n"
        "Types: deb-src\nURIs: http://src.invalid/debian\nSuites: bookworm\n\n"
        "Types: deb\nURIs: http://off.invalid/debian\nSuites: bookworm\nEnabled: no\n\n"
        "Types: deb\n# the archive\nURIs: http://mirror.invalid/debian\n"
        "Suites: bookworm bookworm-updates\nComponents: main\n")
    (d / "old.list.disabled").write_text("deb http://disabled.invalid/debian bookworm main\n")
    assert hr.host_mirror([tmp_path / "sources.list", d], "bookworm") == "http://mirror.invalid/debian"


def test_a_one_line_sources_list_is_read(tmp_path: Path) -> None:
    path = tmp_path / "sources.list"
    path.write_text("# deb http://comment.invalid/debian bookworm main\n"
                    "deb http://security.invalid/debian-security bookworm-security main\n"
                    "deb [arch=amd64 signed-by=/k.gpg] http://mirror.invalid/debian bookworm main\n")
    assert hr.host_mirror([path], "bookworm") == "http://mirror.invalid/debian"


def test_no_mirror_is_an_error_naming_what_was_read(tmp_path: Path) -> None:
    path = tmp_path / "sources.list"
    path.write_text("deb http://mirror.invalid/debian trixie main\n")
    with pytest.raises(hr.BuildError, match=rf"no Debian mirror for the host's release \(bookworm\).*{path}"):
        hr.host_mirror([path], "bookworm")


# -- the stamp ----------------------------------------------------------------------------

def _fake_root(dest: Path, manifest_sha: str, clang: bool = True) -> Path:
    root = dest / "hip-6.4"
    (root / "usr/bin").mkdir(parents=True)
    if clang:
        (root / "usr/bin/clang++-21").write_bytes(b"")
    (root / hr.DESCRIPTOR).write_text(json.dumps({"manifest_sha256": manifest_sha}))
    return root


def test_a_root_is_current_while_its_manifest_is_unchanged(tmp_path: Path) -> None:
    m = hr.parse_manifest(hr.SUITES["sid"])
    dest = tmp_path / "roots"
    assert not hr.is_current(m, dest)
    _fake_root(dest, m.sha256)
    assert hr.is_current(m, dest)
    r = _script("sid", "--check", "--dest", dest)
    assert r.returncode == 0 and "is up to date" in r.stderr

    edited = tmp_path / "hip-6.4.packages"
    edited.write_bytes(hr.SUITES["sid"].read_bytes().replace(b"libhipfft-dev=6.4.3-2", b"libhipfft-dev=6.4.3-3"))
    assert not hr.is_current(hr.parse_manifest(edited), dest)
    r = _script(edited, "--check", "--dest", dest)
    assert r.returncode == 1 and "absent or out of date" in r.stderr


def test_a_root_without_its_compiler_is_not_current(tmp_path: Path) -> None:
    m = hr.parse_manifest(hr.SUITES["sid"])
    _fake_root(tmp_path, m.sha256, clang=False)
    assert not hr.is_current(m, tmp_path)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_broken_dev_null_is_repaired(tmp_path: Path) -> None:
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    os.chmod(null, 0o4755)  # what one root build once left behind
    assert hr.check_dev_null(str(null)) == f"{null} had mode 4755; set back to 0666"
    assert stat.S_IMODE(null.stat().st_mode) == 0o666
    assert hr.check_dev_null(str(null)) is None

    null.unlink()
    null.write_bytes(b"")  # a plain file where the device was
    assert hr.check_dev_null(str(null)) == f"{null} was not the character device 1:3; made again"
    st = os.lstat(null)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert stat.S_IMODE(st.st_mode) == 0o666
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


# -- the HIP 6.4 root (marker rocm64) ------------------------------------------------------

HIP64 = hr.parse_manifest(hr.SUITES["sid"])


@pytest.fixture(scope="module")
def hip64() -> Path:
    dest = Path(os.environ.get("HIPPORT_TOOLCHAINS") or hr.DEFAULT_DEST)
    root = hr.root_of(HIP64, dest)
    if not hr.is_current(HIP64, dest):
        why = f"{root} is absent or out of date: run `python3 scripts/hip_root.py` as root"
        if HIP64.name in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {HIP64.name}, but {why}")
        pytest.skip(why)
    return root


def _in_root(root: Path, argv: list[str]) -> list[str]:
    """Run argv inside the root: chroot as root, a user namespace otherwise."""
    if os.geteuid() == 0:
        return ["chroot", str(root), *argv]
    return ["unshare", "--map-root-user", f"--root={root}", *argv]


def _compile(argv_prefix: list[str], unit: str) -> subprocess.CompletedProcess[str]:
    argv = [*argv_prefix, "-x", "hip", "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", "-"]
    return subprocess.run(argv, input=unit, capture_output=True, text=True, timeout=300)


def _unit(header: str) -> str:
    return (f"#include <hip/hip_runtime.h>\n#include <{header}>\n"
            "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n")


@pytest.mark.rocm64
def test_the_descriptor_describes_the_root(hip64: Path) -> None:
    d = json.loads((hip64 / hr.DESCRIPTOR).read_text())
    assert d["format"] == 1 and (d["name"], d["suite"], d["clang"]) == ("hip-6.4", "sid", HIP64.clang)
    assert d["hip_version"].startswith("6.4.") and d["clang_version"].startswith("21.")
    assert (hip64 / d["clang"].lstrip("/")).exists()
    assert (hip64 / d["device_lib_path"].lstrip("/") / "ocml.bc").is_file()
    assert [lib["name"] for lib in d["libraries"]] == [lib.name for lib in HIP64.libraries]
    for lib in d["libraries"]:
        assert (hip64 / "usr/include" / lib["header"]).is_file()
    assert d["packages"] == {p.package: p.version for p in HIP64.pins}
    assert d["manifest_sha256"] == HIP64.sha256


@pytest.mark.rocm64
@pytest.mark.parametrize("library", HIP64.libraries, ids=lambda lib: lib.name)
def test_each_library_header_compiles_inside_the_root(hip64: Path, library: Any) -> None:
    header = library.header
    r = _compile(_in_root(hip64, [HIP64.clang]), _unit(header))
    assert r.returncode == 0, f"{header}:\n{r.stderr[-3000:]}"


@pytest.mark.rocm64
def test_a_missing_header_fails_inside_the_root(hip64: Path) -> None:
    r = _compile(_in_root(hip64, [HIP64.clang]), _unit("nosuch/nosuch.h"))
    assert r.returncode != 0 and "'nosuch/nosuch.h' file not found" in r.stderr


@pytest.mark.rocm64
def test_the_roots_hip_is_hip6(hip64: Path) -> None:
    """The root compiles with its own HIP 6.4, not the host's 5.2 (which accepts this unit): HIP 6's
    float2 defines the operators a project's helper_math.h defines too (issue 29)."""
    unit = ("#include <hip/hip_runtime.h>\n"
            "inline __host__ __device__ float2 operator/(float2 a, float2 b) { return make_float2(a.x / b.x, a.y / b.y); }\n"
            "__global__ void k(float2* v) { v[0] = v[0] / v[1]; }\n")
    r = _compile(_in_root(hip64, [HIP64.clang]), unit)
    assert r.returncode != 0 and "ambiguous" in r.stderr, r.stderr[-2000:]


@pytest.mark.rocm64
def test_a_user_without_root_compiles_in_a_user_namespace(hip64: Path) -> None:
    if subprocess.run(["unshare", "--map-root-user", "true"], capture_output=True).returncode != 0:
        pytest.skip("user namespaces are not available here")
    r = _compile(["unshare", "--map-root-user", f"--root={hip64}", HIP64.clang], _unit("hipcub/hipcub.hpp"))
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.rocm64
def test_running_setup_again_leaves_a_current_root_alone(hip64: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the script builds (and so checks its lock) as root only")
    before = (hip64 / hr.DESCRIPTOR).stat()
    r = _script("sid", "--dest", hip64.parent)
    assert r.returncode == 0 and "is up to date" in r.stderr, r.stderr
    after = (hip64 / hr.DESCRIPTOR).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
