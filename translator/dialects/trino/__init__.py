"""The Trino dialect: how Trino's function DDL reads into the IR and is written back.

- :mod:`.lexical`: Trino's lexical rules and name facts (quoting, reserved words, name parts);
- :mod:`.parser`: the lark Transformer (with :mod:`.source`'s intermediate values) and
  :mod:`.assemble`, the checks on a whole CREATE FUNCTION;
- :mod:`.types`: Trino type text <-> Iceberg types;
- :mod:`.generator`: ``CREATE FUNCTION`` text from a routine spec.

:class:`TrinoDialect` states only where Trino differs from the base
:class:`~translator.dialects.base.Dialect`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from translator.dialects.base import Dialect, Rendered, RoutineSpec, TypeInference
from translator.dialects.trino import generator, parser
from translator.dialects.trino.bodies import prepare_for_trino
from translator.dialects.trino.lexical import NAME, NAME_PARTS, QUERY_WORDS, TRINO
from translator.dialects.trino.parser import trino_type_to_iceberg
from translator.dialects.trino.types import iceberg_to_trino_type
from translator.ir import Statement
from translator.query_free import QueryFree
from translator.script import StatementText

__all__ = [
    "DIALECT",
    "TrinoDialect",
    "iceberg_to_trino_type",
    "parse_statement",
    "render_create",
    "trino_type_to_iceberg",
]


class TrinoDialect(Dialect):
    """Trino, as :func:`translator.dialects.get_dialect` hands it out for ``"trino"``."""

    name = NAME
    title = "Trino"
    sqlglot_dialect = NAME
    lexical = TRINO
    table_functions = False
    return_takes_query = False  # RETURN takes an expression: (SELECT ...) is one
    query_words = QUERY_WORDS
    # Trino documents DETERMINISTIC as the default, and its analyzer rejects a non-deterministic
    # body that does not say NOT DETERMINISTIC: silence states it.
    deterministic_default = True
    default_deterministic_is_checked = True
    # Unqualified functions live in the configured default function schema, not the session's.
    use_sets_function_namespace = False
    name_parts = NAME_PARTS

    def parse_statement(self, stmt: StatementText, infer: TypeInference | None = None) -> Statement:
        return parser.parse_statement(stmt, self)  # Trino functions always declare RETURNS

    def render_create(self, spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
        return generator.render_create(spec, or_replace=or_replace)

    def prepare_body(
        self, ast: Any, parameters: Sequence[str], *, private: bool = False
    ) -> QueryFree:
        return prepare_for_trino(ast, parameters, private=private)


DIALECT: Final[Dialect] = TrinoDialect()


def parse_statement(stmt: StatementText) -> Statement:
    """Parse one Trino ``CREATE FUNCTION`` / ``DROP FUNCTION`` statement into the IR."""
    return DIALECT.parse_statement(stmt)


def render_create(spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
    """Trino's ``CREATE FUNCTION`` for ``spec`` (see :func:`.generator.render_create`)."""
    return generator.render_create(spec, or_replace=or_replace)
