"""The characters that show nothing, for the statement scanner (:mod:`translator.script`) and
the messages that name one. Not compiled by the native build: the scanner asks for
:func:`invisible_class` only when it builds its cached patterns.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

__all__ = ["insignificant_pattern", "invisible_character", "invisible_class"]


@cache
def invisible_class() -> str:
    """A regex class of the characters that show nothing: Unicode format characters (a BOM, a
    zero-width space, bidirectional controls) and control characters other than whitespace
    (NUL). Outside strings and comments they are tokens of kind ``invisible``: ignored between
    statements (a BOM where files were concatenated), an error inside one."""
    if unicodedata.unidata_version in _INVISIBLE_RANGES:  # a scan of every code point: 0.13 s
        ranges = _INVISIBLE_RANGES[unicodedata.unidata_version]
        chars = [chr(c) for first, last in ranges for c in range(first, last + 1)]
    else:
        chars = [chr(c) for c in range(0x110000) if _invisible(chr(c))]
    return "[" + "".join(re.escape(c) for c in chars) + "]"


def _invisible(c: str) -> bool:
    return unicodedata.category(c) in ("Cf", "Cc") and not c.isspace()


#: What :func:`_invisible` finds, as code point ranges, per Unicode version of Python's
#: ``unicodedata`` (``tests/test_hardening_invisible.py`` compares it with the scan).
_INVISIBLE_RANGES: dict[str, tuple[tuple[int, int], ...]] = {
    "14.0.0": (
        (0x0, 0x8), (0xE, 0x1B), (0x7F, 0x84), (0x86, 0x9F), (0xAD, 0xAD), (0x600, 0x605),
        (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2),
        (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064),
        (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
        (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001), (0xE0020, 0xE007F),
    ),
}  # fmt: skip


def insignificant_pattern() -> str:
    """A regular expression for one run of what separates significant tokens (spaces, complete
    comments, invisible characters), for quick looks at a statement's first words."""
    return rf"(?:\s|--[^\n]*|/\*(?s:.*?)\*/|{invisible_class()})++"


def invisible_character(text: str) -> str:
    """How messages name an invisible character: ``U+200B (ZERO WIDTH SPACE)``."""
    c = text[0]
    return f"U+{ord(c):04X} ({unicodedata.name(c, 'control character')})"
