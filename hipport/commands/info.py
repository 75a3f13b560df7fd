"""Commands that explain: `explain RULE`, `rules lookup NAME`, `rules list`, `config`."""

from __future__ import annotations

import json
from dataclasses import asdict

from hipport import registry
from hipport.config import KEYS, Config
from hipport.errors import HipportError
from hipport.floor import version
from hipport.rules import load


def explain(rule: str) -> str:
    doc = registry.find(rule)
    if doc is None:
        raise HipportError(f"unknown rule {rule!r}; `hipport rules list` shows them all")
    return doc.text


def rules_list() -> str:
    return "".join(f"{r.id}  {r.name:32} {r.summary}\n" for r in registry.rules().values())


def lookup(name: str, blas: str, fmt: str) -> tuple[str, int]:
    rs = load(blas)
    m = rs.lookup(name) or rs.namespaces.get(name)
    via_hip = None
    if m is None:  # a HIP name: show what it ports from
        via_hip = sorted((x for x in rs.names.values() if x.hip == name),
                         key=lambda x: (x.family != "runtime", x.family, x.cuda))
        m = via_hip[0] if via_hip else None
    header = rs.headers.get(name)
    if m is None and header is None:
        near = sorted(k for k in rs.names if k.lower().startswith(name.lower()[:max(4, len(name) - 3)]))[:5]
        data = {"name": name, "found": False, "suggestions": near}
        if fmt == "json":
            return json.dumps(data, indent=2) + "\n", 1
        hint = f"; similar: {', '.join(near)}" if near else ""
        return f"{name}: no mapping known to hipport{hint}\n", 1
    if header is not None and m is None:
        data = {"name": name, "found": True, "kind": "header", **asdict(header)}
    else:
        assert m is not None
        data = {"name": name, "found": True, **asdict(m), "family_title": rs.families.get(m.family)}
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n", 0
    if m is not None:
        lines = [f"{m.cuda} -> {m.hip or 'no HIP equivalent'}"]
        if via_hip and len(via_hip) > 1:
            lines.append(f"  also ported to {name}: {', '.join(x.cuda for x in via_hip[1:6])}")
        lines += [
                 f"  family:  {m.family} ({rs.families.get(m.family, '')})",
                 f"  kind:    {m.kind}", f"  status:  {m.status}", f"  since:   ROCm {m.since}"]
        if m.floors:
            steps = [f"ROCm {v}: {h}" for v, h in m.floors]
            if version(m.floors[0][0]) > version(m.since):
                steps.insert(0, f"ROCm {m.since}: {m.hip}")
            lines.append(f"  by floor: {'; '.join(steps)} (the spelling follows --rocm)")
        if m.hipsolver:
            lines.append(f"  hipsolver: {m.hipsolver} (where cuSOLVER takes it, below a ROCm 6.0 floor)")
        for o in rs.overrides:  # another library's own spelling, in the files that use it
            om = o.names.get(m.cuda)
            if om is not None and om is not m:
                lines.append(f"  in a {o.family} file: {om.hip or 'no equivalent'}"
                             f" (unless it also uses {', '.join(sorted(o.unless))})")
        if m.args:
            lines.append(f"  args:    {m.args}")
        if m.alt:
            lines.append(f"  instead: {m.alt}")
        if m.note:
            lines.append(f"  note:    {m.note}")
    else:
        assert header is not None
        lines = [f"<{header.cuda}> -> <{header.hip or 'no HIP header'}>",
                 f"  family:  {header.family}", f"  flat layout: {header.flat or header.hip}"]
        if header.floors:
            steps = [f"ROCm {header.since}: {header.hip}", *(f"ROCm {v}: {h}" for v, h in header.floors)]
            lines.append(f"  by floor: {'; '.join(steps)} (the header follows --rocm)")
    return "\n".join(lines) + "\n", 0


def show_config(config: Config, fmt: str) -> str:
    from dataclasses import asdict

    rows = []
    for key, name in sorted(KEYS.items()):
        value = getattr(config, name)
        if name == "verify":  # as the table is written: kernel -> the keys given
            value = {k: {f: v for f, v in asdict(spec).items() if v not in (None, ())} for k, spec in value}
        rows.append((key, value, config.origin(name)))
    if fmt == "json":
        return json.dumps({k: {"value": v, "from": o} for k, v, o in rows}, indent=2, default=list) + "\n"
    return "".join(f"{k:22} = {v!r:40} # {o}\n" for k, v, o in rows)
