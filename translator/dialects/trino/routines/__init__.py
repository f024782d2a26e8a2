"""Trino SQL routines: an analyzer with Trino's rules, and a lowering of compound bodies.

A small compiler: an AST, an analysis, a lowering, each in its own modules:

- :mod:`.syntax`: the AST of a routine (header and ``BEGIN ... END`` statements), built from
  the Trino lark grammar's parse; expressions stay text, with their offsets.
- :mod:`.reading`, :mod:`.expr_types`: expressions read with sqlglot; their Trino types where
  they can be derived.
- :mod:`.analyzer`: Trino's routine analyzer (scopes, labels, RETURN, types, determinism),
  with Trino's error codes, messages and positions.
- :mod:`.lowering` (with :mod:`.flow`, its pieces, and :mod:`.loops`): a compound body as one
  expression for an engine that cannot hold statements (Spark): assignments substituted
  forward, branches as CASE, loops as folds over bounded sequences.
- :mod:`.meaning`: what a Trino expression means, written in Spark: 1-based subscripts, integer
  division, ISO day of week...; a difference it cannot express refuses the body.

The front end calls :func:`check_statement` on every Trino ``CREATE FUNCTION`` it parses;
compile and emit call :func:`spark_body` for a Trino body's Spark form and
:func:`trino_objection` for a body written in Trino from another dialect.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from lark import Token, Tree
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from translator.dialects import get_dialect
from translator.dialects.trino.routines.analyzer import RoutineProblem, analyze, analyze_routine
from translator.dialects.trino.routines.expr_types import parse_type
from translator.dialects.trino.routines.flow import MAX_SPARK_LAMBDAS, too_deep_form
from translator.dialects.trino.routines.lowering import lower_body
from translator.dialects.trino.routines.meaning import Refused, rewritten
from translator.dialects.trino.routines.reading import parse_expression, reads_as_written
from translator.dialects.trino.routines.syntax import (
    Block,
    Expr,
    Name,
    Return,
    Routine,
    parse_routine,
    read_routine,
)
from translator.dialects.trino.routines.type_text import composite
from translator.errors import (
    Position,
    RoutineError,
    TranslatorError,
    UnsupportedError,
    position_at,
)
from translator.rebuild import Reduced, by_init
from translator.sqlglot_dialects import SPARK, first_line, write
from translator.sqltrees import breadth_first, copy_tree, unlink, unlink_listed
from translator.types import IcebergType, PrimitiveType

__all__ = [
    "MAX_SPARK_LAMBDAS",
    "RoutineProblem",
    "SparkForm",
    "analyze",
    "check_routine",
    "check_statement",
    "routine_from_parts",
    "spark_body",
    "spark_form",
    "trino_objection",
]


def check_statement(
    text: str, tree: Tree[Token], base: Position | None, body_tree: exp.Expr | None = None
) -> None:
    """Raise :class:`RoutineError` where Trino's analyzer rejects the routine of ``tree`` (the
    grammar's parse of the ``CREATE FUNCTION`` statement ``text``, which starts at ``base`` in
    its script), with Trino's message, placed where Trino places it.

    Only the body is judged: the front end checks the clauses and the type names itself.
    ``body_tree`` is sqlglot's tree of a RETURN body, which the front end has read already.
    """
    try:
        routine = read_routine(text, tree)
    except RecursionError:
        return  # too deep to judge here: never a rejection Trino might not make
    check_routine(text, routine, base, body_tree)


def check_routine(
    text: str, routine: Routine, base: Position | None, body_tree: exp.Expr | None = None
) -> None:
    """:func:`check_statement` for the routine of ``text`` already read (the front end builds
    it from its own values where it parsed without a tree)."""
    try:
        problem = analyze_routine(routine, header=False, body_tree=body_tree)
    except RecursionError:
        return  # too deep to judge here: never a rejection Trino might not make
    if problem is None:
        return
    local = position_at(text, problem.offset)
    lines = text.splitlines() or [""]
    line = lines[min(local.line, len(lines)) - 1]
    if base is not None and local.line == 1:
        line = " " * (base.column - 1) + line
    raise RoutineError(
        problem.message,
        position_at(text, problem.offset, base=base),
        source_line=line,
        engine_code=problem.code,
    )


@dataclass(frozen=True, slots=True)
class SparkForm:
    """A Trino body written as one Spark expression, or why there is none.

    ``names``: where the Spark form was written from the RETURN expression's tree the caller
    gave (``body_tree``), the names (lower case) of its columns without a table part, as they
    were before it was rewritten (:attr:`.meaning.Rewritten.names`), so that the caller need
    not walk that tree again for them; else None."""

    sql: str | None
    reason: str | None = None
    names: frozenset[str] | None = None

    def __reduce__(self) -> Reduced:
        return by_init(self)


def routine_from_parts(
    name: str, parameters: Sequence[tuple[str, str]], return_type: str, body: str, kind: str
) -> Routine:
    """The routine of a function known by its parts (Trino type spellings, the body as written;
    ``kind`` is ``compound`` for a ``BEGIN ... END`` body, else the RETURN expression)."""
    params = ", ".join(_quoted(n) + " " + t for n, t in parameters)
    text = body if kind == "compound" else f"RETURN {body}"
    statement = f"CREATE FUNCTION {_quoted(name)}({params}) RETURNS {return_type}\n{text}"
    if kind != "compound":
        routine = _assembled(name, parameters, return_type, body, statement)
        if routine is not None:
            return routine
    return parse_routine(statement)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _assembled(
    name: str, parameters: Sequence[tuple[str, str]], return_type: str, body: str, text: str
) -> Routine | None:
    """What :func:`parse_routine` gives for ``text``, the statement :func:`routine_from_parts`
    writes around a RETURN ``body``, built without parsing it again; None where that is not
    sure. Every name is a quoted identifier (one token, any content), each type has been read
    by the grammar alone (:func:`_type_as_written`), and ``body`` starts with a character the
    grammar's ``BODY`` token starts at (no space or comment for it to skip): the grammar then
    takes the statement, and the pieces are where they were written."""
    if not body or body[0].isspace() or body.startswith(("--", "/*")):
        return None
    if not all(_type_as_written(t) for t in (return_type, *(t for _, t in parameters))):
        return None
    at = len("CREATE FUNCTION ") + len(_quoted(name)) + 1
    params = []
    for n, t in parameters:
        params.append((Name(n, at), t))
        at += len(_quoted(n)) + 1 + len(t) + len(", ")
    returns_at = len(text) - len(body) - len("RETURN ")
    return Routine(
        name=(name,),
        parameters=tuple(params),
        return_type=return_type,
        characteristics=(),
        body=Return(Expr(body, returns_at + len("RETURN ")), returns_at),
        function_offset=len("CREATE "),
        text=text,
    )


@lru_cache(maxsize=4096)
def _type_as_written(type_text: str) -> bool:
    """Whether the grammar reads ``type_text`` as one type, as a parameter's and as the return
    type, spanning exactly that text.

    ``array(T)``, ``map(K, V)`` and ``row(n1 T1, ...)``, spelled as the type writer spells them,
    are judged by their parts: ``array(`` and ``map(`` are followed by a type in the grammar
    wherever they stand, and a row field by what reading it alone after the same kind of type
    shows. Each part's answer is cached, so a row type seen once (most are) costs no parse of
    its own. Anything else is read by the grammar."""
    parts = composite(type_text)
    if parts is None:
        return _grammar_reads(_numbers_as_one(type_text))
    head, items = parts
    if head == "row":
        return all(
            _grammar_reads(f"row({name} {_first_kind(t)})") and _type_as_written(t)
            for name, t in items
        )
    return all(_type_as_written(t) for _, t in items)


@lru_cache(maxsize=4096)
def _grammar_reads(type_text: str) -> bool:
    """:func:`_type_as_written` by the grammar itself."""
    try:
        routine = parse_routine(
            f'CREATE FUNCTION "f"("x" {type_text}) RETURNS {type_text}\nRETURN x'
        )
    except (TranslatorError, ValueError):
        return False
    return routine.return_type == type_text and routine.parameters[0][1] == type_text


#: A type with number parameters only (``decimal(18,6)``, ``timestamp(3)``), as the type
#: writer spells it.
_NUMBER_PARAMS = re.compile(r"([a-z_][a-z0-9_]*)(\(\d+(?:, ?\d+)*\))")


def _numbers_as_one(t: str) -> str:
    """``t`` with each number parameter written ``1`` where it has only those: the grammar's
    lexer reads any digit run there as the same NUMBER token and its parser looks at token
    kinds only, so the grammar reads both alike, and one parse answers for every precision
    and scale."""
    m = _NUMBER_PARAMS.fullmatch(t)
    if m is None:
        return t
    return m.group(1) + re.sub(r"\d+", "1", m.group(2))


def _first_kind(t: str) -> str:
    """A small type that starts with the same kind of token as ``t`` (a field name is told
    from a type by the token after it)."""
    parts = composite(t)
    if parts is None:
        return _numbers_as_one(t)
    return {"array": "array(integer)", "map": "map(integer, integer)"}.get(
        parts[0], "row(a integer)"
    )


def _scope(routine: Routine) -> dict[str, exp.DataType]:
    """The parameters' types, lower-cased names; a type sqlglot cannot read is left unknown."""
    scope = {}
    for name, text in routine.parameters:
        try:
            scope[name.value.lower()] = parse_type(text)
        except (SqlglotError, ValueError):
            continue
    return scope


@lru_cache(maxsize=4096)
def _trino_type(t: IcebergType) -> str:
    """The Trino type of ``t``; Iceberg unknown is Trino's unknown (the type of NULL), which
    Trino's Iceberg connector cannot store but a routine's parameter may have.

    Cached (types are frozen and compare without their fields' docs, which the spelling does
    not use): every body of a function is judged with the same parameter types."""
    from translator.dialects.trino.types import iceberg_to_trino_type

    if t == PrimitiveType("unknown"):
        return "unknown"
    return iceberg_to_trino_type(t)


def spark_body(
    name: str,
    parameters: Sequence[tuple[str, IcebergType]],
    return_type: IcebergType,
    body: str,
    kind: str,
    body_tree: exp.Expr | None = None,
    *,
    private: bool = False,
) -> SparkForm:
    """:func:`spark_form` of a function known by its IR parts (Iceberg types); ``body_tree``:
    sqlglot's plain Trino reading of a RETURN ``body``, if the caller has it (the front end's);
    ``private``: the caller gives ``body_tree`` up (it may be rewritten itself). The form's
    ``names`` are those of ``body_tree``'s columns where it was the tree written; where it was
    not, ``body_tree`` is left as it was."""
    try:
        params = [(n, _trino_type(t)) for n, t in parameters]
        returns = _trino_type(return_type)
    except UnsupportedError as e:
        return SparkForm(None, e.message)
    try:
        routine = routine_from_parts(name, params, returns, body, kind)
    except (TranslatorError, ValueError) as unread:
        return SparkForm(None, f"the body does not read as a Trino routine: {unread}")
    return spark_form(routine, _as_written(routine, body, body_tree), private=private)


def trino_objection(
    name: str,
    parameters: Sequence[tuple[str, IcebergType]],
    return_type: IcebergType,
    body: str,
    body_tree: exp.Expr | None = None,
    names: set[str] | None = None,
) -> str | None:
    """Why Trino's analyzer would reject the expression ``body`` as the body of this function
    (a query, an unknown name, a type), or None: a body written for Trino from another dialect
    must pass it. Its characteristics are the emitter's business, not judged here.

    ``body_tree``: sqlglot's plain Trino reading of ``body``, if the caller has it (the parse
    back of a transpiled body); ``names``: the names (lower case) of every column in it, other
    than its lambdas' variables, where no column has a table part (None: not known). Where they
    are all parameters, no name can be unknown, and the analyzer is told so."""
    try:
        params = [(n, _trino_type(t)) for n, t in parameters]
        routine = routine_from_parts(name, params, _trino_type(return_type), body, "")
    except (TranslatorError, ValueError):
        return None  # a type Trino cannot write: the emitter refuses it, with its own reason
    try:
        tree = _as_written(routine, body, body_tree)
        known = (
            tree is body_tree and names is not None and names <= {n.lower() for n, _ in parameters}
        )
        problem = analyze_routine(
            routine, header=False, determinism=False, body_tree=tree, names_known=known
        )
    except RecursionError:  # what cannot be checked against Trino's rules is not written
        return "the body nests too deeply for Trino's routine rules to be checked"
    return None if problem is None else f"Trino would reject it: {problem.message}"


def _as_written(routine: Routine, body: str, body_tree: exp.Expr | None) -> exp.Expr | None:
    """``body_tree`` (the plain Trino reading of ``body``) where it is the tree
    :func:`.reading.parse_expression` gives for the routine's RETURN expression, so that the
    same text is not parsed again; else None."""
    if body_tree is None or not isinstance(routine.body, Return):
        return None
    if routine.body.value.text != body:
        return None
    return reads_as_written(body, body_tree)


def spark_form(
    routine: Routine, body_tree: exp.Expr | None = None, *, private: bool = False
) -> SparkForm:
    """The routine's body in Spark, with Trino's meaning (:mod:`.meaning`); a compound body is
    lowered to one expression first (:mod:`.lowering`). Refused, with the reason, where that
    cannot be done. ``body_tree``: the RETURN expression as :func:`.reading.parse_expression`
    reads it, if the caller has it; ``private``: the caller gives ``body_tree`` up, so it is
    rewritten itself instead of a copy (a tree of :func:`.reading.parse_expression`'s cache
    is always copied)."""
    names = None
    calls: tuple[exp.Anonymous, ...] | None = None
    tree: exp.Expr | None = None
    listed: list[exp.Expr] | None = None  # the nodes of the tree written, where a walk has them
    try:
        if isinstance(routine.body, Block):
            tree = lower_body(routine)
            # A lowered body may hold one value at several places: sqlglot writes a copy.
            private = False
        else:
            node = body_tree if body_tree is not None else parse_expression(routine.body.value.text)
            if node is None:
                return SparkForm(None, "sqlglot cannot read the body")
            done = rewritten(node, _scope(routine), private=private and node is body_tree)
            tree, calls, listed = done.tree, done.calls, done.nodes
            names = done.names if node is body_tree else None
            # rewrite's tree is a copy no one else holds: sqlglot may write it without another
            # (a root still hanging from a replaced node is written from a copy, as sqlglot's
            # own copy would have no parent).
            private = tree.parent is None
        own = routine.name[-1].lower()
        # The rewrite's walk saw every call of a tree it left as it was: only a call of the
        # function's own name there (or a rewritten tree) needs the walk, which finds the
        # first such call breadth first, as the message names it.
        lambdas = 0
        if calls is None or any(str(call.name).lower() == own for call in calls):
            # tree.find_all(exp.Anonymous), as one loop; a lowered body's also counts its lets
            if isinstance(routine.body, Block):
                nodes, lambdas = _levels(tree)
            else:
                nodes = breadth_first(tree)
            for call in nodes:
                if isinstance(call, exp.Anonymous) and str(call.name).lower() == own:
                    return SparkForm(
                        None,
                        f"the body calls {call.name}, the function's own name: Spark has "
                        "neither overloads nor recursive SQL functions",
                    )
        if isinstance(routine.body, Block) and lambdas > MAX_SPARK_LAMBDAS:
            return SparkForm(None, too_deep_form(lambdas))
        if not private:  # sqlglot's own copy, at half its cost
            tree = copy_tree(tree)
            listed = None
        sql = write(
            tree, SPARK, get_dialect("spark").body_writer, unsupported_level=ErrorLevel.RAISE
        )
        # Written, and no one else's: freed without the collector (by the rewrite's list of
        # its nodes where it has one, not another walk).
        if listed is not None:
            unlink_listed(listed)
        else:
            unlink(tree)
        return SparkForm(sql, names=names)
    except Refused as e:
        return SparkForm(None, e.reason)
    except RecursionError:
        return SparkForm(None, _too_deep(routine, tree))
    except SqlglotError as failure:  # not ``e``: see tests/test_setup.py
        return SparkForm(None, f"sqlglot cannot write it in Spark: {first_line(str(failure))}")


def _too_deep(routine: Routine, tree: exp.Expr | None) -> str:
    """Why a body ran out of Python's stack: its statements nest too deeply to be lowered, or
    its Spark form (one level or more for every branch, loop and binding the rest of the body
    sits in) nests too deeply to be written; how deep, counted without recursion."""
    if not isinstance(routine.body, Block):
        return "the body nests too deeply to be translated"
    if tree is None:
        return "the body's statements nest too deeply to be lowered to one Spark expression"
    depth, level = 0, [tree]
    while level:
        depth += 1
        level = [child for node in level for child in node.iter_expressions()]
    return (
        f"the body's Spark form nests {depth} expressions deep, too deep to be written: the "
        "body is too long or too deeply nested to be one Spark expression"
    )


def _levels(root: exp.Expr) -> tuple[list[exp.Expr], int]:
    """:func:`translator.sqltrees.breadth_first` of ``root``, and the most calls with a lambda
    (a let, a fold) any node is inside (one walk, no recursion)."""
    out = [root]
    inside = [0]  # calls with a lambda around each node of ``out``
    append, mark = out.append, inside.append
    expr, call, lam = exp.Expr, exp.Anonymous, exp.Lambda
    most, i = 0, 0
    while i < len(out):
        node = out[i]
        here = inside[i]
        if isinstance(node, call) and any(isinstance(a, lam) for a in node.expressions):
            here += 1
            most = max(most, here)
        for value in node.args.values():
            if isinstance(value, list):
                for v in value:
                    if isinstance(v, expr):
                        append(v)
                        mark(here)
            elif isinstance(value, expr):
                append(value)
                mark(here)
        i += 1
    return out, most
