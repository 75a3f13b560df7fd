"""Terminal table, JSON and SARIF for `hipport validate`: views that read its ValidationResult."""

from __future__ import annotations

import json
import os
from io import StringIO
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from hipport.model import ValidationResult
from hipport.report.printable import no_surrogates

_STYLE = {"pass": "green", "same": "yellow", "fail": "bold red", "mismatch": "bold red",
          "build-error": "bold red", "run-error": "bold red", "not-run": "dim", "differs": "cyan"}
_LABEL = {"pass": "pass", "fail": "FAIL", "mismatch": "DIFFERS", "build-error": "BUILD ERROR",
          "run-error": "RUN ERROR", "not-run": "not run", "same": "same", "differs": "differs"}


def _cell(status: str | None, extra: str = "") -> Text:
    if status is None:
        return Text("")
    t = Text(_LABEL.get(status, status), style=_STYLE.get(status, ""))
    if extra:
        t.append(f" {extra}", style="dim")
    return t


class _Why:
    """Why cells say "not run": each reason once, numbered; the cell carries its number and the
    summary the reason, so no "not run" stands without one."""

    def __init__(self) -> None:
        self.seen: dict[str, list[int]] = {}  # reason -> [number, cells]

    def mark(self, reason: str) -> str:
        got = self.seen.setdefault(reason, [len(self.seen) + 1, 0])
        got[1] += 1
        return f"[{got[0]}]"


def render_json(doc: ValidationResult) -> str:
    return json.dumps(doc.to_json(), indent=2) + "\n"


def render_sarif(doc: ValidationResult) -> str:
    """SARIF 2.1.0: each compile error and run failure, a note for each value of the tree left
    out of the compiles (where it was written), and a note for each kernel whose wave-64 port
    leaves lanes idle that wave 32 used (the occupancy view's notes), at its definition; a
    warning for each toolchain older than the floor (`--rocm`). Each compile error names the
    toolchain and archs that gave it (`hip-6.4 gfx90a`). A
    file hipport could not port is a tool execution notification at the file, and the
    invocation is then not successful: what was checked for it is its unported original."""
    from hipport import __version__
    from hipport.report.sarif import SCHEMA, SRCROOT, artifact_location, repository_top

    rules = [{"id": rid, "name": name, "shortDescription": {"text": text}} for rid, name, text in SARIF_RULES]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results: list[dict[str, Any]] = []

    def add(rule: str, level: str, message: str, file: str | None, line: int | None,
            props: dict[str, Any] | None = None) -> None:
        res: dict[str, Any] = {"ruleId": rule, "ruleIndex": index[rule], "level": level,
                               "message": {"text": no_surrogates(message)}}
        if file:
            loc: dict[str, Any] = {"artifactLocation": artifact_location(file)}
            if line:
                loc["region"] = {"startLine": line}
            res["locations"] = [{"physicalLocation": loc}]
        if props:
            res["properties"] = props
        results.append(res)

    notes = [{"level": "error",
              "message": {"text": no_surrogates(f"not ported ({e.rule}): {e.message}; validate checked "
                                                "the file as it was written")},
              "locations": [{"physicalLocation": {"artifactLocation": artifact_location(e.file or "")}}]}
             for e in doc.errors if e.category == "port"]
    for e in doc.errors:
        if e.category == "port":
            continue  # a notification (above), not a result
        run = e.category == "run"
        add("run-failure" if run else "compile-error", "error",
            f"{e.message} ({e.where})" if e.where else e.message,
            None if run and e.line is None else e.file, e.line,
            {"hipportRule": e.rule} if e.rule else None)
    for n in doc.notes:
        add("tree-value-dropped", "note", n.message, n.file, n.line)
    for w in doc.warnings:
        add("toolchain-below-floor", "warning", w, None, None)
    for row in doc.occupancy:
        if row.note:
            add("occupancy", "note", f"{row.kernel}: {row.busy64}% of lanes busy at wave 64 against {row.busy32}% "
                f"at wave 32: {row.note}", row.file, row.line,
                {"kernel": row.kernel, "program": row.program, "wave64OverWave32": row.ratio})
    run_doc: dict[str, Any] = {
        "tool": {"driver": {"name": "hipport validate", "version": __version__,
                            "informationUri": "https://github.com/hipport/hipport", "rules": rules}},
        "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}],
        "results": results,
    }
    if any("uriBaseId" in loc["physicalLocation"]["artifactLocation"]
           for r in [*results, *notes] for loc in r.get("locations", [])):
        run_doc["originalUriBaseIds"] = {SRCROOT: {"uri": repository_top().as_uri().rstrip("/") + "/"}}
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run_doc]}, indent=2) + "\n"


