"""A small syntax highlighter for CUDA/HIP C++ on the report's file pages (no network, no
dependency): comments, strings and characters, preprocessor directives, keywords and numbers,
found once over the whole file so that a comment or string spanning lines stays one token."""

from __future__ import annotations

import html
import re
from bisect import bisect_right

from hipport.report.printable import visible


def esc(text: str) -> str:
    return html.escape(visible(text), quote=True)  # as the pages escape all text

_KEYWORDS = (
    "alignas alignof auto bool break case catch char class const constexpr const_cast continue "
    "decltype default delete do double dynamic_cast else enum explicit extern false float for "
    "friend goto if inline int long mutable namespace new noexcept nullptr operator private "
    "protected public register reinterpret_cast return short signed sizeof static static_assert "
    "static_cast struct switch template this throw true try typedef typename union unsigned using "
    "virtual void volatile while __global__ __device__ __host__ __shared__ __constant__ "
    "__managed__ __restrict__ __forceinline__ __launch_bounds__ size_t"
).split()
_TOKEN = re.compile(
    rb"(?P<c>/\*.*?(?:\*/|\Z)|//[^\n]*)"
    rb"|(?P<s>R\"(?P<d>[^\s()\\]{0,16})\(.*?\)(?P=d)\"|\"(?:\\.|[^\"\\\n])*\"?)"
    rb"|(?P<ch>'(?:\\.|[^'\\\n])*'?)"
    rb"|(?P<pp>^[ \t]*\#[ \t]*[A-Za-z_]+)"
    rb"|(?P<k>\b(?:" + b"|".join(re.escape(k.encode()) for k in _KEYWORDS) + rb")\b)"
    rb"|(?P<n>\b(?:0[xX][0-9A-Fa-f']+|\d[\d']*(?:\.\d*)?(?:[eE][+-]?\d+)?)[uUlLfF]*\b)",
    re.S | re.M)
CLASSES = {"c": "tok-c", "s": "tok-s", "ch": "tok-s", "pp": "tok-pp", "k": "tok-k", "n": "tok-n"}


class Highlighter:
    """The tokens of one file's bytes; `html(a, b)` is bytes [a, b) as escaped, marked-up HTML."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.spans: list[tuple[int, int, str]] = []
        for m in _TOKEN.finditer(data):
            kind = m.lastgroup if m.lastgroup != "d" else "s"
            if kind is not None and m.end() > m.start():
                self.spans.append((m.start(), m.end(), CLASSES[kind]))
        self.starts = [s for s, _, _ in self.spans]

    def html(self, a: int, b: int) -> str:
        if a >= b:
            return ""
        out: list[str] = []
        i = max(bisect_right(self.starts, a) - 1, 0)
        pos = a
        while i < len(self.spans) and self.spans[i][0] < b:
            s, e, cls = self.spans[i]
            i += 1
            if e <= pos:
                continue
            s = max(s, pos)
            e = min(e, b)
            if s > pos:
                out.append(esc(self.data[pos:s].decode("utf-8", "replace")))
            out.append(f'<span class="{cls}">{esc(self.data[s:e].decode("utf-8", "replace"))}</span>')
            pos = e
        if pos < b:
            out.append(esc(self.data[pos:b].decode("utf-8", "replace")))
        return "".join(out)
