"""Golden outputs of the commands over examples/ and a sample of fixtures/, so that a change to
the house (not to what it computes) shows as no difference: `python3 -m tests.golden`
refreshes tests/golden/, tests/test_goldens.py compares.

The inputs are copied into a temporary folder and named relative to it, one cache folder
per capture (so the second run of a command is answered from the cache, as a user's is);
timings, temporary paths and the version are masked. Only the sources of a fixture are
copied (its expected outputs would be ported too, and its case.toml is not a config).
"""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"

# Fixtures chosen for what they exercise: review fixes (W003, W014, cg tiles), inline PTX,
# a header that defines the warp size, BOM and CRLF bytes, libraries, HIP code left alone.
SAMPLE = (
    "fixtures/programs/review/launch_32_threads.cu",
    "fixtures/programs/cg_tile_reduce.cu",
    "fixtures/programs/warp_reduce_sum.cu",
    "fixtures/wave64/w003_bitops",
    "fixtures/wave64/w012_inline_ptx",
    "fixtures/wave64/w014_launch",
    "fixtures/wave64/w020_wavefront_macro",
    "fixtures/wave64/k_mixed_partial_port",
    "fixtures/translate/already_hip_unchanged",
    "fixtures/translate/bom_pragma_once_header",
    "fixtures/translate/crlf_line_endings",
    "fixtures/translate/unknown_cuda_name_reported",
    "fixtures/translate/project_local_cuda_names_not_reported",
    "fixtures/libraries/cublas/sgemm_handle_stream",
    "fixtures/libraries/cudnn/conv_forward_pipeline",
    "fixtures/libraries/cub/block_reduce_sum",
)
TREE = ("examples", "fixtures")  # the inputs, as the commands name them
REVIEW = "fixtures/programs/review/launch_32_threads.cu"
HIPIFIED = ("examples/warp_primitives/src/main.cu", REVIEW, "fixtures/wave64/w014_launch/input.cu")


def _is_source(p: Path) -> bool:
    return not (p.name.startswith("expected") or p.name in ("case.toml", "README.md", ".hipport.toml"))


def stage(into: Path) -> None:
    """Copy examples/ and the fixture sample under `into`."""
    shutil.copytree(ROOT / "examples", into / "examples")
    for rel in SAMPLE:
        src = ROOT / rel
        files = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
        for f in files:
            if _is_source(f):
                dest = into / f.relative_to(ROOT)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, dest)


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    extra: Callable[[Path], str] | None = None  # what the command wrote, as text
    needs: str | None = None  # a program the case needs on PATH


def _text_of(page: Path) -> str:
    """An HTML page's text, one line per run of text (no markup: the view's words)."""
    parts: list[str] = []

    class P(html.parser.HTMLParser):
        skip = 0

        def handle_starttag(self, tag: str, attrs: object) -> None:
            self.skip += tag in ("script", "style")

        def handle_endtag(self, tag: str) -> None:
            self.skip -= tag in ("script", "style")

        def handle_data(self, data: str) -> None:
            if not self.skip and data.strip():
                parts.append(" ".join(data.split()))

    P().feed(page.read_text(encoding="utf-8"))
    return "\n".join(parts) + "\n"


def _report(folder: str, pages: tuple[str, ...]) -> Callable[[Path], str]:
    def read(work: Path) -> str:
        rep = work / folder
        out = ["pages: " + " ".join(sorted(p.name for p in rep.iterdir()))]
        out += [f"=== {folder}/index.html", _text_of(rep / "index.html")]
        for p in sorted(rep.glob("z_*.html")):
            if any(p.name.endswith(s) for s in pages):
                out += [f"=== {p.name}", _text_of(p)]
        return "\n".join(out)
    return read


def _files(*names: str) -> Callable[[Path], str]:
    def read(work: Path) -> str:
        out = []
        for n in names:
            p = work / n
            out += [f"=== {n}", p.read_bytes().decode("utf-8", "surrogateescape") if p.exists() else "(missing)"]
        return "\n".join(out) + "\n"
    return read


def _tree(folder: str) -> Callable[[Path], str]:
    def read(work: Path) -> str:
        import hashlib

        root = work / folder
        return "".join(f"{p.relative_to(root)} {hashlib.sha256(p.read_bytes()).hexdigest()[:16]}\n"
                       for p in sorted(root.rglob("*")) if p.is_file())
    return read


