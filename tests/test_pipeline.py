"""The pipeline's caches on real files: what a warm run reads, opens and writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipport import cache as cachemod
from hipport import pipeline
from hipport.commands.port import Mirror
from hipport.config import Config
from hipport.model import FileStatus
from hipport.workspace import discover

KERNEL = b"""#include <cuda_runtime.h>
__global__ void k(float* a) { a[threadIdx.x % 32] = __shfl_down_sync(0xffffffff, a[0], 16); }
int main() { float* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaFree(d); }
"""


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    for i in range(3):
        (src / "a" / f"k{i}.cu").write_bytes(KERNEL.replace(b"void k(", b"void k%d(" % i))
    (src / "notes.txt").write_text("copied as is\n")
    return src


def _run(src: Path, out: Path, cache: Path) -> pipeline.RunResult:
    return pipeline.run(discover([src]), Config(jobs=1), cache_dir=cache, sink=Mirror(str(out), False))


class _Refused(Exception):
    pass


def _no_database(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*a: object, **k: object) -> None:
        raise _Refused("the run opened the results database")
    monkeypatch.setattr(cachemod, "Cache", refuse)


def test_an_untouched_tree_is_answered_from_the_snapshot_alone(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    src, out, cache = _tree(tmp_path), tmp_path / "out", tmp_path / "cache"
    first = _run(src, out, cache)
    assert first.count(FileStatus.PORTED) == 3 and (out / "notes.txt").read_text() == "copied as is\n"
    with monkeypatch.context() as m:
        _no_database(m)
        warm = _run(src, out, cache)  # neither the database nor any source file is opened
        assert warm.cached == 3 and warm.count(FileStatus.PORTED) == 3
        assert [(r.path, r.status, r.digest) for r in warm.files] == \
            [(r.path, r.status, r.digest) for r in first.files]
        (src / "a" / "k1.cu").write_bytes(KERNEL + b"// edited\n")
        with pytest.raises(_Refused):
            _run(src, out, cache)  # a changed stat means a real run
    again = _run(src, out, cache)
    assert again.cached == 2 and b"// edited" in (out / "a" / "k1.cu").read_bytes()


@pytest.mark.parametrize("change", ["new input", "deleted input", "edited output", "deleted output"])
def test_any_change_to_inputs_or_outputs_bypasses_the_snapshot(tmp_path: Path, change: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    src, out, cache = _tree(tmp_path), tmp_path / "out", tmp_path / "cache"
    _run(src, out, cache)
    target = out / "a" / "k0.cu"
    ported = target.read_bytes()
    if change == "new input":
        (src / "a" / "k9.cu").write_bytes(KERNEL)
    elif change == "deleted input":
        (src / "a" / "k2.cu").unlink()
    elif change == "edited output":
        target.write_bytes(b"edited by hand\n")
    else:
        target.unlink()
    with monkeypatch.context() as m:
        _no_database(m)
        with pytest.raises(_Refused):
            _run(src, out, cache)
    r = _run(src, out, cache)
    assert target.read_bytes() == ported
    assert len(r.files) == {"new input": 5, "deleted input": 3}.get(change, 4)


def test_a_touched_file_is_found_by_content_and_its_output_left_alone(tmp_path: Path) -> None:
    src, out, cache = _tree(tmp_path), tmp_path / "out", tmp_path / "cache"
    _run(src, out, cache)
    target = out / "a" / "k0.cu"
    before = target.stat().st_mtime_ns
    st = (src / "a" / "k0.cu").stat()
    os.utime(src / "a" / "k0.cu", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    r = _run(src, out, cache)
    assert r.cached == 3 and not r.details  # nothing was ported again
    assert target.stat().st_mtime_ns == before


def test_a_run_with_a_failure_leaves_no_snapshot(tmp_path: Path) -> None:
    src, out, cache = _tree(tmp_path), tmp_path / "out", tmp_path / "cache"
    files = discover([src])
    (src / "a" / "k1.cu").unlink()  # gone between discovery and the run
    r = pipeline.run(files, Config(jobs=1), cache_dir=cache, sink=Mirror(str(out), False))
    assert r.count(FileStatus.FAILED) == 1
    assert not list(cache.glob("run-*"))  # the next run looks at every file again


def test_outputs_get_the_permissions_of_their_sources(tmp_path: Path) -> None:
    src, out, cache = _tree(tmp_path), tmp_path / "out", tmp_path / "cache"
    (src / "a" / "k0.cu").chmod(0o755)
    (src / "a" / "k1.cu").chmod(0o600)
    _run(src, out, cache)
    assert (out / "a" / "k0.cu").stat().st_mode & 0o777 == 0o755
    assert (out / "a" / "k1.cu").stat().st_mode & 0o777 == 0o600
    assert not list(out.rglob("*.hipport-tmp"))


def test_only_the_last_few_snapshots_are_kept(tmp_path: Path) -> None:
    src, cache = _tree(tmp_path), tmp_path / "cache"
    for i in range(cachemod.KEEP_SNAPSHOTS + 3):  # each output folder is another command
        _run(src, tmp_path / f"out{i}", cache)
    assert len(list(cache.glob("run-*.json"))) == cachemod.KEEP_SNAPSHOTS


def test_the_runs_dependency_lists_merge_entry_by_entry_as_a_whole_parse_would() -> None:
    """`_Deps.add` parses only the entries no earlier list of the run had, cut from the JSON
    text; paths that spell brackets, quotes and the cut itself come out whole, and a path seen
    with two identities is marked changed during the run."""
    import json
    import random

    from hipport.model import Included

    rnd = random.Random(7)
    pieces = ["a", "/", '"', "\\", "]", "[", ",", " ", "é", "\n", '],["', '"]],["', "]]]"]
    paths = ["/" + "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 8))) for _ in range(25)]
    pool = [Included(p, None, ident) for p in paths for ident in ([], [1, 2, 3], [4, 5, 6])]
    for _ in range(200):
        ours, whole = pipeline._Deps(), pipeline._Deps()
        for _ in range(rnd.randint(1, 6)):
            tail = pipeline._deps_sig(rnd.sample(pool, rnd.randint(1, 12)))
            ours.add(tail)
            whole._merge(json.loads(tail))
        assert ours.merged == whole.merged
