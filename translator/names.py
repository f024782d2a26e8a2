"""A function's name as one text: how its parts are written and read back.

Names are kept as parts (a tuple of identifiers) from the parser on, so a part may hold a dot
(Spark's ``\\`my.fn\\```, Trino's ``"My.Fn"``). Where one text must stand for a name (the keys of
:class:`~translator.api.CompileResult`, the command line's NAME, listings, the migration ledger),
it is written by :func:`format_name` and read by :func:`parse_name`, one the inverse of the other:

* unquoted dots separate parts; a part is written plain when it holds no dot and does not open
  with a quote: ``s.fn``;
* any other part is written in double quotes, a ``"`` doubled inside: ``s."My.Fn"``,
  ``"a""b.c"``. Reading also takes backquotes (``\\`my.fn\\```, a backquote doubled inside), as
  Spark users write them; a quote opens a quoted part only at the start of a part
  (``odd`name`` is one plain part);
* no part is empty, and nothing is folded: a name is matched as it is stored (both engines store
  function names in lower case).

Dialect-free: the DDL an engine gets quotes names its own way (the dialects' generators).
"""

from __future__ import annotations

from collections.abc import Sequence

from translator.errors import NameSyntaxError

__all__ = ["format_name", "format_part", "parse_name"]

_QUOTES = ('"', "`")


def format_part(part: str) -> str:
    """One part as :func:`parse_name` reads it back: plain, or in double quotes."""
    if part and "." not in part and not part.startswith(_QUOTES):
        return part
    return '"' + part.replace('"', '""') + '"'


def format_name(parts: Sequence[str]) -> str:
    """``parts`` as one text (see the module doc): ``("s", "My.Fn")`` -> ``s."My.Fn"``."""
    return ".".join(map(format_part, parts))


def parse_name(text: str) -> tuple[str, ...]:
    """The parts ``text`` names (see the module doc); :class:`NameSyntaxError` when it is
    malformed: empty, an empty part, an unclosed quote, text after a closing quote."""
    parts: list[str] = []
    pos, n = 0, len(text)
    while True:
        if pos < n and text[pos] in _QUOTES:
            part, pos = _quoted(text, pos)
            if pos < n and text[pos] != ".":
                raise NameSyntaxError(
                    f"name {text!r}: after the quoted part {part!r} comes {text[pos]!r}, not '.' "
                    "or the end (a quote inside a quoted part is doubled)"
                )
        else:
            end = text.find(".", pos)
            end = n if end < 0 else end
            part, pos = text[pos:end], end
        if not part:
            raise NameSyntaxError(
                f"name {text!r}: an empty part (a name is parts separated by '.'; quote a part "
                'that holds a dot: s."my.fn")'
            )
        parts.append(part)
        if pos == n:
            return tuple(parts)
        pos += 1  # the '.'
        if pos == n:
            raise NameSyntaxError(f"name {text!r}: an empty part after the last '.'")


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The part quoted at ``start`` and the position after its closing quote."""
    q = text[start]
    out: list[str] = []
    pos = start + 1
    while True:
        end = text.find(q, pos)
        if end < 0:
            raise NameSyntaxError(f"name {text!r}: the quote {q} at {start + 1} is not closed")
        out.append(text[pos:end])
        if text.startswith(q + q, end):
            out.append(q)
            pos = end + 2
            continue
        return "".join(out), end + 1
