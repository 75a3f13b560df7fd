"""Compiler and linker options on a command line (or in a flags variable): nvcc options to
hipcc's, CUDA libraries to HIP's, CUDA install paths dropped.

Works on words with their byte offsets and returns edits, so Makefiles and CMake files share
it. The AMD targets are never written here: they travel with hipcc where it is chosen.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hipport.build.tables import Option, Tables
from hipport.registry import HP

INFO, WARNING = "info", "warning"
_REF = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]")


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Change:
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Note:
    rule: str
    severity: str
    start: int
    end: int
    message: str


@dataclass
class Result:
    changes: list[Change] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)  # variables the words name: $(X), ${X}
    packages: list[str] = field(default_factory=list)  # HIP CMake packages the libraries need


def words(text: str, base: int, stop: str = "") -> list[Word]:
    """Whitespace-separated words of `text` (offset `base`), keeping quotes and $(...) whole;
    a backslash-newline is whitespace. Stops at an unquoted character of `stop` (a comment)."""
    out: list[Word] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n" or (c == "\\" and i + 1 < n and text[i + 1] in "\r\n"):
            i += 1
            continue
        if c in stop:
            break
        j, depth, quote = i, 0, ""
        while j < n:
            c = text[j]
            if quote:
                if c == "\\" and j + 1 < n:
                    j += 2
                    continue
                if c == quote:
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c == "$" and j + 1 < n and text[j + 1] in "({":
                depth += 1
                j += 2
                continue
            elif c in ")}" and depth:
                depth -= 1
            elif depth == 0 and (c in " \t\r\n" or c in stop
                                 or (c == "\\" and j + 1 < n and text[j + 1] in "\r\n")):
                break
            j += 1
        out.append(Word(text[i:j], base + i, base + j))
        i = j
    return out


def _unquote(s: str) -> str:
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'" else s


def _fill(template: str, value: str) -> str:
    vals = " ".join(v for v in re.split(r"[,\s]+", _unquote(value)) if v)
    return " ".join(template.replace("{values}", vals).replace("{value}", value)
                    .replace("{arch}", "").split())


def _option(t: Tables, w: str) -> tuple[Option, str | None, bool] | None:
    """The nvcc option `w` starts, its joined value (None: none given) and whether it
    takes the next word as its value."""
    opt = t.options.get(w)
    if opt is not None:
        return opt, None, opt.value == "required"
    if "=" in w:
        name, value = w.split("=", 1)
        opt = t.options.get(name)
        if opt is not None and opt.value != "none":
            return opt, value, False
    return None


def translate(ws: list[Word], t: Tables, *, nvcc: bool, cuda_path: Callable[[str], bool],
              linked: set[str] | None = None) -> Result:
    """Edits for the words of one command line or flags value. `nvcc`: the words are nvcc's
    (options are translated); otherwise only libraries and CUDA paths are. `linked` holds
    the HIP libraries already given on this line (a second -lcuda is dropped, not doubled)."""
    res = Result()
    linked = set() if linked is None else linked
    out: list[str | None] = [w.text for w in ws]  # per word: new text, None = dropped
    span: dict[int, int] = {}  # first word -> last word an option's replacement covers
    i = 0
    while i < len(ws):
        w = ws[i].text
        res.refs.extend(m.group(1) for m in _REF.finditer(w))
        hit = _option(t, w) if nvcc and w.startswith("-") else None
        if hit is not None:
            opt, value, takes_next = hit
            last = i
            if takes_next:
                if i + 1 >= len(ws):
                    break
                last = i + 1
                value = ws[last].text
                res.refs.extend(m.group(1) for m in _REF.finditer(value))
            new: str | None
            if opt.hip is not None:
                new = _fill(opt.hip, value or "")
            else:
                v = _unquote(value or "")
                new = _fill(opt.by_value[v], v) if v in opt.by_value else None
            if new is not None:
                old = " ".join(x.text for x in ws[i:last + 1])
                if new != old:
                    out[i] = new if new else None
                    for k in range(i + 1, last + 1):
                        out[k] = None
                    if new:
                        span[i] = last
                    if not new or opt.note:
                        what = "dropped" if not new else f"became {new}"
                        res.notes.append(Note(HP.NVCC_OPTION, INFO, ws[i].start, ws[last].end,
                                              f"nvcc option {old} {what}: "
                                              f"{opt.note or 'hipcc has no counterpart'}"))
            i = last + 1
            continue
        if w.startswith("-l") and len(w) > 2 and "$" not in w:
            lib = t.library(w[2:])
            if lib is not None:
                if not lib.supported:
                    # left as it is, the link fails: an error, not a suggestion
                    res.notes.append(Note(HP.BUILD_LIBRARY, "error", ws[i].start, ws[i].end,
                                          f"{w}: {lib.note or 'no HIP counterpart'}; left as it is"))
                else:
                    new_l: str | None = lib.link or None
                    if new_l is not None and new_l in linked:
                        new_l = None
                    if new_l is not None:
                        linked.add(new_l)
                    out[i] = new_l
                    if lib.package and lib.package != "hip":
                        res.packages.append(lib.package)
                    if not lib.debian or lib.note:
                        res.notes.append(Note(HP.BUILD_LIBRARY, INFO, ws[i].start, ws[i].end,
                                              f"{w} became {new_l or 'nothing'}: "
                                              + (lib.note or f"{lib.link[2:]} is not packaged by "
                                                 "Debian 12; install it from ROCm")))
            i += 1
            continue
        m = re.fullmatch(r"(-I|-L|-isystem|-idirafter)(.*)", w)
        if m:
            path, last = m.group(2), i
            if not path and i + 1 < len(ws):
                path, last = ws[i + 1].text, i + 1
            if path and cuda_path(_unquote(path)):
                for k in range(i, last + 1):
                    out[k] = None
                if m.group(1) != "-L" and _beyond_include(_unquote(path)):
                    res.notes.append(Note(HP.BUILD_NOT_PORTED, WARNING, ws[i].start, ws[last].end,
                                          f"{m.group(1)}{path} dropped: a folder of the CUDA install "
                                          "besides its include/ (such as the CUDA samples' "
                                          "common/inc), which a machine with only HIP lacks; put "
                                          "the headers the sources take from there "
                                          "(helper_cuda.h, ...) in the tree"))
                i = last + 1
                continue
        i += 1
    res.changes = _edits(ws, out, span)
    return res


_INSTALL = re.compile(r"(\$[({][^)}]*[)}]|/usr/local/cuda[^/]*|/opt/cuda[^/]*|/usr/lib/cuda"
                      r"|/usr/local/nvidia)/*(.*)")


def _beyond_include(path: str) -> bool:
    """Is this CUDA-install path a folder of it other than the toolkit's headers (include/)?
    A bare variable (`$(INCLUDES)`) could be either: not said."""
    m = _INSTALL.fullmatch(path)
    tail = m.group(2).strip("/") if m else ""
    return bool(tail) and tail != "include" and not tail.startswith("include/")


def _edits(ws: list[Word], out: list[str | None], span: dict[int, int]) -> list[Change]:
    """Edits that give the words their new text: a run of dropped words goes with the space
    before it (after it, for the first word), so no empty gaps are left."""
    changes: list[Change] = []
    n = len(ws)
    i = 0
    while i < n:
        if out[i] is None:
            j = i
            while j + 1 < n and out[j + 1] is None:
                j += 1
            if i > 0:
                changes.append(Change(ws[i - 1].end, ws[j].end, ""))
            elif j + 1 < n:
                changes.append(Change(ws[i].start, ws[j + 1].start, ""))
            else:
                changes.append(Change(ws[i].start, ws[j].end, ""))
            i = j + 1
            continue
        last = span.get(i, i)
        new = out[i]
        if new != ws[i].text or last != i:
            changes.append(Change(ws[i].start, ws[last].end, new or ""))
        i = last + 1
    return changes
