"""The compile check runs the HIP toolchain's clang itself, from an argv list, with the options
hipcc would add: word for word the command hipcc prints (HIPCC_VERBOSE=1) for every call shape
hipport makes, the same answers on real units, and a description read from the installation's
files alone. A unit without device code is checked on the host side alone."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from hipport.validate import toolchains
from hipport.validate.devicecode import holds_device_code
from hipport.validate.driver import Toolchain
from hipport.validate.site import Site
from tests.conftest import HIPCC, needs_hipcc

# Every shape of call hipport makes, as hipcc arguments (p.hip, h.cpp, p.o in the test's folder).
SHAPES = [
    pytest.param(["-x", "hip", "--offload-arch=gfx90a", "-std=c++17", "-Iinc", "-DX=1", "-UY", "--cuda-host-only",
                  "-fsyntax-only", "-MD", "-MF", "u.d", "p.hip"], id="host-side-check-with-its-dependencies"),
    pytest.param(["-x", "hip", "--offload-arch=gfx90a", "-std=c++17", "-isystem", "inc", "-include", "f.h",
                  "--cuda-device-only", "-include-pch", "x.pch", "-fsyntax-only", "p.hip"],
                 id="device-side-check-with-a-precompiled-header"),
    pytest.param(["-x", "hip", "--offload-arch=gfx90a", "-std=c++17", "-c", "p.hip", "-o", "p.o"],
                 id="full-compile-of-a-unit-with-inline-assembly"),
    pytest.param(["-x", "hip", "--offload-arch=gfx90a", "--cuda-host-only", "-M", "-MG", "p.hip"],
                 id="dependency-scan-adds-cuda-host-only"),
    pytest.param(["-x", "hip", "-E", "-v", os.devnull, "-o", os.devnull], id="system-folder-probe"),
    pytest.param(["-x", "hip", "--offload-arch=gfx90a", "-std=c++17", "-Xclang", "-emit-pch", "--cuda-device-only",
                  "-MD", "-MF", "d.d", "-S", "-o", "x.pch", "p.hip"], id="precompiled-header-build"),
    pytest.param(["-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-c", "p.hip", "-o", "p.o"],
                 id="arch-probe"),
    pytest.param(["--offload-arch=gfx90a", "-x", "hip", "-O0", "-c", "p.hip", "-o", "p.o"],
                 id="O0-drops-the-default-and-the-inlining-options"),
    pytest.param(["--offload-arch=gfx90a", "-std=c++17", "-c", "h.cpp", "-o", "h.o"],
                 id="gpu-build-of-a-host-source-compiles-it-as-hip"),
    pytest.param(["--offload-arch=gfx90a", "p.o", "h.o", "-o", "a.out"], id="gpu-build-link"),
]


def _amd() -> Toolchain:
    tc = toolchains.amd_toolchain()
    assert tc is not None and tc.ok, tc
    return tc


def _hipcc_env() -> dict[str, str]:
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    for var in ("ROCM_PATH", "HIP_PATH", "HIP_CLANG_PATH", "HIPCC_COMPILE_FLAGS_APPEND", "HIPCC_LINK_FLAGS_APPEND"):
        env.pop(var, None)
    return env


@pytest.mark.hipcc
@needs_hipcc
@pytest.mark.parametrize("args", SHAPES)
def test_the_command_is_the_one_hipcc_runs(tmp_path: Path, args: list[str]) -> None:
    # The test runs hipcc (Perl, in a folder of plain names) only as the reference to compare with.
    (tmp_path / "p.hip").write_text("int x;\n")
    (tmp_path / "h.cpp").write_text("int y;\n")
    p = subprocess.run([str(HIPCC), *args], cwd=tmp_path, env={**_hipcc_env(), "HIPCC_VERBOSE": "1"},
                       capture_output=True, text=True, timeout=300)
    line = next(x for x in p.stdout.splitlines() if x.startswith("hipcc-cmd:"))
    assert _amd().command(args) == shlex.split(line[len("hipcc-cmd:"):])


UNITS = {
    "fine.hip": "#include <hip/hip_runtime.h>\n__global__ void k(int* a) { a[threadIdx.x] = warpSize; }\n",
    "host_error.hip": "#include <hip/hip_runtime.h>\nint f() { return undeclared_on_the_host; }\n",
    "device_error.hip": "#include <hip/hip_runtime.h>\n#if defined(__HIP_DEVICE_COMPILE__)\n"
                        "__device__ int g() { return undeclared_on_the_device; }\n#endif\n",
    "wave.hip": "#include <hip/hip_runtime.h>\n__global__ void k(int* a) { a[0] = __shfl_down_sync(~0u, a[0], 1); }\n",
}


@pytest.mark.hipcc
@needs_hipcc
def test_it_accepts_what_hipcc_accepts_and_rejects_what_it_rejects(tmp_path: Path) -> None:
    tc = _amd()
    answers: dict[tuple[str, str], tuple[int, int]] = {}
    for name, text in UNITS.items():
        (tmp_path / name).write_text(text)
        for side in ("--cuda-host-only", "--cuda-device-only"):
            args = ["-x", "hip", "--offload-arch=gfx90a", "-std=c++17", side, "-fsyntax-only", name]
            theirs = subprocess.run([str(HIPCC), *args], cwd=tmp_path, env=_hipcc_env(), capture_output=True,
                                    text=True, timeout=300)
            mine = subprocess.run(tc.command(args), cwd=tmp_path, env=_hipcc_env(), capture_output=True,
                                  text=True, timeout=300)
            assert [x for x in mine.stderr.splitlines() if "error" in x] == \
                [x for x in theirs.stderr.splitlines() if "error" in x], (name, side)
            answers[(name, side)] = (mine.returncode, theirs.returncode)
    assert {k: v[0] for k, v in answers.items()} == {k: v[1] for k, v in answers.items()}
    # and the units tell the sides apart, so the comparison could have failed
    assert answers[("fine.hip", "--cuda-device-only")][0] == 0
    assert answers[("host_error.hip", "--cuda-host-only")][0] != 0
    assert answers[("device_error.hip", "--cuda-host-only")][0] == 0
    assert answers[("device_error.hip", "--cuda-device-only")][0] != 0
    assert answers[("wave.hip", "--cuda-device-only")][0] != 0


def test_a_second_installation_is_described_from_its_files(tmp_path: Path) -> None:
    """A HIP unpacked elsewhere (upstream's layout: /opt/rocm with llvm/bin) is another
    Toolchain, read from its files: nothing of it runs."""
    rocm = tmp_path / "opt" / "rocm"
    hip = rocm / "hip"
    (hip / "bin").mkdir(parents=True)
    (hip / "bin" / "hipcc").write_text("#!/bin/false\n")  # a marker: never run
    (hip / "bin" / "hipcc.pl").write_text('$HIPCC="$HIP_CLANG_PATH/clang++" . $execExtension;\n')
    (hip / "bin" / ".hipVersion").write_text("HIP_VERSION_MAJOR=6\nHIP_VERSION_MINOR=4\nHIP_VERSION_PATCH=43483\n")
    (rocm / "bin").mkdir()
    (rocm / "bin" / "rocm_agent_enumerator").write_text("")
    real = rocm / "llvm" / "bin" / "clang-19"
    real.parent.mkdir(parents=True)
    real.write_text("#!/bin/false\n")
    (rocm / "llvm" / "bin" / "clang++").symlink_to("clang-19")
    (rocm / "llvm" / "lib" / "clang" / "19" / "include").mkdir(parents=True)
    (rocm / "amdgcn" / "bitcode").mkdir(parents=True)  # clang's default place: no --hip-device-lib-path
    tc = toolchains.describe(hip / "bin" / "hipcc", {})
    assert (tc.ok, tc.name, tc.hip_version, tc.clang_version) == (True, "hip-6.4", "6.4.43483", "19")
    assert tc.clang == f"{rocm}/llvm/bin/clang++" and tc.rocm_path == str(rocm)
    cmd = tc.command(["-x", "hip", "--offload-arch=gfx942", "-fsyntax-only", "u.hip"])
    assert cmd[:6] == [tc.clang, "-std=c++11", "-isystem", f"{rocm}/llvm/lib/clang/19/include/..", "-isystem",
                       f"{rocm}/hsa/include"]
    assert "--hip-version=6.4.43483" in cmd and f"--rocm-path={rocm}" in cmd and "--offload-arch=gfx942" in cmd
    assert ["-isystem", f"{hip}/include"] == cmd[8:10]  # HIP's own headers are not under /usr/include
    assert not any(c.startswith("--hip-device-lib-path") for c in cmd)
    assert cmd[-4:] == ["u.hip", "-lamdhip64", f"-L{rocm}/llvm/bin/../lib/clang/19/lib/linux",
                        f"-lclang_rt.builtins-{os.uname().machine}"]
    # without its clang it is a toolchain that says why it cannot compile
    (rocm / "llvm" / "bin" / "clang++").unlink()
    broken = toolchains.describe(hip / "bin" / "hipcc", {})
    assert not broken.ok and "clang++ is missing" in broken.error


def test_the_environment_hipcc_reads_moves_the_installation(tmp_path: Path) -> None:
    clang = tmp_path / "llvm" / "bin" / "clang++"
    clang.parent.mkdir(parents=True)
    clang.write_text("")
    (tmp_path / "llvm" / "lib" / "clang" / "17" / "include").mkdir(parents=True)
    tc = toolchains.describe(tmp_path / "bin" / "hipcc", {"HIP_CLANG_PATH": str(clang.parent), "ROCM_PATH": "/r",
                                                            "DEVICE_LIB_PATH": "/d"})
    assert (tc.clang, tc.rocm_path, tc.device_lib_options) == (str(clang), "/r", ("--hip-device-lib-path=/d",))


def test_device_code_is_found_in_the_unit_or_a_header_it_read(tmp_path: Path) -> None:
    host = tmp_path / "main.cpp"
    host.write_text("#include <stdio.h>\nint main() { return 0; }\n")
    plain, dev = tmp_path / "util.h", tmp_path / "math.h"
    plain.write_text("inline int twice(int x) { return 2 * x; }\n")
    dev.write_text("#define HD __host__ __device__\nHD inline int add(int a, int b) { return a + b; }\n")
    hip = tmp_path / "sys" / "hip"
    hip.mkdir(parents=True)
    (hip / "hip_runtime.h").write_text("__device__ int everyone_has_this();\n")
    runtime = str(hip / "hip_runtime.h")
    assert not holds_device_code(str(host), [str(plain), runtime])  # HIP's own headers do not count
    assert holds_device_code(str(host), [str(plain), str(dev), runtime])
    branch = tmp_path / "branch.h"
    branch.write_text("#if defined(__HIP_DEVICE_COMPILE__)\nint device_only;\n#endif\n")
    assert holds_device_code(str(host), [str(branch)])
    assert holds_device_code(str(host), [str(tmp_path / "gone.h")])  # unreadable: assume it does


@pytest.mark.hipcc
@needs_hipcc
def test_a_unit_without_device_code_is_checked_on_the_host_side_alone(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport.validate import compile as check

    calls: list[str] = []
    real = check._clang

    def counting(site: Site, args: list[str], entry: object, timeout: float) -> tuple[int | None, str]:
        calls.append(next(a for a in args if a.startswith("--cuda-")))
        return real(site, args, entry, timeout)  # type: ignore[arg-type]

    monkeypatch.setattr(check, "_clang", counting)
    base = ["-x", "hip", "--offload-arch=gfx90a", f"-I{tmp_path}"]
    (tmp_path / "util.h").write_text("inline int twice(int x) { return 2 * x; }\n")
    (tmp_path / "dev.h").write_text("__device__ inline int thrice(int x) { return 3 * x; }\n")
    sides = {}
    for name, header in (("host.cpp", "util.h"), ("device.cpp", "dev.h")):
        unit = tmp_path / name
        unit.write_text(f'#include <hip/hip_runtime.h>\n#include "{header}"\nint main() {{ return 0; }}\n')

        class Unit:
            copy = unit

        calls.clear()
        rc, _, deps, _ = check._sides(Site(_amd()), base, None, Unit(), tmp_path / f"{name}.d",  # type: ignore[arg-type]
                                      tmp_path / "objs", 300)
        assert rc == 0 and str(tmp_path / header) in deps
        sides[name] = list(calls)
    assert sides == {"host.cpp": ["--cuda-host-only"], "device.cpp": ["--cuda-host-only", "--cuda-device-only"]}


@pytest.mark.hipcc
@needs_hipcc
def test_a_gpu_build_compiles_and_links_with_hipccs_options(tmp_path: Path) -> None:
    """validate --run's AMD build (runs.build_program) through the toolchain: a kernel source
    and a host source become objects and link against HIP's runtime, as hipcc would link them."""
    from hipport.validate.runs import build_program

    tc = _amd()
    (tmp_path / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* a) { a[0] = 1; }\n"
                                    "int launch(int* a) { hipLaunchKernelGGL(k, 1, 1, 0, 0, a); return 0; }\n")
    (tmp_path / "main.cpp").write_text("int launch(int*);\nint main() { return launch(nullptr) == 7; }\n")
    out = tmp_path / "prog"
    ok, diags, tail = build_program(lambda args: tc.command(["--offload-arch=gfx90a", *args]), None,
                                    [tmp_path / "k.hip", tmp_path / "main.cpp"], ["-x", "hip"], ["-std=c++17"],
                                    out, None, None, "clang gfx90a")
    assert ok, (diags, tail)
    assert out.read_bytes()[:4] == b"\x7fELF"
    needed = subprocess.run(["readelf", "-d", str(out)], capture_output=True, text=True).stdout
    assert "libamdhip64" in needed
