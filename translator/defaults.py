"""Parameter DEFAULTs, kept so that every call a function accepted still works after a round trip.

The Iceberg UDF spec has no field for a default: a definition is one fixed signature
(``Parameter`` has ``name``, ``type``, ``doc``; the REST schema the same), and an engine reading
only the spec resolves a call by its number of arguments. So a function
``f(a INT, b INT DEFAULT 5, c INT DEFAULT b + 1)`` is stored as what such an engine can call:

- the full definition ``int,int,int``, body as written;
- one definition per shortened signature (``int,int`` and ``int``), whose body is the full body
  with each left-out parameter replaced by its default, cast to the parameter's type (a default
  may refer to the parameters before it; those are replaced too, right to left);

and, for the engine whose syntax has DEFAULT (re-emission must write it again), two function
properties (properties are the spec's string map of hints):

- ``<dialect>.parameter-default.<definition-id>.<parameter>``: the default as written;
- ``<dialect>.default-form.<definition-id of a shortened definition>``: the full definition's id,
  so the emitter of that dialect writes the full definition with its DEFAULTs and leaves out the
  shortened ones it covers (Spark has no overloading: writing them would replace it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from sqlglot import exp
from sqlglot.errors import SqlglotError

from translator.bodies import sqlglot_type
from translator.dialects import get_dialect
from translator.errors import Diagnostic
from translator.ir import Body, CreateFunction, DropFunction, Parameter, SkippedStatement, Statement
from translator.names import format_name
from translator.sqlglot_dialects import dialect_named, parse_one, write
from translator.sqltrees import breadth_first, copy_tree
from translator.types import TypeParseError, definition_id

__all__ = [
    "DEFAULT_FORM",
    "PARAMETER_DEFAULT",
    "default_properties",
    "expand_defaults",
    "stale_default_properties",
    "with_default_forms",
]

#: Function property keys (``str.format`` fields: dialect, definition, name).
PARAMETER_DEFAULT = "{dialect}.parameter-default.{definition}.{name}"
DEFAULT_FORM = "{dialect}.default-form.{definition}"

_FAILURES = (SqlglotError, RecursionError, ValueError, TypeError, KeyError, AttributeError)


def expand_defaults(
    stmt: CreateFunction, sqlglot_dialect: str
) -> tuple[list[CreateFunction], list[Diagnostic]]:
    """``stmt`` and one statement per shortened signature its DEFAULTs allow (see the module
    docstring). Without DEFAULTs: ``[stmt]``."""
    first = next((i for i, p in enumerate(stmt.parameters) if p.default is not None), None)
    if first is None:
        return [stmt], []
    try:
        full_id = definition_id(stmt.parameter_types)
    except TypeParseError:  # merge refuses the statement, saying why, at its position
        return [stmt], []
    if stmt.body.ast is None or stmt.body.kind == "compound":
        return [stmt], [
            Diagnostic(
                "default-not-expanded",
                f"the DEFAULTs of {format_name(stmt.name)} are kept for {stmt.dialect} only: the "
                "body could not be read, so no shortened definition is stored for other engines "
                "(an engine reading only the spec needs every argument)",
                stmt.position,
            )
        ]
    out = [stmt]
    ast = stmt.body.ast
    for n in range(len(stmt.parameters) - 1, first - 1, -1):
        left_out = stmt.parameters[n]
        try:
            reader = dialect_named(sqlglot_dialect)
            default = parse_one(left_out.default or "", reader)
            ast = _substitute(ast, stmt, left_out, default)
            # sqlglot's generator may change what it writes: it writes a copy (copy_tree's)
            text = write(copy_tree(ast), reader, get_dialect(stmt.dialect).body_writer)
        except _FAILURES as e:
            return [stmt], [
                Diagnostic(
                    "default-not-expanded",
                    f"the DEFAULT of {left_out.name} could not be substituted into the body "
                    f"({type(e).__name__}): only the full signature is stored",
                    stmt.position,
                )
            ]
        shorter = stmt.parameters[:n]
        body = Body(text=text, kind=stmt.body.kind, position=stmt.body.position, ast=ast)
        out.append(
            dataclasses.replace(
                stmt,
                parameters=tuple(dataclasses.replace(q, default=None) for q in shorter),
                body=body,
                defaults_of=full_id,
                warnings=(),
            )
        )
    return out, []


def _substitute(ast: Any, stmt: CreateFunction, p: Parameter, default: Any) -> Any:
    """``ast`` with every reference to ``p`` (bare, or qualified by the function's name) replaced
    by ``CAST((default) AS type)``; references a query's own tables may bind are left alone."""
    tree = copy_tree(ast)  # sqlglot's copy, at half its cost
    to = sqlglot_type(p.type)
    value = exp.Paren(this=copy_tree(default))
    # a type sqlglot cannot spell (a struct...) keeps the default uncast, in parentheses
    cast = value if to is None else exp.Cast(this=value, to=copy_tree(to))
    fname = stmt.name[-1].lower()
    targets = []
    for col in breadth_first(tree):  # tree.find_all(exp.Column), as one loop
        if not isinstance(col, exp.Column):
            continue
        if col.name.lower() != p.name.lower() or col.args.get("db"):
            continue
        if col.table and col.table.lower() != fname:
            continue
        if not col.table and _inside_query_with_tables(col):
            continue
        targets.append(col)
    for col in targets:
        if col is tree:
            return copy_tree(cast)
        col.replace(copy_tree(cast))
    return tree


def _inside_query_with_tables(node: Any) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, exp.Select) and parent.args.get("from_"):
            return True
        parent = parent.parent
    return False


def default_properties(stmt: CreateFunction) -> dict[str, str]:
    """The properties that keep ``stmt``'s DEFAULTs (or mark it as a shortened form)."""
    out: dict[str, str] = {}
    if stmt.defaults_of is None and all(p.default is None for p in stmt.parameters):
        return out  # most statements: no definition-id to spell out
    def_id = definition_id(stmt.parameter_types)
    if stmt.defaults_of is not None:
        out[DEFAULT_FORM.format(dialect=stmt.dialect, definition=def_id)] = stmt.defaults_of
    for p in stmt.parameters:
        if p.default is not None:
            key = PARAMETER_DEFAULT.format(dialect=stmt.dialect, definition=def_id, name=p.name)
            out[key] = p.default
    return out


def with_default_forms(
    statements: Iterable[Statement], warnings: list[Diagnostic]
) -> Iterator[CreateFunction | DropFunction]:
    """The statements merge applies, skipped ones left out: a CREATE with parameter DEFAULTs
    is followed by one CREATE per shortened signature (:func:`expand_defaults`)."""
    for stmt in statements:
        if isinstance(stmt, SkippedStatement):
            continue
        if isinstance(stmt, CreateFunction) and any(p.default for p in stmt.parameters):
            expanded, notes = expand_defaults(stmt, get_dialect(stmt.dialect).sqlglot_dialect)
            warnings.extend(notes)
            yield from expanded
        else:
            yield stmt


def stale_default_properties(properties: Mapping[str, str], stmt: CreateFunction) -> list[str]:
    """The properties of DEFAULTs that ``stmt``'s definition had and no longer has."""
    if not properties:
        return []
    def_id = definition_id(stmt.parameter_types)
    prefix = PARAMETER_DEFAULT.format(dialect=stmt.dialect, definition=def_id, name="")
    kept = default_properties(stmt)
    return [k for k in properties if k.startswith(prefix) and k not in kept]
