"""A Makefile's port follows the files it includes (`include ../common/make.config`): the
variables defined there are known by what they hold, every edit stays in the Makefile, and a
changed included file means the Makefile is ported again (cache keys and stat rows cover it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipport.build import includes, own_copy
from hipport.config import Config
from hipport.model import FileStatus
from hipport.passes import port_bytes
from tests.conftest import hipport


def port(text: str, *outer: str) -> str:
    r = port_bytes("Makefile", "build", text.encode(), Config(), [o.encode() for o in outer])
    assert r.status in (FileStatus.PORTED, FileStatus.UNCHANGED), r.error
    return (r.ported or text.encode()).decode()


RECIPE = "app: main.cu\n\t$(GPUCC) $(OPTS) --use_fast_math main.cu -o app -L$(TOOLKIT)/lib64\n"


def test_nvcc_defined_in_an_included_file_makes_the_recipe_an_nvcc_line() -> None:
    conf = "TOOLKIT = /usr/local/cuda\nGPUCC = $(TOOLKIT)/bin/nvcc\n"
    assert port("include conf.mk\n" + RECIPE, conf) == \
        "include conf.mk\napp: main.cu\n\t$(GPUCC) $(OPTS) -ffast-math main.cu -o app\n"


def test_without_the_included_file_nothing_is_known() -> None:
    text = "include conf.mk\n" + RECIPE
    assert port(text) == text


def test_the_makefiles_own_variables_named_by_an_included_nvcc_rule_hold_nvcc_options() -> None:
    conf = "NV = nvcc\n%.o: %.cu\n\t$(NV) $(OPTS) -c $<\n"
    out = port("include conf.mk\nOPTS = -arch=sm_70 -Xptxas -v -O2\n", conf)
    assert out == "include conf.mk\nOPTS = -O2\n"


def test_an_opencl_makefile_keeps_its_paths_into_a_cuda_install() -> None:
    conf = "OCL_DIR = /usr/local/cuda\nOCL_INC = $(OCL_DIR)/include\n"
    text = "include conf.mk\nall:\n\tgcc x.c -I$(OCL_INC) -lOpenCL -o x\n"
    assert port(text, conf) == text


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def read(root: Path, makefile: str) -> list[tuple[str, bool]]:
    path = root / makefile
    got = includes.read(str(path), path.read_bytes(), str(root), own_copy)
    return [(os.path.relpath(i.path, root), i.data is not None) for i in got]


def test_what_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root, {
        "app/Makefile": "include ../common/a.mk\n-include local.mk\nsinclude ../../outside.mk\n"
                        "include $(shell echo x.mk) $(ROOT)/y.mk\n"
                        "include /etc/nowhere_5d1.mk\nall:\n\tinclude not-a-directive.mk\n",
        "common/a.mk": "include ../common/b.mk\n",  # relative to make's folder, app/, as make does
        "common/b.mk": "include ../common/a.mk ../app/Makefile\n",  # a loop, and back to the start
    })
    (tmp_path / "outside.mk").write_text("NVCC = nvcc\n")
    assert read(root, "app/Makefile") == [
        ("common/a.mk", True), ("app/local.mk", False), ("common/b.mk", True)]


def test_an_include_that_is_a_link_out_of_the_tree_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root, {"Makefile": "include conf.mk\n"})
    (tmp_path / "conf.mk").write_text("NVCC = nvcc\n")
    (root / "conf.mk").symlink_to(tmp_path / "conf.mk")
    assert read(root, "Makefile") == [("conf.mk", False)]


def test_an_include_of_the_authors_checkout_is_followed_in_the_trees_copy(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root, {"b/app/Makefile": "include ~/nowhere_9f3/common/make.config\n",
                 "common/make.config": "NVCC = nvcc\n"})
    assert read(root, "b/app/Makefile") == [("common/make.config", True)]


MAKEFILE = "include ../common/make.config\napp: main.cu\n\t$(GPUCC) --use_fast_math main.cu -o app\n"


@pytest.mark.parametrize("ignored", [False, True],
                         ids=["include-in-the-run", "include-ignored-by-the-run-but-in-the-tree"])
def test_a_changed_included_file_ports_the_makefile_again(tmp_path: Path, ignored: bool) -> None:
    """Real runs with one cache: after make.config changed (the Makefile untouched, so its own
    stat and content match) the Makefile's stat row, content key and, where make.config is not
    among the run's files (ignored), the run's snapshot must not answer for it."""
    src, out, cache = tmp_path / "src", tmp_path / "out", tmp_path / "cache"
    write(src, {"app/Makefile": MAKEFILE, "common/make.config": "GPUCC = g++\n"})
    if ignored:
        write(src, {".gitignore": "common/\n"})

    def ported() -> str:
        r = hipport("port", src, "-o", out, "--cache-dir", cache, "-q")
        assert r.returncode in (0, 1), r.stderr
        return (out / "app" / "Makefile").read_text()

    assert ported() == MAKEFILE  # g++ takes no nvcc options: nothing to port
    assert ported() == MAKEFILE  # answered from the cache
    (src / "common" / "make.config").write_text("GPUCC = nvcc\n")
    assert ported() == MAKEFILE.replace("--use_fast_math", "-ffast-math")
    assert ported() == MAKEFILE.replace("--use_fast_math", "-ffast-math")  # and cached again
    (src / "common" / "make.config").unlink()  # an include that is gone counts too
    assert ported() == MAKEFILE


def test_an_absolute_include_is_never_redirected_out_of_the_tree(tmp_path: Path) -> None:
    """`include /x/etc/shadow` became `include ../../../../etc/shadow` (the redirect climbed six
    folders, past the tree's root): a copy found above the tree, or through a folder linked out
    of it, is not the tree's own; the line stays as it is, reported (HP013)."""
    outside = tmp_path / "a"
    tree = outside / "b" / "tree"
    write(outside, {"etc/secret.mk": "NVCC = nvcc\n", "shared/common/make.config": "NVCC = nvcc\n"})
    write(tree, {"app/Makefile": "include /x/etc/secret.mk\ninclude /y/common/make.config\n"
                                 "all:\n\tnvcc k.cu\n",
                 "app/k.cu": "__global__ void k() {}\n"})
    (tree / "common").symlink_to(outside / "shared" / "common")  # a folder linked out of the tree
    out = tmp_path / "out"
    r = hipport("port", tree, "-o", out, "--no-cache")
    assert r.returncode == 0, r.stderr.decode()
    text = (out / "app" / "Makefile").read_text()
    assert text.startswith("include /x/etc/secret.mk\ninclude /y/common/make.config\n"), text
    lint = hipport("lint", tree, "--no-cache", "--fail-on", "never")
    assert lint.stdout.count(b"a path outside the tree: left as it is") == 2, lint.stdout.decode()
    assert read(tree, "app/Makefile") == []  # neither is read for the port's variables
    # The tree's own copy, inside it, is still the one included.
    (tree / "common").unlink()
    write(tree, {"etc/secret.mk": "NVCC = nvcc\n"})
    assert own_copy(str(tree / "app" / "Makefile"), "/x/etc/secret.mk", str(tree)) == "../etc/secret.mk"
    assert own_copy(str(tree / "app" / "Makefile"), "/x/etc/secret.mk") is None  # no root: its folder only
    r = hipport("port", tree, "-o", tmp_path / "out2", "--no-cache")
    assert (tmp_path / "out2" / "app" / "Makefile").read_text().startswith("include ../etc/secret.mk\n")
