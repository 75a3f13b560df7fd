"""How closely does `hipport port` agree with HIPIFY's own unit tests?

    python benchmarks/hipify_tests.py PATH [-v] [--only GLOB] [--hipify-perl PATH] [--wave64] [--dropin]

PATH is a checkout of ROCm/HIPIFY. Every test file under `tests/unit_tests` that has a `RUN:`
line is ported by hipport with the options its RUN line gives hipify-clang, mapped to hipport's
(`MAPPED` below; options with no hipport counterpart, such as the preprocessor and clang ones,
change nothing). The output goes through the same filter the test harness applies (`//` and the
rest of a line become `// `), then each expected `CHECK:` / `CHECK-NEXT:` line is looked for, in
order, as a whole output line (horizontal whitespace runs count as one space, as FileCheck
counts them; a trailing comment or line-continuation backslash is not part of the line;
`{{regex}}` parts are regular expressions). A `CHECK-NOT:` line is reported when
it appears between its neighbouring matches, but is not part of the figure.

`--dropin` scores the drop-in command instead: `hipport hipify` with the RUN line's own
hipify-clang options and nothing else (HIPIFY's spellings are that command's defaults), as a
user who swaps the command gets it.

Printed: the whole-line agreement overall and per file (worst first), and with `-v` each missed
expected line. `--hipify-perl PATH` scores hipify-perl on the same lines for comparison.
Nothing is written into the checkout; every output lies in a temporary folder (or `--keep DIR`).
Exit status: 0, or 1 when a file errored (hipport failed on it or wrote nothing).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

SUFFIXES = (".cu", ".cuh", ".cpp", ".c", ".hpp", ".h")
_RUN = re.compile(r"//\s*RUN:(.*)$", re.M)
_CHECK = re.compile(r"^\s*//\s*CHECK(?P<kind>-NEXT|-NOT)?:(?P<text>.*)$")
_SPACE = re.compile(r"[ \t]+")
_COMMENT = re.compile(r"//.+")  # the harness: sed -Ee 's|//.+|// |g'

# hipify-clang option -> hipport `port` options. Options not here (the preprocessor and clang
# ones, --amap, --experimental, which hipport's tables already include) add nothing.
MAPPED: dict[str, tuple[str, ...]] = {
    "--hip-kernel-execution-syntax": ("--launch-syntax", "ggl"),
    "--cuda-kernel-execution-syntax": (),
    "--roc": ("--roc", "--data-types", "rocblas"),  # HIPIFY's --roc writes rocBLAS's types
    "-roc": ("--roc", "--data-types", "rocblas"),
    "--miopen": ("--dnn", "miopen-hipify"),
}
# What every run gets, the options that match what HIPIFY writes (docs/hipify.md): spellings
# for ROCm 6.x (its tables' hipBLAS `_v2` forms), HIPIFY's include layout (`"hipblas.h"`,
# `"hiprand/hiprand.h"`), and quoted includes kept quoted: `hipport hipify`'s defaults.
# `--no-wave64` is added unless `--wave64` is given.
BASE = ("--rocm", "6.4", "--include-layout", "hipify", "--include-quotes", "keep")


@dataclass
class Expect:
    kind: str  # "", "-NEXT" or "-NOT"
    text: str  # whitespace-normalised pattern
    line: int  # line in the test file
    regex: re.Pattern[str] | None = None

    def matches(self, out: str) -> bool:
        if self.regex is not None:
            return self.regex.fullmatch(out) is not None
        return out == self.text


@dataclass
class Test:
    path: Path
    rel: str
    hipify_opts: list[str]
    expects: list[Expect]
    options: tuple[str, ...] = ()
    unmapped: list[str] = field(default_factory=list)


@dataclass
class Score:
    total: int = 0
    hits: int = 0
    missed: list[Expect] = field(default_factory=list)
    not_violations: list[Expect] = field(default_factory=list)
    error: str = ""


def norm(s: str) -> str:
    return _SPACE.sub(" ", s).strip()


def _pattern(text: str) -> re.Pattern[str] | None:
    if "{{" not in text:
        return None
    parts = re.split(r"\{\{(.*?)\}\}", text)
    rx = "".join(re.escape(p) if i % 2 == 0 else f"(?:{p})" for i, p in enumerate(parts))
    return re.compile(rx.replace(r"\ ", " "))


def parse_run(line: str) -> list[str]:
    """The hipify-clang options of a RUN line: what lies between `%hipify_args` and
    `%clang_args`, without the leading count the harness script takes."""
    words = shlex.split(line, posix=True)
    try:
        start = words.index("%hipify_args") + 1
    except ValueError:
        return []
    end = words.index("%clang_args") if "%clang_args" in words else len(words)
    opts = words[start:end]
    if opts and opts[0].isdigit():
        opts = opts[1:]
    return opts


def map_options(opts: list[str]) -> tuple[tuple[str, ...], list[str]]:
    out: list[str] = list(BASE)
    unmapped: list[str] = []
    for o in opts:
        if o in MAPPED:
            for v in MAPPED[o]:
                if v.startswith("--") and v in out and v != "--launch-syntax":
                    continue
                out.append(v)
        else:
            unmapped.append(o)
    return tuple(out), unmapped


def load_tests(root: Path, only: list[str]) -> list[Test]:
    base = root / "tests" / "unit_tests"
    if not base.is_dir():
        raise SystemExit(f"hipify_tests: {root} is not a HIPIFY checkout (no tests/unit_tests)")
    tests: list[Test] = []
    for p in sorted(base.rglob("*")):
        if p.suffix not in SUFFIXES or not p.is_file():
            continue
        rel = p.relative_to(base).as_posix()
        if only and not any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(p.name, g) for g in only):
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        m = _RUN.search(text)
        if m is None:
            continue
        expects = []
        for i, line in enumerate(text.splitlines(), 1):
            c = _CHECK.match(line)
            if c is None:
                continue
            t = _uncommented(norm(c.group("text")))
            expects.append(Expect(c.group("kind") or "", t, i, _pattern(t)))
        hip = parse_run(m.group(1))
        opts, unmapped = map_options(hip)
        tests.append(Test(p, rel, hip, expects, opts, unmapped))
    return tests


def output_lines(text: str) -> list[str]:
    return [_uncommented(norm(_COMMENT.sub("// ", line))) for line in text.splitlines()]


_TRAILING = re.compile(r"(?:\s*/\*(?:(?!\*/).)*\*/)+\s*$|\s*\\$")


def _uncommented(line: str) -> str:
    """A line less what follows its code: the `//` the harness leaves of a trailing comment,
    a trailing `/* ... */` comment and a macro's line-continuation backslash. CHECK lines
    leave those out, and FileCheck (matching a part of a line) does not see them."""
    if line.endswith("//"):
        line = line[:-2].rstrip()
    while True:
        cut = _TRAILING.sub("", line)
        if cut == line:
            return line
        line = cut.rstrip()


def score(test: Test, out_text: str) -> Score:
    lines = output_lines(out_text)
    s = Score()
    cursor = 0  # first output line a later CHECK may match
    last_hit = True
    pending_not: list[Expect] = []
    for e in test.expects:
        if e.kind == "-NOT":
            pending_not.append(e)
            continue
        s.total += 1
        found = -1
        if e.kind == "-NEXT" and last_hit:
            if cursor < len(lines) and e.matches(lines[cursor]):
                found = cursor
        else:
            for i in range(cursor, len(lines)):
                if e.matches(lines[i]):
                    found = i
                    break
        if found < 0:
            s.missed.append(e)
            last_hit = False
            continue
        for n in pending_not:
            if any(n.text and n.text in ln for ln in lines[cursor:found]):
                s.not_violations.append(n)
        pending_not = []
        s.hits += 1
        cursor = found + 1
        last_hit = True
    for n in pending_not:
        if any(n.text and n.text in ln for ln in lines[cursor:]):
            s.not_violations.append(n)
    return s


def run_hipport(root: Path, tests: list[Test], work: Path, extra: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Port the tests, one hipport run per option set; per test, (output text, error)."""
    base = root / "tests" / "unit_tests"
    groups: dict[tuple[str, ...], list[Test]] = defaultdict(list)
    for t in tests:
        groups[t.options + extra].append(t)
    result: dict[str, tuple[str, str]] = {}
    for n, (opts, members) in enumerate(sorted(groups.items())):
        out = work / f"hipport{n}"
        cmd = [sys.executable, "-m", "hipport", "port", str(base), "-o", str(out), "--only-ported",
               "--no-cache", "--no-build-files", "--format", "json", "-q", *opts]
        for t in members:
            cmd += ["--include", t.rel]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        try:
            summary = json.loads(proc.stdout)
        except json.JSONDecodeError:
            err = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
            for t in members:
                result[t.rel] = ("", f"hipport: {err}")
            continue
        errors = {Path(f["path"]).resolve(): f.get("error") for f in summary.get("files", [])}
        for t in members:
            err = errors.get(t.path.resolve())
            target = out / t.rel
            if err:
                result[t.rel] = ("", f"hipport: {err}")
            elif target.is_file():
                result[t.rel] = (target.read_text(encoding="utf-8", errors="replace"), "")
            elif t.path.resolve() in errors:  # not changed: the output is the input
                result[t.rel] = (t.path.read_text(encoding="utf-8", errors="replace"), "")
            else:
                result[t.rel] = ("", "hipport: no output")
    return result


