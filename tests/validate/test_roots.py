"""Toolchains beside the host's HIP (issue 29): the roots scripts/hip_root.py builds, found
from their descriptors (data, checked field by field), listed by `hipport toolchains`, and used
by `hipport validate --toolchain NAME` through the root's own clang, run inside the root.

Without the root: descriptors in temporary folders (real files, links and modes), the listing
and its names, the floor check against the host's HIP. Marked `rocm64`: the HIP 6.4 root that
setup builds (skipped where it is absent, failed where HIPPORT_REQUIRE_TOOLCHAINS names hip-6.4).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hipport.errors import HipportError
from hipport.validate import descriptor, toolchains
from hipport.validate.driver import Toolchain
from tests.conftest import hipport, needs_hipcc

HIP64 = "hip-6.4"


@pytest.fixture(autouse=True)
def _fresh_listing() -> Iterator[None]:
    """The listing is found once per process; these tests move HIPPORT_TOOLCHAINS."""
    toolchains.listing.cache_clear()
    yield
    toolchains.listing.cache_clear()


def fake_root(parent: Path, name: str = "hip-9.9", **fields: Any) -> Path:
    """A root laid out as hip_root.py lays one out, with a clang that is not one (never run here)."""
    root = parent / name
    clang = root / "usr/lib/llvm-99/bin/clang++"
    clang.parent.mkdir(parents=True)
    clang.write_text("#!/bin/false\n")
    clang.chmod(0o755)
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/clang++-99").symlink_to("/usr/lib/llvm-99/bin/clang++")  # absolute: the root's own
    (root / "usr/lib/llvm-99/lib/clang/99/amdgcn/bitcode").mkdir(parents=True)
    (root / "usr/include/hipblas").mkdir(parents=True)
    (root / "usr/include/hipblas/hipblas.h").write_text("")
    (root / "tmp").mkdir()
    doc = {"format": 1, "name": name, "suite": "sid", "hip_version": "9.9.1", "clang_version": "99.0.1",
           "clang": "/usr/bin/clang++-99", "rocm_path": "/usr",
           "device_lib_path": "/usr/lib/llvm-99/lib/clang/99/amdgcn/bitcode",
           "libraries": [{"name": "hipBLAS", "header": "hipblas/hipblas.h", "package": "libhipblas-dev",
                          "version": "6.4.4-1"},
                         {"name": "hipFFT", "header": "hipfft/hipfft.h", "package": "libhipfft-dev",
                          "version": "6.4.3-2"}],
           "packages": {"hipcc": "7.0.2+dfsg-3"}, "manifest_sha256": "0" * 64, "built": "2026-12-04T20:56:02Z"}
    doc.update(fields)
    (root / descriptor.FILE).write_text(json.dumps(doc))
    return root


def test_a_descriptor_that_checks_gives_a_toolchain_run_inside_its_root(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    tc = toolchains.root_toolchain(root)
    assert (tc.name, tc.hip_version, tc.clang_version, tc.root) == ("hip-9.9", "9.9.1", "99.0.1", str(root))
    # only the libraries whose header is in the root count
    assert [(lib.name, lib.header, lib.version) for lib in tc.headers] == [("hipBLAS", "hipblas/hipblas.h", "6.4.4-1")]
    cmd = tc.command(["-x", "hip", "--offload-arch=gfx90a", "-fsyntax-only", "/tmp/u.hip"])
    if os.geteuid() == 0:
        assert cmd[:3] == ["/usr/sbin/chroot", str(root), "/usr/bin/clang++-99"]
    else:
        assert cmd[:4] == ["/usr/bin/unshare", "--map-root-user", f"--root={root}", "/usr/bin/clang++-99"]
    assert "--rocm-path=/usr" in cmd and "--hip-device-lib-path=/usr/lib/llvm-99/lib/clang/99/amdgcn/bitcode" in cmd
    assert cmd[-1] == "/tmp/u.hip" and "hipcc" not in " ".join(cmd)
    # paths cross between this machine and the root's
    assert tc.inside(f"{root}/tmp/x/u.hip") == "/tmp/x/u.hip" and tc.inside("/elsewhere/u.hip") == "/elsewhere/u.hip"
    assert tc.host_path("/usr/include/hip/hip_runtime.h") == f"{root}/usr/include/hip/hip_runtime.h"


def _edit(key: str, value: Any) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / descriptor.FILE
        doc = json.loads(path.read_text())
        if value is KeyError:
            del doc[key]
        else:
            doc[key] = value
        path.write_text(json.dumps(doc))
    return change


def _relink(root: Path, target: str) -> None:
    link = root / "usr/bin/clang++-99"
    link.unlink()
    link.symlink_to(target)


@pytest.mark.parametrize("change, message", [
    pytest.param(_edit("compiler", "/bin/sh"), "`compiler` is not a field", id="unknown-field"),
    pytest.param(_edit("clang", KeyError), "`clang` is missing", id="missing-field"),
    pytest.param(_edit("format", 2), "`format` must be 1", id="newer-format"),
    pytest.param(_edit("format", True), "`format` must be 1", id="format-not-a-number"),
    pytest.param(_edit("name", "hip-6.4"), "the root's folder is 'hip-9.9'", id="name-not-the-folder"),
    pytest.param(_edit("name", "-rf"), "`name` must be a toolchain name", id="option-shaped-name"),
    pytest.param(_edit("hip_version", "6.4; rm -rf /"), "`hip_version` must be a version", id="version-not-a-version"),
    pytest.param(_edit("clang", "usr/bin/clang++-99"), "`clang` must be an absolute path", id="relative-clang"),
    pytest.param(_edit("clang", "--version"), "`clang` must be an absolute path", id="option-shaped-clang"),
    pytest.param(_edit("clang", "/usr/bin/../bin/clang++-99"), "`clang` must be an absolute path",
                 id="clang-with-dot-dot"),
    pytest.param(_edit("clang", "/usr/bin/clang++-98"), "not inside the root", id="clang-absent"),
    pytest.param(lambda r: _relink(r, "../../../../../../../bin/true"), "not inside the root",
                 id="clang-links-out-of-the-root"),
    pytest.param(_edit("clang", "/usr/include/hipblas/hipblas.h"), "which is not a program", id="clang-not-a-program"),
    pytest.param(_edit("rocm_path", "/usr/include/hipblas/hipblas.h"), "which is not a folder", id="rocm-path-a-file"),
    pytest.param(_edit("libraries", [{"name": "hipBLAS", "header": "../../etc/passwd", "package": "x1",
                                      "version": "1"}]), "must be a header path", id="header-outside-include"),
    pytest.param(_edit("libraries", [{"name": "hipBLAS", "header": "hipblas/hipblas.h", "package": "libhipblas-dev",
                                      "version": "-1"}]), "must be a Debian version", id="option-shaped-version"),
    pytest.param(_edit("libraries", [{"name": "hipBLAS", "header": "hipblas/hipblas.h"}]), "exactly the fields",
                 id="library-without-package"),
    pytest.param(_edit("packages", ["hipcc"]), "`packages` must be an object", id="packages-not-an-object"),
    pytest.param(_edit("built", "yesterday"), "`built` must be a UTC time", id="built-not-a-time"),
    pytest.param(lambda r: (r / descriptor.FILE).write_text("{\"format\": 1,"), "not JSON", id="not-json"),
    pytest.param(lambda r: (r / descriptor.FILE).chmod(0o666), "others may write the descriptor",
                 id="descriptor-anyone-may-write"),
    pytest.param(lambda r: r.chmod(0o777), "others may write the root's folder", id="root-anyone-may-write"),
])
def test_a_descriptor_that_does_not_check_is_refused_naming_the_field(tmp_path: Path, change: Callable[[Path], None],
                                                                      message: str) -> None:
    root = fake_root(tmp_path)
    change(root)
    with pytest.raises(descriptor.DescriptorError) as e:
        descriptor.read(root)
    assert str(e.value).startswith(f"{root}") and message in str(e.value), str(e.value)


def test_a_descriptor_that_is_a_link_is_refused(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    real = tmp_path / "elsewhere.json"
    (root / descriptor.FILE).rename(real)
    (root / descriptor.FILE).symlink_to(real)
    with pytest.raises(descriptor.DescriptorError, match="not a regular file"):
        descriptor.read(root)


def test_links_are_followed_as_the_root_sees_them(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    assert descriptor.resolve_in_root(root, "/usr/bin/clang++-99") == root / "usr/lib/llvm-99/bin/clang++"
    assert descriptor.resolve_in_root(root, "/../../usr/bin/clang++-99") == root / "usr/lib/llvm-99/bin/clang++"
    (root / "usr/bin/loop").symlink_to("loop")
    assert descriptor.resolve_in_root(root, "/usr/bin/loop") is None
    assert descriptor.resolve_in_root(root, "/usr/bin/nothing") is None


def test_the_listing_takes_the_roots_that_check_and_notes_the_others(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    fake_root(tmp_path, "hip-9.9")
    fake_root(tmp_path, "hip-9.8", hip_version="x")
    fake_root(tmp_path, ".hip-9.7.build")  # a build in progress (hip_root.py) is not a toolchain yet
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("HIPPORT_TOOLCHAINS", str(tmp_path))
    found = toolchains.listing()
    roots = [t for t in found.toolchains if t.root]
    assert [t.name for t in roots] == ["hip-9.9"]
    assert found.notes == (f"ignored: {tmp_path / 'hip-9.8' / descriptor.FILE}: `hip_version` must be a version "
                           "(6.4.43484), not \"x\"",)
    host = toolchains.amd_toolchain()
    if host is not None:
        assert found.toolchains[0] == host  # the host's HIP comes first, as validate's default
    assert toolchains.find("hip-9.9") is roots[0]
    with pytest.raises(HipportError) as e:
        toolchains.find("hip-7.0")
    assert "no toolchain named 'hip-7.0'" in str(e.value) and "hip-9.9" in str(e.value) and "hip-9.8" in str(e.value)


def test_two_toolchains_of_one_name_are_told_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = toolchains.amd_toolchain()
    if host is None:
        pytest.skip("no HIP on this machine to clash with")
    fake_root(tmp_path, host.name)
    monkeypatch.setenv("HIPPORT_TOOLCHAINS", str(tmp_path))
    names = toolchains.listing().names()
    assert names[:2] == [host.name, f"{host.name}-2"]


def test_a_root_whose_clang_cannot_run_is_listed_as_unusable(tmp_path: Path) -> None:
    """The fake clang is no program inside its root: `hipport toolchains` says so, exit 1
    when no toolchain at all can compile, and nothing is remembered for next time."""
    fake_root(tmp_path)
    env = {"HIPPORT_TOOLCHAINS": str(tmp_path), "PATH": "/nonexistent", "HIPPORT_HIPCC": str(tmp_path / "none")}
    r = hipport("toolchains", "--format", "json", env=env)
    doc = json.loads(r.stdout)
    assert doc["version"] == 1 and doc["notes"] == []
    [t] = [t for t in doc["toolchains"] if t["root"]]
    if len(doc["toolchains"]) == 1:  # no ROCm under /opt/rocm* either: nothing can compile
        assert r.returncode == 1
    assert (t["name"], t["root"], t["usable"], t["targets"]) == ("hip-9.9", str(tmp_path / "hip-9.9"), False, [])
    assert t["error"] and t["libraries"] == [{"name": "hipBLAS", "header": "hipblas/hipblas.h", "version": "6.4.4-1"}]
    text = hipport("toolchains", env=env).stdout.decode()
    assert text.startswith("hip-9.9  HIP 9.9.1  clang 99.0.1  root ") and "  cannot compile: " in text


def test_an_unknown_toolchain_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    r = hipport("validate", tmp_path / "a.cu", "--toolchain", "hip-0.1", "--no-cache")
    assert r.returncode == 2 and r.stdout == b""
    assert b"hipport: error: no toolchain named 'hip-0.1'" in r.stderr and b"Traceback" not in r.stderr


@pytest.mark.hipcc
@needs_hipcc
def test_a_floor_above_the_toolchain_is_a_warning_in_every_format(tmp_path: Path) -> None:
    """Porting for ROCm 6.4 and compiling with the host's HIP 5.2 passes, with a warning, not silently."""
    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\n")
    host = toolchains.amd_toolchain()
    assert host is not None
    doc = json.loads(hipport("validate", tmp_path, "--rocm", "6.4", "--format", "json", "--no-cache").stdout)
    assert doc["failed"] is False
    [warning] = doc["warnings"]
    assert warning.startswith(f"{host.name} is HIP 5.2, older than the floor (--rocm 6.4): its answers do not show")
    text = hipport("validate", tmp_path, "--rocm", "6.4", "--no-cache")
    assert text.returncode == 0 and "warning: " + warning[:60] in text.stdout.decode().replace("\n", " ")
    sarif = json.loads(hipport("validate", tmp_path, "--rocm", "6.4", "--format", "sarif", "--no-cache").stdout)
    [res] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "toolchain-below-floor"]
    assert res["level"] == "warning" and res["message"]["text"] == warning
    ok = json.loads(hipport("validate", tmp_path, "--rocm", "5.2", "--format", "json", "--no-cache").stdout)
    assert ok["warnings"] == []


