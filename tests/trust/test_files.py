"""Only regular files are read; links stay links; a BOM is kept; names with control
characters are shown escaped."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import hipport
from tests.trust.conftest import KERNEL, cuda_tree, snapshot


def test_a_fifo_in_the_tree_is_skipped_not_read(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    os.mkfifo(tree / "a" / "pipe.cu")  # nothing ever writes to it: a read would hang
    p = hipport("lint", tree, "--no-cache", "--fail-on", "info")  # the helper's timeout fails a hang
    out = (p.stdout + p.stderr).decode()
    assert p.returncode == 1 and "pipe.cu: skipped: not a regular file (fifo)" in out
    mirror = hipport("port", tree, "-o", tmp_path / "out", "--no-cache")
    assert mirror.returncode == 0 and not (tmp_path / "out" / "a" / "pipe.cu").exists()


def test_links_stay_links_and_their_targets_are_ported_once(tmp_path: Path) -> None:
    tree = cuda_tree(tmp_path / "repo")
    outside = tmp_path / "elsewhere.cu"
    outside.write_bytes(KERNEL)
    os.symlink("k0.cu", tree / "a" / "alias.cu")
    os.symlink(outside, tree / "a" / "out.cu")
    mirror = tmp_path / "mirror"
    p = hipport("port", tree, "-o", mirror, "--no-cache")
    assert p.returncode == 0, p.stderr
    assert os.readlink(mirror / "a" / "alias.cu") == "k0.cu"
    assert not (mirror / "a" / "out.cu").exists()  # a link out of the tree is left alone
    assert b"out.cu: skipped: a symbolic link out of the tree" in p.stdout
    p = hipport("port", tree, "--in-place", "--no-cache")
    assert p.returncode == 0, p.stderr
    assert (tree / "a" / "alias.cu").is_symlink() and os.readlink(tree / "a" / "alias.cu") == "k0.cu"
    assert (tree / "a" / "k0.cu").read_bytes() == (mirror / "a" / "k0.cu").read_bytes()
    assert outside.read_bytes() == KERNEL
    assert hipport("port", tree, "--check", "--no-cache").returncode == 0


def test_a_byte_order_mark_is_kept_and_the_first_line_ported(tmp_path: Path) -> None:
    src = tmp_path / "s"
    src.mkdir()
    (src / "bom.cu").write_bytes(b"\xef\xbb\xbf" + KERNEL)
    (src / "plain.cu").write_bytes(KERNEL)
    p = hipport("port", src, "-o", tmp_path / "o", "--no-cache")
    assert p.returncode == 0, p.stderr
    bom, plain = (tmp_path / "o" / "bom.cu").read_bytes(), (tmp_path / "o" / "plain.cu").read_bytes()
    assert bom == b"\xef\xbb\xbf" + plain
    assert bom.count(b"hip_runtime.h") == 1 and b"cuda_runtime" not in bom
    again = hipport("port", tmp_path / "o", "--check", "--no-cache")
    assert again.returncode == 0


def test_control_characters_in_names_and_source_are_escaped(tmp_path: Path) -> None:
    src = tmp_path / "s"
    src.mkdir()
    name = "evil\x1b]8;;x\x07\x1b[2J.cu"
    (src / name).write_bytes(KERNEL.replace(b"(float* a) {", b"(float* a) { /* \xe2\x80\xae */"))
    p = hipport("lint", src, "--no-cache", "--show-fixed", "--fail-on", "info")  # its sites are fixed: notes
    out = p.stdout + p.stderr
    assert p.returncode == 1 and b"\x1b" not in out and b"\x07" not in out
    assert b"evil\\x1b]8;;x\\x07\\x1b[2J.cu:" in out
    assert "\u202e".encode() not in out and b"/* <U+202E> */" in out  # the source line shown
    assert snapshot(src)[name].count(b"\xe2\x80\xae") == 1  # the file itself is untouched


def test_the_report_shows_bidi_controls(tmp_path: Path) -> None:
    src = tmp_path / "s"
    src.mkdir()
    (src / "k.cu").write_bytes(KERNEL.replace(b"(float* a) {", b"(float* a) { /* \xe2\x80\xae\xe2\x81\xa6 */"))
    rep = tmp_path / "rep"
    assert hipport("report", src, "-o", rep, "--no-cache").returncode == 0
    pages = b"".join(p.read_bytes() for p in rep.glob("*.html"))
    assert "\u202e".encode() not in pages and "\u2066".encode() not in pages
    assert b"&lt;U+202E&gt;&lt;U+2066&gt;" in pages


def test_rule_tables_are_keyed_by_content(tmp_path: Path) -> None:
    from hipport import rules

    api = tmp_path / "rules" / "api"
    api.mkdir(parents=True)
    table = api / "t.toml"
    table.write_text("a = 1\n")
    st = table.stat()
    first = rules.tables_digest(str(tmp_path / "rules"))
    rules.tables_digest.cache_clear()
    table.write_text("b = 2\n")  # same size, and the same mtime put back
    os.utime(table, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert rules.tables_digest(str(tmp_path / "rules")) != first
    rules.tables_digest.cache_clear()
