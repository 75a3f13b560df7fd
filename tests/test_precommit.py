"""The pre-commit hooks in .pre-commit-hooks.yaml, run by the real `pre-commit` against a
temporary git repository whose hook repository is a git clone (with no tags, as this repository
has none) of a snapshot of this checkout, configured with README.md's own block.

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
# An error no port fixes (W012: inline PTX does not compile for AMD GPUs).
PTX = ('  asm volatile("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v));\n')
BAD = ("#include <cuda_runtime.h>\n"
       "__global__ void k(int* x) {\n  int v = x[threadIdx.x], r = v;\n" + PTX +
       "  x[threadIdx.x] = r;\n}\n"
       "int main() { float* d; cudaMalloc(&d, 4); cudaTotallyMadeUpCall(d); return 0; }\n")
FIXED = BAD.replace(PTX, "").replace("cudaTotallyMadeUpCall(d); ", "")
PORTABLE = ("#include <cuda_runtime.h>\n"
            "int main() { float* d; cudaMalloc(&d, 4); cudaFree(d); return 0; }\n")


def _hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text())}


def _readme_config(repo: str, rev: str) -> str:
    """README.md's `.pre-commit-config.yaml` block for a hook repository, with its placeholders
    filled: the test runs what a user copies."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    [block] = [b for b in blocks if "rev: <commit>" in b and "hipport-lint" in b]
    text = block.replace("<this repository>", repo).replace("<commit>", rev)
    config = yaml.safe_load(text)
    assert [h["id"] for h in config["repos"][0]["hooks"]] == ["hipport-lint", "hipport-port-check"]
    return text


def test_manifest_is_valid_and_says_what_the_issue_asks() -> None:
    p = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    hooks = _hooks()
    assert set(hooks) == {"hipport-lint", "hipport-port-check"}
    lint = hooks["hipport-lint"]["entry"].split()
    assert lint[:2] == ["hipport", "lint"]
    # errors only, on the lines the commit changes
    assert lint[lint.index("--diff-base") + 1] == "HEAD" and lint[lint.index("--fail-on") + 1] == "error"
    assert hooks["hipport-port-check"]["entry"].split()[:3] == ["hipport", "port", "--check"]
    # a CUDA tree fails port --check on every file: it runs only when asked
    assert hooks["hipport-port-check"]["stages"] == ["manual"]
    assert "stages" not in hooks["hipport-lint"]
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
    """A git clone, with no tags, of a repository holding this checkout's tracked files as they
    are now in one commit."""
    dest = tmp_path_factory.mktemp("hook-snapshot")
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
    clone = tmp_path_factory.mktemp("hook-clone") / "hipport"
    _git(dest.parent, "clone", "-q", "--no-local", str(dest), str(clone))
    assert _git(clone, "tag", "--list") == ""  # as a clone of this repository: no v0.1.0
    return clone, _git(clone, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def pc_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _project(tmp_path: Path, hook_repo: tuple[Path, str], files: dict[str, str]) -> Path:
    repo, sha = hook_repo
    proj = tmp_path / "proj"
    proj.mkdir()
    _git(proj, "init", "-q")
    (proj / ".pre-commit-config.yaml").write_text(_readme_config(str(repo), sha))
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
    assert _status(p.stdout) == {"hipport lint": "Passed"}  # port --check waits for the manual stage
    p = _pre_commit(proj, pc_home, "run", "--hook-stage", "manual")
    assert p.returncode == 0, p.stdout + p.stderr
    assert _status(p.stdout) == {"hipport lint": "Passed", "hipport port --check": "Passed"}
    assert not (proj / "src" / ".hipport-cache").exists() and not (proj / ".hipport-cache").exists()
    assert _git(proj, "status", "--porcelain", "--untracked-files=all") == \
        "".join(f"A  {f}\n" for f in (".pre-commit-config.yaml", "README.md", "src/host.hpp",
                                      "src/scale.cu"))


@pytest.mark.slow
def test_hooks_fail_on_unported_cuda(tmp_path: Path, hook_repo, pc_home) -> None:
    proj = _project(tmp_path, hook_repo, {"src/bad.cu": BAD, "src/portable.cu": PORTABLE})
    p = _pre_commit(proj, pc_home, "run", "--hook-stage", "manual")
    assert p.returncode == 1
    assert _status(p.stdout) == {"hipport lint": "Failed", "hipport port --check": "Failed"}
    lint_part = p.stdout.split("hipport port --check")[0]
    assert "src/bad.cu:4:3: error: [W012]" in lint_part
    assert "[HP002] cudaTotallyMadeUpCall" in lint_part
    assert "src/bad.cu: would be changed by hipport port" in p.stdout
    assert "src/portable.cu: would be changed by hipport port" in p.stdout
    assert (proj / "src" / "bad.cu").read_text() == BAD  # the hooks change nothing
    # lint passes a CUDA file with no error: CUDA code is what the hook is for.
    (proj / "src" / "bad.cu").write_text(FIXED)
    _git(proj, "add", "-A")
    p = _pre_commit(proj, pc_home, "run")
    assert p.returncode == 0 and _status(p.stdout) == {"hipport lint": "Passed"}, p.stdout


def _commit(proj: Path, pc_home: Path, msg: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "commit", "-m", msg], cwd=proj, capture_output=True, text=True,
                          env=_env(pc_home), timeout=900)


