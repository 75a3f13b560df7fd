"""Every option and config value is checked at start: one line, exit 2, naming the value,
what is accepted and, for config, the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import hipport
from tests.trust.conftest import cuda_tree


def _one_error(p: object) -> str:
    err = p.stderr.decode()  # type: ignore[attr-defined]
    assert p.returncode == 2, err  # type: ignore[attr-defined]
    assert err.count("\n") == 1 and err.startswith("hipport: error: ") and "Traceback" not in err
    return err


@pytest.mark.parametrize("args, says", [
    (["--rocm", "banana"], ["'banana'", "5.2"]),
    (["--rocm", "4.5"], ["4.5", "from 5.0"]),
    (["--rocm", "9.9.9"], ["'9.9.9'", "a ROCm release hipport knows"]),
    (["--rocm", "6.9"], ["'6.9'", "a ROCm release hipport knows"]),
    (["--select", "W999"], ["--select", "W999", "rules list"]),
    (["--select", "W04"], ["did you mean W004?"]),
    (["--ignore", "HP0001"], ["did you mean HP001?"]),
    (["--jobs", "-3"], ["-3"]),
    (["--config", "missing.toml"], ["missing.toml", "no such configuration file"]),
])
def test_a_bad_option_is_one_line_and_exit_2(tmp_path: Path, args: list[str], says: list[str]) -> None:
    tree = cuda_tree(tmp_path / "repo")
    err = _one_error(hipport("lint", tree, *args, cwd=tmp_path))
    for s in says:
        assert s in err


@pytest.mark.parametrize("toml, says", [
    ("rocm = 6.2", ["pyproject.toml:3:", "quoted version", '"6.2"']),
    ('rocm = "x"', ["pyproject.toml:3:", "'x'"]),
    ('rocm = "9.9"', ["pyproject.toml:3:", "'9.9'", "release hipport knows"]),
    ('select = ["W0O6"]', ["pyproject.toml:3:", "W0O6"]),
    ("select = 6", ["pyproject.toml:3:", "select"]),
    ("jobs = true", ["pyproject.toml:3:", "jobs"]),
    ('offload-arch = ["sm_80"]', ["pyproject.toml:3:", "sm_80", "AMD GPU target"]),
    ('wave-strategy = "wave128"', ["pyproject.toml:3:", "wave128", "logical32"]),
    ("colour = 1", ["pyproject.toml", "colour", "`hipport config` lists the keys"]),
])
def test_a_bad_config_value_names_the_file_and_line(tmp_path: Path, toml: str, says: list[str]) -> None:
    tree = cuda_tree(tmp_path / "repo")
    (tree / "pyproject.toml").write_text(f"[project]\n[tool.hipport]\n{toml}\n")
    err = _one_error(hipport("lint", tree))
    for s in says:
        assert s in err, err


def test_an_unknown_id_in_a_suppression_is_an_error_finding(tmp_path: Path) -> None:
    src = tmp_path / "s"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k(float* a) {\n"
                              "  a[0] = __shfl_down_sync(0xffffffff, a[0], 16);  // hipport: ignore[W01]\n}\n")
    p = hipport("lint", src, "--no-cache", "--show-fixed")
    out = p.stdout.decode()
    assert p.returncode == 1
    assert "error: [HP901] unknown rule 'W01' in a suppression (did you mean W001?)" in out
    assert "[W001]" in out  # the misspelt suppression suppresses nothing
