"""The sqlglot parser that reads a Spark function's body.

sqlglot's Spark parser (its Hive parser's ``_parse_types``) rewrites each type it parses outside
a schema: every CHAR and VARCHAR node in it becomes a STRING. To find them it asks each node of
the type ``is_type("char", "varchar")``, and sqlglot answers that by parsing the strings "char"
and "varchar" afresh, with a new dialect, tokenizer and parser each, for every node at every
level of the type.

Those strings parse to the bare types CHAR and VARCHAR, and sqlglot compares a bare type with a
node by kind (or, for a user-defined node, whole, which a CHAR or VARCHAR never equals). So the
question is whether the node's kind is CHAR or VARCHAR. :class:`SparkReadParser` makes the same
rewrite, in the same places, asking the kind: the same trees and the same errors, without the
string parses. ``tests/dialects/spark/test_read_parser.py`` holds it to sqlglot's Spark parser
on every kind of type, at every level, in and out of casts and schemas, and on every Spark body
of the benchmark corpus, and holds the step it replaces to sqlglot's source.

The body check, which reads back a body written for Spark, does without the rewrite altogether
(:mod:`.check_parser`): it reads no type of the tree.

Only with pure-Python sqlglot, as :mod:`.check_parser` (mypyc makes no instance of an
interpreted class derived from a compiled one): there :data:`READ_PARSER` is None and bodies are
read by sqlglot's own Spark parser.
"""

from __future__ import annotations

from typing import Any, Final

from sqlglot import exp
from sqlglot.parser import Parser
from sqlglot.parsers.spark import SparkParser

from translator.sqlglot_dialects import usable

__all__ = ["READ_PARSER", "SparkReadParser"]

#: The kinds the Hive parser's rewrite makes STRING.
_CHARS: Final = frozenset((exp.DType.CHAR, exp.DType.VARCHAR))


def _as_text(node: exp.Expr) -> exp.Expr:
    """The rewrite's step on one node: a CHAR or VARCHAR type becomes a bare STRING."""
    if isinstance(node, exp.DataType) and node.this in _CHARS:
        node.set("this", exp.DType.TEXT)
        node.set("expressions", None)
    return node


class SparkReadParser(SparkParser):
    """sqlglot's Spark parser, asking a type node's kind where it asked by a string (see the
    module doc)."""

    def _parse_types(
        self,
        check_func: bool = False,
        schema: bool = False,
        allow_identifiers: bool = True,
        with_collation: bool = True,
    ) -> Any:
        this = Parser._parse_types(
            self,
            check_func=check_func,
            schema=schema,
            allow_identifiers=allow_identifiers,
            with_collation=with_collation,
        )
        if this and not schema:
            return this.transform(_as_text, copy=False)
        return this


#: The parser class Spark bodies are read with; None: sqlglot's own Spark parser.
READ_PARSER: Final[type[Parser] | None] = usable(SparkReadParser)