def run_dropin(tests: list[Test]) -> dict[str, tuple[str, str]]:
    """`hipport hipify RUN-LINE-OPTIONS FILE` per test, the port read from stdout."""
    from concurrent.futures import ThreadPoolExecutor

    def one(t: Test) -> tuple[str, tuple[str, str]]:
        proc = subprocess.run([sys.executable, "-m", "hipport", "hipify", *t.hipify_opts, "-quiet-warnings",
                               str(t.path)], capture_output=True, encoding="utf-8", errors="replace")
        err = "" if proc.returncode == 0 and proc.stdout else \
            f"hipport hipify: exit {proc.returncode}: {(proc.stderr.strip().splitlines() or [''])[-1]}"
        return t.rel, (proc.stdout, err)

    with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
        return dict(pool.map(one, tests))


def run_perl(perl: Path, tests: list[Test]) -> dict[str, tuple[str, str]]:
    result: dict[str, tuple[str, str]] = {}
    for t in tests:
        opts = []
        if "--hip-kernel-execution-syntax" in t.hipify_opts:
            opts.append("-hip-kernel-execution-syntax")
        if "--roc" in t.hipify_opts or "-roc" in t.hipify_opts:
            opts.append("-roc")
        if "--experimental" in t.hipify_opts:
            opts.append("-experimental")
        proc = subprocess.run(["perl", str(perl), *opts, str(t.path)], capture_output=True,
                              encoding="utf-8", errors="replace")
        result[t.rel] = (proc.stdout, "" if proc.returncode == 0 else f"hipify-perl: exit {proc.returncode}")
    return result


