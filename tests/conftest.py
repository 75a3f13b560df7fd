"""Shared test helpers: run the real `hipport` entry point; keep tests off the user's home."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from hipport.config import Config
    from hipport.rules import RuleSet

ROOT = Path(__file__).resolve().parent.parent
HIPCC = shutil.which("hipcc")


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One user cache for the whole run: with pytest-xdist every worker's temporary folder lies
    in the run's one, so the workers share the tables and emulator builds hipport keeps there
    (its caches are made for concurrent runs)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / "xdg-cache"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(autouse=True)
def _no_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
             _session_cache: Path) -> None:
    """Tests must never write to the user's home or cache (one cache per test session keeps
    hipport's compiled tables between the CLI runs of different tests)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(_session_cache))


def hipport(*args: str | Path, cwd: Path | None = None, input: bytes | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `python -m hipport ARGS` as a user would, capturing bytes."""
    e = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", **(env or {})}
    return subprocess.run([sys.executable, "-m", "hipport", *map(str, args)], cwd=cwd,
                          input=input, capture_output=True, env=e, timeout=300)


def hipcc_compile(path: Path, arch: str = "gfx90a", extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    return subprocess.run(["hipcc", f"--offload-arch={arch}", "-std=c++17", "-x", "hip", "-c",
                           str(path), "-o", os.devnull, *extra],
                          capture_output=True, text=True, env=env, timeout=300)


needs_hipcc = pytest.mark.skipif(HIPCC is None, reason="hipcc is not installed "
                                 "(apt-get install hipcc libamdhip64-dev rocm-device-libs)")


def port_below(head: bytes, body: bytes, config: Config, rules: RuleSet) -> tuple[bytes, list[str]]:
    """Port `body` below `head` (a library's include, so that none is added) with the real
    translator; the ported body and the rules of its findings."""
    from hipport import translate
    from hipport.edits import apply_edits, resolve
    from hipport.source import SourceFile

    src = SourceFile("t.cu", head + body)
    ctx = translate.run(src, config, rules)
    kept, conflicts = resolve(ctx.edits)
    assert not conflicts
    out = apply_edits(src.data, kept)
    assert out.startswith(head)
    return out[len(head):], [f.rule for f in ctx.findings]
