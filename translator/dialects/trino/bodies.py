"""What a body needs before sqlglot writes it as Trino, and what Trino will not take.

Facts from Trino's docs that sqlglot's Trino generator does not apply:

- A routine body holds no query at all (Trino's routine analyzer: "Queries are not allowed in
  functions"): queries that are really expressions are rewritten (:mod:`translator.query_free`),
  any other is refused.
- ``date_trunc(unit, x)`` takes ``millisecond``, ``second``, ``minute``, ``hour``, ``day``,
  ``week``, ``month``, ``quarter``, ``year`` (case-insensitive). Spark also takes ``YYYY``, ``YY``,
  ``MON``, ``MM``, ``DD`` (and ``MICROSECOND``), which sqlglot passes through unchanged: they are
  spelled in Trino's words, and a unit Trino lacks is refused. Spark's ``trunc(date, fmt)``
  truncates only to a year, quarter, month or week (any other unit gives NULL), so only those
  are mapped.
- ``current_schema`` is written without parentheses (Spark's ``current_schema()`` and
  ``current_database()``); Spark's ``current_path()`` lists Spark's SQL path, which Trino's
  ``current_path`` does not, so it is refused.
- ``reduce(array, initialState, inputFunction, outputFunction)`` needs all four arguments; Spark's
  ``aggregate``/``reduce`` may leave the output function out, which is then the identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokenizer_core import Token, TokenType

from translator.errors import BodyError
from translator.query_free import QueryFree, query_free
from translator.sqlglot_dialects import (
    SPARK,
    SQLGLOT_FAILURES,
    TRINO,
    first_line,
    parse_one,
    tokenize,
)
from translator.sqltrees import ByClass, breadth_first

__all__ = [
    "NONDETERMINISTIC",
    "BodyReading",
    "body_is_deterministic",
    "calls_nondeterministic",
    "prepare_for_trino",
    "query_in_body",
    "return_operand",
]

#: Spark's date_trunc units (upper-cased) in Trino's words.
_DATE_TRUNC_UNITS = {
    "YEAR": "year",
    "YYYY": "year",
    "YY": "year",
    "QUARTER": "quarter",
    "MONTH": "month",
    "MON": "month",
    "MM": "month",
    "WEEK": "week",
    "DAY": "day",
    "DD": "day",
    "HOUR": "hour",
    "MINUTE": "minute",
    "SECOND": "second",
    "MILLISECOND": "millisecond",
}

#: Spark's trunc(date, fmt) units: the others make Spark return NULL.
_TRUNC_UNITS = {
    k: v for k, v in _DATE_TRUNC_UNITS.items() if v in ("year", "quarter", "month", "week")
}

#: Trino functions its analyzer takes for non-deterministic (a DETERMINISTIC routine may not
#: call them: "Non-deterministic function declared DETERMINISTIC").
NONDETERMINISTIC = frozenset({"rand", "random", "uuid", "shuffle"})


def calls_nondeterministic(ast: Any) -> bool:
    """Whether ``ast`` calls a function Trino's analyzer takes for non-deterministic."""
    for node in ast.walk():
        if isinstance(node, (exp.Rand, exp.Randn, exp.Uuid, exp.Shuffle)):
            return True
        if isinstance(node, exp.Anonymous) and str(node.this).lower() in NONDETERMINISTIC:
            return True
    return False


