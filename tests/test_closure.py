"""The include closure (hipport.closure): the headers a source reads, found as the wave64 facts
look them up, and the only place the passes get them from."""

from __future__ import annotations

import os
from pathlib import Path

from hipport import closure
from hipport.config import Config
from hipport.passes import port_bytes
from hipport.source import SourceFile
from hipport.wave64 import run as wave64

USES = b"""#include "warp.h"
__global__ void k(float* d) {
  int lane = threadIdx.x % WARP_SZ;
  float v = __shfl_xor(d[threadIdx.x], 1);
  d[threadIdx.x] = v + lane;
}
"""


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_the_nearest_header_wins_and_a_folder_is_looked_past(tmp_path: Path) -> None:
    top = _write(tmp_path / "a" / "b" / "k.cu", b'#include "x.h"\n#include <y.h>\n')
    (tmp_path / "a" / "b" / "x.h").mkdir()  # not a header: the lookup goes on up
    _write(tmp_path / "a" / "x.h", b"// a\n")
    _write(tmp_path / "x.h", b"// root\n")
    _write(tmp_path / "y.h", b"// y\n")
    cl = closure.read(str(top), top.read_bytes())
    assert list(cl.found) == [str(tmp_path / "a" / "x.h"), str(tmp_path / "y.h")]
    looked = {d.path: d for d in cl.looked}
    assert looked[str(tmp_path / "a" / "b" / "x.h")].data is None  # the folder, with its identity
    assert looked[str(tmp_path / "a" / "b" / "x.h")].identity
    assert looked[str(tmp_path / "a" / "b" / "y.h")].identity == []  # nothing there
    assert looked[str(tmp_path / "a" / "x.h")].data == b"// a\n"
    assert str(tmp_path / "x.h") not in looked  # never looked at: a nearer one was found


def test_three_levels_of_includes_below_the_file_each_header_once(tmp_path: Path) -> None:
    for i in range(5):
        _write(tmp_path / f"h{i}.h", b'#include "h%d.h"\n#include "h0.h"\n' % (i + 1))
    top = _write(tmp_path / "k.cu", b'#include "h0.h"\n')
    cl = closure.read(str(top), top.read_bytes())
    assert [os.path.basename(p) for p in cl.found] == ["h0.h", "h1.h", "h2.h", "h3.h"]  # not h4.h
    top.write_bytes(b'#include "h0.h"\n#include "h2.h"\n')  # h2.h one level up: h4.h is in reach
    cl = closure.read(str(top), top.read_bytes())
    assert [os.path.basename(p) for p in cl.found] == ["h0.h", "h2.h", "h1.h", "h3.h", "h4.h"]


def test_a_large_header_is_found_but_not_read(tmp_path: Path) -> None:
    _write(tmp_path / "big.h", b"// " + b"x" * closure.MAX_BYTES + b"\n#include \"more.h\"\n")
    _write(tmp_path / "more.h", b"#define WARP_SZ 32\n")
    top = _write(tmp_path / "k.cu", b'#include "big.h"\n')
    cl = closure.read(str(top), top.read_bytes())
    assert cl.found == {str(tmp_path / "big.h"): None}  # and not what it includes


def test_the_facts_read_the_closure_not_the_disk(tmp_path: Path) -> None:
    """What the facts know of a header is what the closure holds: the pipeline keyed the
    cache on exactly those bytes."""
    top = _write(tmp_path / "k.cu", USES)
    _write(tmp_path / "warp.h", b"#define WARP_SZ 32\n")
    on_disk = closure.read(str(top), USES)
    assert "W004" in {f.rule for f in wave64(SourceFile(str(top), USES, closure=on_disk), Config())}
    other = closure.Closure(on_disk.path, {str(tmp_path / "warp.h"): b"#define WARP_SZ 64\n"})
    assert "W004" not in {f.rule for f in wave64(SourceFile(str(top), USES, closure=other), Config())}
    _write(tmp_path / "warp.h", b"#define WARP_SZ 64\n")  # given a closure, the disk is not read
    r = port_bytes(str(top), "cuda-source", USES, Config(), closure=on_disk)
    assert "W004" in {f.rule for f in r.findings}
    assert "W004" not in {f.rule for f in port_bytes(str(top), "cuda-source", USES, Config()).findings}


