"""Precise mode (`--precise`, issue 31): clang's reading resolves what the tree-sitter model
cannot (a warp width built by token pasting and a function-like macro, a template parameter
instantiated with a constant, a compiler-computed constant), never runs where it is off (clang
is not imported), and a file libclang cannot parse degrades to the default model's values with
one note. Tests that parse need the libclang package (the test extra installs it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hipport import precise
from hipport.config import Config
from tests.conftest import hipport

needs_libclang = pytest.mark.skipif(not precise.available(), reason="the libclang package is not installed "
                                    "(pip install libclang)")

# Each width is one the tree-sitter model cannot evaluate: token pasting, a function-like
# macro, a template parameter with no default, sizeof.
SOURCE = """\
#define CAT(a, b) a##b
#define WIDTH_32 32
#define WARP_SIZE CAT(WIDTH_, 32)
#define HALF(x) ((x) / 2)
#define LANES HALF(64)
constexpr int kWarpBits = sizeof(unsigned) * 8;

template <int kGroup>
__device__ float group_sum(float v) {
  for (int o = kGroup / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

__global__ void k(float* p) {
  int lane = threadIdx.x % WARP_SIZE;
  int warp = threadIdx.x / LANES;
  int bit = threadIdx.x & (kWarpBits - 1);
  p[lane + warp + bit] = group_sum<32>(p[threadIdx.x]);
}
"""


def lint_json(tree: Path, *args: str) -> tuple[list[tuple[str, int]], str]:
    r = hipport("lint", "k.cu", "--format", "json", "--no-cache", "--fail-on", "never", *args, cwd=tree)
    assert r.returncode == 0, r.stderr.decode()
    found = sorted((f["rule"], f["line"]) for f in json.loads(r.stdout)["findings"])
    return found, r.stderr.decode()


@needs_libclang
def test_precise_mode_resolves_what_the_default_model_cannot(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(SOURCE)
    default, _ = lint_json(tmp_path)
    exact, err = lint_json(tmp_path, "--precise")
    assert not any(line in (15, 16, 17) for _, line in default)  # the widths are unknown there
    assert {("W004", 15), ("W005", 16), ("W006", 10)} <= set(exact), exact
    assert set(default) - {f for f in default if f[0] == "W001"} <= set(exact)  # nothing lost
    assert "note" not in err


@needs_libclang
def test_the_model_holds_macros_constants_template_arguments_and_typedefs(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    data = (SOURCE + "typedef unsigned long long lanes_t;\nusing mask_t = lanes_t;\n").encode()
    m = precise.model(str(src), data, {}, Config(precise=True))
    assert m.note == ""
    assert m.values["WARP_SIZE"] == (32, 32) and m.values["LANES"] == (32, 32) and m.values["kWarpBits"] == (32, 32)
    assert list(m.tparams.values()) == [32] and data.index(b"kGroup>") in m.tparams
    assert m.types["mask_t"] == 64


@needs_libclang
def test_a_template_instantiated_with_two_values_is_not_resolved(tmp_path: Path) -> None:
    data = SOURCE.replace("group_sum<32>(p[threadIdx.x])", "group_sum<32>(p[0]) + group_sum<64>(p[1])").encode()
    m = precise.model(str(tmp_path / "k.cu"), data, {}, Config(precise=True))
    assert m.tparams == {}


@needs_libclang
def test_a_file_clang_cannot_parse_degrades_to_the_default_model(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_bytes(b"\x00\xff}}}{{ )))(((\n" + SOURCE.encode())
    found, err = lint_json(tmp_path, "--precise")  # (lint_json: exit 0, no traceback)
    assert "Traceback" not in err and isinstance(found, list)


@needs_libclang
def test_a_libclang_failure_is_one_note_and_no_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from hipport.precise import parse

    def crash(*_: object) -> None:
        raise RuntimeError("libclang: crash detected")  # what a TranslationUnitLoadError looks like

    monkeypatch.setattr(parse, "_parse", crash)
    m = precise.model(str(tmp_path / "gone.cu"), b"int x;", {}, Config(precise=True))
    assert m.values == {} and m.tparams == {} and m.note.startswith("precise mode: clang could not parse")
    precise.model(str(tmp_path / "gone.cu"), b"int x;", {}, Config(precise=True))  # kept: said once
    assert capsys.readouterr().err.count("note: precise mode") == 1


def test_default_mode_does_not_import_clang(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(SOURCE)
    code = ("import sys\nfrom hipport.cli import main\nsys.argv = ['hipport', 'lint', '--no-cache', '-q', "
            f"'--fail-on', 'never', {str(tmp_path / 'k.cu')!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('CLANG' if any(m == 'clang' or m.startswith('clang.') for m in sys.modules) else 'NONE')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**__import__("os").environ, "HIPPORT_JOBS": "1"})
    assert r.stdout.strip().splitlines()[-1] == "NONE", r.stdout + r.stderr


def test_precise_without_libclang_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport import config as configmod
    from hipport.config import build
    from hipport.errors import HipportError

    monkeypatch.setattr(configmod, "libclang_installed", lambda: False)
    with pytest.raises(HipportError, match="needs the libclang package"):
        build(tmp_path, {"precise": True})
    (tmp_path / ".hipport.toml").write_text("precise = 1\n")
    r = hipport("lint", ".", cwd=tmp_path)
    assert r.returncode == 2 and "precise must be true or false" in r.stderr.decode()


def test_precise_is_in_the_cache_fingerprint() -> None:
    assert Config(precise=True).fingerprint() != Config().fingerprint()


@needs_libclang
def test_a_precise_run_keeps_no_results_in_the_cache(tmp_path: Path) -> None:
    """clang reads headers hipport's key does not cover: a second run ports again."""
    (tmp_path / "k.cu").write_text(SOURCE)
    cache = tmp_path / "cache"
    for _ in range(2):
        r = hipport("lint", "k.cu", "--precise", "--cache-dir", str(cache), "--fail-on", "never", cwd=tmp_path)
        assert r.returncode == 0, r.stderr.decode()
    assert "0 from cache" in r.stdout.decode() + r.stderr.decode()