@pytest.mark.slow
def test_installed_hook_blocks_a_commit(tmp_path: Path, hook_repo, pc_home) -> None:
    proj = _project(tmp_path, hook_repo, {"kernels/bad.cuh": BAD})
    assert _pre_commit(proj, pc_home, "install").returncode == 0
    c = _commit(proj, pc_home, "add kernels")  # the first commit: every line is new
    out = c.stdout + c.stderr  # git shows hook output on stderr
    assert c.returncode != 0, out
    assert _status(out)["hipport lint"] == "Failed" and "[W012]" in out
    assert subprocess.run(["git", "rev-parse", "--verify", "HEAD"], cwd=proj,
                          capture_output=True).returncode != 0  # nothing was committed
    (proj / "kernels" / "bad.cuh").write_text(FIXED)
    _git(proj, "add", "-A")
    c = _commit(proj, pc_home, "add kernels without PTX")
    assert c.returncode == 0, c.stdout + c.stderr


LEGACY = ("#include <cuda_runtime.h>\n"
          "__global__ void old(int* x) {\n  int v = x[threadIdx.x], r = v;\n" + PTX +
          "  x[threadIdx.x] = r;\n}\n")


@pytest.mark.slow
def test_a_commit_fails_only_on_errors_it_adds(tmp_path: Path, hook_repo, pc_home) -> None:
    """A CUDA tree with an old error: a commit touching the file passes while it adds no error
    and is blocked when a line it adds is one."""
    proj = _project(tmp_path, hook_repo, {"src/k.cu": LEGACY})
    env = _env(pc_home)
    subprocess.run(["git", "commit", "-qm", "legacy", "--no-verify"], cwd=proj, check=True, env=env)
    assert _pre_commit(proj, pc_home, "install").returncode == 0
    added = ("__global__ void scale(float* x, float a) {\n  x[threadIdx.x] *= a;\n}\n"
             "void launch(float* x) { scale<<<1, 64>>>(x, 2.0f); cudaDeviceSynchronize(); }\n")
    (proj / "src" / "k.cu").write_text(LEGACY + added)
    _git(proj, "add", "-A")
    c = _commit(proj, pc_home, "a kernel with no new error")
    assert c.returncode == 0, c.stdout + c.stderr
    assert _status(c.stdout + c.stderr) == {"hipport lint": "Passed"}
    # A partly staged change: only what is staged is the commit.
    (proj / "src" / "k.cu").write_text(LEGACY + added + "// a note\n")
    _git(proj, "add", "-A")
    (proj / "src" / "k.cu").write_text(LEGACY + added + "// a note\n" + LEGACY.replace("old", "older"))
    c = _commit(proj, pc_home, "a note; the unstaged kernel is not part of it")
    assert c.returncode == 0, c.stdout + c.stderr
    _git(proj, "add", "-A")
    c = _commit(proj, pc_home, "a kernel with a new error")
    out = c.stdout + c.stderr
    assert c.returncode != 0, out
    assert _status(out) == {"hipport lint": "Failed"}
    assert out.count("error: [W012]") == 1 and "src/k.cu:15:3: error: [W012]" in out, out
    assert _git(proj, "log", "--format=%s", "-1").strip() == \
        "a note; the unstaged kernel is not part of it"


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
    p = _pre_commit(proj, pc_home, "run", "--hook-stage", "manual")
    assert p.returncode == 0, p.stdout + p.stderr
    assert _status(p.stdout) == {"hipport lint": "Passed", "hipport port --check": "Passed"}