# -- the HIP 6.4 root (rocm64) ---------------------------------------------------------------

@pytest.fixture(scope="module")
def hip64() -> Toolchain:
    toolchains.listing.cache_clear()
    tc = next((t for t in toolchains.listing().toolchains if t.name == HIP64), None)
    if tc is None or not tc.ok:
        why = f"no usable {HIP64} toolchain in {toolchains.roots_folder()}: run `python3 scripts/hip_root.py` as root"
        if HIP64 in os.environ.get("HIPPORT_REQUIRE_TOOLCHAINS", "").split(","):
            pytest.fail(f"HIPPORT_REQUIRE_TOOLCHAINS names {HIP64}, but {why}")
        pytest.skip(why)
    return tc


@pytest.mark.rocm64
def test_toolchains_lists_the_hip64_root(hip64: Toolchain) -> None:
    doc = json.loads(hipport("toolchains", "--format", "json").stdout)
    t = next(t for t in doc["toolchains"] if t["name"] == HIP64)
    assert t["usable"] and t["hip_version"].startswith("6.4.") and t["clang_version"].startswith("21.")
    assert {"gfx90a", "gfx942", "gfx950", "gfx1201"} <= set(t["targets"])
    assert {"hipBLAS", "hipBLASLt", "hipFFT", "hipCUB", "rocThrust", "hipSOLVER", "MIOpen"} <= \
        {lib["name"] for lib in t["libraries"]}
    host = toolchains.amd_toolchain()
    if host is not None:  # the host's 5.2 knows no gfx942 (its clang 15 stops at gfx940)
        h = next(t for t in doc["toolchains"] if t["name"] == host.name)
        assert "gfx942" not in h["targets"] and "hipBLAS" not in {lib["name"] for lib in h["libraries"]}


