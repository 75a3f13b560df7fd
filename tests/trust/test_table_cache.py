"""The compiled rule tables in the user cache are data: a pickle planted there never runs, a
JSON file of the wrong shape is built again (never an error), and only an absolute
$XDG_CACHE_HOME is a cache folder."""

from __future__ import annotations

import json
import os
import pickle
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from hipport import __version__
from hipport import rules as rulesmod
from hipport.config import Config
from hipport.rules import tablecache as rulecache
from tests.conftest import hipport
from tests.trust.conftest import cuda_tree
from tests.trust.test_cache_trust import _Payload

NAME = f"rules-{rulesmod.libraries_key(Config())}-{Config().rocm}"  # what a default configuration loads


def _lint(tree: Path, xdg: str | Path, cwd: Path | None = None,
          home: Path | None = None) -> tuple[int, object, str]:
    """(exit code, findings and file statuses, stderr) of a JSON lint without the result
    cache: the tables are all that is cached."""
    env = {"XDG_CACHE_HOME": str(xdg), **({"HOME": str(home)} if home else {})}
    p = hipport("lint", tree, "--format", "json", "--no-cache", "--fail-on", "info", env=env, cwd=cwd)
    data = json.loads(p.stdout) if p.stdout else None
    shown = data and (data["findings"], [(f["path"], f["status"]) for f in data["files"]])
    return p.returncode, shown, p.stderr.decode()


def _table_file(xdg: Path) -> Path:
    (found,) = (xdg / "hipport" / "tables").glob(f"*-{NAME}.json")
    return found


def _plant(path: Path, data: bytes) -> None:
    """Put `data` where hipport reads its tables, as this user's own private file (so the
    ownership check passes and only the format stands between the file and the run)."""
    path.write_bytes(data)
    os.chmod(path, 0o600)
    os.chmod(path.parent, 0o700)
    assert rulecache._ours(path) == data


