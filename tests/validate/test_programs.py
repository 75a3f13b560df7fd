"""`validate --run` over the runnable CUDA programs of the repository (fixtures/programs/ and
examples/), three ways on the wave emulator:

  (1) ref32     the CUDA original, names translated only, at wave 32: CUDA's semantics;
  (2) port64    the full port (wave64 pass on) at wave 64: must print what (1) prints and what
                the program's .expected / expected_output.txt says;
  (3) unfixed64 the port without the wave64 fixes at wave 64: for at least five programs it
                must differ from (1) (wrong output, or rejected at wave 64 like HIP 6.2+ does a
                32-bit mask): real wave64 bugs that the pass fixed.

A failure names the program and the leg's reason; nothing is skipped to make it pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, hipport

pytestmark = pytest.mark.emulator

# Each set is validated with its own configuration: fixtures/programs/review/.hipport.toml
# asks for the review fixes its programs need (host launch math), the others use the defaults.
SETS = {"fixtures/programs": ROOT / "fixtures" / "programs",
        "fixtures/programs/review": ROOT / "fixtures" / "programs" / "review",
        "examples": ROOT / "examples"}
NESTED = {"fixtures/programs": ["--exclude", "review/*"]}


def _programs(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    nested = [p for other in SETS.values() if other != folder and other.is_relative_to(folder)
              for p in [other]]
    return sorted(str(p.relative_to(ROOT)) for p in folder.rglob("*.cu")
                  if b"main(" in p.read_bytes() and not any(p.is_relative_to(n) for n in nested))


ALL = [p for d in SETS.values() for p in _programs(d)]


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name, folder in SETS.items():
        if not folder.is_dir():
            continue
        p = hipport("validate", name, "--run", "--no-compile", "--no-gpu", "--no-cache", "--format", "json",
                    *NESTED.get(name, []), cwd=ROOT)
        assert p.stdout, p.stderr.decode()
        for r in json.loads(p.stdout)["details"]["runs"]:
            out[r["program"]] = r
    return out


def _why(leg: dict) -> str:
    errs = "; ".join(f"{e['file'] or e['ported_file']}:{e['line'] or e['ported_line']}: {e['message'][:120]}"
                     for e in leg.get("errors", [])[:3])
    return f"{leg['status']}: {leg.get('reason') or ''} {errs}".strip()


@pytest.mark.parametrize("program", ALL)
def test_reference_runs_at_wave32(results: dict[str, dict], program: str) -> None:
    ref = results[program]["emulator"]["ref32"]
    assert ref["status"] == "pass", f"{program}: the CUDA reference (wave 32) did not run cleanly: {_why(ref)}"


@pytest.mark.parametrize("program", ALL)
def test_port_at_wave64_prints_what_cuda_prints(results: dict[str, dict], program: str) -> None:
    r = results[program]
    port = r["emulator"]["port64"]
    assert port["status"] == "pass", f"{program}: the port at wave 64 {_why(port)}"
    ref = r["emulator"]["ref32"]
    if ref["status"] == "pass":
        assert port["stdout"] == ref["stdout"]
    assert r["expected"] is None or "expected" in (port["against"] or "")


def test_at_least_five_real_wave64_bugs_fixed(results: dict[str, dict]) -> None:
    saved = {p: r["emulator"]["unfixed64"]["status"] for p, r in results.items()
             if r["emulator"]["unfixed64"]["status"] in ("differs", "mismatch", "build-error", "run-error")
             and r["emulator"]["port64"]["status"] == "pass"}
    assert len(saved) >= 5, f"only {len(saved)} programs show a wave64 bug the pass fixed: {saved}"


def test_some_unfixed_ports_run_and_print_wrong_results(results: dict[str, dict]) -> None:
    """Not only rejected builds: ports that compile for wave64 without the pass and silently
    compute something else (the activemask_* programs), which the pass then fixes."""
    silent = sorted(p for p, r in results.items()
                    if r["emulator"]["unfixed64"]["status"] in ("differs", "mismatch")
                    and r["emulator"]["port64"]["status"] == "pass")
    assert {"fixtures/programs/activemask_ballot_count.cu", "fixtures/programs/activemask_vote.cu"} <= set(silent)


def test_every_program_was_found(results: dict[str, dict]) -> None:
    assert len(ALL) >= 17
    assert sorted(results) == sorted(ALL)
