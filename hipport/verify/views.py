"""Views of `hipport verify`'s result: a text table, JSON, and SARIF 2.1.0 (a FAIL is an error
at the kernel's definition, an UNVERIFIED kernel a note there). They render; they compute nothing."""

from __future__ import annotations

import json
from typing import Any

from hipport.model import FAIL, PASS, UNVERIFIED, VerifyResult

_MARK = {PASS: "green", FAIL: "red", UNVERIFIED: "yellow"}


def render_text(result: VerifyResult, color: bool = False) -> str:
    if not result.kernels:
        return "hipport verify: no __global__ kernels in the files given\n"
    rows = [(k.status, k.kernel, f"{k.file}:{k.line}", k.reason) for k in result.kernels]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    out = []
    for k, (status, kernel, where, reason) in zip(result.kernels, rows, strict=True):
        shown = status.ljust(w0)
        if color:
            code = {"green": "32", "red": "31", "yellow": "33"}[_MARK[status]]
            shown = f"\x1b[{code}m{shown}\x1b[0m"
        out.append(f"{shown}  {kernel.ljust(w1)}  {where.ljust(w2)}  {reason}")
        if k.launch:
            red = f"; reductions: {', '.join(k.reductions)}" if k.reductions else ""
            out.append(f"{'':{w0}}  {'':{w1}}  {'':{w2}}  launch: {k.launch}; lengths: {k.sized_by}{red}")
    c = result.counts()
    out.append(f"hipport verify: {len(result.kernels)} kernel(s): {c[PASS]} PASS, {c[FAIL]} FAIL, "
               f"{c[UNVERIFIED]} UNVERIFIED (the original at wave 32 against the port at wave 64 on the "
               "wave emulator)")
    return "\n".join(out) + "\n"


def render_json(result: VerifyResult) -> str:
    return json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"


RULES = (("verify-fail", "kernel-differs-at-wave64",
          "The port computes something else at wave 64 than the original at wave 32 on a generated input"),
         ("verify-unverified", "kernel-not-verified",
          "hipport verify could not check this kernel (no launch shape, a pointer it cannot size, a type it "
          "cannot generate)"))


def render_sarif(result: VerifyResult) -> str:
    from hipport import __version__
    from hipport.report.printable import no_surrogates
    from hipport.report.sarif import SCHEMA, SRCROOT, artifact_location, repository_top

    rules = [{"id": rid, "name": name, "shortDescription": {"text": text}} for rid, name, text in RULES]
    results: list[dict[str, Any]] = []
    for k in result.kernels:
        if k.status == PASS:
            continue
        fail = k.status == FAIL
        props: dict[str, Any] = {"kernel": k.kernel, "status": k.status}
        if fail:
            props.update({"parameter": k.param, "index": k.index, "size": k.size, "inputKind": k.kind})
        results.append({"ruleId": RULES[0 if fail else 1][0], "ruleIndex": 0 if fail else 1,
                        "level": "error" if fail else "note",
                        "message": {"text": no_surrogates(f"{k.kernel}: {k.reason}")},
                        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(k.file),
                                                            "region": {"startLine": k.line}}}],
                        "properties": {key: v for key, v in props.items() if v is not None}})
    run: dict[str, Any] = {"tool": {"driver": {"name": "hipport verify", "version": __version__,
                                               "informationUri": "https://github.com/hipport/hipport",
                                               "rules": rules}},
                           "invocations": [{"executionSuccessful": True}], "results": results}
    if any("uriBaseId" in r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results):
        run["originalUriBaseIds"] = {SRCROOT: {"uri": repository_top().as_uri().rstrip("/") + "/"}}
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"
