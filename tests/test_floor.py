"""The ROCm floor (hipport/floor.py, rules/floors.toml): one version type, the releases a floor
can name, and the features passes ask about."""

from __future__ import annotations

import io
import tokenize
from dataclasses import replace

import pytest

from hipport import floor as floormod
from hipport.config import Config
from hipport.errors import HipportError
from hipport.floor import features, floor, releases, version
from hipport.paths import rules_dir
from hipport.rules import _load
from tests.conftest import ROOT


def test_versions_compare_as_tuples() -> None:
    assert version("6.2") == (6, 2) and version("6.4.43484") == (6, 4, 43484)
    assert version("7.12") > version("7.2") > version("6.4")
    assert floor("6.2").at_least("6.2") and not floor("6.2").at_least("6.3")
    assert floor("6.2.4").at_least("6.2") and floor("6.2").lacks("7.0")
    assert str(floor("6.2")) == "6.2" and Config().floor == floor("5.2")


@pytest.mark.parametrize("bad", ["9.9.9", "6.9", "4.5", "banana", "6", "6.2.x"])
def test_an_unknown_floor_is_a_usage_error(bad: str) -> None:
    with pytest.raises(HipportError) as e:
        floor(bad)
    assert e.value.exit_code == 2 and repr(bad) in str(e.value) and "\n" not in str(e.value)


def test_releases_are_in_order() -> None:
    vs = [version(r) for r in releases()]
    assert vs == sorted(vs) and len(set(vs)) == len(vs) and releases()[0] == "5.0"


def test_every_table_version_is_a_release() -> None:
    """The tables' `since` and `floors` versions name releases a floor can be set to."""
    rs = _load("hipblas", str(rules_dir()))
    seen = {m.since for m in rs.names.values()} | {f for m in rs.names.values() for f, _ in m.floors}
    seen |= {h.since for h in rs.headers.values()} | {f for h in rs.headers.values() for f, _ in h.floors}
    unknown = sorted(v for v in seen if ".".join(v.split(".")[:2]) not in releases())
    assert not unknown, f"versions the tables name that rules/floors.toml does not list: {unknown}"


def test_features_name_releases() -> None:
    assert features() and all(since in releases() for since in features().values())
    assert not floor("6.4").has("warp-sync-builtins") and floor("7.0").has("warp-sync-builtins")
    assert floor("5.7").has("shfl-wraps-source-lane") and not floor("5.6").has("shfl-wraps-source-lane")
    with pytest.raises(KeyError):
        floor("7.0").has("no-such-feature")


def test_passes_ask_the_floor() -> None:
    """translate/ and wave64/ never compare `config.rocm` themselves (messages may show it)."""
    found = []
    for path in sorted([*(ROOT / "hipport" / "translate").rglob("*.py"), *(ROOT / "hipport" / "wave64").rglob("*.py")]):
        toks = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
        for a, dot, b in zip(toks, toks[1:], toks[2:], strict=False):
            if a.string == "config" and dot.string == "." and b.string in ("rocm", "rocm_at_least"):
                found.append(f"{path.relative_to(ROOT)}:{b.start[0]}")
    assert not found, "ask config.floor (has / at_least) instead:\n" + "\n".join(found)


def test_the_floor_follows_the_config() -> None:
    assert replace(Config(), rocm="7.0").floor.has("tile-votes")
    assert floormod.check("6.2") is None and floormod.check("6.9") is not None
