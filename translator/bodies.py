"""sqlglot work on routine bodies: parse in the source dialect (and, later, transpile and check).

A body sqlglot cannot parse is not an error: the engine may well accept it. It is kept verbatim
and flagged, so compile can still store it for its own dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError
from sqlglot.parser import Parser
from sqlglot.tokenizer_core import Token, TokenType

from translator.dialects import get_dialect
from translator.query_free import QueryFree
from translator.rebuild import Reduced, by_init
from translator.sqlglot_dialects import (
    GENERIC,
    SQLGLOT_FAILURES,
    dialect_named,
    first_line,
    parse_one,
    parse_one_with_tokens,
    tokenize,
    write,
)
from translator.sqltrees import (
    breadth_first,
    column_name,
    copy_tree,
    has_no_table,
    plain_scope,
    scoped_columns,
    unlink,
    unlink_listed,
)
from translator.types import DecimalType, IcebergType, ListType, MapType, PrimitiveType

__all__ = [
    "Transpiled",
    "builtin_functions",
    "called_functions",
    "copy_tree",
    "parameter_references",
    "parse_body",
    "sqlglot_type",
    "transpile_body",
]


def parse_body(
    text: str, kind: str, sqlglot_dialect: str, parser_class: type[Parser] | None = None
) -> tuple[Any, str | None]:
    """``(ast, None)`` when sqlglot parses ``text``, else ``(None, reason)``. ``parser_class``:
    a parser that reads exactly as the dialect's own does, to read with instead (Spark's:
    :mod:`translator.dialects.spark.read_parser`).

    Compound ``BEGIN ... END`` bodies are not sqlglot's business (it has no routine-statement
    parser); they are flagged as such.
    """
    if kind == "compound":
        return None, "compound BEGIN ... END bodies are not parsed by sqlglot"
    try:
        ast = parse_one(text, dialect_named(sqlglot_dialect), parser_class)
    except SqlglotError as e:
        return None, f"sqlglot could not parse the body: {first_line(str(e))}"
    except SQLGLOT_FAILURES as failure:
        # sqlglot is a third-party parser: any failure inside it flags the body, never crashes us.
        return None, f"sqlglot failed on the body: {type(failure).__name__}"
    if ast is None:
        return None, "sqlglot found no expression in the body"
    if isinstance(ast, exp.Command):
        # sqlglot's fallback for text it cannot parse: an opaque command, not a parse.
        return None, "sqlglot could not parse the body (it fell back to an opaque command)"
    return ast, None


# --------------------------------------------------------------------------------------------
# Transpiling


@dataclass(frozen=True, slots=True)
class Transpiled:
    """The body in the target dialect, or why there is none. ``notes`` are non-fatal remarks."""

    sql: str | None
    reason: str | None = None
    notes: tuple[str, ...] = ()

    def __reduce__(self) -> Reduced:
        return by_init(self)


def parameter_references(ast: Any, parameters: Sequence[str]) -> set[str]:
    """Declared parameter names (case-insensitively) that ``ast`` refers to as bare columns."""
    wanted = {p.lower() for p in parameters}
    column = exp.Column
    return {
        name
        for node in breadth_first(ast)
        if isinstance(node, column)
        and has_no_table(node)
        and (name := column_name(node).lower()) in wanted
    }


#: Functions written without parentheses (SQL's niladic forms), which sqlglot may read back as
#: column names: never strays.
_NILADIC_FORMS = frozenset(
    {"current_schema", "current_catalog", "current_user", "current_path", "current_date"}
    | {"current_time", "current_timestamp", "localtime", "localtimestamp"}
)


#: Iceberg primitives as sqlglot's types, for the generator's type-aware rewrites.
_SQLGLOT_PRIMITIVES = {
    "boolean": "BOOLEAN",
    "int": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "date": "DATE",
    "time": "TIME",
    "timestamp": "TIMESTAMP",
    "timestamptz": "TIMESTAMPTZ",
    "string": "VARCHAR",
    "uuid": "UUID",
    "binary": "VARBINARY",
}


@lru_cache(maxsize=4096)  # keyed by what a script says: bounded
def sqlglot_type(t: IcebergType) -> Any:
    """``t`` as a sqlglot ``DataType`` (built once per type), or None where sqlglot has no plain
    equivalent."""
    if isinstance(t, PrimitiveType):
        name = _SQLGLOT_PRIMITIVES.get(t.name)
        return None if name is None else exp.DataType.build(name, dialect=GENERIC)
    if isinstance(t, DecimalType):
        return exp.DataType.build(f"DECIMAL({t.precision}, {t.scale})", dialect=GENERIC)
    if isinstance(t, ListType):
        element = sqlglot_type(t.element)
        if element is None:
            return None
        return exp.DataType(this=exp.DataType.Type.ARRAY, expressions=[element.copy()], nested=True)
    if isinstance(t, MapType):
        key, value = sqlglot_type(t.key), sqlglot_type(t.value)
        if key is None or value is None:
            return None
        pair = [key.copy(), value.copy()]
        return exp.DataType(this=exp.DataType.Type.MAP, expressions=pair, nested=True)
    return None  # structs, fixed, geospatial, variant: left untyped


def _typed_copy(
    ast: Any,
    types: Mapping[str, IcebergType],
    parameters: Sequence[str],
    *,
    in_place: bool = False,
    nodes: list[Any] | None = None,
) -> tuple[Any, set[str]]:
    """A copy of ``ast`` whose free references to parameters carry their types, so that
    sqlglot's generator can rewrite what depends on them (``CONCAT_WS`` into Trino needs to know
    its arguments are strings) instead of refusing or casting defensively; and
    :func:`parameter_references` of ``ast``, found in the same walk. ``in_place``: ``ast`` is a
    private copy already, typed without another; ``nodes``: its nodes, where the caller has
    them (with no query that has a FROM among them, none is walked again)."""
    typed = ast if in_place else copy_tree(ast)
    lowered = {name.lower(): t for name, t in types.items()}
    wanted = {p.lower() for p in parameters}
    scoped = plain_scope(nodes) if in_place and nodes is not None else None
    if scoped is not None:
        free, shadowed = scoped
        columns = free  # no query: every column is free
    else:
        columns, free, shadowed, _ = scoped_columns(typed)
    found = {name for c in columns if (name := column_name(c).lower()) in wanted}
    for col in free:
        name = column_name(col).lower()
        if name in lowered and name not in shadowed:
            built = sqlglot_type(lowered[name])
            if built is not None:
                col.type = copy_tree(built)
    return typed, found


def transpile_body(
    text: str,
    ast: Any,
    *,
    kind: str,
    source: str,
    target: str,
    parameters: Sequence[str],
    parameter_types: Mapping[str, IcebergType] | None = None,
    name: str = "",
    return_type: IcebergType | None = None,
    prepare: Callable[..., QueryFree] | None = None,
    ast_private: bool = False,
) -> Transpiled:
    """``text`` (parsed as ``ast`` in ``source``) in ``target``, only if it is valid there.

    A Trino body is written in Spark by the Trino dialect's routine compiler
    (:func:`translator.dialects.trino.routines.spark_body`), not by sqlglot alone: what sqlglot
    writes would not always mean what Trino means (a 1-based subscript, an integer division), and
    a compound body must first become one expression. That needs the function's ``name`` and
    ``return_type``. The checks below then apply to its result as to sqlglot's.

    Valid means: sqlglot generates it without an unsupported-feature error, the result parses in
    the target dialect (with the target's ``check_parser``, where it names one), it refers to
    exactly the parameters the source refers to, and it calls no built-in of the source engine
    that the target engine lacks (sqlglot passes a function it does not know through
    unchanged). Calls that are no built-in of either engine are taken for
    user-defined functions and noted. ``prepare``: the target dialect's rewrite of the tree
    before sqlglot writes it (:meth:`translator.dialects.base.Dialect.prepare_body`).
    ``ast_private``: ``ast`` is this call's to change (no one reads it after), so it is
    rewritten and written itself instead of a copy (:func:`translator.compile.owned_trees`).
    """
    trino_to_spark = (
        source == "trino"
        and target == "spark"
        and kind in ("expression", "compound")
        and return_type is not None
    )
    if kind == "compound" and not trino_to_spark:
        return Transpiled(None, f"a compound BEGIN ... END body has no {target} form")
    if ast is None and kind != "compound":
        return Transpiled(
            None, f"sqlglot could not parse the {source} body, so it cannot be transpiled"
        )
    private = False  # whether ``ast`` is a copy only this call holds (typed in place)
    nodes = None  # its nodes, where ``prepare`` walked them
    if prepare is not None and not trino_to_spark:
        try:
            prepared = (
                prepare(ast, parameters, private=True) if ast_private else prepare(ast, parameters)
            )
        except SQLGLOT_FAILURES as failure:
            return Transpiled(
                None, f"the body could not be prepared for {target}: {type(failure).__name__}"
            )
        if prepared.ast is None:
            return Transpiled(None, prepared.reason)
        ast, kind, private = prepared.ast, "expression", prepared.private
        nodes = prepared.nodes
    # Before sqlglot writes the tree (which may change a tree it is given to write in place).
    # A Trino body's Spark form reports them itself, from the walk that rewrites the tree.
    before: set[str] | None = None
    if ast is not None and not trino_to_spark and not parameter_types:
        before = parameter_references(ast, parameters)
    wanted = {p.lower() for p in parameters}
    try:
        writer = dialect_named(target)
        body_writer = get_dialect(target).body_writer
        if trino_to_spark:
            # Imported here: the Trino dialect itself uses this module (parse_body).
            from translator.dialects.trino.routines import spark_body

            assert return_type is not None
            types = parameter_types or {}
            params = [(p, types[p]) for p in parameters if p in types]
            form = spark_body(name, params, return_type, text, kind, ast, private=ast_private)
            if form.sql is None:
                return Transpiled(None, form.reason)
            sql = form.sql
            if form.names is not None:  # ``ast``'s, read before it was rewritten
                before = {n for n in form.names if n in wanted}
            elif ast is not None:  # the form was written from another tree: ``ast`` is as it was
                before = parameter_references(ast, parameters)
        elif parameter_types:
            typed, before = _typed_copy(
                ast, parameter_types, parameters, in_place=private or ast_private, nodes=nodes
            )
            sql = write(typed, writer, body_writer, unsupported_level=ErrorLevel.RAISE)
        else:
            tree = ast if private or ast_private else copy_tree(ast)
            sql = write(tree, writer, body_writer, unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as e:
        return Transpiled(None, f"sqlglot cannot express it in {target}: {first_line(str(e))}")
    except SQLGLOT_FAILURES as failure:
        return Transpiled(None, f"sqlglot failed to write it in {target}: {type(failure).__name__}")
    if nodes is not None and private:
        # The tree written is this call's (prepare's copy, or the body's own tree given up) and
        # prepare's walk listed its nodes: they let go of their parents without another walk.
        unlink_listed(nodes)
    try:
        back, tokens = parse_one_with_tokens(sql, writer, get_dialect(target).check_parser)
    except SqlglotError as e:
        return Transpiled(
            None, f"the {target} text does not parse in {target}: {first_line(str(e))}"
        )
    except SQLGLOT_FAILURES as failure:
        return Transpiled(None, f"sqlglot failed on the {target} text: {type(failure).__name__}")
    if back is None:
        return Transpiled(None, f"the {target} text is empty")
    walked = False  # whether the scoped walk unlinked ``back`` (nothing below asks a parent)
    try:
        back_columns, back_free, lambda_vars, qualified = scoped_columns(back, unlinking=True)
        walked = True
        columns = [column_name(c).lower() for c in back_columns]
        free = [column_name(c) for c in back_free]
        after = {c for c in columns if c in wanted}
        # A lowered compound body is built from its parameters and lambda variables only.
        if before is None:
            before = after
        if before != after:
            return Transpiled(
                None,
                f"the {target} text refers to parameters {sorted(after)}, the {source} body to "
                f"{sorted(before)}",
            )
        if kind == "expression":
            bound = wanted | lambda_vars | _NILADIC_FORMS
            strays = {name for name in free if name.lower() not in bound}
            if strays:
                return Transpiled(
                    None,
                    f"the body refers to {', '.join(sorted(strays))}, which "
                    + ("is not a parameter" if len(strays) == 1 else "are not parameters"),
                )
        if target == "trino" and kind == "query" and return_type is not None:
            return Transpiled(None, "Trino would reject it: Queries are not allowed in functions")
        if target == "trino" and kind == "expression" and return_type is not None:
            from translator.dialects.trino.routines import trino_objection

            types = parameter_types or {}
            params = [(p, types[p]) for p in parameters if p in types]
            # Every name Trino's analyzer would look up (no column with a table part), so that it
            # need not look again where they are all parameters or lambda variables.
            names = None if qualified else set(columns) - lambda_vars
            objection = trino_objection(name, params, return_type, sql, back, names)
            if objection is not None:
                return Transpiled(None, objection)
        missing, user = _function_availability(tokens, source, target)
        if missing:
            return Transpiled(
                None,
                f"{target} has no built-in {', '.join(missing)} (sqlglot passed "
                f"{'it' if len(missing) == 1 else 'them'} through from {source})",
            )
        if user:
            notes = (
                f"calls {', '.join(user)}, which {target} must also have (not a built-in of "
                "either engine: a user-defined function?)",
            )
            return Transpiled(sql, notes=notes)
        return Transpiled(sql)
    finally:
        if not walked:  # the parse back is this call's alone: freed without the collector
            unlink(back)


@cache
def builtin_functions(dialect: str) -> frozenset[str]:
    """The engine's built-in function names (``translator/data/<dialect>-functions.txt``)."""
    text = resources.files("translator.data").joinpath(f"{dialect}-functions.txt").read_text()
    return frozenset(
        line.strip().lower() for line in text.splitlines() if line.strip() and line[0] != "#"
    )


#: Call-shaped constructs that are syntax rather than catalogued functions.
_SPECIAL_FORMS = frozenset({"cast", "try_cast", "row", "array", "map", "struct", "if"})


def called_functions(sql: str, dialect: str) -> list[tuple[str, bool]]:
    """``(name, qualified)`` for every ``name(`` call in ``sql``, as the dialect spells it."""
    return _calls(tokenize(sql, dialect_named(dialect)))


#: A name after these, followed by "(", names a relation and its columns: no call.
_ALIAS_BEFORE = frozenset({TokenType.ALIAS, TokenType.R_PAREN})


def _calls(tokens: list[Token]) -> list[tuple[str, bool]]:
    out = []
    paren, dot, names, alias = TokenType.L_PAREN, TokenType.DOT, _NAME_TOKENS, _ALIAS_BEFORE
    for i in range(1, len(tokens)):  # at each "(", the token before it and the one before that
        if tokens[i].token_type != paren:
            continue
        tok = tokens[i - 1]
        if tok.token_type not in names:
            continue
        before = tokens[i - 2].token_type if i > 1 else None
        if before in alias:
            continue  # a column alias list, as in VALUES (1) AS t(a) or (VALUES (1)) t(a)
        out.append((tok.text, before == dot))
    return out


_NAME_TOKENS = frozenset({TokenType.VAR, TokenType.IDENTIFIER})


def _function_availability(
    tokens: list[Token], source: str, target: str
) -> tuple[list[str], list[str]]:
    """Built-ins of ``source`` that ``target`` lacks, and calls that are no built-in at all
    (``tokens``: the target text's, in the target dialect)."""
    try:
        target_names, source_names = builtin_functions(target), builtin_functions(source)
    except FileNotFoundError:
        return [], []
    missing: set[str] = set()
    user: set[str] = set()
    for name, qualified in _calls(tokens):
        low = name.lower()
        if qualified:
            user.add(name)
        elif low in target_names or low in _SPECIAL_FORMS:
            continue
        elif low in source_names:
            missing.add(low)
        else:
            user.add(name)
    return sorted(missing), sorted(user)
