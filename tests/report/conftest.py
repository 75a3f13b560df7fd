"""Fixtures for the HTML report tests: synthetic runs, headless Chromium, artifacts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.edits import apply_edits
from hipport.model import Edit, FileResult, FileStatus, Finding, Fix, RunResult, Severity, applied_fixes
from hipport.source import SourceFile
from tests.report.synth import make_run

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                             shutil.which("google-chrome")) if p), None)

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                    "(apt-get install chromium; scripts/setup.sh does)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes tens of seconds (pre-commit installs, 1000-file renders)")


@pytest.fixture
def run12() -> RunResult:
    return make_run(12)


def file_result(path: str, text: str, edits: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
                findings: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
                fix: dict[str, Fix] | None = None) -> FileResult:
    """A FileResult from text; edits (old, new, rule) and findings (needle, rule, message) are
    located by the first occurrence of their text."""
    data = text.encode()
    src = SourceFile(path, data)
    es = []
    for old, new, rule in edits:
        s = text.index(old)
        es.append(Edit(s, s + len(old), new, rule, span=src.span(s, s + len(old))))
    es.sort(key=lambda e: (e.start, e.end))
    fs = []
    for needle, rule, message in findings:
        s = text.index(needle)
        fs.append(Finding(rule, Severity.WARNING, src.span(s, s + len(needle)), message,
                          fix=(fix or {}).get(needle),
                          subject=needle if rule in ("HP001", "HP002", "HP003") else None))
    ported = apply_edits(data, es)
    return FileResult(path=path, role="cuda-source",
                      status=FileStatus.PORTED if ported != data else FileStatus.UNCHANGED,
                      output_path=path, edits=es, findings=fs,
                      ported=ported if ported != data else None, original=data,
                      applied=applied_fixes(es, fs))


class Chromium:
    """Headless Chromium driven from the command line, as a person's browser would load pages."""

    def __init__(self, exe: str, profile: Path) -> None:
        self.exe = exe
        self.profile = profile

    def _cmd(self, *extra: str) -> list[str]:
        return [self.exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                "--disable-extensions", "--disable-background-networking",
                f"--user-data-dir={self.profile}", *extra]

    def dump_dom(self, url: str) -> str:
        p = subprocess.run(self._cmd("--virtual-time-budget=2000", "--dump-dom", url),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        return p.stdout

    def screenshot(self, url: str, out: Path, size: str = "1280,900") -> Path:
        p = subprocess.run(self._cmd(f"--screenshot={out}", f"--window-size={size}",
                                     "--hide-scrollbars", url),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and out.is_file(), p.stderr[-2000:]
        return out


@pytest.fixture
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Chromium:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium; scripts/setup.sh does)")
    return Chromium(CHROMIUM, tmp_path_factory.mktemp("chromium-profile"))


def keep_artifact(path: Path) -> Path:
    """Copy a screenshot to ./artifacts/ (gitignored) so a person can look at it after the run."""
    dest = ROOT / "artifacts" / path.name
    dest.parent.mkdir(exist_ok=True)
    shutil.copyfile(path, dest)
    return dest
