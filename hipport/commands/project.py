"""The project a command's files belong to, as the analysis needs it: the include folders
their headers are looked up in and the headers whose name is unique in the tree (issue 31).

In order: the configuration's folders (-I, `include-paths`: the user's own, taken as given),
then compile_commands.json's (-p, `compile-commands`), then those the tree's CMake files and
Makefiles name (for a file named alone, the nearest above it: `include_directories`, `target_include_directories`, `-I`). Values read from
the tree pass validate.flags' grammar first (a folder inside the tree, the current folder or
the configuration's, or given on the command line; no option or response file), as for a
compile; a dropped value is a note naming its file and line. The folders come after the file's own folder and those above it (hipport.closure).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hipport.config import Config
from hipport.workspace import BUILD, CXX_EXT, HEADER_EXT, WorkFile, role_by_name

if TYPE_CHECKING:
    from hipport.validate.flags import Value

_HEADER_EXT = HEADER_EXT | {e for e in CXX_EXT if e.startswith((".h", ".i", ".t"))}


def with_project(config: Config, files: list[WorkFile], note: Callable[[str], None]) -> Config:
    """`config` with the project's include folders and unique headers; `note` is told of
    each tree value left out."""
    unique = unique_headers(files)
    builds = _build_files(files) if config.build_files else []
    if not builds and not config.compile_commands:
        return replace(config, unique_headers=unique)
    from hipport.validate.flags import INCLUDE, SYSTEM_INCLUDE, Checker, load_compdb
    from hipport.validate.project import read_cmake, read_makefile

    # The tree: the roots of the files, the current folder (a project's root, where a user
    # runs hipport) and the configuration file's folder.
    roots = sorted({str(wf.root.resolve()) for wf in files} | {os.getcwd()} | {
        str(Path(o).resolve().parent) for _, o in config.sources if o.endswith(".toml")})
    given = [Path(p) for p in config.include_paths]
    values: list[Value] = []
    extra_roots: list[Path] = []
    if config.compile_commands:
        db = Path(config.compile_commands)
        extra_roots.append(db if db.is_dir() else db.parent)
        for vs in load_compdb(db).values():
            values += vs
    for b in builds:
        p = Path(b)
        values += read_cmake(p).values if p.name == "CMakeLists.txt" or p.suffix == ".cmake" else read_makefile(p)
    checker = Checker([*(Path(r) for r in roots), *extra_roots], given_dirs=given)
    flags = checker.flags(v for v in values if v.kind in (INCLUDE, SYSTEM_INCLUDE))
    found = [str(p) for p in (*flags.includes, *flags.system_includes) if not _system(p)]
    dirs = tuple(dict.fromkeys((*config.include_paths, *found)))
    for d in checker.dropped:
        note(str(d))
    return replace(config, include_paths=dirs, unique_headers=unique)


def _build_files(files: list[WorkFile]) -> list[str]:
    """The build files among `files`, and for a file named alone (its root is its folder) the
    nearest CMakeLists.txt or Makefile at or above it, up to the current folder."""
    out = [wf.file for wf in files if role_by_name(wf.file) == BUILD]
    cwd = Path.cwd()
    for d in sorted({wf.path.resolve().parent for wf in files if wf.rel == wf.path.name}):
        while d.is_relative_to(cwd):
            near = [d / n for n in ("CMakeLists.txt", "Makefile", "makefile", "GNUmakefile") if (d / n).is_file()]
            if near:
                out += [str(p) for p in near]
                break
            if d == cwd:
                break
            d = d.parent
    return list(dict.fromkeys(out))


def _system(p: Path) -> bool:
    """A default search folder (/usr/include): its headers are not the project's."""
    return str(p).startswith(("/usr/include", "/usr/local/include"))


def unique_headers(files: list[WorkFile]) -> tuple[tuple[str, str], ...]:
    """name -> path of each header whose name no other header of the files has."""
    seen: dict[str, str | None] = {}
    for wf in files:
        name = os.path.basename(wf.file)
        if os.path.splitext(name)[1].lower() in _HEADER_EXT:
            seen[name] = None if name in seen else os.path.normpath(os.path.abspath(wf.file))
    return tuple(sorted((n, p) for n, p in seen.items() if p is not None))
