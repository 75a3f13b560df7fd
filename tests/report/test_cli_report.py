"""`hipport report PATH... -o DIR` and `hipport port --report DIR` through the real entry point."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from tests.conftest import ROOT, hipport
from tests.report.dom import parse

PROBE = b'// </script><script>alert(1)</script> {{ x }} {% y %} $title\n'


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "proj"
    (src / "kernels").mkdir(parents=True)
    (src / "other").mkdir()
    progs = sorted((ROOT / "fixtures" / "programs").glob("*.cu"))[:3]
    for p in progs:
        shutil.copyfile(p, src / "kernels" / p.name)
    (src / "kernels" / "probe.cu").write_bytes(
        PROBE + b"#include <cuda_runtime.h>\nint main() { float* d; cudaMalloc(&d, 4); return 0; }\n")
    (src / "other" / "probe.cu").write_bytes(b"__global__ void k() {}\n")
    (src / "README.md").write_text("not code\n")
    return src


def _digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".hipport-cache" not in p.parts}


def test_report_command_writes_the_report_and_touches_no_source(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    before = _digests(src)
    out = tmp_path / "out"
    p = hipport("report", src, "-o", out)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout.decode().strip() == str(out / "index.html")
    assert _digests(src) == before
    doc = parse((out / "index.html").read_text())
    rows = doc.by_id("file-table").find("tbody").find_all("tr")
    paths = _listed(doc)
    assert len(paths) == 6 and f"{src}/kernels/probe.cu" in paths
    pages = [r.find("a").get("href") for r in rows if r.find("a")]
    assert len(pages) == 5 and len(set(pages)) == 5  # two probe.cu in two folders: two pages
    assert all((out / pg).is_file() for pg in pages)
    probe_page = out / next(r.find("a").get("href") for r in rows
                            if r.find("td").text.endswith("kernels/probe.cu"))
    text = probe_page.read_text()
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; {{ x }} {% y %} $title" in text
    assert "hip/hip_runtime.h" in text  # the ported code is shown
    # Second run: nothing to re-render.
    p = hipport("report", src, "-o", out)
    assert p.returncode == 0 and "0 file pages written, 5 unchanged" in p.stderr.decode()


def test_report_honours_exclude_and_skips_its_own_folder(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    out = src / "report"
    for _ in range(2):  # the second run must not list the first run's pages
        p = hipport("report", src, "-o", out, "--exclude", "other/*", "--no-cache")
        assert p.returncode == 0, p.stderr.decode()
    doc = parse((out / "index.html").read_text())
    paths = _listed(doc)
    assert not any("other/" in x or "/report/" in x for x in paths)
    assert len(paths) == 5
    assert not (src / ".hipport-cache").exists()


def test_report_rejects_a_missing_path(tmp_path: Path) -> None:
    p = hipport("report", tmp_path / "nope", "-o", tmp_path / "out")
    assert p.returncode == 2 and b"no such file" in p.stderr
    assert not (tmp_path / "out").exists()


def test_port_report_option(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    out = tmp_path / "rep"
    p = hipport("port", src, "--check", "--report", out, "--no-cache")
    assert p.returncode == 1  # --check: files would change
    index = parse((out / "index.html").read_text())
    assert len(_listed(index)) == 6
    assert (out / "effort.html").is_file() and (out / "status.json").is_file()


def _listed(doc) -> list[str]:  # noqa: ANN001
    """Every file the index names: the table of ported files, then the failed and skipped lists."""
    rows = [r.find("td").text for r in doc.by_id("file-table").find("tbody").find_all("tr")]
    return rows + [li.get("data-path") for li in doc.find_all("li") if li.get("data-path")]
