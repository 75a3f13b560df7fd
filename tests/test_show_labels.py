"""benchmarks/show_labels.py prints labelled lines from a corpora folder and fails on a missing one;
benchmarks/wave64_labels_ml.toml is well-formed (rule ids, pinned commits, paths under a repository)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from hipport.wave64.registry import RULES

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "show_labels.py"
LABELS = ROOT / "benchmarks" / "wave64_labels_ml.toml"

TOML = """
[[hazard]]
path = "repo/k.cu"
line = 2
rule = "W004"
why = "lane id"

[[clean]]
path = "repo/k.cu"
line = 3
why = "data"
"""


def show(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def corpora(tmp_path: Path, lines: list[str]) -> Path:
    (tmp_path / "c" / "repo").mkdir(parents=True)
    (tmp_path / "c" / "repo" / "k.cu").write_text("\n".join(lines) + "\n")
    (tmp_path / "labels.toml").write_text(TOML)
    return tmp_path / "c"


def test_prints_each_labelled_line(tmp_path: Path) -> None:
    base = corpora(tmp_path, ["__global__ void k() {", "  int lane = threadIdx.x & 31;", "  int w = n / 32;", "}"])
    proc = show(base, "--labels", tmp_path / "labels.toml")
    assert proc.returncode == 0, proc.stderr
    assert "hazard W004      repo/k.cu:2: int lane = threadIdx.x & 31;" in proc.stdout
    assert "clean  any       repo/k.cu:3: int w = n / 32;" in proc.stdout


def test_a_missing_line_names_the_label_and_fails(tmp_path: Path) -> None:
    base = corpora(tmp_path, ["__global__ void k() {", "  int lane = threadIdx.x & 31;"])
    proc = show(base, "--labels", tmp_path / "labels.toml")
    assert proc.returncode == 1
    assert "repo/k.cu:3: no such file or line" in proc.stderr and "1 of 2 labels not found" in proc.stderr


def test_bad_input_is_a_usage_error(tmp_path: Path) -> None:
    proc = show(tmp_path / "absent")
    assert proc.returncode == 2 and "not a folder" in proc.stderr
    (tmp_path / "bad.toml").write_text("x = [\n")
    proc = show(tmp_path, "--labels", tmp_path / "bad.toml")
    assert proc.returncode == 2 and "bad.toml" in proc.stderr and "Traceback" not in proc.stderr


def test_summary_counts_per_repository(tmp_path: Path) -> None:
    base = corpora(tmp_path, ["a", "b", "c"])
    proc = show(base, "--labels", tmp_path / "labels.toml", "--summary")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^repo\s+1\s+1\s+1$", proc.stdout, re.M), proc.stdout


def test_the_ml_label_set_is_well_formed() -> None:
    meta = tomllib.loads(LABELS.read_text(encoding="utf-8"))
    repos = meta["repos"]
    assert len(repos) >= 6
    for name, repo in repos.items():
        assert repo["folder"] == name and re.fullmatch(r"[0-9a-f]{40}", repo["commit"]), name
        assert all(i.split("/", 1)[0] == name for i in repo["include"]), name
    hazards, clean = meta["hazard"], meta["clean"]
    assert len(hazards) >= 300 and len(clean) >= 300
    assert len({e["path"] for e in hazards + clean}) >= 30
    for e in hazards + clean:
        assert e["path"].split("/", 1)[0] in repos, e
        assert isinstance(e["line"], int) and e["line"] > 0 and e["why"], e
        for rid in (e["rule"].split("|") if "rule" in e else []):
            assert rid in RULES, e
        assert "rule" in e or e in clean, e
