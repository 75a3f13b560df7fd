"""Small CMake and Make projects, written here, ported with `hipport port` and built for real
with Debian's cmake, make and hipcc, as on a machine without nvcc."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import HIPCC, hipport

pytestmark = [pytest.mark.hipcc, pytest.mark.skipif(
    HIPCC is None or shutil.which("cmake") is None or shutil.which("make") is None,
    reason="needs hipcc, cmake and make (apt-get install hipcc cmake make)")]


def env() -> dict[str, str]:
    """No nvcc on PATH and HIP_PLATFORM=amd: what hipcc picks where no nvcc is installed."""
    e = dict(os.environ)
    e["PATH"] = os.pathsep.join(d for d in e["PATH"].split(os.pathsep) if d and not (Path(d) / "nvcc").exists())
    e["HIP_PLATFORM"] = "amd"
    for k in ("CUDACXX", "MAKEFLAGS", "CXX", "CC"):
        e.pop(k, None)
    return e


def sh(*cmd: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env(), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, f"{cmd}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def links_hip(exe: Path) -> bool:
    return "libamdhip64" in subprocess.run(["readelf", "-d", str(exe)], capture_output=True,
                                           text=True).stdout


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


KERNEL = """\
#include <cuda_runtime.h>
#include <cstdio>
extern __device__ int twice(int x);   // defined in twice.cu: needs relocatable device code
extern "C" int host_value(void);
__global__ void k(int* out) { out[threadIdx.x] = twice(threadIdx.x); }
int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) { printf("no device\\n"); return 0; }
  k<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  printf("%d\\n", host_value());
  cudaFree(d);
  return 0;
}
"""


def test_cmake_project_builds_with_hipcc(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {
        "CMakeLists.txt": """\
cmake_minimum_required(VERSION 3.20)
project(demo LANGUAGES C CXX CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_ARCHITECTURES 70 80)
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -lineinfo --extended-lambda -Xcompiler -Wall")
add_executable(demo main.cu twice.cu value.c)
target_compile_features(demo PRIVATE cxx_std_17 cuda_std_17)
target_link_libraries(demo PRIVATE CUDA::cudart CUDA::curand)
set_target_properties(demo PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
""",
        "main.cu": KERNEL,
        "twice.cu": "__device__ int twice(int x) { return 2 * x; }\n",
        "value.c": "int host_value(void) { return 42; }\n",
    })
    r = hipport("port", src, "-o", out, "--no-cache")
    assert r.returncode == 0, r.stderr
    text = (out / "CMakeLists.txt").read_text()
    assert "set(CMAKE_CXX_COMPILER hipcc)" in text and "hip::hiprand" in text
    sh("cmake", "-S", out, "-B", tmp_path / "b")
    sh("cmake", "--build", tmp_path / "b")
    assert links_hip(tmp_path / "b" / "demo")
    again = hipport("port", out, "--check", "--no-cache")  # a second port changes nothing
    assert again.returncode == 0, again.stdout.decode() + again.stderr.decode()


def test_makefile_project_builds_with_hipcc(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {
        "common/config.mk": "CUDA_DIR = /usr/local/cuda\nCUDA_LIB_DIR := $(CUDA_DIR)/lib64\n",
        "app/Makefile": """\
include ../common/config.mk
NVCC = $(CUDA_DIR)/bin/nvcc
NVCC_FLAGS = -I$(CUDA_DIR)/include -O2 -arch=sm_70 -Xptxas -v -rdc=true
CC = gcc

demo: main.o twice.o value.o
\t$(NVCC) -arch=sm_70 -rdc=true main.o twice.o value.o -o demo -L$(CUDA_LIB_DIR) -lcudart

%.o: %.cu
\t$(NVCC) $(NVCC_FLAGS) -Xcompiler -fPIC -c $< -o $@

value.o: value.c
\t$(CC) -O2 -c value.c -o value.o
""",
        "app/main.cu": KERNEL,
        "app/twice.cu": "__device__ int twice(int x) { return 2 * x; }\n",
        "app/value.c": "int host_value(void) { return 42; }\n",
    })
    r = hipport("port", src, "-o", out, "--no-cache")
    assert r.returncode == 0, r.stderr
    assert "NVCC = hipcc --offload-arch=gfx90a" in (out / "app" / "Makefile").read_text()
    sh("make", "-C", out / "app")
    assert links_hip(out / "app" / "demo")
    again = hipport("port", out, "--check", "--no-cache")
    assert again.returncode == 0, again.stdout.decode() + again.stderr.decode()


def test_no_build_files_copies_them(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {"Makefile": "all:\n\tnvcc -arch=sm_70 k.cu\n", "k.cu": "__global__ void k() {}\n"})
    r = hipport("port", src, "-o", out, "--no-cache", "--no-build-files")
    assert r.returncode == 0 and (out / "Makefile").read_bytes() == (src / "Makefile").read_bytes()
    lint = hipport("lint", src, "--no-cache", "--fail-on", "never", "--show-fixed")
    assert b"HP015" in lint.stdout  # lint shows the build findings (notes: with --show-fixed)


def test_an_include_of_the_authors_checkout_becomes_the_trees_own(tmp_path: Path) -> None:
    """Rodinia's hotspot3D includes `~/rodinia_3.0/common/make.config`: the port includes the
    tree's own common/make.config instead, says so, and the benchmark builds."""
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {
        "common/make.config": "CUDA_DIR = /usr/local/cuda\nCUDA_LIB_DIR := $(CUDA_DIR)/lib64\n",
        "bench/app/Makefile": "include ~/nowhere_9f3/common/make.config\n\nCC := $(CUDA_DIR)/bin/nvcc\n\n"
                              "app: main.cu\n\t$(CC) -G main.cu -o app -L$(CUDA_LIB_DIR)\n",
        "bench/app/main.cu": "#include <cstdio>\n#include <cuda_runtime.h>\n__global__ void k(int* p) { *p = 7; }\n"
                             "int main() { int* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }\n",
    })
    r = hipport("port", src, "-o", out, "--no-cache")
    assert r.returncode == 0, r.stderr
    assert b"the tree's own ../../common/make.config is included instead" in r.stderr + r.stdout
    text = (out / "bench" / "app" / "Makefile").read_text()
    assert text.startswith("include ../../common/make.config\n")
    sh("make", "-C", out / "bench" / "app")
    assert links_hip(out / "bench" / "app" / "app")
    lone = tmp_path / "lone"  # no copy in the tree: left as it is, with the old advice
    write(lone, {"Makefile": "include ~/nowhere_9f3/common/make.config\nall:\n\tnvcc k.cu\n",
                 "k.cu": "__global__ void k() {}\n"})
    lint = hipport("lint", lone, "--no-cache", "--fail-on", "never")
    assert b"a path outside the tree: left as it is" in lint.stdout