SARIF_RULES = (
    ("compile-error", "CompileError", "The port does not compile for an AMD target"),
    ("run-failure", "RunFailure", "A run of the program failed or printed what CUDA does not"),
    ("occupancy", "HalfWaveIdle", "A kernel's wave-64 port leaves lanes idle that its wave-32 run used"),
    ("toolchain-below-floor", "ToolchainBelowFloor",
     "A toolchain older than the ROCm floor (--rocm) compiled the port: its pass does not show the port builds there"),
    ("tree-value-dropped", "TreeValueDropped",
     "A value of the tree (a define, include folder, forced include or standard) failed the check before "
     "the compiler and was left out"),
)


def render_text(doc: ValidationResult, color: bool = False, width: int | None = None) -> str:
    buf = StringIO()
    con = Console(file=buf, force_terminal=color, no_color=not color, width=width or 120,
                  highlight=False, soft_wrap=False)
    det = doc.details
    runs = {r["program"]: r for r in det.runs}
    rows: dict[str, dict[str, Any]] = {}
    for u in det.compile:
        rows.setdefault(u["file"], {}).setdefault("compile", {})[u.get("toolchain") or ""] = u
    for name, r in runs.items():
        rows.setdefault(name, {})["run"] = r
    cols = _columns(doc)  # (toolchain, arch)
    several = len({tc for tc, _ in cols}) > 1
    t = Table(title=_title(doc), title_justify="left", show_lines=False)
    t.add_column("file", overflow="fold")
    for tc, a in cols:
        t.add_column(f"{tc} {a}" if several else a, no_wrap=True)
    has_runs = bool(runs)
    why = _Why()
    skipped = {(a.toolchain or "", a.arch): a.reason for a in det.archs_skipped}

    def not_run(key: str, reason: str | None) -> Text:
        return _cell("not-run", why.mark(f"{key}: {reason}") if reason else "")

    if has_runs:  # the emulator legs: CUDA reference, full port, port without wave64 fixes
        t.add_column("emu32 CUDA", no_wrap=True)
        t.add_column("emu64 port", no_wrap=True)
        t.add_column("emu64 unfixed", no_wrap=True)
        t.add_column("GPU")
    for name, row in rows.items():
        cells: list[Text] = [Text(no_surrogates(name))]  # its width as shown
        units: dict[str, dict[str, Any]] = row.get("compile") or {}
        for tc, a in cols:
            ar = units.get(tc, {}).get("archs", {}).get(a)
            if ar and ar["status"] == "not-run":
                reason = ar.get("reason") or skipped.get((tc, a))
                if (tc, a) in skipped:
                    cells.append(not_run(f"{tc} {a}" if several else a, f"not compiled for ({reason})"))
                else:
                    cells.append(not_run("compile", reason))
                continue
            cells.append(_cell(ar["status"] if ar else None,
                               f"({len(ar['errors'])})" if ar and ar["errors"] else ""))
        if has_runs:
            prog: dict[str, Any] | None = row.get("run")
            if prog is None:
                cells += [Text(""), Text(""), Text(""), Text("")]
            else:
                emu = prog["emulator"]
                for leg in ("ref32", "port64"):
                    x = emu.get(leg, {})
                    cells.append(not_run(f"emulator {leg}", x.get("reason")) if x.get("status") == "not-run"
                                 else _cell(x.get("status")))
                un = emu.get("unfixed64", {}).get("status")
                info = {"mismatch": "differs", "build-error": "build error", "run-error": "run error"}
                if un in info:  # informational, never a failure
                    cell = Text(info[un], style="cyan")
                    if prog.get("saved_by_wave64"):
                        cell.append(" (wave64 fixed)", style="dim")
                elif un == "not-run":
                    cell = not_run("emulator unfixed64", emu.get("unfixed64", {}).get("reason"))
                else:
                    cell = _cell(un, "(wave64 fixed)" if prog.get("saved_by_wave64") else "")
                cells.append(cell)
                cells.append(_gpu_cell(prog["gpu"], why))
        t.add_row(*cells)
    con.print(t)
    for e in doc.errors:
        if e.category == "port":
            con.print(Text(f"{e.file}: not ported ({e.rule}): {e.message}; checked as it was written",
                           style="red"))
    _details(con, doc)
    _occupancy(con, doc)
    _summary(con, doc, why)
    return no_surrogates(buf.getvalue())  # a name's bytes that are not UTF-8, written \xff


