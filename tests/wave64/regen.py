"""Regenerate the expected outputs of fixtures/wave64 (run by hand, then review the diff).

    python -m tests.wave64.regen                 # every fixture: expected.logical32.hip / .native.hip
    python -m tests.wave64.regen k_argmax --show # one fixture, print its findings
    python -m tests.wave64.regen --labels NAME   # write expected.json from the current findings

expected.json holds hand-checked labels: `findings` (true findings, which the pass reports),
`missed` (true findings the pass does not report) and `spurious` (reports that are wrong), each
{rule, line, model}; `config` (e.g. {"rocm": "7.0"}) and `compile` options for the hipcc test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hipport import closure
from hipport.source import SourceFile
from hipport.wave64 import run
from tests.wave64.helpers import FIXTURES, apply, config

STRATEGIES = ("logical32", "native")


def meta(folder: Path) -> dict:
    p = folder / "expected.json"
    return json.loads(p.read_text()) if p.is_file() else {}


def fixture_config(folder: Path, strategy: str):  # type: ignore[no-untyped-def]
    cfg = meta(folder).get("config", {})
    return config(strategy, cfg.get("rocm", "5.2"))


def source_for(folder: Path) -> SourceFile:
    """input.cu, with its include closure when the folder holds a header beside it (found as
    `hipport lint` finds a project's headers)."""
    path = folder / "input.cu"
    data = path.read_bytes()
    headers = [p for p in folder.iterdir() if p.suffix in (".h", ".cuh", ".hpp")]
    return SourceFile(str(path), data, closure=closure.read(str(path), data) if headers else None)


def findings_for(folder: Path, strategy: str) -> list:
    return run(source_for(folder), fixture_config(folder, strategy))


def output_for(folder: Path, strategy: str) -> str:
    text = (folder / "input.cu").read_text()
    return apply(text, findings_for(folder, strategy))


def labels(folder: Path) -> list[dict]:
    return [{"rule": f.rule, "line": f.span.line, "model": f.model}
            for f in findings_for(folder, "logical32")]


def dump_meta(m: dict) -> str:
    """expected.json with one finding per line."""
    parts = []
    for key in ("config", "compile"):
        if key in m:
            parts.append(f'  "{key}": {json.dumps(m[key])}')
    for key in ("findings", "missed", "spurious"):
        items = m.get(key, [])
        if not items:
            parts.append(f'  "{key}": []')
            continue
        rows = ",\n".join("    " + json.dumps(x) for x in items)
        parts.append(f'  "{key}": [\n{rows}\n  ]')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main(argv: list[str]) -> int:
    show = "--show" in argv
    write_labels = "--labels" in argv
    names = [a for a in argv if not a.startswith("--")]
    folders = [FIXTURES / n for n in names] if names else sorted(p for p in FIXTURES.iterdir() if (p / "input.cu").is_file())
    for folder in folders:
        for s in STRATEGIES:
            (folder / f"expected.{s}.hip").write_text(output_for(folder, s))
        if write_labels:
            m = meta(folder)
            m["findings"] = labels(folder)
            m.setdefault("missed", [])
            m.setdefault("spurious", [])
            (folder / "expected.json").write_text(dump_meta(m))
        if show:
            for s in STRATEGIES:
                print(f"== {folder.name} [{s}]")
                for f in findings_for(folder, s):
                    fx = f" -> {f.fix.applicability.value}: {f.fix.title}" if f.fix else ""
                    print(f"  {f.span.line}:{f.span.column} {f.rule} {f.severity.value} {f.model} {f.kernel}: "
                          f"{f.message}{fx}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
