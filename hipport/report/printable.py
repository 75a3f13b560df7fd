"""Text from a tree made safe to show: a file name or a source line may hold terminal
escapes (ESC [ 2 J clears the screen; OSC 8 forges links), other control characters, or
bidirectional overrides that make code read differently from how it compiles (the "Trojan
Source" trick). They are shown as visible escapes, never passed through."""

from __future__ import annotations

import re

# C0 controls but tab, DEL, C1 controls; line/paragraph separators; bidi marks, embeddings,
# overrides and isolates; the BOM/zero-width no-break space.
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                    "\u202a-\u202e\u2066-\u2069\ufeff]")
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match[str]) -> str:
    n = ord(m.group())
    return f"\\x{n:02x}" if n < 0x100 else f"<U+{n:04X}>"


def printable(s: str) -> str:
    """`s` with every unsafe character written as `\\x1b` or `<U+202E>`."""
    return UNSAFE.sub(_visible, s) if UNSAFE.search(s) else s


# In HTML, newlines and tabs are layout; every other unsafe character is shown.
HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                    "\u202a-\u202e\u2066-\u2069\ufeff]")


def visible(s: str) -> str:
    """`s` with invisible and direction-changing characters written as `<U+202E>`; keeps
    newlines, carriage returns and tabs."""
    return HIDDEN.sub(lambda m: f"<U+{ord(m.group()):04X}>", s) if HIDDEN.search(s) else s