def test_a_planted_pickle_never_runs_and_the_tables_are_rebuilt(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    xdg = tmp_path / "xdg"
    clean = _lint(tree, xdg)
    assert clean[0] == 1 and clean[1] and clean[2] == ""
    table = _table_file(xdg)
    marker = tmp_path / "PWNED"
    evil = pickle.dumps(_Payload(marker))
    _plant(table, evil)  # under the name hipport reads now
    digest = table.name.split("-")[2]
    old = table.with_name(f"{__version__}-p6-{digest}-{NAME}.pickle")  # the name hipport read before
    _plant(old, evil)
    assert _lint(tree, xdg) == clean
    assert not marker.exists()
    assert table.read_bytes() != evil and json.loads(table.read_bytes())["label"] == table.name
    assert not old.exists()  # a pickle of an older hipport is removed with the stale builds


@cache
def _dumped() -> bytes:
    return rulecache.dump(rulesmod._load("rocblas,rocblas_types,rocsparse", None, "7.0"), "label")  # with overrides


def _doc() -> dict[str, Any]:
    return json.loads(_dumped())  # type: ignore[no-any-return]


def _set(*path: str | int, to: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        where: Any = doc
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = to
    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc.pop(key)  # type: ignore[no-any-return]


def _first_sparse(field: str, part: str, to: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        doc["mappings"][field][part][0] = to
    return change


# Each is one way a file can be of the wrong shape; each must read as Invalid (built again).
WRONG = [
    pytest.param(_set("format", to=rulecache.FORMAT + 1), id="another-format"),
    pytest.param(_set("shape", to="0" * 12), id="another-shape"),
    pytest.param(_set("label", to="another-file.json"), id="a-file-copied-under-another-name"),
    pytest.param(_drop("mappings"), id="no-mappings"),
    pytest.param(_set("counts", to=[1, 2]), id="two-counts"),
    pytest.param(_set("counts", 0, to=-1), id="a-negative-count"),
    pytest.param(_set("counts", 0, to=10**12), id="a-huge-count"),
    pytest.param(_set("counts", 0, to="9"), id="a-count-as-text"),
    pytest.param(_set("counts", 0, to=True), id="a-count-as-bool"),
    pytest.param(_set("mappings", "cuda", 0, to=7), id="a-name-as-a-number"),
    pytest.param(_set("mappings", "cuda", 0, to=None), id="a-name-missing"),
    pytest.param(_set("mappings", "cuda", 0, to="cuda Malloc"), id="a-name-with-a-space"),
    pytest.param(_set("mappings", "cuda", 0, to="cudaMall\u00f6c"), id="a-name-not-ascii"),
    pytest.param(_set("mappings", "hip", 0, to=["hipMalloc"]), id="a-hip-name-as-a-list"),
    pytest.param(_set("mappings", "kind", 0, to="gadget"), id="an-unknown-kind"),
    pytest.param(_set("mappings", "status", 0, to={"s": 1}), id="a-status-as-an-object"),
    pytest.param(_set("mappings", "since", 0, to="six"), id="a-since-that-is-no-version"),
    pytest.param(_set("mappings", "since", 0, to="6.\u00b2"), id="a-since-with-a-superscript"),
    pytest.param(lambda d: d["mappings"]["cuda"].pop(), id="a-column-too-short"),
    pytest.param(_set("mappings", "extra", to=[]), id="a-field-hipport-lacks"),
    pytest.param(lambda d: d["mappings"].pop("value"), id="a-field-missing"),
    pytest.param(_set("mappings", "cuda", to={"at": [], "v": []}), id="a-required-field-sparse"),
    pytest.param(_first_sparse("note", "at", -1), id="a-sparse-row-before-the-first"),
    pytest.param(_first_sparse("note", "at", 10**9), id="a-sparse-row-after-the-last"),
    pytest.param(_first_sparse("note", "at", 1.5), id="a-sparse-row-number-not-an-int"),
    pytest.param(_first_sparse("note", "v", 3), id="a-note-as-a-number"),
    pytest.param(lambda d: d["mappings"]["note"]["v"].pop(), id="a-sparse-column-one-short"),
    pytest.param(_first_sparse("level", "v", "3"), id="a-level-as-text"),
    pytest.param(_first_sparse("floors", "v", [["6.0"]]), id="a-floor-without-a-name"),
    pytest.param(_first_sparse("floors", "v", [["later", "hipX"]]), id="a-floor-that-is-no-version"),
    pytest.param(_first_sparse("floors", "v", "6.0=hipX"), id="floors-as-text"),
    pytest.param(_set("headers", "hip", to=7), id="a-header-column-as-a-number"),
    pytest.param(_set("n_headers", to=None), id="no-header-count"),
    pytest.param(_set("families", to=["cuda"]), id="families-as-a-list"),
    pytest.param(_set("families", "runtime", to=1), id="a-family-title-as-a-number"),
    pytest.param(_set("namespace_families", to="cub"), id="namespace-families-as-text"),
    pytest.param(_set("overrides", 0, to=["rocblas", [], []]), id="an-override-short"),
    pytest.param(_set("overrides", 0, 1, to=[1]), id="an-override-family-as-a-number"),
    pytest.param(_set("overrides", 0, 3, to=10**6), id="an-override-counting-past-the-end"),
]


@pytest.mark.parametrize("change", WRONG)
def test_a_table_file_of_the_wrong_shape_is_invalid(change: Callable[[dict[str, Any]], None]) -> None:
    doc = _doc()
    rulecache.load(json.dumps(doc).encode(), "label")  # as written, it loads
    change(doc)
    with pytest.raises(rulecache.Invalid):
        rulecache.load(json.dumps(doc).encode(), "label")


@pytest.mark.parametrize("data", [b"", b"\xff\xfe", b"[" * 100000, b'{"format": 1}', b"null", b"7"],
                         ids=["empty", "not-utf8", "deep", "a-stub", "null", "a-number"])
def test_damaged_bytes_are_invalid(data: bytes) -> None:
    with pytest.raises(rulecache.Invalid):
        rulecache.load(data, "label")


def test_a_table_file_with_wrong_types_is_rebuilt_by_a_real_run(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    xdg = tmp_path / "xdg"
    clean = _lint(tree, xdg)
    table = _table_file(xdg)
    doc = json.loads(table.read_bytes())
    doc["mappings"]["hip"] = [1] * len(doc["mappings"]["hip"])
    _plant(table, json.dumps(doc).encode())
    assert _lint(tree, xdg) == clean  # the same findings, no note, no error
    rulecache.load(table.read_bytes(), table.name)  # and the file is whole again


def test_a_relative_cache_home_writes_nothing_where_the_run_starts(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    rc, out, err = _lint(tree, "relcache", cwd=tree, home=home)
    assert rc == 1 and "Traceback" not in err
    p = hipport("port", tree / "a", "--in-place", cwd=tree,  # the lock and the result cache too
                env={"XDG_CACHE_HOME": "relcache", "HOME": str(home)})
    assert p.returncode in (0, 1), p.stderr.decode()
    made = {p.relative_to(tmp_path).parts[0] for p in tmp_path.rglob("*")
            if p.relative_to(tmp_path) not in before}
    assert made == {"home"}  # the cache, under HOME
    assert not list(tree.rglob("relcache")) and not list(tmp_path.rglob("relcache"))
    cache = home / ".cache" / "hipport"
    assert _table_file(home / ".cache").is_file()
    assert (cache / "locks").is_dir() and (cache / "trees").is_dir()


def test_the_user_cache_takes_an_absolute_xdg_cache_home_only(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport.paths import user_cache

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for relative in ("relcache", "./relcache", "~/x", ""):
        monkeypatch.setenv("XDG_CACHE_HOME", relative)
        assert user_cache() == tmp_path / "home" / ".cache" / "hipport", relative
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache() == tmp_path / "xdg" / "hipport"
    assert rulecache.path_for(NAME).parent == tmp_path / "xdg" / "hipport" / "tables"