def _project(tmp: Path) -> Path:
    """A repository: a unit using cuBLAS, one with a helper_math.h operator HIP 6 also defines,
    one with an error of its own, and one reading a header folder of the repository outside the
    validated folder."""
    repo = tmp / "repo"
    (repo / ".git").mkdir(parents=True)
    src = repo / "src"
    src.mkdir()
    (src / "blas.cu").write_text(
        "#include <cublas_v2.h>\nint main() {\n  cublasHandle_t h;\n  cublasCreate(&h);\n"
        "  cublasDestroy(h);\n  return 0;\n}\n")
    (src / "helper_math.h").write_text(
        "#pragma once\ninline __host__ __device__ float2 operator/(float2 a, float2 b) {\n"
        "  return make_float2(a.x / b.x, a.y / b.y);\n}\n")
    (src / "vec.cu").write_text(
        "#include \"helper_math.h\"\n__global__ void k(float2* v) {\n  v[0] = v[0] / v[1];\n}\n")
    (src / "bad.cu").write_text("__global__ void k(int* p) {\n  p[0] = undeclared_fn(p);\n}\n")
    (repo / "third_party").mkdir()
    (repo / "third_party" / "scale.h").write_text("#define SCALE 3\n")
    (src / "outside.cu").write_text(
        "#include \"scale.h\"\n__global__ void k(int* p) {\n  p[threadIdx.x] = SCALE;\n}\n")
    (src / "CMakeLists.txt").write_text("include_directories(../third_party)\n")
    return repo


