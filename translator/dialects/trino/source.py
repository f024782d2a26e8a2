"""A Trino statement's text and the values the Transformer builds from it.

:class:`Source` places offsets of one statement in the script and makes the errors that point
at them; :func:`readable` reshapes lark's syntax errors into what a reader needs. The dataclasses
are the intermediate values the parser, the assembler and the type mapper pass between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from lark import Lark, Token

from translator.dialects.grammar import accepted_terminals, error_at, readable_expected
from translator.errors import Position, SqlSyntaxError, UnsupportedError, position_at

__all__ = [
    "BodyPart",
    "Characteristic",
    "Ident",
    "Param",
    "QName",
    "Returns",
    "Source",
    "Span",
    "Spelled",
    "TypeArgs",
    "readable",
    "too_deep",
]


class Source:
    """One statement's ``text`` and ``base``, where it starts in the script (None for a lone
    type): offsets relative to ``text`` become script positions and placed errors."""

    text: str
    base: Position | None

    def position(self, offset: int) -> Position:
        return position_at(self.text, offset, None, self.base)

    def syntax_error(self, message: str, offset: int) -> SqlSyntaxError:
        return error_at(SqlSyntaxError, message, self.text, offset, self.base)

    def unsupported(self, message: str, offset: int) -> UnsupportedError:
        return error_at(UnsupportedError, message, self.text, offset, self.base)


def too_deep(base: Position | None) -> SqlSyntaxError:
    return SqlSyntaxError("the statement nests too deeply to be parsed", base)


def readable(e: SqlSyntaxError, parser: Lark, text: str, base: Position | None) -> SqlSyntaxError:
    """The same error, saying exactly what could come next, keywords in upper case.

    When the lark error is at hand (``parse_with`` raises from it), its interactive parser
    tells what really fits (:func:`~translator.dialects.grammar.accepted_terminals`).

    One case gets its own message: a DECLARE after a block's first statement (Trino wants
    declarations first), which the parser can only read as a label named ``declare``.
    """
    offset = (e.position.offset - (base.offset if base else 0)) if e.position else 0
    if e.expected == (":",) and re.search(r"(?i)\bdeclare\s+$", text[:offset]):
        declare = text.lower().rfind("declare", 0, offset)
        message = "DECLARE must come before the other statements of its BEGIN block"
        return error_at(SqlSyntaxError, message, text, declare, base)
    names = accepted_terminals(e.__context__)
    expected = (
        readable_expected(parser, names, renames=_DISPLAY, lower_names=False)
        if names is not None
        else e.expected
    )
    return SqlSyntaxError(e.message, e.position, source_line=e.source_line, expected=expected)


#: Terminals shown by another name than their own (keywords are named after themselves).
_DISPLAY: Final = {
    "$END": "end of statement",
    "NAME": "identifier",
    "QUOTED_IDENT": "quoted identifier",
    "STRING": "string literal",
    "NUMBER": "number",
    "OP": "operator",
    "DOLLAR_STRING": "$$ body",
    "BODY": "body",  # a RETURN body, as the Spark front end names it too
}


# Intermediate values the Transformer builds, before they become IR. Not frozen: a frozen
# dataclass is three times as slow to make, and every type and name of a statement makes one.


@dataclass(slots=True)
class Ident:
    """An identifier as Trino reads it: unquoted ones lower-cased, quoted ones unescaped."""

    value: str
    offset: int
    #: Where its token ends: a qualified name's text ends with its last part.
    end: int


@dataclass(slots=True)
class QName:
    parts: tuple[str, ...]
    offset: int
    text: str


@dataclass(slots=True)
class Spelled:
    """A Trino type as written: ``name`` is lower case (``varchar``, ``row``, ``interval``...).

    ``args`` holds whole-number parameters or nested types; ``fields`` a row's fields (name,
    type, offset); ``time_zone`` is True for ``WITH TIME ZONE``, False for ``WITHOUT``.
    """

    name: str
    offset: int
    text: str
    args: tuple[int | Spelled, ...] = ()
    fields: tuple[tuple[str | None, Spelled, int], ...] = ()
    time_zone: bool | None = None


@dataclass(slots=True)
class TypeArgs:
    """A type's parenthesised parameters, and where the closing parenthesis ends."""

    values: tuple[int | Spelled, ...]
    end: int


@dataclass(slots=True)
class Param:
    name: Ident | None
    type: Spelled
    doc: str | None
    offset: int
    doc_offset: int | None


@dataclass(slots=True)
class Returns:
    offset: int
    type: Spelled | None = None
    #: For ``RETURNS TABLE``: the columns, and where ``TABLE`` is.
    columns: tuple[Param, ...] | None = None
    table_offset: int = 0


@dataclass(slots=True)
class Characteristic:
    """One routine characteristic. ``key`` names the IR field it sets."""

    key: str
    value: Any
    offset: int
    #: How it reads in an error message about duplicates.
    label: str


@dataclass(slots=True)
class Span:
    """A slice of the statement text (an expression, a block)."""

    start: int
    end: int
    #: An expression's tokens, flat (parentheses included as tokens).
    tokens: tuple[Token, ...] = ()


@dataclass(slots=True)
class BodyPart:
    kind: str  # "expression", "query", "compound" or "external"
    span: Span
    offset: int
