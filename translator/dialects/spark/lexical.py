"""Spark's lexical rules and the facts about its names and literals that reading and writing
both need: string literal escapes, backquoted names, ``IDENTIFIER('...')``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from translator.script import Lexical

__all__ = [
    "NAME",
    "NAME_PARTS",
    "ONLY_SQL",
    "SPARK",
    "Name",
    "quote_function_name",
    "quote_ident",
    "spark_string_literal",
    "split_name",
    "squash",
    "unquote",
]

#: The metadata dialect identifier, and sqlglot's name for the dialect.
NAME: Final = "spark"

#: Spark: a backslash escapes a quote, ``"text"`` is a string, a backquoted name is an
#: identifier, and function names fold to lower case, quoted or not (its session catalog's rule).
SPARK: Final = Lexical(
    backslash_escapes=True,
    double_quote_is_string=True,
    backquote_identifiers=True,
    quoted_names_fold=True,
)

#: Spark names a function with one to three parts (catalog.schema.function).
NAME_PARTS: Final = frozenset({1, 2, 3})

#: Why a Python or class-based function is refused: the reason every such message ends with.
ONLY_SQL: Final = "Iceberg UDF metadata has only SQL representations"


@dataclass(slots=True)
class Name:
    """One identifier: its text (backquotes removed), whether it was quoted, and where."""

    text: str
    quoted: bool
    offset: int
    end: int


_ESCAPES: Final = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}
_ESCAPE_RE = re.compile(r"\\(u[0-9A-Fa-f]{4}|[0-3][0-7]{2}|.)|('')|(\"\")", re.DOTALL)


def unquote(literal: str) -> str:
    """The value of a Spark string literal: ``'it\\'s'``, ``'it''s'``, ``"a"``, raw ``r'\\d'``."""
    if literal[:1] in "rR":
        return literal[2:-1]
    quote, inner = literal[0], literal[1:-1]
    value = _ESCAPE_RE.sub(lambda m: _unescape_one(m, quote), inner)
    if "\\u" not in inner:
        return value
    # Spark's strings are UTF-16: \ud83d\ude00 is one character. A lone half stays (and is
    # refused by compile, since no UTF-8 file can hold it).
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _unescape_one(m: re.Match[str], quote: str) -> str:
    """Spark's unescapeSQLString for one escape: unknown escapes stand for the character."""
    code = m.group(1)
    if code is None:  # a doubled quote: one quote if it is this literal's quote character
        doubled = m.group(0)
        return quote if doubled[0] == quote else doubled
    if code.startswith("u") and len(code) == 5:
        return chr(int(code[1:], 16))
    if len(code) == 3 and code.isdigit():
        return chr(int(code, 8))
    if code in "%_":
        return "\\" + code  # kept with the backslash: they are LIKE-pattern escapes
    return _ESCAPES.get(code, code)


_NAME_PART = re.compile(r"\s*(?:`((?:[^`]|``)+)`|([^\W\d]\w*))\s*")


def split_name(value: str, offset: int, end: int) -> tuple[Name, ...] | None:
    """``db.`Fn`` -> parts, as ``IDENTIFIER('...')`` reads its string; None if malformed."""
    parts: list[Name] = []
    pos = 0
    while True:
        m = _NAME_PART.match(value, pos)
        if m is None:
            return None
        quoted = m.group(1) is not None
        text = m.group(1).replace("``", "`") if quoted else m.group(2)
        parts.append(Name(text, quoted, offset, end))
        pos = m.end()
        if pos == len(value):
            return tuple(parts)
        if value[pos] != ".":
            return None
        pos += 1


def squash(text: str) -> str:
    """A type as written, on one line (for messages)."""
    return " ".join(text.split())


def spark_string_literal(value: str) -> str:
    """A Spark single-quoted literal for ``value`` (backslash escapes, as Spark reads them)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LOWER_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")


def quote_function_name(part: str) -> str:
    """Bare only when reading it back gives the same part (unquoted names are lower-cased)."""
    if _LOWER_NAME.match(part) and part != "identifier":
        return part
    return "`" + part.replace("`", "``") + "`"


def quote_ident(name: str) -> str:
    """A parameter, column or field name, backquoted unless plain."""
    return name if _PLAIN_NAME.match(name) else "`" + name.replace("`", "``") + "`"
