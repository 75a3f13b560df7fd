"""Build-file rewrites with their expected output: CMake and Make, edits by span, a second
port changes nothing, anything not understood is left byte for byte with a finding."""

from __future__ import annotations

from hipport.config import Config
from hipport.model import FileStatus
from hipport.passes import port_bytes


def port(name: str, text: str, **cfg: object) -> tuple[str, list[tuple[str, int]]]:
    r = port_bytes(name, "build", text.encode(), Config(**cfg))  # type: ignore[arg-type]
    assert r.status in (FileStatus.PORTED, FileStatus.UNCHANGED), r.error
    out = (r.ported or text.encode()).decode()
    again = port_bytes(name, "build", out.encode(), Config(**cfg))  # type: ignore[arg-type]
    assert again.ported is None, f"a second port changed it:\n{again.ported!r}"
    return out, [(f.rule, f.span.line) for f in r.findings]


CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(demo LANGUAGES CXX CUDA)
find_package(CUDAToolkit 11.0 REQUIRED)
set(CMAKE_CUDA_ARCHITECTURES 70 80)
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -lineinfo --use_fast_math -Xcompiler -Wall")
add_executable(demo main.cu util.cpp)
target_compile_options(demo PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda>)
target_compile_features(demo PRIVATE cuda_std_17)
target_link_libraries(demo PRIVATE CUDA::cudart CUDA::curand)
set_target_properties(demo PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
"""

CMAKE_PORTED = """\
cmake_minimum_required(VERSION 3.20)
# hipport: hipcc compiles the CUDA sources as HIP, as the C++ compiler (hipport explain HP015)
if(NOT DEFINED CMAKE_CXX_COMPILER)
  set(CMAKE_CXX_COMPILER hipcc)
endif()
string(APPEND CMAKE_CXX_FLAGS_INIT " --offload-arch=gfx90a")
project(demo LANGUAGES CXX)
find_package(hip REQUIRED)
set(CMAKE_HIP_ARCHITECTURES gfx90a)
set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -gline-tables-only -ffast-math -Wall")
add_executable(demo main.cu util.cpp)
set_source_files_properties(main.cu PROPERTIES LANGUAGE CXX COMPILE_OPTIONS -xhip)
target_compile_options(demo PRIVATE)
target_compile_features(demo PRIVATE cxx_std_17)
find_package(hiprand REQUIRED)
target_link_libraries(demo PRIVATE hip::host hip::hiprand)
target_compile_options(demo PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fgpu-rdc>)
target_link_options(demo PUBLIC -fgpu-rdc)
"""


def test_cmake_project_becomes_hip_through_hipcc() -> None:
    out, found = port("CMakeLists.txt", CMAKE)
    assert out == CMAKE_PORTED
    assert ("HP015", 2) in found and ("HP012", 7) in found  # the choice; --extended-lambda dropped


def test_cmake_arch_comes_from_offload_arch() -> None:
    out, _ = port("CMakeLists.txt", CMAKE, offload_arch=("gfx90a", "gfx942"))
    assert 'string(APPEND CMAKE_CXX_FLAGS_INIT " --offload-arch=gfx90a --offload-arch=gfx942")' in out
    assert "set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942)" in out


def test_cmake_sources_in_a_variable_are_found_from_the_target() -> None:
    src = "project(p CUDA)\nfile(GLOB SRCS *.cu)\nadd_library(k STATIC ${SRCS})\n"
    out, _ = port("CMakeLists.txt", src)
    assert "project(p CXX)" in out
    assert ("add_library(k STATIC ${SRCS})\nget_target_property(_hipport_sources k SOURCES)\n"
            'list(FILTER _hipport_sources INCLUDE REGEX "\\\\.cu$")\n') in out


def test_cmake_what_is_not_understood_stays_and_is_reported() -> None:
    src = "list(APPEND CUDA_NVCC_FLAGS -O3)\nset(X ${CUDA_HOME}/include)\n"
    out, found = port("util.cmake", src)
    assert out == src
    assert found == [("HP013", 1), ("HP013", 2)]


def test_cmake_library_debian_lacks_is_said() -> None:
    out, found = port("CMakeLists.txt", "target_link_libraries(app CUDA::cublas CUDA::nppc)\n")
    assert out == "find_package(hipblas REQUIRED)\ntarget_link_libraries(app roc::hipblas CUDA::nppc)\n"
    assert found == [("HP014", 1), ("HP014", 1)]  # not in Debian 12; no counterpart


def test_cmake_that_does_not_parse_is_left_alone() -> None:
    src = 'project(p CUDA)\nset(X "unterminated\n'
    out, found = port("CMakeLists.txt", src)
    assert out == src and found[0][0] == "HP013"


def test_cmake_crlf_and_suppression() -> None:
    src = "project(p LANGUAGES CXX CUDA)\r\nset(CMAKE_CUDA_FLAGS -G) # hipport: ignore[HP012]\r\n"
    out, found = port("CMakeLists.txt", src)
    assert "\r\nif(NOT DEFINED CMAKE_CXX_COMPILER)\r\n" in out and "\n" not in out.replace("\r\n", "")
    assert "set(CMAKE_CXX_FLAGS -g)" in out and ("HP012", 2) not in found


MAKE = """\
include config.mk
NVCC = $(CUDA_DIR)/bin/nvcc
NVCC_FLAGS = -I$(CUDA_DIR)/include -O2 -arch=sm_70 -Xptxas -v
CC = gcc
app: main.o kernel.o
\t$(CC) main.o kernel.o -o app -L$(CUDA_DIR)/lib64 -lcuda -lcudart -lm
kernel.o: kernel.cu
\t$(NVCC) $(NVCC_FLAGS) -c kernel.cu --use_fast_math -Xcompiler -fPIC
main.o: main.c
\t$(CC) -c main.c # a comment with nvcc in it
"""

MAKE_PORTED = """\
include config.mk
NVCC = hipcc --offload-arch=gfx90a
NVCC_FLAGS = -O2
CC = gcc -D__HIP_PLATFORM_AMD__
app: main.o kernel.o
\t$(CC) main.o kernel.o -o app -lamdhip64 -lm
kernel.o: kernel.cu
\t$(NVCC) $(NVCC_FLAGS) -c kernel.cu -ffast-math -fPIC
main.o: main.c
\t$(CC) -c main.c # a comment with nvcc in it
"""


def test_makefile_nvcc_becomes_hipcc() -> None:
    out, found = port("Makefile", MAKE)
    assert out == MAKE_PORTED
    rules = {r for r, _ in found}
    assert {"HP015", "HP012"} <= rules


def test_make_config_include_and_literal_nvcc_lines() -> None:
    src = ("CUDA_LIB := -lcudart -lcurand\nall:\n\tnvcc -gencode arch=compute_70,code=sm_70 "
           "-rdc=true x.cu -o x $(CUDA_LIB) -L$(CUDA_LIB_DIR)\n")
    out, _ = port("make.config", src)
    assert out == ("CUDA_LIB := -lamdhip64 -lhiprand\nall:\n"
                   "\thipcc --offload-arch=gfx90a -fgpu-rdc x.cu -o x $(CUDA_LIB)\n")


def test_make_include_outside_the_tree_is_reported() -> None:
    src = "include ~/elsewhere/make.config\nall:\n\tnvcc x.cu\n"
    out, found = port("Makefile", src)
    assert out.startswith("include ~/elsewhere/make.config\n") and ("HP013", 1) in found


def test_an_include_folder_of_the_cuda_install_besides_its_headers_is_said() -> None:
    """Rodinia's cfd takes helper_cuda.h from the CUDA samples in the CUDA install: the -I is
    dropped like any CUDA path, and a warning says those headers must come into the tree."""
    src = ("SDK_PATH = /usr/local/cuda/samples\nall:\n\tnvcc x.cu -I$(SDK_PATH)/common/inc "
           "-I/usr/local/cuda/include -I$(CUDA_DIR)/include/crt -L$(SDK_PATH)/lib\n")
    out, found = port("Makefile", src)
    assert out == "SDK_PATH = /usr/local/cuda/samples\nall:\n\thipcc --offload-arch=gfx90a x.cu\n"
    assert found.count(("HP013", 3)) == 1  # the samples' folder only: not include/, not -L
