"""The compile check calls hipcc's own clang command where hipcc would pass the arguments
through, and leaves out the device side of a unit without device code; neither changes an
answer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hipport.validate import driver
from hipport.validate.devicecode import holds_device_code
from tests.conftest import needs_hipcc
from tests.validate.switches import outcomes, validate_both_ways

LINE = ('/usr/bin/clang++-15  -std=c++11 -isystem "/usr/lib/clang/include/.." --offload-arch=gfx90a -O3 '
        '-lgcc_s -lm  -x hip -fsyntax-only /tmp/d/probe.hip -lamdhip64 -L/usr/lib -lclang_rt.builtins-x86_64')


def test_the_probe_line_gives_the_options_before_and_after_the_callers() -> None:
    d = driver.parse(LINE, "gfx90a", "/tmp/d/probe.hip")
    assert d is not None
    assert d.before == ("/usr/bin/clang++-15", "-std=c++11", "-isystem", "/usr/lib/clang/include/..",
                        "--offload-arch=gfx90a", "-O3", "-lgcc_s", "-lm")
    assert d.after == ("-lamdhip64", "-L/usr/lib", "-lclang_rt.builtins-x86_64")
    cmd = d.command(["-x", "hip", "--offload-arch=gfx90a", "-I/inc", "-DX=1", "-std=c++17", "--cuda-host-only",
                     "-include-pch", "/o/p.pch", "-fsyntax-only", "-MD", "-MF", "/o/u.d", "/src/u.cu"])
    assert cmd == [*d.before, "-x", "hip", "-I/inc", "-DX=1", "-std=c++17", "--cuda-host-only",
                   "-include-pch", "/o/p.pch", "-fsyntax-only", "-MD", "-MF", "/o/u.d", "/src/u.cu", *d.after]


@pytest.mark.parametrize("args", [
    ["-x", "hip", "--offload-arch=gfx90a", "-c", "/src/u.cu", "-o", "/o/u.o"],  # hipcc drops its link options
    ["-x", "hip", "--offload-arch=gfx90a", "-O0", "-fsyntax-only", "/src/u.cu"],  # hipcc's -O3 default
    ["-x", "hip", "--offload-arch=gfx942", "-fsyntax-only", "/src/u.cu"],  # another arch than the probe
    ["-x", "hip", "--offload-arch=gfx90a", "-M", "-MG", "/src/u.cu"],  # hipcc adds --cuda-host-only
    ["-x", "hip", "--offload-arch=gfx90a", "--cuda-device-only", "-M", "/src/u.cu"],
    ["-x", "hip", "--offload-arch=gfx90a", "-fgpu-rdc", "-fsyntax-only", "/src/u.cu"],
    ["-x", "hip", "--offload-arch=gfx90a", "-include", "lib.a", "-fsyntax-only", "/src/u.cu"],  # hipcc unpacks
    ["-x", "hip", "--offload-arch=gfx90a", "-fsyntax-only", "@response"],
])
def test_a_call_hipcc_would_treat_otherwise_goes_through_hipcc(args: list[str]) -> None:
    d = driver.parse(LINE, "gfx90a", "/tmp/d/probe.hip")
    assert d is not None and d.command(args) is None


@pytest.mark.parametrize("line", [
    "/usr/bin/clang++ -x hip -fsyntax-only /tmp/d/probe.hip",  # no arch of its own: not understood
    '/usr/bin/clang++ --offload-arch=gfx90a -x hip -fsyntax-only "/tmp/d/probe.hip',  # unbalanced quote
    "/usr/bin/clang++ --offload-arch=gfx90a -x hip -c /tmp/d/probe.hip",
])
def test_a_line_of_another_shape_is_not_used(line: str) -> None:
    assert driver.parse(line, "gfx90a", "/tmp/d/probe.hip") is None


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
def test_the_learned_command_is_the_one_hipcc_runs(tmp_path: Path) -> None:
    hipcc = shutil.which("hipcc")
    assert hipcc is not None
    d = driver.direct(hipcc, "gfx90a")
    if d is None:
        pytest.skip("this hipcc does not print its command (HIPCC_VERBOSE)")
    assert d.before[0] != hipcc and "--offload-arch=gfx90a" in d.before


UNITS = {
    # host code only: the host side alone checks it, and finds its error
    "main.cpp": b'#include <cuda_runtime.h>\n#include "util.h"\n'
                b"int main() { void* p; cudaMalloc(&p, 4); return twice(undeclared_here); }\n",
    "util.h": b"inline int twice(int x) { return 2 * x; }\n",
    # host code including a tree header with code for the device side only: only the device
    # side reports its error
    "uses.cpp": b'#include <cuda_runtime.h>\n#include "dev.h"\nint main() { return cudaFree(0); }\n',
    "dev.h": b"#if defined(__HIP_DEVICE_COMPILE__)\n__device__ int on_gpu = device_only_undeclared;\n#endif\n",
    "fine.cpp": b'#include <cuda_runtime.h>\n#include "util.h"\nint main() { return cudaFree(0) + twice(0); }\n',
}


@pytest.mark.hipcc
@needs_hipcc
def test_answers_are_the_same_through_hipcc_and_directly(tmp_path: Path) -> None:
    direct, plain = validate_both_ways(tmp_path, UNITS, "HIPPORT_VALIDATE_DIRECT")
    assert outcomes(plain) == \
        {"main.cpp": "fail", "uses.cpp": "fail", "fine.cpp": "pass"}
    errors = {Path(u["file"]).name: [e["message"] for e in u["archs"]["gfx90a"]["errors"]]
              for u in direct["details"]["compile"]}
    assert any("undeclared_here" in m for m in errors["main.cpp"])
    assert any("device_only_undeclared" in m for m in errors["uses.cpp"]), errors["uses.cpp"]


@pytest.mark.hipcc
@needs_hipcc
def test_a_unit_without_device_code_is_checked_on_the_host_side_alone(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport.validate import compile as check

    calls: list[str] = []
    real = check._hipcc

    def counting(cmd: list[str], entry: object, timeout: float) -> tuple[int | None, str]:
        calls.append(next(a for a in cmd if a.startswith("--cuda-")))
        return real(cmd, entry, timeout)  # type: ignore[arg-type]

    monkeypatch.setattr(check, "_hipcc", counting)
    hipcc = shutil.which("hipcc")
    assert hipcc is not None
    base = [hipcc, "-x", "hip", "--offload-arch=gfx90a", f"-I{tmp_path}"]
    (tmp_path / "util.h").write_text("inline int twice(int x) { return 2 * x; }\n")
    (tmp_path / "dev.h").write_text("__device__ inline int thrice(int x) { return 3 * x; }\n")
    sides = {}
    for name, header in (("host.cpp", "util.h"), ("device.cpp", "dev.h")):
        unit = tmp_path / name
        unit.write_text(f'#include <hip/hip_runtime.h>\n#include "{header}"\nint main() {{ return 0; }}\n')

        class Unit:
            copy = unit

        calls.clear()
        rc, _, deps, _ = check._sides(base, None, Unit(), tmp_path / f"{name}.d", tmp_path / "objs", 300)  # type: ignore[arg-type]
        assert rc == 0 and str(tmp_path / header) in deps
        sides[name] = list(calls)
    assert sides == {"host.cpp": ["--cuda-host-only"], "device.cpp": ["--cuda-host-only", "--cuda-device-only"]}