def prepare_for_trino(ast: Any, parameters: Sequence[str], *, private: bool = False) -> QueryFree:
    """A copy of ``ast`` that sqlglot can write as a valid Trino routine body, or why not
    (``private``: ``ast`` itself, which the caller gives up, rewritten instead of a copy)."""
    result = query_free(ast, parameters, private=private)
    if result.ast is None:
        return result
    tree = result.ast
    if result.nodes is not None and not _any_to_prepare(result.nodes):
        return result  # nothing below to rewrite or refuse: the walk is not made
    # One walk, breadth first as ``find_all`` goes (the first refusal and the names a nested
    # reduce gets depend on that order), instead of one per rewrite below.
    truncs, schemas, calls, reduces = [], [], [], []
    for node in breadth_first(tree):
        if isinstance(node, (exp.TimestampTrunc, exp.DateTrunc)):
            truncs.append(node)
        elif isinstance(node, (exp.CurrentSchema, exp.CurrentDatabase)):
            schemas.append(node)
        elif isinstance(node, exp.Anonymous):
            calls.append(node)
        elif isinstance(node, exp.Reduce):
            reduces.append(node)
    for node in truncs:
        units = _TRUNC_UNITS if isinstance(node, exp.DateTrunc) else _DATE_TRUNC_UNITS
        unit = node.args.get("unit")
        written = unit.name.upper() if isinstance(unit, (exp.Var, exp.Literal)) else None
        trino_unit = units.get(written) if written else None
        if trino_unit is None:
            what = repr(written) if written else unit.sql(SPARK) if unit else "no unit"
            return QueryFree(
                None,
                f"{node.sql(SPARK)[:60]} truncates to {what}, which is no unit of Trino's "
                "date_trunc (millisecond, second, minute, hour, day, week, month, quarter, year)"
                + (" or which Spark's trunc answers with NULL" if units is _TRUNC_UNITS else ""),
            )
        node.set(
            "unit",
            exp.Literal.string(trino_unit)
            if isinstance(unit, exp.Literal)
            else exp.var(trino_unit.upper()),
        )
    for node in schemas:
        # Trino's current_schema is a special form without parentheses.
        replacement = exp.var("CURRENT_SCHEMA")
        if node is tree:
            tree = replacement
        else:
            node.replace(replacement)
    for node in calls:
        if str(node.this).lower() == "current_path" and _within(node, tree):
            return QueryFree(
                None,
                "the body calls current_path(): Spark's SQL path and Trino's path are not the "
                "same list, so the result would differ",
            )
    for node in reduces:
        if node.args.get("finish") is None and _within(node, tree):
            state = _fresh_name(node, "state")
            node.set(
                "finish",
                exp.Lambda(this=exp.to_identifier(state), expressions=[exp.to_identifier(state)]),
            )
    return QueryFree(tree, private=result.private)


#: The nodes :func:`prepare_for_trino` rewrites or refuses (with current_path calls).
_PREPARED = (
    exp.TimestampTrunc, exp.DateTrunc, exp.CurrentSchema, exp.CurrentDatabase, exp.Reduce
)  # fmt: skip


def _any_to_prepare(nodes: list[Any]) -> bool:
    """Whether :func:`prepare_for_trino` would look at any of ``nodes`` (its walk's tests, in
    short): a node of the classes it rewrites, or a call of current_path."""
    kinds = _PREPARE_KINDS
    for node in nodes:
        kind = kinds[type(node)]
        if kind == 1 or (kind == 2 and str(node.this).lower() == "current_path"):
            return True
    return False


#: 1: a node of :data:`_PREPARED`; 2: a call sqlglot does not know (``Anonymous``); else 0.
_PREPARE_KINDS: ByClass[int] = ByClass(
    lambda cls: 1 if issubclass(cls, _PREPARED) else 2 if issubclass(cls, exp.Anonymous) else 0
)


def _within(node: Any, tree: Any) -> bool:
    """Whether ``node`` is still part of ``tree`` (not inside a node replaced above)."""
    while node.parent is not None:
        node = node.parent
    return node is tree


def _fresh_name(node: Any, base: str) -> str:
    taken = {i.name.lower() for i in node.find_all(exp.Identifier)}
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{n}"
    return name