def _columns(doc: ValidationResult) -> list[tuple[str, str]]:
    """The compile columns: (toolchain, arch) in the order of the toolchains and archs."""
    names = [t.name for t in doc.toolchains] or list(dict.fromkeys(u.get("toolchain") or "" for u in doc.details.compile))
    if not names:
        names = [""]
    have = {(u.get("toolchain") or "", a) for u in doc.details.compile for a in u["archs"]}
    if len(names) == 1:
        return [(names[0], a) for a in doc.archs]
    return [(n, a) for n in names for a in doc.archs if (n, a) in have]


def _title(doc: ValidationResult) -> str:
    """Which toolchains compiled: 'hipport validate (hip-5.2: HIP 5.2.21153, clang 15.0.6)'."""
    used = [f"{t.name}: HIP {t.hip_version}, clang {t.clang_version}" + (f", in {t.root}" if t.root else "")
            for t in doc.toolchains]
    return "hipport validate" + (f" ({'; '.join(used)})" if used else "")


def _occupancy(con: Console, doc: ValidationResult) -> None:
    """Lanes busy per kernel on the emulator, wave 32 (reference) beside wave 64 (port)."""
    rows = doc.occupancy
    if not rows:
        return
    shown = rows if len(rows) <= 30 else [r for r in rows if r.note]
    t = Table(title="occupancy (share of lane slots doing work, on the emulator)", box=None,
              show_edge=False, pad_edge=False, title_justify="left")
    for c in ("program", "kernel", "wave 32", "wave 64", "note"):
        t.add_column(c, overflow="fold")

    def pct(x: float | None) -> str:
        return "" if x is None else f"{x:.0f}%"

    for r in shown:
        t.add_row(r.program, r.kernel, pct(r.busy32), pct(r.busy64),
                  Text(r.note or "", style="yellow" if r.note else ""))
    con.print(t)
    if len(shown) < len(rows):
        con.print(Text(f"({len(rows) - len(shown)} more kernels keep their lanes busy at wave 64)", style="dim"))


def _gpu_cell(gpu: dict[str, Any], why: _Why) -> Text:
    ran = {k: v for k, v in gpu.items() if v["status"] != "not-run"}
    if not ran:
        marks = dict.fromkeys(why.mark(f"{k} GPU: {v['reason']}") for k, v in gpu.items() if v.get("reason"))
        return _cell("not-run", "".join(marks) if marks else "")
    out = Text()
    for i, (k, v) in enumerate(ran.items()):
        if i:
            out.append(", ")
        out.append(f"{k} ")
        out.append_text(_cell(v["status"]))
    return out


