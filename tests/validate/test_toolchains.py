"""What the machine has: the gfx942 probe and its cache, arch plans, GPUs present or not."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from hipport.validate import toolchains as tc
from hipport.validate.driver import Toolchain
from hipport.validate.project import Program
from hipport.validate.runs import amd_gpu_leg, nvidia_gpu_leg
from tests.conftest import needs_hipcc


class FakeClang:
    """Stands in for the toolchain's clang in the probe's runner: knows the archs it is told,
    counts its calls."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.calls: list[list[str]] = []

    def __call__(self, cmd: Sequence[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
        self.calls.append(list(cmd))
        assert cmd[0].endswith("clang++")  # the toolchain's clang, never hipcc
        assert "-x" in cmd and "hip" in cmd  # compiled as HIP whatever the extension
        arch = next(c.split("=", 1)[1] for c in cmd if c.startswith("--offload-arch="))
        if arch in self.known:
            return 0, ""
        return 1, (f"clang: error: invalid target ID '{arch}'; format is a processor name followed by an "
                   "optional colon-delimited list of features\n")


def _toolchain(folder: Path) -> Toolchain:
    clang = folder / "clang++"
    clang.parent.mkdir(parents=True, exist_ok=True)
    clang.write_text("")
    tc._memo.clear()
    return Toolchain("hip-5.2", str(clang), "5.2.21153", "15.0.6", "/usr")


def test_gfx942_probe_says_no_when_clang_does_not_know_it(tmp_path: Path) -> None:
    fake = FakeClang({"gfx90a"})
    r = tc.probe_arch("gfx942", _toolchain(tmp_path / "bin"), runner=fake, cache_path=tmp_path / "c.json")
    assert not r.ok and "does not know gfx942" in r.reason
    assert len(fake.calls) == 1


def test_probe_result_is_cached_on_disk(tmp_path: Path) -> None:
    cache = tmp_path / "c.json"
    fake = FakeClang({"gfx90a", "gfx942"})
    amd = _toolchain(tmp_path / "bin")
    assert tc.probe_arch("gfx942", amd, runner=fake, cache_path=cache).ok
    tc._memo.clear()  # a new process: only the file remains
    again = FakeClang(set())
    assert tc.probe_arch("gfx942", amd, runner=again, cache_path=cache).ok
    assert again.calls == []
    assert any(v["arch"] == "gfx942" and v["ok"] for v in json.loads(cache.read_text()).values())
    # Another toolchain (another clang) is asked afresh.
    assert not tc.probe_arch("gfx942", _toolchain(tmp_path / "other"), runner=again, cache_path=cache).ok
    assert len(again.calls) == 1


def test_plan_archs() -> None:
    def knows(*archs: str):
        return lambda a: tc.ProbeResult(a in archs, "" if a in archs else f"this HIP's clang does not know {a}")

    assert tc.plan_archs(None, probe=knows("gfx90a", "gfx942")).archs == ("gfx90a", "gfx942")
    plan = tc.plan_archs(None, probe=knows("gfx90a"))
    assert plan.archs == ("gfx90a",) and plan.skipped[0][0] == "gfx942"
    plan = tc.plan_archs(["gfx90a", "gfx1100", "gfx942"], probe=knows("gfx90a", "gfx1100"))
    assert plan.archs == ("gfx90a", "gfx1100") and [a for a, _ in plan.skipped] == ["gfx942"]


@needs_hipcc
@pytest.mark.hipcc
def test_real_probe_matches_the_clang_version(tmp_path: Path) -> None:
    amd = tc.amd_toolchain()
    assert amd is not None and amd.ok, amd
    out = subprocess.run([amd.clang, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"clang version (\d+)", out)
    assert m, out
    assert amd.clang_version.split(".")[0] == m.group(1)
    tc._memo.clear()
    assert tc.probe_arch("gfx90a", cache_path=tmp_path / "c.json").ok
    # gfx942 arrived in clang 17 (ROCm 5.7); Debian's HIP 5.2 ships clang 15.
    assert tc.probe_arch("gfx942", cache_path=tmp_path / "c.json").ok == (int(m.group(1)) >= 17)


def test_parse_gpu_listings() -> None:
    rocminfo = """*******\nAgent 1\n*******\n  Name:                    AMD EPYC 7763 64-Core Processor
  Marketing Name:          AMD EPYC 7763\n*******\nAgent 2\n*******\n  Name:                    gfx90a
  Marketing Name:          AMD Instinct MI250X\n  Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\n"""
    assert tc.parse_rocminfo(rocminfo) == ("gfx90a",)
    assert tc.parse_rocminfo("  Name:   AMD EPYC\n") == ()
    smi = "GPU 0: NVIDIA H200 (UUID: GPU-1234)\nGPU 1: NVIDIA H200 (UUID: GPU-5678)\n"
    assert tc.parse_nvidia_smi(smi) == ("NVIDIA H200", "NVIDIA H200")


def _fake_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rocminfo that lists only a CPU agent and an nvidia-smi that finds no driver."""
    b = tmp_path / "bin"
    b.mkdir()
    (b / "rocminfo").write_text("#!/bin/sh\necho '  Name:                    AMD EPYC 7763'\n")
    (b / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate "
                                  "with the NVIDIA driver.'\nexit 9\n")
    for f in b.iterdir():
        f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{b}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("HIPPORT_NO_GPU", raising=False)
    tc.amd_gpus.cache_clear()
    tc.nvidia_gpus.cache_clear()


def test_absent_gpus_are_not_run_never_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tools(tmp_path, monkeypatch)
    try:
        assert not tc.amd_gpus().present and "lists no gfx agent" in tc.amd_gpus().reason
        assert not tc.nvidia_gpus().present and "lists none" in tc.nvidia_gpus().reason
        prog = Program("p.cu", tmp_path / "p.cu", [tmp_path / "p.cu"])
        amd = amd_gpu_leg(prog, None, tmp_path, 10, None, None, None)
        nv = nvidia_gpu_leg(prog, None, tmp_path, 10, None, None, True)
        assert (amd.status, nv.status) == ("not-run", "not-run")
        assert "no AMD GPU" in amd.reason and "no NVIDIA GPU" in nv.reason
        assert not amd.failed and not nv.failed
    finally:
        tc.amd_gpus.cache_clear()
        tc.nvidia_gpus.cache_clear()


def test_missing_tools_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tc.shutil, "which", lambda name: None)
    monkeypatch.delenv("HIPPORT_NO_GPU", raising=False)
    tc.amd_gpus.cache_clear()
    tc.nvidia_gpus.cache_clear()
    try:
        assert tc.amd_gpus().reason == "no AMD GPU: rocminfo not found"
        assert tc.nvidia_gpus().reason == "no NVIDIA GPU: nvidia-smi not found"
    finally:
        tc.amd_gpus.cache_clear()
        tc.nvidia_gpus.cache_clear()
