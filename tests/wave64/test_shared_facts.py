"""A pool's workers share the facts of large headers (hipport.memo.shared_by_workers): what one
worker found, another reads instead of analysing the header again, and an entry that is not
such facts is ignored."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipport import closure, memo
from hipport.wave64 import facts as factspkg
from hipport.wave64.facts import headers
from tests.wave64.helpers import config

# A header past headers.SHARE_BYTES with a warp constant, a macro body, a constant, an
# enumerator, a platform macro and device functions.
HEADER = ("#pragma once\n#define WARP 32\n#define FULL 0xffffffffu\nconst int kTile = 16;\n"
          "enum { kLanes = 32 };\n#if defined(__HIP_PLATFORM_AMD__)\n#define PROJ_HIP 1\n#endif\n"
          "__device__ inline unsigned lane() { return threadIdx.x % WARP; }\n"
          "__device__ inline float red(float v) { for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);"
          " return v; }\n" + "// the rest of a large header\n" * 400)


def _no_analysis(*_a: object, **_k: object) -> None:
    raise AssertionError("analysed again: the other worker's facts were not read")


@pytest.fixture
def header(tmp_path: Path) -> tuple[str, bytes, closure.Closure]:
    path = tmp_path / "w.cuh"
    path.write_text(HEADER)
    src = tmp_path / "k.cu"
    src.write_text('#include "w.cuh"\n')
    assert path.stat().st_size >= headers.SHARE_BYTES
    return str(path), path.read_bytes(), closure.read(str(src), src.read_bytes())


def test_a_headers_facts_found_by_one_worker_are_read_by_another(header: tuple[str, bytes, closure.Closure],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path, data, cl = header
    cfg = config("auto")
    with memo.shared_by_workers():
        own = headers._own(path, data, cfg)
        sums = headers._summaries(cl, path, cfg)
        assert own.consts["WARP"] == (32, False) and own.bodies["FULL"] == "0xffffffffu"
        assert own.values["kTile"][0] == 16 and own.values["kLanes"][0] == 32 and "PROJ_HIP" in own.platform
        assert "red" in sums and sums["red"].reduce
        headers._OWN.clear()  # another worker: its own memos are empty
        headers._SUMS.clear()
        monkeypatch.setattr(factspkg, "Facts", _no_analysis)
        assert headers._own(path, data, cfg) == own
        assert headers._summaries(cl, path, cfg) == sums


@pytest.mark.parametrize("junk", [b"not json", b"[1, 2]", b'[{"WARP": [32, "yes"]}, [], {}, {}, {}]',
                                  b'[[["red", [1, 2, 3]]]]', b"null"])
def test_an_entry_that_is_not_facts_is_ignored(header: tuple[str, bytes, closure.Closure], junk: bytes) -> None:
    path, data, cl = header
    cfg = config("auto")
    with memo.shared_by_workers():
        own = headers._own(path, data, cfg)
        sums = headers._summaries(cl, path, cfg)
        assert memo._SHARED is not None
        for name in os.listdir(memo._SHARED):
            Path(memo._SHARED, name).write_bytes(junk)
        headers._OWN.clear()
        headers._SUMS.clear()
        assert headers._own(path, data, cfg) == own
        assert headers._summaries(cl, path, cfg) == sums


def test_the_folder_is_removed_and_so_are_those_of_killed_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen(["true"])
    gone.wait()  # a process id that no process has now
    stale = tmp_path / f"hipport-shared-{gone.pid}-abc123"
    live = tmp_path / f"hipport-shared-{os.getpid()}-def456"  # this process runs
    other = tmp_path / "hipport-shared-notes"
    for d in (stale, live, other):
        d.mkdir()
    with memo.shared_by_workers():
        assert memo._SHARED is not None and Path(memo._SHARED).parent == tmp_path
        mine = Path(memo._SHARED)
    assert not stale.exists() and live.exists() and other.exists() and not mine.exists()


def test_without_a_writable_temporary_folder_each_worker_finds_its_own(header: tuple[str, bytes, closure.Closure],
                                                                        tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    path, data, _cl = header
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    with memo.shared_by_workers():
        assert memo._SHARED is None
        assert headers._own(path, data, config("auto")).consts["WARP"] == (32, False)
