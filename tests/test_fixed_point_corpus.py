"""A second port changes nothing: every idiom hipport emits, under every wave strategy, with and
without review fixes, is left as it is when the port is ported again. The inputs are the
bundled examples and the wave64 and translator fixtures (written here); comments inside a
rewritten call survive the rewrite."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, hipport


def _corpus(dest: Path) -> Path:
    shutil.copytree(ROOT / "examples", dest / "examples")
    for folder in ("wave64", "translate"):
        for p in sorted((ROOT / "fixtures" / folder).rglob("input.cu")):
            rel = p.relative_to(ROOT / "fixtures")
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(p, dest / rel)
    return dest


@pytest.mark.parametrize("review", [False, True], ids=["safe-fixes", "review-fixes"])
@pytest.mark.parametrize("strategy", ["auto", "logical32", "native"])
def test_a_ported_tree_is_a_fixed_point(tmp_path: Path, strategy: str, review: bool) -> None:
    src = _corpus(tmp_path / "src")
    opts = ["--wave-strategy", strategy, "--no-cache"] + (["--apply-review-fixes"] if review else [])
    first = hipport("port", src, "-o", tmp_path / "once", *opts)
    assert first.returncode in (0, 1), first.stderr.decode()[-2000:]
    again = hipport("port", tmp_path / "once", "--check", *opts)
    assert again.returncode == 0, (again.stdout + again.stderr).decode()[-4000:]


def test_comments_inside_a_rewritten_call_survive(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* p) {\n  float v = p[threadIdx.x];\n"
                   "  for (int o = 16; o > 0; o >>= 1)\n"
                   "    v += __shfl_down_sync(0xffffffff /* all */, v, o /* half */);\n"
                   "  v += __shfl_xor_sync(0xffffffff,  // every lane\n"
                   "                       v, 1);\n  p[threadIdx.x] = v;\n}\n")
    p = hipport("port", src, "-o", "-", "--no-cache")
    out = p.stdout.decode()
    assert p.returncode == 0 and "__shfl_down(" in out and "_sync" not in out, out
    assert "/* all */" in out and "/* half */" in out and "// every lane" in out, out
