"""Configuration: defaults < nearest config file < command line; unknown keys name file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport import config
from hipport.errors import HipportError
from tests.conftest import hipport


def test_pyproject_section_is_read_and_cli_overrides(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.hipport]\nwave-strategy = "native"\nrocm = "6.2"\n'
        'exclude = ["third_party/*"]\nseverity = { W014 = "info" }\n')
    cfg = config.build(tmp_path, {"rocm": "7.0"})
    assert cfg.wave_strategy == "native" and cfg.rocm == "7.0"
    assert cfg.exclude == ("third_party/*",)
    assert dict(cfg.severity) == {"W014": "info"}
    assert cfg.origin("wave_strategy").endswith("pyproject.toml")
    assert cfg.origin("rocm") == "command line"
    assert cfg.origin("blas") == "default"


def test_nearest_file_wins(tmp_path: Path) -> None:
    (tmp_path / ".hipport.toml").write_text('launch-syntax = "ggl"\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / ".hipport.toml").write_text('launch-syntax = "chevron"\n')
    assert config.build(sub, {}).launch_syntax == "chevron"
    assert config.build(tmp_path, {}).launch_syntax == "ggl"


def test_unknown_key_names_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / ".hipport.toml"
    f.write_text('rocm = "6.0"\nwave-stratgey = "native"\n')
    with pytest.raises(HipportError) as e:
        config.build(tmp_path, {})
    assert str(e.value).startswith(f"{f}:2: unknown configuration key 'wave-stratgey'")


def test_bad_choice_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".hipport.toml").write_text('wave-strategy = "wave128"\n')
    with pytest.raises(HipportError, match="wave-strategy must be one of auto, logical32, native"):
        config.build(tmp_path, {})


def test_config_command_prints_values_and_origins(tmp_path: Path) -> None:
    (tmp_path / ".hipport.toml").write_text('rocm = "6.2"\n')
    r = hipport("config", tmp_path, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["rocm"] == {"value": "6.2", "from": str(tmp_path / ".hipport.toml")}
    assert doc["wave-strategy"]["from"] == "default"
    bad = tmp_path / "b"
    bad.mkdir()
    (bad / ".hipport.toml").write_text("nonsense = 1\n")
    r = hipport("config", bad)
    assert r.returncode == 2 and b".hipport.toml:1: unknown configuration key" in r.stderr


def test_workers_never_exceed_the_cores_this_process_may_use() -> None:
    import os

    mine = len(os.sched_getaffinity(0))
    assert config.cores() == mine
    assert config.workers(0) == mine  # 0: every core
    assert config.workers(10_000) == mine
    assert config.workers(1) == 1
