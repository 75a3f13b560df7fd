"""The progress bar on a real terminal (a pseudo-terminal): an ETA and the current file."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.trust.conftest import KERNEL


def test_progress_shows_an_eta_and_the_current_file(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(40):
        (src / f"kernel_{i:03d}.cu").write_bytes(KERNEL * 30)
    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "160", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    p = subprocess.Popen([sys.executable, "-m", "hipport", "lint", str(src), "--no-cache", "-j", "1",
                          "--format", "json"], stdout=subprocess.DEVNULL, stderr=child, env=env)
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
    text = seen.decode("utf-8", "replace")
    assert "linting" in text and "eta" in text
    assert "kernel_0" in text  # the file just finished