def report(name: str, tests: list[Test], outputs: dict[str, tuple[str, str]], verbose: bool) -> int:
    scores = {}
    for t in tests:
        text, err = outputs[t.rel]
        s = score(t, text) if not err else Score(total=sum(e.kind != "-NOT" for e in t.expects),
                                                 missed=[e for e in t.expects if e.kind != "-NOT"], error=err)
        scores[t.rel] = s
    total = sum(s.total for s in scores.values())
    hits = sum(s.hits for s in scores.values())
    errored = [r for r, s in scores.items() if s.error]
    nots = sum(len(s.not_violations) for s in scores.values())
    pct = 100.0 * hits / total if total else 0.0
    print(f"{name}: {hits}/{total} expected lines ({pct:.1f}%) in {len(tests)} files; "
          f"{len(errored)} files errored; {nots} CHECK-NOT lines present")
    for rel, s in sorted(scores.items(), key=lambda kv: (kv[1].hits - kv[1].total, kv[0])):
        if s.total == s.hits and not s.error and not (verbose and s.not_violations):
            continue
        share = 100.0 * s.hits / s.total if s.total else 100.0
        print(f"  {rel:60s} {s.hits:5d}/{s.total:<5d} {share:5.1f}%  missed {s.total - s.hits}"
              + (f"  ERROR {s.error}" if s.error else ""))
        if verbose:
            for e in s.missed:
                print(f"      {e.line:5d}: {e.text}")
            for e in s.not_violations:
                print(f"      {e.line:5d}: NOT present: {e.text}")
    return 1 if errored else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("path", type=Path, help="a checkout of ROCm/HIPIFY")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every missed line")
    ap.add_argument("--only", action="append", default=[], help="only tests matching this glob")
    ap.add_argument("--hipify-perl", type=Path, help="also score this hipify-perl")
    ap.add_argument("--wave64", action="store_true", help="keep hipport's wave64 pass on")
    ap.add_argument("--keep", type=Path, help="write hipport's outputs here")
    ap.add_argument("--dropin", action="store_true",
                    help="score `hipport hipify` with the RUN line's options only (no mapping, no BASE)")
    args = ap.parse_args(argv)
    tests = load_tests(args.path, args.only)
    if not tests:
        print("hipify_tests: no test files", file=sys.stderr)
        return 1
    if args.dropin:
        rc = report("hipport hipify", tests, run_dropin(tests), args.verbose)
        if args.hipify_perl:
            report("hipify-perl", tests, run_perl(args.hipify_perl, tests), args.verbose)
        return rc
    extra: tuple[str, ...] = () if args.wave64 else ("--no-wave64",)
    with tempfile.TemporaryDirectory(prefix="hipify-tests-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        rc = report("hipport", tests, run_hipport(args.path, tests, work, extra), args.verbose)
    if args.hipify_perl:
        report("hipify-perl", tests, run_perl(args.hipify_perl, tests), args.verbose)
    return rc


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUTF8", "1")
    sys.exit(main())
