"""Nothing from a tree reaches a shell, and every value a tree gives a compile is checked first.

One real tree per route (CMake, Makefile, compile database with -p, a programs file) holds a
value that runs a canary command when hipcc's Perl hands it to a shell (as `validate` did
before issue 28): the canary must not run, the values that pass must still reach the
compiler, and each dropped value is one note naming its file and line. Then a plain
`hipport validate` runs under a PATH whose sh, bash, dash, perl, hipcc and hipconfig record
any call and fail, with every program hipport's process starts recorded by an audit hook:
none of them may run, no program run may be a script, and the answers stay right."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import hipport, needs_hipcc

hipcc = pytest.mark.hipcc

MAIN = b"""#include <cstdio>
#include <cuda_runtime.h>
#include "scale.h"
__global__ void k(float* a) { a[threadIdx.x] = SCALE; }
int main() { float* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaFree(d); std::printf("%d\\n", SCALE); return 0; }
"""


def _project(root: Path, main: bytes = MAIN) -> Path:
    (root / "inc").mkdir(parents=True)
    (root / "inc" / "scale.h").write_text("#pragma once\n#ifndef SCALE\n#define SCALE 1\n#endif\n")
    (root / "main.cu").write_bytes(main)
    return root


def _validate(cwd: Path, *args: str | Path, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    p = hipport("validate", *args, "--offload-arch", "gfx90a", "--format", "json", "--no-cache", cwd=cwd, env=env)
    assert p.stdout, p.stderr.decode()
    return p.returncode, json.loads(p.stdout)


def _notes(doc: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(n["file"], n["line"], n["message"]) for n in doc["notes"]]


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@hipcc
@needs_hipcc
@pytest.mark.parametrize("pch", ["1", "0"])
def test_a_cmake_definition_or_folder_runs_nothing(tmp_path: Path, pch: str) -> None:
    proj = _project(tmp_path / "proj")
    canary, canary2 = tmp_path / "canary", tmp_path / "canary2"
    cm = proj / "CMakeLists.txt"
    cm.write_text("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
                  f'add_compile_definitions("SCALE=2;cd;echo hi > {canary};.a")\n'
                  f'include_directories("inc;$(touch {canary2})")\n'
                  "add_executable(p main.cu)\n")
    rc, doc = _validate(tmp_path, "proj", env={"HIPPORT_VALIDATE_PCH": pch})
    assert not canary.exists() and not canary2.exists()
    assert (rc, doc["table"]) == (0, [{"file": "proj/main.cu", "compile gfx90a": "pass"}])
    cmd = doc["details"]["compile"][0]["archs"]["gfx90a"]["command"]
    assert "-DSCALE=2" in cmd and f"-I{proj / 'inc'}" not in cmd  # the value that passes is used ...
    assert any(c.startswith("-I") and c.endswith("/inc") for c in cmd)  # ... as its ported copy
    notes = _notes(doc)
    assert [(f, line) for f, line, _ in notes] == [("proj/CMakeLists.txt", 3)] * 2 + [("proj/CMakeLists.txt", 4)]
    assert f"define 'echo hi > {canary}'" in notes[0][2] and "not a C identifier" in notes[0][2]
    assert "define '.a'" in notes[1][2]
    assert f"include folder '$(touch {canary2})'" in notes[2][2] and "no such folder" in notes[2][2]


@hipcc
@needs_hipcc
def test_a_makefile_flag_runs_nothing(tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    home = tmp_path / "home"
    home.mkdir()
    mk = proj / "Makefile"
    mk.write_text("NVCC = nvcc\nCFLAGS = -Iinc -DSCALE=2 -DX=;cd;>canary;.a\n"
                  "all:\n\t$(NVCC) $(CFLAGS) main.cu -o main\n")
    rc, doc = _validate(tmp_path, "proj", env={"HOME": str(home)})
    assert not (home / "canary").exists() and not (proj / "canary").exists()
    assert (rc, doc["table"][0]["compile gfx90a"]) == (0, "pass")
    assert "-DSCALE=2" in doc["details"]["compile"][0]["archs"]["gfx90a"]["command"]
    assert _notes(doc) == [("proj/Makefile", 2, "define 'X=;cd;>canary;.a' not passed to the compiler: "
                                                "its value holds a ';'")]


@hipcc
@needs_hipcc
def test_a_compile_database_value_or_response_file_runs_nothing(tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    (proj / "other.cu").write_bytes(MAIN.replace(b"void k(", b"void k2(").replace(b"k<<<", b"k2<<<"))
    canaries = [tmp_path / f"canary{i}" for i in range(3)]
    (proj / "rsp").write_text(f"x;touch {canaries[0]};.a\n-DSCALE=9\n")  # a response file shipped in the tree
    db = proj / "compile_commands.json"
    db.write_text(json.dumps([
        {"directory": str(proj), "file": "main.cu",
         "arguments": ["nvcc", "-Iinc", "-DSCALE=2", "-isystem", f"x;cd;id > {canaries[1]};.a",
                       "-include", "@rsp", "-c", "main.cu"]},
        {"directory": str(proj), "file": "other.cu",
         "command": f"nvcc -Iinc -DSCALE=3 '-DZ=1;touch {canaries[2]};.a' -c other.cu"},
    ], indent=1))
    rc, doc = _validate(tmp_path, "proj", "-p", "proj")
    assert not any(c.exists() for c in canaries)
    assert rc == 0 and {r["compile gfx90a"] for r in doc["table"]} == {"pass"}
    cmds = {Path(u["file"]).name: u["archs"]["gfx90a"]["command"] for u in doc["details"]["compile"]}
    assert "-DSCALE=2" in cmds["main.cu"] and "-DSCALE=3" in cmds["other.cu"]
    assert not any(c.startswith("@") or "rsp" in c for c in cmds["main.cu"])
    notes = _notes(doc)
    assert [(f, line) for f, line, _ in notes] == [
        ("proj/compile_commands.json", _line_of(db, "x;cd;id")),
        ("proj/compile_commands.json", _line_of(db, '"@rsp"')),
        ("proj/compile_commands.json", _line_of(db, "-DZ=1")),
    ]
    assert "system include folder" in notes[0][2] and "no such folder" in notes[0][2]
    assert "forced include '@rsp'" in notes[1][2] and "response file" in notes[1][2]
    assert "define 'Z=1;touch" in notes[2][2] and "a ';'" in notes[2][2]


@hipcc
@needs_hipcc
@pytest.mark.emulator
def test_a_programs_file_value_runs_nothing(tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    canary, canary2 = tmp_path / "canary", tmp_path / "canary2"
    progs = proj / "progs.toml"
    progs.write_text('[[programs]]\nname = "p"\nsources = ["main.cu"]\n'
                     f'defines = ["SCALE=2", "N=1;touch {canary};.a"]\n'
                     f'include = ["inc", "inc;touch {canary2}", "-fplugin=evil.so"]\n')
    rc, doc = _validate(tmp_path, "proj", "--run", "--no-gpu", "--programs", progs)
    assert not canary.exists() and not canary2.exists()
    run = doc["details"]["runs"][0]
    assert run["emulator"]["ref32"]["status"] == "pass"
    assert run["emulator"]["ref32"]["stdout"] == "2\n"  # SCALE=2, a value that passed, reached g++
    notes = _notes(doc)
    assert [(f, line) for f, line, _ in notes] == [("proj/progs.toml", 5), ("proj/progs.toml", 5),
                                                   ("proj/progs.toml", 4)]
    assert "no such folder" in notes[0][2] and "an option, not a value" in notes[1][2]
    assert f"define 'N=1;touch {canary};.a'" in notes[2][2]


@hipcc
@needs_hipcc
def test_a_dropped_value_is_a_note_in_text_and_sarif(tmp_path: Path) -> None:
    proj = _project(tmp_path / "proj")
    (proj / "CMakeLists.txt").write_text('include_directories(inc)\nadd_compile_definitions("SCALE=2" "-fplugin=evil.so")\n')
    p = hipport("validate", "proj", "--offload-arch", "gfx90a", "--no-cache", cwd=tmp_path)
    assert p.returncode == 0
    assert "proj/CMakeLists.txt:2: note: define '-fplugin=evil.so' not passed to the compiler: it is an " \
           "option, not a value" in p.stdout.decode()
    p = hipport("validate", "proj", "--offload-arch", "gfx90a", "--no-cache", "--format", "sarif", cwd=tmp_path)
    notes = [r for r in json.loads(p.stdout)["runs"][0]["results"] if r["ruleId"] == "tree-value-dropped"]
    assert len(notes) == 1 and notes[0]["level"] == "note"
    loc = notes[0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("proj/CMakeLists.txt") and loc["region"] == {"startLine": 2}


# Records every program the hipport process starts (subprocess, exec, spawn, system), then runs it.
_RECORDER = r"""
import json, os, runpy, sys
log = os.environ["HIPPORT_TEST_EXEC_LOG"]
def hook(event, args):
    if event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system"):
        if event == "subprocess.Popen":
            exe, argv = args[0] or list(args[1])[0], list(args[1])
        elif event == "os.system":
            exe, argv = "/bin/sh", ["sh", "-c", args[0]]
        elif event == "os.spawn":
            exe, argv = args[1], list(args[2])
        else:
            exe, argv = args[0], list(args[1])
        with open(log, "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(json.dumps({"event": event, "exe": os.fsdecode(exe), "argv": [os.fsdecode(a) for a in argv]}) + "\n")
sys.addaudithook(hook)
sys.argv = ["hipport", *sys.argv[1:]]
runpy.run_module("hipport", run_name="__main__", alter_sys=True)
"""
_FORBIDDEN = ("sh", "bash", "dash", "perl", "hipcc", "hipconfig")


@hipcc
@needs_hipcc
def test_plain_validate_runs_no_shell_no_perl_no_hipcc(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.cu").write_bytes(MAIN.replace(b'#include "scale.h"\n', b"#define SCALE 1\n"))
    (src / "bad.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(int* a) { a[0] = not_declared_here; }\n")
    (src / "host.cpp").write_text('#include <cuda_runtime.h>\n#include "dev.h"\nint main() { return cudaFree(0); }\n')
    (src / "dev.h").write_text("__device__ inline int twice(int x) { return 2 * x; }\n")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    called = tmp_path / "called.log"
    for name in _FORBIDDEN:
        (fake / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {called}\nexit 97\n')
        (fake / name).chmod(0o755)
    started = tmp_path / "started.log"
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}", "HIPPORT_TEST_EXEC_LOG": str(started),
           "NO_COLOR": "1"}
    env.pop("HIPPORT_HIPCC", None)
    p = subprocess.run([sys.executable, "-c", _RECORDER, "validate", str(src), "--format", "json"], cwd=tmp_path,
                       env=env, capture_output=True, timeout=600)
    assert not called.exists(), called.read_text()
    runs = [json.loads(line) for line in started.read_text().splitlines()]
    ran = {os.path.basename(os.path.realpath(r["exe"])) for r in runs}
    assert any(name.startswith("clang") for name in ran), ran  # the recorder saw the compiles
    for r in runs:
        exe = r["exe"] if os.path.isabs(r["exe"]) else str(shutil.which(r["exe"], path=env["PATH"]))
        assert r["event"] != "os.system" and os.path.basename(exe) not in _FORBIDDEN, r
        with open(exe, "rb") as f:
            assert f.read(2) != b"#!", f"a script was run: {r}"
    # and the answers are the ones the compiler gives
    doc = json.loads(p.stdout)
    assert p.returncode == 1, p.stderr.decode()
    assert {Path(row["file"]).name: row["compile gfx90a"] for row in doc["table"]} == \
        {"good.cu": "pass", "bad.cu": "fail", "host.cpp": "pass"}
    assert [e["message"] for e in doc["errors"]] == ["use of undeclared identifier 'not_declared_here'"]
    assert doc["details"]["toolchain"]["hip"]["error"] is None


_NO_SHELL_CALLS = {("os", "system"), ("os", "popen"), ("subprocess", "getoutput"), ("subprocess", "getstatusoutput"),
                   ("pty", "spawn")}


def test_no_call_in_hipport_can_reach_a_shell() -> None:
    """Every place hipport starts a program: no shell=True, no os.system/popen, no os.exec*/
    spawn*, and no argv list that starts with a shell, Perl or hipcc."""
    import ast

    found = []
    for path in sorted((Path(__file__).resolve().parents[2] / "hipport").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = (f.value.id, f.attr) if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
            if any(k.arg == "shell" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                   for k in node.keywords):
                found.append(f"{path}:{node.lineno}: shell=")
            if name in _NO_SHELL_CALLS or (name and name[0] == "os" and name[1].startswith(("exec", "spawn"))):
                found.append(f"{path}:{node.lineno}: {'.'.join(name)}")
            first = node.args[0] if node.args else None
            if isinstance(first, ast.List) and first.elts and isinstance(first.elts[0], ast.Constant) \
                    and os.path.basename(str(first.elts[0].value)) in _FORBIDDEN:
                found.append(f"{path}:{node.lineno}: runs {first.elts[0].value}")
    assert found == []