def test_a_quoted_include_beside_the_file_is_the_projects_own(tmp_path: Path) -> None:
    """Rodinia ships its own "cuda.h": beside the file, a quoted include of it is left alone
    (the closure says so, whatever folder the run starts in)."""
    code = b'#include "cuda.h"\n__global__ void k() {}\n'
    top = _write(tmp_path / "k.cu", code)
    ported = port_bytes(str(top), "cuda-source", code, Config()).ported or code
    assert b'#include "cuda.h"' not in ported
    _write(tmp_path / "cuda.h", b"// the project's own\n")
    for display in (str(top), os.path.relpath(top)):
        ported = port_bytes(display, "cuda-source", code, Config(),
                            closure=closure.read(str(top), code)).ported or code
        assert b'#include "cuda.h"' in ported, display


def test_include_folders_are_looked_in_after_the_tree_and_feed_the_passes(tmp_path: Path) -> None:
    from hipport import inputs
    from hipport.passes import port

    top = _write(tmp_path / "src" / "k.cu", USES)
    inc = tmp_path / "inc"
    _write(inc / "warp.h", b"#define WARP_SZ 64\n")
    plain = inputs.resolve(str(top), "src/k.cu", "cuda-source", USES, rel="src/k.cu")
    assert plain.deps == () and str(inc / "warp.h") not in {d.path for d in plain.looked}
    given = inputs.resolve(str(top), "src/k.cu", "cuda-source", USES, rel="src/k.cu",
                           include_dirs=(str(inc),))
    assert given.deps == ((str(inc / "warp.h"), b"#define WARP_SZ 64\n"),)
    assert given.key("salt") != plain.key("salt")  # the key holds the header
    assert "W004" in {f.rule for f in port(plain, Config()).findings}  # WARP_SZ unknown: 32 assumed
    assert "W004" not in {f.rule for f in port(given, Config()).findings}  # 64 from the header
    _write(tmp_path / "src" / "warp.h", b"#define WARP_SZ 32\n")  # beside the file: found first
    near = inputs.resolve(str(top), "src/k.cu", "cuda-source", USES, rel="src/k.cu", include_dirs=(str(inc),))
    assert [p for p, _ in near.deps] == [str(tmp_path / "src" / "warp.h")]


def test_a_header_is_read_once_while_unchanged_and_again_when_it_changes(tmp_path: Path) -> None:
    """Headers are held for the next file of a run by (size, mtime, inode); one changed in the
    last seconds is not held, so a rewrite of the same size within one clock tick is seen."""
    import time

    src = _write(tmp_path / "k.cu", USES)
    header = _write(tmp_path / "warp.h", b"#define WARP_SZ 32\n")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(header, ns=(hour_ago, hour_ago))
    first = closure.read(str(src), USES).found[str(header)]
    again = closure.read(str(src), USES).found[str(header)]
    assert first == b"#define WARP_SZ 32\n" and again is first  # held: one bytes object
    header.write_bytes(b"#define WARP_SZ 64\n")  # same size, an older mtime than now
    os.utime(header, ns=(hour_ago + 10**9, hour_ago + 10**9))
    assert closure.read(str(src), USES).found[str(header)] == b"#define WARP_SZ 64\n"
    just_now = time.time_ns() - 10**8
    for text in (b"#define WARP_SZ 16\n", b"#define WARP_SZ 48\n"):  # two saves in one clock tick:
        header.write_bytes(text)  # the same size, mtime and inode, told apart only by reading
        os.utime(header, ns=(just_now, just_now))
        assert closure.read(str(src), USES).found[str(header)] == text
    assert closure.digest(b"#define WARP_SZ 48\n") == closure.digest(bytes(bytearray(b"#define WARP_SZ 48\n")))