def test_host_objects_from_makes_builtin_rules_get_the_platform_macro(tmp_path: Path) -> None:
    """Rodinia's huffman builds stats_logger.o by make's built-in C++ rule (g++), from a source
    that includes the runtime header: the port gives those rules HIP's platform macro."""
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {
        "Makefile": "NVCC = nvcc\nOBJ = main.o count.o\n\napp: $(OBJ)\n\t$(NVCC) $(OBJ) -o app\n\n"
                    "main.o: main.cu\n\t$(NVCC) -arch=sm_70 -c main.cu\n",
        "main.cu": "#include <cstdio>\nint devices();\n__global__ void k(int* p) { *p = 1; }\n"
                   "int main() { printf(\"%d\\n\", devices()); return 0; }\n",
        "count.cpp": "#include <cuda_runtime.h>\nint devices() { int n = 0; cudaGetDeviceCount(&n); return n; }\n",
    })
    r = hipport("port", src, "-o", out, "--no-cache", "--show-fixed")  # its note is a note
    assert r.returncode == 0, r.stderr
    text = (out / "Makefile").read_text()
    assert text.endswith("CPPFLAGS += -D__HIP_PLATFORM_AMD__\n")
    assert b"count.o is built by make's built-in rule from count.cpp" in r.stderr + r.stdout
    sh("make", "-C", out)
    assert links_hip(out / "app")
    again = hipport("port", out, "--check", "--no-cache")  # the line is there: nothing to add
    assert again.returncode == 0, again.stdout.decode() + again.stderr.decode()


def test_nvcc_known_only_from_the_included_config_builds(tmp_path: Path) -> None:
    """The compiler is a variable that only common/make.config defines: the port learns it is
    nvcc from there, so the Makefile's own nvcc options (which hipcc rejects) are ported."""
    src, out = tmp_path / "src", tmp_path / "out"
    write(src, {
        "common/make.config": "TOOLKIT = /usr/local/cuda\nGPUCC = $(TOOLKIT)/bin/nvcc\n",
        "bench/app/Makefile": "include ../../common/make.config\n\n"
                              "app: main.cu\n\t$(GPUCC) --use_fast_math -Xcompiler -Wall main.cu -o app "
                              "-L$(TOOLKIT)/lib64 -lcudart\n",
        "bench/app/main.cu": "#include <cuda_runtime.h>\n__global__ void k(int* p) { *p = 7; }\n"
                             "int main() { int* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }\n",
    })
    r = hipport("port", src, "-o", out, "--no-cache")
    assert r.returncode == 0, r.stderr
    assert (out / "bench" / "app" / "Makefile").read_text().endswith(
        "\t$(GPUCC) -ffast-math -Wall main.cu -o app -lamdhip64\n")
    sh("make", "-C", out / "bench" / "app")
    assert links_hip(out / "bench" / "app" / "app")
    again = hipport("port", out, "--check", "--no-cache")
    assert again.returncode == 0, again.stdout.decode() + again.stderr.decode()