def _details(con: Console, doc: ValidationResult) -> None:
    det = doc.details
    several = len({u.get("toolchain") for u in det.compile}) > 1
    # An error in a header every unit includes is one error: printed once, with the units it
    # stopped (a tree's 28 units failing on one line of a shared header read as 28 errors).
    errors: dict[tuple, tuple[dict[str, Any], list[str] | None, str | None, list[str]]] = {}
    for u in det.compile:
        seen: set[tuple] = set()
        tc = u.get("toolchain") or "hip"
        for arch, r in u["archs"].items():
            if r["status"] == "fail" and not r["errors"] and r.get("reason"):
                con.print(Text(f"{u['file']}: {tc} {arch} failed: {r['reason']}", style="red"))
            for e in r["errors"]:
                key = (e["file"], e["line"], e["column"], e["message"])
                if key in seen:
                    continue
                seen.add(key)
                archs = [a for a, rr in u["archs"].items()
                         if any((x["file"], x["line"], x["column"], x["message"]) == key for x in rr["errors"])]
                ran = [a for a, rr in u["archs"].items() if rr["status"] != "not-run"]
                only = archs if len(archs) < len(ran) else None
                group = (tc, *key, tuple(only or ()))
                if group in errors:
                    errors[group][3].append(u["file"])
                else:
                    errors[group] = (e, only, tc if several else None, [u["file"]])
    for e, only, tc_name, files in errors.values():
        t = format_error(e, only, tc_name)
        if len(files) > 1:
            names = ", ".join(files[:3]) + (", ..." if len(files) > 3 else "")
            t.append(f"\n    (in {len(files)} units: {names})", style="dim")
        con.print(t)
    for r in det.runs:
        shown: dict[tuple, str] = {}
        for leg, label in (("ref32", "wave 32, CUDA reference"), ("port64", "wave 64, full port"),
                           ("unfixed64", "wave 64, without wave64 fixes")):
            x = r["emulator"].get(leg)
            if not x or x["status"] in ("pass", "same", "not-run"):
                continue
            style = "cyan" if leg == "unfixed64" else "red"
            why = x.get("reason") or x["status"]
            if leg == "unfixed64" and r.get("saved_by_wave64"):
                why = f"the wave64 pass fixed this; without it: {why}"
            errs = tuple((e["file"], e["line"], e["message"]) for e in x.get("errors", []))
            if errs and errs in shown:
                con.print(Text(f"{r['program']}: emulator ({label}): the same errors as {shown[errs]}", style=style))
                continue
            shown[errs] = label
            if leg == "unfixed64" and r.get("saved_by_wave64") and errs:
                # What the pass saved, not an error of the port: one line, counted by rule (the
                # JSON document keeps every diagnostic).
                rules: dict[str, int] = {}
                for e in x.get("errors", []):
                    rules[e.get("rule") or "other"] = rules.get(e.get("rule") or "other", 0) + 1
                by = ", ".join(f"{k} {v}" for k, v in sorted(rules.items(), key=lambda kv: (-kv[1], kv[0])))
                con.print(Text(f"{r['program']}: emulator ({label}): the wave64 pass fixed this; without it "
                               f"{len(errs)} sites would not build ({by}; --format json lists them)", style=style))
                continue
            con.print(Text(f"{r['program']}: emulator ({label}): {why}", style=style))
            for e in x.get("errors", [])[:10]:
                con.print(format_error(e, None))
        for k, x in r["gpu"].items():
            if x["status"] in ("pass", "not-run"):
                continue
            con.print(Text(f"{r['program']}: {k} GPU ({x.get('device', '')}): {x.get('reason') or x['status']}",
                           style="red"))
            for e in x.get("errors", [])[:10]:
                con.print(format_error(e, None))


_EMULATOR_HEADERS = os.path.join("validate", "emulator", "include")


def format_error(e: dict[str, Any], archs: list[str] | None, toolchain: str | None = None) -> Text:
    if e.get("file"):
        where, line, col = e["file"], e.get("line"), e.get("column")
    else:
        where, line, col = e.get("ported_file") or "?", e.get("ported_line"), e.get("ported_column")
    if line:
        where += f":{line}" + (f":{col}" if col else "")
    t = Text()
    if where != "?":  # a linker or driver error has no place
        t.append(where, style="bold")
        t.append(": ")
    t.append(e["severity"], style="red")
    t.append(f": {e['message']}")
    tags = [e["category"]]
    if toolchain:
        tags.insert(0, toolchain)
    if e.get("rule"):
        tags.append(f"{e['rule']}: hipport explain {e['rule']}")
    if archs:
        tags.append("only " + ", ".join(archs))
    t.append(f"  [{'; '.join(tags)}]", style="dim")
    if e.get("source"):
        t.append(f"\n    {e['source']}", style="dim")
    if e.get("rewritten") and e.get("ported_source") and e.get("ported_source") != e.get("source"):
        t.append(f"\n    ported: {e['ported_source']}", style="dim")
    moved = next((n for n in e.get("notes", []) if n.startswith("reported in ")
                  and _EMULATOR_HEADERS not in n), None)  # hipport's own headers are no user's business
    if moved:  # the compiler named a system header; this is where the project reached it
        t.append(f"\n    ({moved})", style="dim")
    return t