CASES = (
    Case("port-diff", ("port", *TREE, "--diff")),
    Case("port-diff-warm", ("port", *TREE, "--diff")),
    Case("port-text", ("port", *TREE, "-o", "out")),
    Case("port-text-output-tree", ("port", *TREE, "-o", "out", "--quiet"), _tree("out")),
    Case("port-json", ("port", *TREE, "--check", "--format", "json")),
    Case("port-review-diff", ("port", REVIEW, "fixtures/wave64/w003_bitops", "--diff",
                              "--apply-review-fixes")),
    Case("port-review-text", ("port", *TREE, "-o", "out-review", "--apply-review-fixes")),
    Case("lint-text", ("lint", *TREE)),
    Case("lint-text-warm", ("lint", *TREE)),
    Case("lint-json", ("lint", *TREE, "--format", "json")),
    Case("lint-sarif", ("lint", *TREE, "--format", "sarif")),
    Case("lint-select", ("lint", *TREE, "--select", "W0", "--ignore", "W004", "--format", "json",
                         "--no-cache")),
    Case("report", ("report", *TREE, "-o", "rep"),
         _report("rep", ("launch_32_threads_cu.html", "_kernels_cuh.html"))),
    Case("port-review-report", ("port", *TREE, "--check", "--apply-review-fixes", "--report", "rep-review"),
         _report("rep-review", ("launch_32_threads_cu.html",))),
    Case("validate-json", ("validate", "examples", "fixtures/programs/warp_reduce_sum.cu",
                           "--format", "json"), needs="hipcc"),
    Case("hipify-examine", ("hipify", *HIPIFIED, "-examine")),
    Case("hipify-files", ("hipify", *HIPIFIED, "-o-dir=hipified", "-print-stats-csv", "-roc"),
         _files("hipified/main.cu", "hipified/launch_32_threads.cu", "hipified/input.cu", "sum_stat.csv")),
    Case("hipify-one", ("hipify", "examples/softmax_layernorm/src/main.cu", "-o=one.hip",
                        "-print-stats", "-hip-kernel-execution-syntax"), _files("one.hip")),
    Case("hipify-stdout", ("hipify", "fixtures/translate/crlf_line_endings/input.cu", "-quiet-warnings")),
)


def mask(text: str, work: Path) -> str:
    from hipport import __version__

    text = text.replace(str(work), "<work>").replace(os.path.realpath(work), "<work>")
    text = re.sub(r"/tmp/hipport-[\w.-]+", "<tmp>", text)
    text = re.sub(r"\b\d+\.\d+s\b", "<t>s", text)  # the summary's wall time
    text = re.sub(r'("(?:seconds|wall_s|elapsed)": )[\d.e-]+', r"\1<t>", text)
    text = re.sub(r"(TIME ELAPSED s[:;] ?)[\d.]+", r"\1<t>", text)
    text = re.sub(r"(in |took )[\d.]+ ?(ms|s)\b", r"\1<t>\2", text)
    return text.replace(__version__, "<version>")


def run_case(c: Case, work: Path, env: dict[str, str]) -> str:
    p = subprocess.run([sys.executable, "-m", "hipport", *c.argv], cwd=work, capture_output=True,
                       env=env, timeout=600)
    out = [f"$ hipport {' '.join(c.argv)}", f"exit {p.returncode}",
           "--- stdout", p.stdout.decode("utf-8", "surrogateescape"),
           "--- stderr", p.stderr.decode("utf-8", "surrogateescape")]
    if c.extra is not None:
        out += ["--- written", c.extra(work)]
    return mask("\n".join(out), work)


def capture(only: set[str] | None = None) -> dict[str, str]:
    """Every case's masked output, by name (all cases run, in order: later ones meet the
    cache the earlier ones filled; `only` chooses what is returned)."""
    got: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="hipport-golden-") as tmp:
        work = Path(tmp) / "w"
        stage(work)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "HOME": str(home),
               "XDG_CACHE_HOME": str(home / ".cache"), "PYTHONPATH": str(ROOT)}
        for c in CASES:
            if c.needs and shutil.which(c.needs) is None:
                continue
            text = run_case(c, work, env)
            if only is None or c.name in only:
                got[c.name] = text
    return got


def main() -> int:
    GOLDEN.mkdir(exist_ok=True)
    got = capture()
    for name, text in got.items():
        (GOLDEN / f"{name}.txt").write_bytes(text.encode("utf-8", "surrogateescape"))
    print(f"wrote {len(got)} goldens to {GOLDEN.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
