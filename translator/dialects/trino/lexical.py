"""Trino's lexical rules and the facts about its names that reading and writing both need."""

from __future__ import annotations

import re
from typing import Final

from translator.dialects.base import QUERY_WORDS as ANY_QUERY_WORDS
from translator.script import Lexical

__all__ = ["NAME", "NAME_PARTS", "QUERY_WORDS", "RESERVED", "TRINO", "quote_name"]

#: The metadata dialect identifier, and sqlglot's name for the dialect.
NAME: Final = "trino"

#: Trino quotes names with ``"`` (doubled inside), has no ``\\`` escapes, and folds every name,
#: quoted or not, to lower case.
TRINO: Final = Lexical()

#: An inline or session function by its name alone, a stored one as catalog.schema.name.
NAME_PARTS: Final = frozenset({1, 3})

#: Words that make a RETURN body a query. Trino has no query that opens with FROM.
QUERY_WORDS: Final = ANY_QUERY_WORDS - {"FROM"}

#: Trino's reserved words: a name spelled like one must be quoted.
RESERVED: Final = frozenset(
    {
        "alter", "and", "as", "between", "by", "case", "cast", "constraint", "create", "cross",
        "cube", "current_catalog", "current_date", "current_path", "current_role", "current_schema",
        "current_time", "current_timestamp", "current_user", "deallocate", "delete", "describe",
        "distinct", "drop", "else", "end", "escape", "except", "exists", "extract", "false", "for",
        "from", "full", "group", "grouping", "having", "in", "inner", "insert", "intersect", "into",
        "is", "join", "json_array", "json_exists", "json_object", "json_query", "json_table",
        "json_value", "left", "like", "listagg", "localtime", "localtimestamp", "natural",
        "normalize", "not", "null", "on", "or", "order", "outer", "prepare", "recursive", "right",
        "rollup", "select", "skip", "table", "then", "trim", "true", "uescape", "union", "unnest",
        "using", "values", "when", "where", "with",
    }
)  # fmt: skip

_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def quote_name(name: str) -> str:
    """A name as Trino reads it back: quoted unless plain lower case and not reserved.

    ``interval`` is quoted too: before a type it would read as an interval type.
    """
    if _PLAIN_NAME.fullmatch(name) and name not in RESERVED and name != "interval":
        return name
    return '"' + name.replace('"', '""') + '"'
