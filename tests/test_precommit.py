"""The pre-commit hooks in .pre-commit-hooks.yaml, run by the real `pre-commit` against a
temporary git repository that uses a snapshot of this checkout as its hook repository.

pre-commit installs the hook repository with pip into its own virtualenv (a plain, non-editable
`pip install .`), so these tests also prove that an installed hipport works. The first run
takes tens of seconds; PRE_COMMIT_HOME is a temporary folder shared by the module.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from identify.identify import tags_from_filename

from tests.conftest import ROOT, hipport

MANIFEST = ROOT / ".pre-commit-hooks.yaml"
FILES_RE = re.compile(r"\.(cu|cuh|c|cc|cpp|cxx|h|hh|hpp|hxx)$")

PORTED_OK = ("#include <hip/hip_runtime.h>\n"
             "__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n")
BAD = ("#include <cuda_runtime.h>\n"
       "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
       "int main() { float* d; cudaMalloc(&d, 4); cudaTotallyMadeUpCall(d); return 0; }\n")
PORTABLE = ("#include <cuda_runtime.h>\n"
            "int main() { float* d; cudaMalloc(&d, 4); cudaFree(d); return 0; }\n")


def _hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text())}


def test_manifest_is_valid_and_says_what_the_issue_asks() -> None:
    p = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    hooks = _hooks()
    assert set(hooks) == {"hipport-lint", "hipport-port-check"}
    assert hooks["hipport-lint"]["entry"].split()[:2] == ["hipport", "lint"]
    assert hooks["hipport-port-check"]["entry"].split()[:3] == ["hipport", "port", "--check"]
    for h in hooks.values():
        assert h["language"] == "python"
        assert set(h["types_or"]) == {"cuda", "c++", "c"}
        assert "--no-cache" in h["entry"].split()  # a hook leaves no cache folder in the tree
        assert h.get("pass_filenames", True)


@pytest.mark.parametrize("name", ["k.cu", "k.cuh", "a.c", "a.cc", "a.cpp", "a.cxx", "a.h", "a.hh",
                                  "a.hpp", "a.hxx", "x.py", "README.md", "CMakeLists.txt", "k.hip"])
def test_types_or_selects_the_cuda_and_cxx_files(name: str) -> None:
    """types_or [cuda, c++, c] picks the same files as `\\.(cu|cuh|c|cc|cpp|cxx|h|hh|hpp|hxx)$`."""
    selected = bool(tags_from_filename(name) & {"cuda", "c++", "c"})
    assert selected == bool(FILES_RE.search(name))


# ---------------------------------------------------------------------------- real pre-commit


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A git repository holding this checkout's tracked files as they are now, one commit."""
    dest = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() or src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel, follow_symlinks=False)
    shutil.copy2(MANIFEST, dest / MANIFEST.name)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot for the pre-commit test")
    return dest, _git(dest, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def pc_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _project(tmp_path: Path, hook_repo: tuple[Path, str], files: dict[str, str]) -> Path:
    repo, sha = hook_repo
    proj = tmp_path / "proj"
    proj.mkdir()
    _git(proj, "init", "-q")
    (proj / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {repo}\n  rev: {sha}\n  hooks:\n  - id: hipport-lint\n"
        f"  - id: hipport-port-check\n")
    for rel, text in files.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    _git(proj, "add", "-A")
    return proj


def _env(pc_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PRE_COMMIT_HOME=str(pc_home), NO_COLOR="1", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.invalid")
    return env


def _pre_commit(proj: Path, pc_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=proj,
                          capture_output=True, text=True, env=_env(pc_home), timeout=900)


def _status(out: str) -> dict[str, str]:
    """'hipport lint.....Passed' lines -> {'hipport lint': 'Passed'}."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^(hipport [^.\n]+?)\.{2,}(\w+)", out, re.M)}


@pytest.mark.slow
def test_hooks_pass_on_a_tree_that_is_hip_already(tmp_path: Path, hook_repo, pc_home) -> None:
    # The pass case for port --check: what `hipport port` writes stays as it is.
    src = tmp_path / "k.cu"
    src.write_text(PORTED_OK.replace("#include <hip/hip_runtime.h>\n", ""))
    ported = hipport("port", src, "-o", "-", "--no-cache")
    assert ported.returncode == 0, ported.stderr.decode()
    proj = _project(tmp_path, hook_repo, {"src/scale.cu": ported.stdout.decode(),
                                          "src/host.hpp": "int add(int a, int b);\n",
                                          "README.md": "cudaTotallyMadeUpCall is only text here\n"})
    p = _pre_commit(proj, pc_home, "run")
    assert p.returncode == 0, p.stdout + p.stderr
    assert _status(p.stdout) == {"hipport lint": "Passed", "hipport port --check": "Passed"}
    assert not (proj / "src" / ".hipport-cache").exists() and not (proj / ".hipport-cache").exists()
    assert _git(proj, "status", "--porcelain", "--untracked-files=all") == \
        "".join(f"A  {f}\n" for f in (".pre-commit-config.yaml", "README.md", "src/host.hpp",
                                      "src/scale.cu"))


@pytest.mark.slow
def test_hooks_fail_on_unported_cuda(tmp_path: Path, hook_repo, pc_home) -> None:
    proj = _project(tmp_path, hook_repo, {"src/bad.cu": BAD, "src/portable.cu": PORTABLE})
    p = _pre_commit(proj, pc_home, "run")
    assert p.returncode == 1
    assert _status(p.stdout) == {"hipport lint": "Failed", "hipport port --check": "Failed"}
    lint_part = p.stdout.split("hipport port --check")[0]
    assert "[HP002] cudaTotallyMadeUpCall" in lint_part
    assert "src/bad.cu: would be changed by hipport port" in p.stdout
    assert "src/portable.cu: would be changed by hipport port" in p.stdout
    assert (proj / "src" / "bad.cu").read_text() == BAD  # the hooks change nothing
    # lint alone passes the file whose every API has a HIP name: there is nothing left to fix by hand.
    (proj / "src" / "bad.cu").unlink()
    _git(proj, "add", "-A")
    p = _pre_commit(proj, pc_home, "run", "hipport-lint")
    assert p.returncode == 0 and _status(p.stdout) == {"hipport lint": "Passed"}, p.stdout


@pytest.mark.slow
def test_installed_hook_blocks_a_commit(tmp_path: Path, hook_repo, pc_home) -> None:
    proj = _project(tmp_path, hook_repo, {"kernels/bad.cuh": BAD})
    assert _pre_commit(proj, pc_home, "install").returncode == 0
    env = _env(pc_home)
    c = subprocess.run(["git", "commit", "-m", "add kernels"], cwd=proj, capture_output=True,
                       text=True, env=env, timeout=900)
    out = c.stdout + c.stderr  # git shows hook output on stderr
    assert c.returncode != 0, out
    assert _status(out)["hipport lint"] == "Failed" and "cudaTotallyMadeUpCall" in out
    assert subprocess.run(["git", "rev-parse", "--verify", "HEAD"], cwd=proj,
                          capture_output=True).returncode != 0  # nothing was committed
    ported = hipport("port", proj / "kernels" / "bad.cuh", "-o", "-", "--no-cache")
    fixed = ported.stdout.decode().replace("cudaTotallyMadeUpCall(d); ", "")
    (proj / "kernels" / "bad.cuh").write_text(fixed)
    _git(proj, "add", "-A")
    c = subprocess.run(["git", "commit", "-m", "add ported kernels"], cwd=proj,
                       capture_output=True, text=True, env=env, timeout=900)
    assert c.returncode == 0, c.stdout + c.stderr


HELPER_H = """#pragma once
#include <cstdio>
#define cudaCheck(err) do { if ((err) != hipSuccess) std::printf("failed\\n"); } while (0)
"""
USES_HELPER = """#include <hip/hip_runtime.h>
#include "common.h"
int main() { void* p; cudaCheck(hipMalloc(&p, 16)); cudaCheck(hipFree(p)); return 0; }
"""


@pytest.mark.slow
def test_a_helper_defined_in_an_included_header_is_not_an_unknown_api(tmp_path: Path, hook_repo,
                                                                      pc_home) -> None:
    proj = _project(tmp_path, hook_repo, {"src/common.h": HELPER_H})
    env = _env(pc_home)
    subprocess.run(["git", "commit", "-qm", "helpers", "--no-verify"], cwd=proj, check=True, env=env)
    (proj / "src" / "main.cu").write_text(USES_HELPER)
    _git(proj, "add", "src/main.cu")  # only this file is staged: the hook sees it alone
    p = _pre_commit(proj, pc_home, "run")
    assert p.returncode == 0, p.stdout + p.stderr
    assert _status(p.stdout) == {"hipport lint": "Passed", "hipport port --check": "Passed"}
