"""The sqlglot parser that reads a body written for Spark back, to check it.

A body transpiled into Spark is stored only if it parses in Spark
(:func:`translator.bodies.transpile_body`). The check reads three things of that parse: that
it succeeded, the names the tree refers to, and the tokens (the functions it calls). It writes
nothing from the tree.

sqlglot's Spark parser (its Hive parser's ``_parse_types``) does one more thing after each type
it parses outside a schema: it walks the type and makes every CHAR and VARCHAR node a STRING,
asking each node ``is_type("char", "varchar")``. sqlglot answers that question by parsing the
strings "char" and "varchar" afresh, with a new dialect, tokenizer and parser, for every node,
at every level of a nested type (a nested type is walked again by each enclosing one). A Trino
body's Spark form casts its values to their types, often in every branch of a compound body, so
in these check parses the rewrite took a sixth of a compound statement's compile on the
benchmark corpus, and a share of every Trino body's check (compile as a whole is 6.6% lower
without it, `benchmarks/HISTORY.md`, session 20).

The rewrite changes no name, no token and no outcome: it runs on a type that has already parsed,
and a question about a constant string cannot fail. So :data:`CHECK_PARSER` is sqlglot's Spark
parser with types read as sqlglot's base parser reads them (the Hive parser's own
``_parse_types`` is that plus the rewrite). ``tests/dialects/spark/test_check_parser.py`` holds
the two parsers to the same outcome, names and tokens on every Spark form of the benchmark
corpus and on types built to exercise the rewrite.

Only with pure-Python sqlglot. sqlglotc compiles sqlglot's parser classes, and mypyc makes no
instance of an interpreted class derived from a compiled one ("interpreted classes cannot
inherit from compiled"): there :data:`CHECK_PARSER` is None and the check uses sqlglot's own
Spark parser (whose rewrite is compiled too, and costs far less).
"""

from __future__ import annotations

from typing import Any, Final

from sqlglot.parser import Parser
from sqlglot.parsers.spark import SparkParser

from translator.sqlglot_dialects import usable

__all__ = ["CHECK_PARSER", "SparkCheckParser"]


class SparkCheckParser(SparkParser):
    """sqlglot's Spark parser, without the rewrite of CHAR and VARCHAR types after they parse
    (see the module doc)."""

    def _parse_types(
        self,
        check_func: bool = False,
        schema: bool = False,
        allow_identifiers: bool = True,
        with_collation: bool = True,
    ) -> Any:
        return Parser._parse_types(
            self,
            check_func=check_func,
            schema=schema,
            allow_identifiers=allow_identifiers,
            with_collation=with_collation,
        )


#: The parser class the check reads Spark texts with; None: sqlglot's own Spark parser.
CHECK_PARSER: Final[type[Parser] | None] = usable(SparkCheckParser)