class BodyReading:
    """A Trino body and what sqlglot reads of it, each read at most once: emit asks three
    things of a body (:func:`query_in_body`, :func:`body_is_deterministic`,
    :func:`return_operand`), which each parsed it. None of them changes the tree."""

    __slots__ = ("_tokens", "_tree", "text")

    def __init__(self, text: str, tree: Any = None) -> None:
        """``tree``: :func:`translator.bodies.parse_body`'s tree of ``text`` in Trino, where
        the caller has it (sqlglot's reading of the text, where it is not an opaque command)."""
        self.text = text
        self._tree: Any = _UNREAD if tree is None else tree
        self._tokens: list[Token] | None = None

    def tree(self) -> Any:
        """sqlglot's tree of the body, or None where sqlglot cannot read it."""
        if self._tree is _UNREAD:
            try:
                self._tree = parse_one(self.text, TRINO)
            except (SqlglotError, *SQLGLOT_FAILURES):
                self._tree = None
        return self._tree

    def tokens(self) -> list[Token]:
        """sqlglot's tokens of the body (its error where it cannot tokenize it, each time)."""
        if self._tokens is None:
            self._tokens = tokenize(self.text, TRINO)
        return self._tokens


_UNREAD = object()


def _reading(body: str | BodyReading) -> BodyReading:
    return body if isinstance(body, BodyReading) else BodyReading(body)


def return_operand(body: str | BodyReading) -> str:
    """``body`` as the operand of Trino's ``RETURN``, which takes a value expression: a body
    whose top is a predicate or a boolean operator (``NOT b``, ``a = b``, ``x IN (1)``) is put in
    parentheses (Trino's grammar rejects ``RETURN a = b``)."""
    reading = _reading(body)
    ast = reading.tree()
    if isinstance(ast, (exp.Predicate, exp.Connector, exp.Not)) and not isinstance(ast, exp.Exists):
        return f"({reading.text})"
    return reading.text


def body_is_deterministic(body: str | BodyReading, compound: bool) -> bool:
    """What Trino's analyzer finds: deterministic unless the body calls a non-deterministic
    function (it rejects a routine whose DETERMINISTIC characteristic says otherwise)."""
    reading = _reading(body)
    if compound:
        tokens = _tokens_to_judge(reading)
        return not any(
            t.text.lower() in NONDETERMINISTIC and i + 1 < len(tokens) and tokens[i + 1].text == "("
            for i, t in enumerate(tokens)
        )
    ast = reading.tree()
    if ast is None:
        return not any(t.text.lower() in NONDETERMINISTIC for t in _tokens_to_judge(reading))
    return not calls_nondeterministic(ast)


def _tokens_to_judge(reading: BodyReading) -> list[Token]:
    """The body's tokens, or a :class:`BodyError` where sqlglot cannot tokenize it (a stored
    body read from a metadata file may be anything): then nothing tells which functions it
    calls, so neither DETERMINISTIC nor NOT DETERMINISTIC can be written for it."""
    try:
        return reading.tokens()
    except (SqlglotError, *SQLGLOT_FAILURES) as e:
        detail = first_line(str(e)) if str(e).strip() else type(e).__name__
        raise BodyError(
            f"the Trino body cannot be tokenized ({detail}), so whether Trino finds it "
            "deterministic cannot be told"
        ) from None


def query_in_body(body: str | BodyReading, kind: str) -> bool:
    """Whether a Trino body holds a query, which Trino's analyzer rejects anywhere in a routine
    ("Queries are not allowed in functions"). ``kind``: expression, query or compound."""
    if kind == "query":
        return True
    reading = _reading(body)
    if kind != "compound":
        ast = reading.tree()
        if ast is not None:
            try:
                return any(True for _ in ast.find_all(exp.Query, exp.Exists))
            except (SqlglotError, *SQLGLOT_FAILURES):
                pass
    try:
        tokens = reading.tokens()
    except (SqlglotError, *SQLGLOT_FAILURES):
        return False
    return any(t.token_type in _QUERY_TOKENS for t in tokens)


_QUERY_TOKENS = frozenset({TokenType.SELECT, TokenType.VALUES, TokenType.TABLE})
