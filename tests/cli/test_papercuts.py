"""Issue 33's papercuts, each through the real command line: what a new user trips on first."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import click
import typer

from hipport.cli import app
from tests.conftest import hipport


def _commands() -> list[tuple[str, ...]]:
    """Every command and subcommand path (`port`, `rules lookup`, ...)."""
    out: list[tuple[str, ...]] = []

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, (*path, name))
        else:
            out.append(path)

    walk(typer.main.get_command(app), ())
    return out


def test_help_is_readable_at_80_columns() -> None:
    """Rich's option table folded choice lists mid-word (`<auto|logical32|nativ` / `e>`) and read
    help text as markup (`pip install '.[precise]'` lost `[precise]`)."""
    for path in _commands():
        r = hipport(*path, "--help", env={"COLUMNS": "80"})
        text = r.stdout.decode()
        assert r.returncode == 0, (path, r.stderr)
        assert all(len(line) <= 80 for line in text.splitlines()), (path, text)
        cmd = typer.main.get_command(app)
        for name in path:
            assert isinstance(cmd, click.Group)
            cmd = cmd.commands[name]
        for p in cmd.params:
            if isinstance(p.type, click.Choice):
                shown = "<" + "|".join(map(str, p.type.choices)) + ">"
                assert shown in text, (path, shown, text)  # on one line, whole
    port = hipport("port", "--help", env={"COLUMNS": "80"}).stdout.decode()
    assert "'.[precise]'" in re.sub(r"\s+", " ", port)


README_BLOCK = '[tool.hipport]\nexclude = ["third_party/*"]\nrocm = "6.2"\nseverity = { W014 = "info" }\n'


def test_the_readme_block_pasted_into_hipport_toml_is_read(tmp_path: Path) -> None:
    """It failed with "unknown configuration key 'tool'" and no hint."""
    (tmp_path / ".hipport.toml").write_text(README_BLOCK)
    r = hipport("config", tmp_path, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["rocm"] == {"value": "6.2", "from": str(tmp_path / ".hipport.toml")}
    assert doc["exclude"]["value"] == ["third_party/*"] and doc["severity"]["value"] == [["W014", "info"]]


def test_hipport_toml_keys_at_the_top_and_under_tool_hipport_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / ".hipport.toml").write_text('jobs = 2\n' + README_BLOCK)
    err = _one_error(hipport("config", tmp_path))
    assert ".hipport.toml:1: 'jobs' beside [tool.hipport]" in err
    (tmp_path / ".hipport.toml").write_text(README_BLOCK + "[tool.black]\nline-length = 100\n")
    assert ".hipport.toml:5: [tool.black] in .hipport.toml" in _one_error(hipport("config", tmp_path))


def _one_error(r: subprocess.CompletedProcess[bytes]) -> str:
    err = r.stderr.decode()
    assert r.returncode == 2 and err.count("\n") == 1 and err.startswith("hipport: error: "), err
    return err


def test_an_unknown_key_names_the_closest_one_not_all_of_them(tmp_path: Path) -> None:
    for text, says in [('wave-stratgey = "native"\n', "unknown configuration key 'wave-stratgey' (did you mean wave-strategy?)"),
                       ("offload_archs = []\n", "(did you mean offload-arch?)"),
                       ("colour = 1\n", "(`hipport config` lists the keys)"),
                       ("[tool]\nx = 1\n", "at the top, or under [tool.hipport]")]:
        (tmp_path / ".hipport.toml").write_text(text)
        err = _one_error(hipport("lint", tmp_path))
        assert says in err and "apply-review-fixes" not in err, err


def test_a_command_that_writes_nothing_says_would_change(tmp_path: Path) -> None:
    """lint's summary said "13 changed" for a run that wrote nothing."""
    (tmp_path / "k.cu").write_text("__global__ void k(float* a) { a[0] = 1; }\n"
                                   "void h(float* d) { cudaMalloc(&d, 4); }\n")
    for args, says in [(("lint",), "1 would change,"), (("port", "--check"), "1 would change,"),
                       (("port", "--diff"), "1 would change,"),
                       (("port", "-o", tmp_path / "out"), "1 changed,")]:
        r = hipport(args[0], tmp_path / "k.cu", *args[1:], "--no-cache")
        assert says in (r.stdout + r.stderr).decode(), (args, r.stdout, r.stderr)


def test_rename_extensions_rewrites_exactly_the_includes_of_renamed_files(tmp_path: Path) -> None:
    """`#include "k.cu"` was left in a .cpp (not a CUDA file by its content, so copied), and an
    include of a .cu outside the tree, or of none, became a .hip name that does not exist."""
    tree, lib = tmp_path / "t" / "src", tmp_path / "t" / "lib"
    tree.mkdir(parents=True)
    lib.mkdir()
    (tmp_path / "ext").mkdir()
    (tree / "k.cu").write_text("__global__ void k(float* a) { a[0] = 1; }\n")
    (lib / "l.cu").write_text("__global__ void l() {}\n")
    (tmp_path / "ext" / "e.cu").write_text("__global__ void e() {}\n")
    (tree / "main.cpp").write_text('#include "k.cu"\nint main() { return 0; }\n')
    (tree / "u.cu").write_text('#include "k.cu"\n#include "../lib/l.cu"\n#include "../../ext/e.cu"\n'
                               '#include "nowhere.cu"\n__global__ void j() {}\n')
    out = tmp_path / "out"
    r = hipport("port", tmp_path / "t", "--rename-extensions", "-o", out)
    assert r.returncode == 0, r.stderr
    assert (out / "src" / "main.cpp").read_text().startswith('#include "k.hip"\n')
    assert (out / "src" / "u.hip").read_text().endswith(
        '#include "k.hip"\n#include "../lib/l.hip"\n#include "../../ext/e.cu"\n'
        '#include "nowhere.cu"\n__global__ void j() {}\n')
    assert (out / "src" / "k.hip").is_file() and (out / "lib" / "l.hip").is_file()
    # Ported alone, src/ is the tree: lib/l.cu lies outside it and keeps its name. One cache
    # answers both trees, each with its own result (the file's stat is the same in both).
    cache = tmp_path / "cache"
    for folder, lib_include in [(tmp_path / "t", "+#include \"../lib/l.hip\""),
                                (tree, " #include \"../lib/l.cu\""),
                                (tmp_path / "t", "+#include \"../lib/l.hip\"")]:
        r = hipport("port", folder, "--rename-extensions", "--diff", "--cache-dir", cache)
        assert lib_include in r.stdout.decode().splitlines(), (folder, r.stdout)


def test_the_report_index_counts_failed_files_once(tmp_path: Path) -> None:
    """The files card said "0 failed" beside "Files that failed (9)", which counted files that
    were only in part not parsed (HP005): those have their own list, and the card names both."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.cu").write_text("__global__ void k(float* a) { a[0] = 1; }\n")
    (src / "odd.cu").write_text("__global__ void k(float* a) {\n  TCNN_PRAGMA_UNROLL\n"
                                "  for (int i = 0; i < 4; ++i) a[i] = 0;\n}\n")
    r = hipport("report", src, "-o", tmp_path / "rep", "--no-cache")
    assert r.returncode == 0, r.stderr
    index = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "2 changed, 0 failed, 1 not fully parsed," in index
    assert 'id="failed-files"' not in index
    assert "Files in part not parsed (1)" in index and "odd.cu</a>: parts could not be parsed" in index
