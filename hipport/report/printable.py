"""Text from a tree made safe to show: a file name or a source line may hold terminal
escapes (ESC [ 2 J clears the screen; OSC 8 forges links), other control characters, or
bidirectional overrides that make code read differently from how it compiles (the "Trojan
Source" trick). They are shown as visible escapes, never passed through.

A name's bytes that are not UTF-8 reach Python as surrogate escapes (U+DC80..U+DCFF, as
`os.fsdecode` gives them): no UTF-8 stream or file can hold those, so every function here
writes each as the byte it stands for, `\\xff`."""

from __future__ import annotations

import re

from hipport.codec import SURROGATE

# C0 controls but tab, DEL, C1 controls; line/paragraph separators; bidi marks, embeddings,
# overrides and isolates; the BOM/zero-width no-break space; surrogates.
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                    "\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufeff]")
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(n: int) -> str:
    if 0xDC80 <= n <= 0xDCFF:  # a byte of a name that is not UTF-8
        return f"\\x{n - 0xDC00:02x}"
    return f"\\x{n:02x}" if n < 0x100 else f"<U+{n:04X}>"


def _visible(m: re.Match[str]) -> str:
    return _escape(ord(m.group()))


def printable(s: str) -> str:
    """`s` with every unsafe character written as `\\x1b` or `<U+202E>`, and each byte of a
    name that is not UTF-8 as `\\xff`."""
    return UNSAFE.sub(_visible, s) if UNSAFE.search(s) else s


def no_surrogates(s: str) -> str:
    """`s` with each byte of a name that is not UTF-8 written as `\\xff` (and any other lone
    surrogate as `<U+D800>`), nothing else changed: text any UTF-8 stream can hold."""
    return SURROGATE.sub(_visible, s) if SURROGATE.search(s) else s


# In HTML, newlines and tabs are layout; every other unsafe character is shown.
HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                    "\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufeff]")


def _shown(m: re.Match[str]) -> str:
    n = ord(m.group())
    return _escape(n) if 0xD800 <= n <= 0xDFFF else f"<U+{n:04X}>"


def visible(s: str) -> str:
    """`s` with invisible and direction-changing characters written as `<U+202E>` and each
    byte of a name that is not UTF-8 as `\\xff`; keeps newlines, carriage returns and tabs."""
    return HIDDEN.sub(_shown, s) if HIDDEN.search(s) else s
