"""The progress bar on a real terminal (a pseudo-terminal): an ETA and the current file."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from tests.trust.conftest import KERNEL


def test_progress_shows_an_eta_and_the_current_file(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(40):
        (src / f"kernel_{i:03d}.cu").write_bytes(KERNEL * 30)
    text = _on_a_terminal(["lint", str(src), "--no-cache", "-j", "1", "--format", "json"])
    assert "linting" in text and "eta" in text
    assert "kernel_0" in text  # the file just finished


COLOUR = re.compile(r"\x1b\[(?:3[0-7]|9[0-7]|38;)")  # a foreground colour


def _on_a_terminal(args: list[str], env_extra: dict[str, str] | None = None) -> str:
    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "160", "TERM": "xterm", **(env_extra or {})}
    if not env_extra or "NO_COLOR" not in env_extra:
        env.pop("NO_COLOR", None)
    p = subprocess.Popen([sys.executable, "-m", "hipport", *args], stdout=subprocess.DEVNULL, stderr=child,
                         env=env)
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait(timeout=300)
    os.close(main)
    return seen.decode("utf-8", "replace")


def test_report_shows_progress_while_it_writes_pages(tmp_path: Path) -> None:
    """The page writing phase (seconds on thousands of files) has its own bar, as the analysis
    has; with NO_COLOR the bar has no colour; off a terminal there is none."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(60):
        (src / f"kernel_{i:03d}.cu").write_bytes(KERNEL * 30)
    args = ["report", str(src), "-o", str(tmp_path / "rep"), "--no-cache", "-j", "1"]
    text = _on_a_terminal(args)
    assert "reporting" in text and "writing pages" in text, text[-2000:]
    assert COLOUR.search(text)  # a coloured bar on a terminal
    plain = _on_a_terminal([*args[:3], str(tmp_path / "rep2"), *args[4:]], {"NO_COLOR": "1"})
    assert "writing pages" in plain
    assert not COLOUR.search(plain)
    off = subprocess.run([sys.executable, "-m", "hipport", *args[:3], str(tmp_path / "rep3"), *args[4:]],
                         capture_output=True, env={**os.environ, "NO_COLOR": "1"}, timeout=300)
    assert off.returncode == 0 and b"writing pages" not in off.stderr
