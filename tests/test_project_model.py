"""The project model's include folders (issue 31): a warp constant defined in a header that only
an include folder reaches is seen by lint, port, report and validate when the folder is given
(-I, -p with compile_commands.json, `include-paths`, the tree's CMakeLists.txt) and not
without it, where HP021 names the include that was not found.

The tree is written here: `src/sums.cu` includes "config.h", which lives in `include/` (not
beside or above the source), and defines the group width its shuffle reduction runs over.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import hipport, needs_hipcc

SOURCE = """\
#include "config.h"

__global__ void sums(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = GROUP / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  if (threadIdx.x % GROUP == 0) out[threadIdx.x / GROUP] = v;
}
"""
FIXED = "__shfl_down(v, o, 32)"  # W006's fix: each 32-lane half reduces on its own


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "config.h").write_text("#pragma once\n#define GROUP 32\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "sums.cu").write_text(SOURCE)
    return tmp_path


def compdb(tree: Path, *flags: str) -> Path:
    (tree / "build").mkdir(exist_ok=True)
    src = tree / "src" / "sums.cu"
    entry = {"directory": str(tree / "build"), "file": str(src), "arguments": ["nvcc", *flags, "-c", str(src)]}
    (tree / "build" / "compile_commands.json").write_text(json.dumps([entry]))
    return tree / "build"


def rules_of_lint(tree: Path, *args: str) -> list[str]:
    r = hipport("lint", "src/sums.cu", "--format", "json", "--no-cache", "--fail-on", "never", *args, cwd=tree)
    assert r.returncode == 0, r.stderr.decode()
    return sorted({f["rule"] for f in json.loads(r.stdout)["findings"]})


def test_lint_sees_the_header_only_through_the_include_folder(tree: Path) -> None:
    assert rules_of_lint(tree) == ["HP021"]  # the include not found is said, nothing else
    assert rules_of_lint(tree, "-I", "include") == ["W004", "W005", "W006"]


def test_lint_takes_the_folder_from_compile_commands(tree: Path) -> None:
    db = compdb(tree, f"-I{tree / 'include'}")
    assert rules_of_lint(tree, "-p", str(db)) == ["W004", "W005", "W006"]
    db = compdb(tree)  # the same database without the folder
    assert rules_of_lint(tree, "-p", str(db)) == ["HP021"]


def test_a_compile_commands_folder_outside_the_tree_is_left_out_with_a_note(tree: Path, tmp_path_factory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "config.h").write_text("#define GROUP 32\n")
    db = compdb(tree, f"-I{elsewhere}", "-I@rsp")
    r = hipport("lint", "src/sums.cu", "-p", str(db), "--no-cache", "--fail-on", "never", cwd=tree)
    err = r.stderr.decode()
    assert "compile_commands.json:1: note: include folder" in err and "outside the tree" in err, err
    assert "W006" not in r.stdout.decode()


def test_configuration_and_build_files_give_folders_too(tree: Path) -> None:
    (tree / ".hipport.toml").write_text('include-paths = ["include"]\n')
    assert rules_of_lint(tree) == ["W004", "W005", "W006"]
    (tree / ".hipport.toml").unlink()
    (tree / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(p CUDA)\n"
                                         "include_directories(${CMAKE_CURRENT_SOURCE_DIR}/include)\n"
                                         "add_executable(sums src/sums.cu)\n")
    assert rules_of_lint(tree) == ["W004", "W005", "W006"]


def test_a_quoted_include_takes_the_trees_only_header_of_that_name(tree: Path) -> None:
    r = hipport("lint", ".", "--format", "json", "--no-cache", "--fail-on", "never", cwd=tree)
    found = {(f["path"], f["rule"]) for f in json.loads(r.stdout)["findings"]}
    assert ("src/sums.cu", "W006") in found
    (tree / "src" / "other").mkdir()
    (tree / "src" / "other" / "config.h").write_text("#define GROUP 16\n")  # two: neither is taken
    r = hipport("lint", ".", "--format", "json", "--no-cache", "--fail-on", "never", cwd=tree)
    found = {(f["path"], f["rule"]) for f in json.loads(r.stdout)["findings"]}
    assert ("src/sums.cu", "W006") not in found and ("src/sums.cu", "HP021") in found


def test_bad_folders_and_defines_are_errors_naming_where(tree: Path) -> None:
    r = hipport("lint", "src/sums.cu", "-I", "nowhere", cwd=tree)
    assert r.returncode == 2 and "--include-dir: no such folder: nowhere" in r.stderr.decode()
    (tree / ".hipport.toml").write_text('\ninclude-paths = ["nowhere"]\n')
    r = hipport("lint", "src/sums.cu", cwd=tree)
    assert r.returncode == 2 and ".hipport.toml:2: include-paths: no such folder" in r.stderr.decode()
    r = hipport("lint", "src/sums.cu", "-D", "1X", cwd=tree.parent)
    assert r.returncode == 2 and "--define: '1X' is not NAME or NAME=VALUE" in r.stderr.decode()


@pytest.mark.parametrize("how", ["-I", "-p"])
def test_port_applies_the_fix_only_with_the_folder(tree: Path, how: str) -> None:
    given = ["-I", "include"] if how == "-I" else ["-p", str(compdb(tree, "-I../include"))]
    with_it = hipport("port", "src/sums.cu", "-o", "-", "-q", "--no-cache", *given, cwd=tree)
    without = hipport("port", "src/sums.cu", "-o", "-", "-q", "--no-cache", cwd=tree)
    assert FIXED in with_it.stdout.decode(), with_it.stderr.decode()
    assert FIXED not in without.stdout.decode()


@pytest.mark.parametrize("how", ["-I", "-p"])
def test_report_lists_the_finding_only_with_the_folder(tree: Path, how: str) -> None:
    given = ["-I", "include"] if how == "-I" else ["-p", str(compdb(tree, "-I../include"))]
    for args, expect in ((given, True), ([], False)):
        out = tree / f"report{len(args)}"
        r = hipport("report", "src/sums.cu", "-o", str(out), "--no-cache", *args, cwd=tree)
        assert r.returncode == 0, r.stderr.decode()
        page = next(out.glob("z_*sums_cu.html")).read_text()
        assert ("shuffle reduction" in page) is expect


@needs_hipcc
@pytest.mark.hipcc
@pytest.mark.parametrize("how", ["-I", "-p"])
def test_validate_compiles_the_port_the_folder_gives(tree: Path, how: str) -> None:
    given = ["-I", "include"] if how == "-I" else ["-p", str(compdb(tree, "-I../include"))]
    for args, expect in ((given, True), ([], False)):
        work = tree / f"work{len(args)}"
        r = hipport("validate", "src/sums.cu", "--no-cache", "--work-dir", str(work), "-q", *args,
                    cwd=tree, env={"HIP_PLATFORM": "amd"})
        ported = next((work / "ported").rglob("sums.cu")).read_text()
        assert (FIXED in ported) is expect, r.stderr.decode()


def test_a_configuration_names_folders_inside_its_tree_only(tree: Path, tmp_path_factory) -> None:
    """A tree's configuration is a stranger's: its include-paths may not reach outside the tree
    (not even through a link); -I on the command line may."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "config.h").write_text("#define GROUP 32\n")
    (tree / "out").symlink_to(elsewhere)
    for value in (str(elsewhere), "out", "../" + elsewhere.name):
        (tree / ".hipport.toml").write_text(f'include-paths = ["{value}"]\n')
        r = hipport("lint", "src/sums.cu", cwd=tree)
        assert r.returncode == 2 and "outside the folder of the configuration" in r.stderr.decode(), value
    (tree / ".hipport.toml").unlink()
    assert rules_of_lint(tree, "-I", str(elsewhere)) == ["W004", "W005", "W006"]
