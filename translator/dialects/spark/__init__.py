"""The Spark dialect (Spark 4): how Spark's function DDL reads into the IR and is written back.

- :mod:`.lexical`: Spark's lexical rules and name facts (literals, backquotes, ``IDENTIFIER``);
- :mod:`.parser`: the lark Transformer (with :mod:`.source`'s intermediate values) and
  :mod:`.assemble`, the checks on a whole CREATE FUNCTION and the refusal of non-SQL ones;
- :mod:`.types`: Spark types <-> Iceberg types;
- :mod:`.generator`: ``CREATE FUNCTION`` text from a routine spec;
- :mod:`.check_parser`: the sqlglot parser that reads a body written for Spark back;
- :mod:`.read_parser`: the sqlglot parser that reads a Spark body;
- :mod:`.writer`: the sqlglot generator that writes a body in Spark SQL.

:class:`SparkDialect` states only where Spark differs from the base
:class:`~translator.dialects.base.Dialect`.
"""

from __future__ import annotations

from typing import Final

from translator.dialects.base import Dialect, Rendered, RoutineSpec, TypeInference
from translator.dialects.spark import generator, parser
from translator.dialects.spark.check_parser import CHECK_PARSER
from translator.dialects.spark.lexical import (
    NAME,
    NAME_PARTS,
    ONLY_SQL,
    SPARK,
    spark_string_literal,
)
from translator.dialects.spark.parser import spark_type_to_iceberg
from translator.dialects.spark.types import iceberg_to_spark_type
from translator.dialects.spark.writer import WRITER
from translator.ir import Statement
from translator.script import StatementText

__all__ = [
    "DIALECT",
    "ONLY_SQL",
    "SparkDialect",
    "iceberg_to_spark_type",
    "parse_statement",
    "render_create",
    "spark_string_literal",
    "spark_type_to_iceberg",
]


class SparkDialect(Dialect):
    """Spark, as :func:`translator.dialects.get_dialect` hands it out for ``"spark"``."""

    name = NAME
    title = "Spark"
    sqlglot_dialect = NAME
    check_parser = CHECK_PARSER
    body_writer = WRITER
    lexical = SPARK
    table_functions = True
    return_takes_query = True
    # Spark documents DETERMINISTIC as the default but takes the word on trust: a statement
    # that says nothing states nothing, and merge fills in the default.
    deterministic_default = True
    default_deterministic_is_checked = False
    use_sets_function_namespace = True
    name_parts = NAME_PARTS
    overloading = False  # a second CREATE FUNCTION of a name fails or replaces the first
    parameter_defaults = True

    def parse_statement(self, stmt: StatementText, infer: TypeInference | None = None) -> Statement:
        return parser.parse_statement(stmt, self, infer)

    def render_create(self, spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
        return generator.render_create(spec, or_replace=or_replace)

    def function_name_of(self, piece: StatementText) -> list[str] | None:
        """As the base reads it, except ``IDENTIFIER('...')``: a name given as a string
        expression, which the tokens alone do not tell."""
        parts, after = self.function_name_tokens(piece)
        if parts == ["identifier"] and after:
            return None
        return super().function_name_of(piece)


DIALECT: Final[Dialect] = SparkDialect()


def parse_statement(stmt: StatementText) -> Statement:
    """Parse one Spark ``CREATE FUNCTION`` / ``DROP FUNCTION`` statement into the IR."""
    return DIALECT.parse_statement(stmt)


def render_create(spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
    """Spark's ``CREATE FUNCTION`` for ``spec`` (see :func:`.generator.render_create`)."""
    return generator.render_create(spec, or_replace=or_replace)