@pytest.mark.rocm64
@needs_hipcc
def test_validate_with_the_hip64_root_names_the_toolchain_of_every_result(tmp_path: Path, hip64: Toolchain) -> None:
    repo = _project(tmp_path)
    host = toolchains.amd_toolchain()
    assert host is not None
    mirrors_before = set(Path(hip64.root, "tmp").iterdir())
    cache = tmp_path / "cache"
    args = ("validate", repo / "src", "--toolchain", host.name, "--toolchain", HIP64, "--offload-arch", "gfx90a",
            "--rocm", "6.4", "--cache-dir", cache)
    r = hipport(*args, "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1, r.stderr.decode()[-2000:]
    assert [t["name"] for t in doc["toolchains"]] == [host.name, HIP64]
    assert doc["toolchains"][1]["root"] == hip64.root and "hipBLAS" in doc["toolchains"][1]["libraries"]
    table = {row["file"].split("/")[-1]: row for row in doc["table"]}
    a, b = f"compile {host.name} gfx90a", f"compile {HIP64} gfx90a"
    # hipBLAS: absent on the host (a missing package), there in the root (compiles)
    assert (table["blas.cu"][a], table["blas.cu"][b]) == ("fail", "pass")
    assert table["blas.cu"]["failure"].startswith(f"{host.name}: missing-package: hipblas/hipblas.h")
    # HIP 6's float2 has its own operator/: the port keeps the project's only where HIP lacks one
    # (HP011), so both toolchains compile it
    assert (table["vec.cu"][a], table["vec.cu"][b]) == ("pass", "pass")
    # an error of the project's own fails in both, each named by its toolchain, at the CUDA line
    assert (table["bad.cu"][a], table["bad.cu"][b]) == ("fail", "fail")
    [err] = [e for e in doc["errors"] if e["where"] == f"{HIP64} gfx90a"]
    assert err["file"].endswith("src/bad.cu") and err["line"] == 2 and "undeclared_fn" in err["message"]
    # a header folder of the repository outside the validated folder is seen inside the root too
    assert (table["outside.cu"][a], table["outside.cu"][b]) == ("pass", "pass")
    units = {(u["file"].split("/")[-1], u["toolchain"]): u for u in doc["details"]["compile"]}
    cmd = units[("vec.cu", HIP64)]["archs"]["gfx90a"]["command"]
    assert cmd[:len(hip64.prefix) + 1] == [*hip64.prefix, hip64.clang]
    assert units[("vec.cu", HIP64)]["ported"].startswith("/") and not units[("vec.cu", HIP64)]["ported"].startswith(
        hip64.root)
    assert doc["warnings"] and doc["warnings"][0].startswith(f"{host.name} is HIP 5.2, older than the floor")
    # the mirror inside the root is gone
    assert {p for p in Path(hip64.root, "tmp").iterdir() if p.name.startswith("hipport-")} <= mirrors_before
    # the same run again is answered from the compile cache, the root's answers included
    again = json.loads(hipport(*args, "--format", "json").stdout)
    assert again["summary"]["compile_cached"] == 8 and again["table"] == doc["table"]
    assert again["errors"] == doc["errors"]
    # the text names the toolchains in its title and columns, SARIF in each error
    text = hipport(*args).stdout.decode()
    assert f"{HIP64}: HIP 6.4." in text and f"{HIP64} gfx90a" in text
    sarif = json.loads(hipport(*args, "--format", "sarif").stdout)
    msgs = [x["message"]["text"] for x in sarif["runs"][0]["results"] if x["ruleId"] == "compile-error"]
    assert any(m.endswith(f"({HIP64} gfx90a)") and "undeclared_fn" in m for m in msgs)


@pytest.mark.rocm64
def test_the_non_root_prefix_compiles_inside_the_root(tmp_path: Path, hip64: Toolchain) -> None:
    """What hipport runs for a user who is not root: the user namespace argv, here run as nobody."""
    if os.geteuid() != 0:
        prefix, why = toolchains.root_prefix(hip64.root, as_root=False)
        assert not why and prefix == hip64.prefix
        run_as: list[str] = []
    else:
        prefix, why = toolchains.root_prefix(hip64.root, as_root=False)
        assert not why and prefix[1:] == ("--map-root-user", f"--root={hip64.root}")
        run_as = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*run_as, "unshare", "--map-root-user", "true"], capture_output=True).returncode != 0:
        pytest.skip("user namespaces are not available here")
    tc = Toolchain(**{**{f: getattr(hip64, f) for f in hip64.__dataclass_fields__}, "prefix": prefix})
    d = Path(hip64.root, "tmp") / f"hipport-test-{os.getpid()}"
    d.mkdir(mode=0o755)
    try:
        (d / "u.hip").write_text("#include <hipcub/hipcub.hpp>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n")
        cmd = tc.command(["-x", "hip", "--offload-arch=gfx90a", "-fsyntax-only", tc.inside(str(d / "u.hip"))])
        r = subprocess.run([*run_as, *cmd], capture_output=True, text=True, env=toolchains.compile_env(tc), timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
    finally:
        (d / "u.hip").unlink()
        d.rmdir()


def test_a_rocm_under_rocm_path_is_listed_beside_the_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ROCm installation (upstream's layout) is described from its files like the host's HIP."""
    host = toolchains.amd_toolchain()
    if host is None or not host.ok:
        pytest.skip("needs a real clang to point the installation at")
    rocm = tmp_path / "rocm-9.8.0"
    (rocm / "bin").mkdir(parents=True)
    (rocm / "bin" / "hipcc").write_text("#!/bin/false\n")  # a marker: never run
    (rocm / "bin" / "hipcc").chmod(0o755)
    (rocm / "bin" / ".hipVersion").write_text("HIP_VERSION_MAJOR=9\nHIP_VERSION_MINOR=8\nHIP_VERSION_PATCH=1\n")
    (rocm / "llvm" / "bin").mkdir(parents=True)
    (rocm / "llvm" / "bin" / "clang++").symlink_to(os.path.realpath(host.clang))
    monkeypatch.setenv("ROCM_PATH", str(rocm))
    monkeypatch.setenv("HIPPORT_TOOLCHAINS", str(tmp_path / "no-roots"))
    found = {t.name: t for t in toolchains.listing().toolchains}
    tc = found["hip-9.8"]
    assert (tc.hip_version, tc.rocm_path, tc.origin, tc.root) == ("9.8.1", str(rocm), str(rocm), "")
    assert tc.clang == f"{rocm}/llvm/bin/clang++" and tc.clang_version == host.clang_version
    assert host.name in found  # the host's HIP stays, first
    assert list(found)[0] == host.name


def test_a_site_mirrors_folders_inside_the_root_and_maps_paths_back(tmp_path: Path) -> None:
    from hipport.validate.site import Site

    root = fake_root(tmp_path / "roots")
    tc = toolchains.root_toolchain(root)
    tree = tmp_path / "work" / "ported"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "a.hip").write_text("int a;\n")
    (tree / "inc").symlink_to("src")  # a link stays a link
    with Site(tc) as site:
        site.place(tree)
        site.place(tree / "src")  # inside a placed folder: nothing more
        site.place(Path("/usr/include"))  # the root's own: never mirrored
        inside = site.path(str(tree / "src" / "a.hip"))
        assert inside.startswith("/tmp/hipport-mirror-") and inside.endswith(str(tree / "src" / "a.hip"))
        mirrored = Path(str(root) + inside)
        assert mirrored.read_text() == "int a;\n" and os.stat(mirrored).st_ino == os.stat(tree / "src" / "a.hip").st_ino
        assert Path(str(root) + site.path(str(tree / "inc"))).is_symlink()
        assert site.arg(f"-I{tree}/src") == f"-I{site.mirror_prefix}{tree}/src"
        assert site.arg("/usr/include/hip") == "/usr/include/hip" and site.arg("-O3") == "-O3"
        assert site.host_path(inside) == str(tree / "src" / "a.hip")
        assert site.host_path("/usr/include/hip/hip_runtime.h") == f"{root}/usr/include/hip/hip_runtime.h"
        cmd = site.command(["-c", str(tree / "src" / "a.hip")])
        assert cmd[:len(tc.prefix) + 1] == [*tc.prefix, tc.clang] and cmd[-1] == inside
        site.tmp = str(root / "tmp" / "t")
        assert site.env["TMPDIR"] == "/tmp/t" and "HOME" in site.env and "PYTHONPATH" not in site.env
    assert not any(p.name.startswith("hipport-mirror-") for p in (root / "tmp").iterdir())
