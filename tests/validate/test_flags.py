"""The grammar a tree's value must match before it reaches a compiler (flags.py): what passes,
what is dropped and why, one note per value naming its file and line; and the readers that
find the values (compile database, CMake, Makefile) with their lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport.validate import project
from hipport.validate.flags import (
    DEFINE,
    FORCED,
    INCLUDE,
    STD,
    SYSTEM_INCLUDE,
    UNDEFINE,
    Checker,
    Flags,
    Value,
    load_compdb,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "inc").mkdir(parents=True)
    (root / "inc" / "forced.h").write_text("#pragma once\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.h").write_text("")
    (root / "link-out").symlink_to(tmp_path / "outside")
    (root / "x;cd;id").mkdir()  # an odd name, but a real folder of the tree: harmless in an argv list
    return root


def _check(tree: Path, kind: str, text: str) -> tuple[Flags, list[str]]:
    c = Checker(tree, given_dirs=[tree.parent / "given"])
    flags = c.flags([Value(kind, text, tree / "CMakeLists.txt", 7, tree)])
    return flags, [d.message for d in c.dropped]


PASS = [
    pytest.param(DEFINE, "NDEBUG", id="a-bare-name"),
    pytest.param(DEFINE, "SCALE=2", id="a-name-and-a-value"),
    pytest.param(DEFINE, 'GREETING="hello world"', id="a-string-literal-with-a-blank"),
    pytest.param(DEFINE, "MASK=(1<<5)|(FLAG&3)", id="an-expression-with-shell-operators-is-c"),
    pytest.param(DEFINE, "EMPTY=", id="an-empty-value"),
    pytest.param(UNDEFINE, "NDEBUG", id="an-undefine"),
    pytest.param(STD, "c++17", id="a-standard"),
    pytest.param(STD, "gnu++14", id="a-gnu-dialect"),
    pytest.param(INCLUDE, "inc", id="a-folder-of-the-tree"),
    pytest.param(INCLUDE, "x;cd;id", id="an-odd-but-real-folder-of-the-tree"),
    pytest.param(SYSTEM_INCLUDE, "/usr/include", id="a-folder-the-compiler-searches"),
    pytest.param(FORCED, "inc/forced.h", id="a-header-of-the-tree"),
]


@pytest.mark.parametrize(("kind", "text"), PASS)
def test_a_value_of_the_grammar_reaches_the_compiler(tree: Path, kind: str, text: str) -> None:
    flags, dropped = _check(tree, kind, text)
    assert dropped == []
    assert flags != Flags()


DROP = [
    pytest.param(DEFINE, "X=;cd;echo hi > F;.a", "its value holds a ';'", id="a-command-after-a-separator"),
    pytest.param(DEFINE, "X=`id`", "its value holds a backquote", id="a-command-substitution"),
    pytest.param(DEFINE, "X=$(id)", "its value holds a '$'", id="a-dollar-substitution"),
    pytest.param(DEFINE, "X=a\nb", "control character", id="a-newline"),
    pytest.param(DEFINE, "-fplugin=evil.so", "an option, not a value", id="an-option"),
    pytest.param(DEFINE, "@rsp", "response file", id="a-response-file"),
    pytest.param(DEFINE, "echo hi", "not a C identifier", id="a-name-with-a-blank"),
    pytest.param(DEFINE, "F(a)=a", "not a C identifier", id="a-function-like-macro"),
    pytest.param(DEFINE, "", "empty", id="nothing"),
    pytest.param(UNDEFINE, "X;Y", "not a C identifier", id="an-undefine-of-two"),
    pytest.param(STD, "c++17 -fplugin=x", "not a language standard", id="a-standard-with-more"),
    pytest.param(STD, "c++99999", "not a language standard", id="an-unknown-standard"),
    pytest.param(INCLUDE, "missing", "no such folder", id="a-folder-that-is-not-there"),
    pytest.param(SYSTEM_INCLUDE, "x;cd;id > F;.a", "no such folder", id="a-command-as-a-folder"),
    pytest.param(INCLUDE, "../outside", "outside the tree", id="a-folder-above-the-tree"),
    pytest.param(INCLUDE, "link-out", "outside the tree", id="a-link-out-of-the-tree"),
    pytest.param(INCLUDE, "@inc", "response file", id="a-response-file-as-a-folder"),
    pytest.param(INCLUDE, "-Xclang", "an option", id="an-option-as-a-folder"),
    pytest.param(INCLUDE, "inc\x1b[31m", "control character", id="a-terminal-escape"),
    pytest.param(FORCED, "../outside/secret.h", "outside the tree", id="a-header-above-the-tree"),
    pytest.param(FORCED, "inc", "no such file", id="a-folder-as-a-header"),
]


@pytest.mark.parametrize(("kind", "text", "why"), DROP)
def test_anything_else_is_dropped_with_one_note_naming_file_and_line(tree: Path, kind: str, text: str,
                                                                     why: str) -> None:
    flags, dropped = _check(tree, kind, text)
    assert flags == Flags()
    assert len(dropped) == 1 and why in dropped[0], dropped
    assert dropped[0].startswith(f"{kind} {text!r} not passed to the compiler: ")


def test_a_value_many_units_share_is_one_note(tree: Path) -> None:
    c = Checker(tree)
    v = Value(DEFINE, "X=;id", tree / "Makefile", 3, tree)
    for _ in range(5):
        c.flags([v, Value(DEFINE, "OK=1", tree / "Makefile", 3, tree)])
    assert len(c.dropped) == 1 and (c.dropped[0].line, c.dropped[0].file.endswith("tree/Makefile")) == (3, True)
    assert str(c.dropped[0]).endswith("tree/Makefile:3: note: define 'X=;id' not passed to the compiler: "
                                      "its value holds a ';'")


def test_a_folder_given_on_the_command_line_is_the_users(tree: Path) -> None:
    given = tree.parent / "outside"
    c = Checker(tree, given_dirs=[given])
    assert c.flags([Value(INCLUDE, str(given), tree / "CMakeLists.txt", 1)]).includes == (given.resolve(),)
    assert c.dropped == []


def test_the_compile_database_gives_each_value_its_line(tree: Path) -> None:
    db = tree / "compile_commands.json"
    db.write_text(json.dumps([
        {"directory": str(tree), "file": "a.cu",
         "arguments": ["nvcc", "-Iinc", "--define-macro=A=1", "-DB", "-UC", "--std=c++14", "-isystem", "/usr/include",
                       "--pre-include", "inc/forced.h", "-o", "@out", "-Xcompiler", "-fplugin=x.so", "a.cu"]},
        {"directory": str(tree), "file": "b.cu", "command": "nvcc '-DQ=1;id' -std=c++17 -c b.cu"},
        {"directory": str(tree), "file": "c.cu", "command": "nvcc 'unbalanced -c c.cu"},
    ], indent=1))
    got = load_compdb(tree)
    a = got[(tree / "a.cu").resolve()]
    assert [(v.kind, v.text) for v in a] == [(INCLUDE, "inc"), (DEFINE, "A=1"), (DEFINE, "B"), (UNDEFINE, "C"),
                                             (STD, "c++14"), (SYSTEM_INCLUDE, "/usr/include"),
                                             (FORCED, "inc/forced.h")]  # never -o, -Xcompiler or the compiler
    lines = db.read_text().splitlines()
    assert all(v.text in lines[v.line - 1] for v in a if v.kind != STD)
    b = got[(tree / "b.cu").resolve()]
    assert [(v.kind, v.text, v.line) for v in b] == [(DEFINE, "Q=1;id", lines.index(next(x for x in lines if "Q=1" in x)) + 1),
                                                     (STD, "c++17", b[1].line)]
    assert got[(tree / "c.cu").resolve()] == []  # a command that does not split is not read
    flags = Checker(tree).flags(a)
    assert flags.defines == ("A=1", "B", "!C") and flags.std == "c++14" and flags.forced == ((tree / "inc/forced.h"),)


def test_cmake_and_makefile_values_with_their_lines(tree: Path) -> None:
    (tree / "CMakeLists.txt").write_text(
        "project(p)\n"
        'add_compile_definitions(A=1 "B=2;C" -DD)\n'
        "add_definitions(-DE -fplugin=x.so)\n"
        "include_directories(${CMAKE_CURRENT_SOURCE_DIR}/inc ${UNKNOWN}/x)\n"
        "target_compile_definitions(t PRIVATE $<$<CONFIG:Debug>:DBG> F)\n"
        "set(CMAKE_CUDA_STANDARD 14)\nset(CMAKE_CXX_STANDARD 17)\n")
    (tree / "Makefile").write_text("CFLAGS = -Iinc -DM=1 $(EXTRA)\n\nNVFLAGS = -D$(X) -std=c++14 -DN=;id\n")
    got = [(v.kind, v.text, v.line) for v in project.project_values(tree)]
    assert got == [(DEFINE, "A=1", 2), (DEFINE, "B=2", 2), (DEFINE, "C", 2), (DEFINE, "D", 2),
                   (DEFINE, "E", 3), (DEFINE, "-fplugin=x.so", 3), (INCLUDE, str(tree / "inc"), 4),
                   (DEFINE, "F", 5), (STD, "c++17", 7),
                   (INCLUDE, "inc", 1), (DEFINE, "M=1", 1), (DEFINE, "N=;id", 3), (STD, "c++14", 3)]