def _summary(con: Console, doc: ValidationResult, why: _Why | None = None) -> None:
    s = doc.summary
    det = doc.details
    for note in doc.notes:
        where = f"{note.file}:{note.line}: " if note.file and note.line else f"{note.file}: " if note.file else ""
        con.print(Text(f"{where}note: {note.message}", style="yellow"))
    for w in doc.warnings:
        con.print(Text(f"warning: {w}", style="yellow"))
    several = len({u.get("toolchain") for u in det.compile}) > 1
    marked = set()
    for text, (n, cells) in (why.seen if why else {}).items():  # the table's "not run [n]"
        con.print(Text(f"[{n}] not run{f' ({cells}x)' if cells > 1 else ''}: {text}", style="dim"))
        marked.add(text)
    for a in det.archs_skipped:
        who = f"{a.toolchain} " if several and a.toolchain else ""
        if f"{who}{a.arch}: not compiled for ({a.reason})" not in marked:
            con.print(Text(f"{who}{a.arch}: not compiled for ({a.reason})", style="dim"))
    parts = []
    if det.compile and several:  # per toolchain: what each one says of the same units
        for name in dict.fromkeys(u.get("toolchain") or "" for u in det.compile):
            got = [r["status"] for u in det.compile if (u.get("toolchain") or "") == name for r in u["archs"].values()]
            parts.append(f"compile {name}: {got.count('pass')} pass, {got.count('fail')} fail, "
                         f"{got.count('not-run')} not run")
        parts[-1] += f" ({s.units} units{f', {s.compile_cached} answers reused' if s.compile_cached else ''})"
    elif det.compile:
        reused = f", {s.compile_cached} answers reused" if s.compile_cached else ""
        parts.append(f"compile: {s.compile_pass} pass, {s.compile_fail} fail, "
                     f"{s.compile_not_run} not run ({s.units} units{reused})")
    if det.runs:
        parts.append(f"emulator: {s.emulator_pass} pass, {s.emulator_fail} fail, "
                     f"{s.emulator_not_run} not run ({s.programs} programs; "
                     f"wave64 pass fixed {s.fixed_by_wave64})")
        parts.append(f"GPU: {s.gpu_pass} pass, {s.gpu_fail} fail, {s.gpu_not_run} not run")
    classes = [(f"{u['file']} ({u.get('toolchain')})" if several else u["file"], u.get("class"), u.get("why"))
               for u in det.compile if u.get("class")]
    if classes:
        count = {k: sum(1 for _, c, _ in classes if c == k)
                 for k in ("missing-package", "missing-dependency", "flagged", "unexpected")}
        dep = f", {count['missing-dependency']} missing a dependency" if count["missing-dependency"] else ""
        con.print(Text(f"failed units: {count['missing-package']} missing a package{dep}, {count['flagged']} "
                       f"flagged by hipport, {count['unexpected']} unexpected"))
        grouped: dict[tuple[Any, Any], list[str]] = {}  # one reason, however many units it stopped
        for file, c, reason in classes:
            grouped.setdefault((c, reason), []).append(file)
        for (c, reason), files in grouped.items():
            who = files[0] if len(files) == 1 else \
                f"{len(files)} units ({', '.join(files[:3])}{', ...' if len(files) > 3 else ''})"
            con.print(Text(f"  {c}: {who}: {reason}", style="red" if c == "unexpected" else "dim"))
    if s.not_ported:
        parts.insert(0, f"port: {s.not_ported} file{'s' if s.not_ported != 1 else ''} not ported")
    if not parts:
        parts.append("nothing was checked")
    if doc.headline is not None:  # the port's headline, with each unit counted by its compile
        from hipport.report.headline import Headline

        for text in Headline.from_json(doc.headline).lines():
            con.print(Text(text))
    verdict = Text("FAILED" if s.failed else "OK", style="bold red" if s.failed else "bold green")
    line = Text("; ".join(parts) + ": ")
    line.append_text(verdict)
    con.print(line)


def main(argv: list[str] | None = None) -> int:
    """`python -m hipport.validate.views RESULT.json`: the terminal table of a saved JSON result."""
    import sys
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m hipport.validate.views RESULT.json\n")
        return 2
    doc = ValidationResult.from_json(json.loads(Path(args[0]).read_text(encoding="utf-8")))
    sys.stdout.write(render_text(doc, color=False, width=160))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
