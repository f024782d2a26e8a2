"""Dialect modules: each owns its grammar hookup, type mapping and DDL emission.

The rest of the package reaches a dialect only through :func:`get_dialect`, so adding an engine
means adding a module here and a grammar in ``grammars/``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from translator.emit import Rendered, RoutineSpec
    from translator.ir import Statement
    from translator.script import Lexical, StatementText

__all__ = ["DIALECTS", "Dialect", "get_dialect"]

#: Metadata dialect identifier -> module name.
DIALECTS = {"trino": "trino", "spark": "spark"}


class Dialect(Protocol):
    #: The identifier stored in a representation's ``dialect`` field.
    name: str
    #: The engine's name in messages ("Trino").
    title: str
    #: sqlglot's name for the dialect.
    sqlglot_dialect: str
    lexical: Lexical
    #: Whether the engine has SQL table functions (``RETURNS TABLE``).
    table_functions: bool
    #: Whether ``RETURN`` takes a query (else a scalar query body is written as a subquery).
    return_takes_query: bool
    #: What a function that does not say [NOT] DETERMINISTIC is, by the engine's documentation.
    deterministic_default: bool
    #: Whether a script's ``USE ns`` moves its unqualified function names to ``ns``.
    use_sets_function_namespace: bool
    #: How many parts a function name the engine creates may have.
    name_parts: frozenset[int]

    def parse_statement(self, stmt: StatementText) -> Statement:
        """Parse one CREATE/DROP FUNCTION statement; raise a positioned TranslatorError."""
        ...

    def render_create(self, spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
        """The engine's CREATE FUNCTION for ``spec``; raise UnsupportedError if it has none."""
        ...


def get_dialect(name: str) -> Dialect:
    key = name.lower()
    if key not in DIALECTS:
        from translator.errors import UnsupportedError

        raise UnsupportedError(
            f"unknown dialect {name!r}: supported are {', '.join(sorted(DIALECTS))}"
        )
    module = import_module(f"translator.dialects.{DIALECTS[key]}")
    return module.DIALECT  # type: ignore[no-any-return]
