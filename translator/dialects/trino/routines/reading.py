"""Trino expressions as sqlglot reads them, for the analyzer and the lowering.

Two things sqlglot's Trino reading changes are kept as written: subscripts (sqlglot makes
``a[1]`` 0-based where it guesses ``a`` is an array) and typed decimal literals (sqlglot reads
``DECIMAL '10.5'`` as a cast to a bare DECIMAL, which rounds it to 11).
"""

from __future__ import annotations

import re
from functools import lru_cache

from sqlglot import exp
from sqlglot.dialects.trino import Trino
from sqlglot.errors import SqlglotError

from translator.sqlglot_dialects import parse_one, shared
from translator.sqltrees import ByClass, breadth_first

__all__ = [
    "TrinoAsWritten",
    "expression_parts",
    "parse_expression",
    "read_expression",
    "reads_as_written",
]


class TrinoAsWritten(Trino):
    """Trino, except that subscripts are kept as written (1-based).

    sqlglot's Trino parser turns ``a[1]`` into its 0-based ``a[0]`` only where it guesses
    ``a`` is an array (a map with integer keys is shifted too, a computed index is not):
    :mod:`.meaning` rewrites every subscript itself, knowing the types.
    """

    INDEX_OFFSET = 0


#: The one instance every reading uses (sqlglot makes a new one for each call given the class;
#: an instance is settings only: :mod:`translator.sqlglot_dialects`).
_AS_WRITTEN = shared(TrinoAsWritten())


#: A typed decimal literal (``DECIMAL '10.5'``), or a string or comment to step over.
_DECIMAL_LITERAL = re.compile(
    r"(?i)\bdecimal\s*'\s*([+-]?)(\d*)(?:\.(\d*))?\s*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\""
    r"|--[^\n]*|/\*[\s\S]*?\*/"
)


def _typed_decimal(m: re.Match[str]) -> str:
    """``DECIMAL '10.5'`` as the cast it means, ``CAST('10.5' AS decimal(3,1))``: sqlglot reads
    it as a cast to bare DECIMAL, which is decimal(38,0) in Trino and decimal(10,0) in Spark
    (both round 10.5 to 11)."""
    if m.group(2) is None:  # a string or comment
        return m.group()
    sign, whole, frac = m.group(1), m.group(2), m.group(3) or ""
    if not whole and not frac:
        return m.group()
    scale = len(frac)
    precision = max(len(whole.lstrip("0")) + scale, scale, 1)
    number = f"{sign}{whole or '0'}" + (f".{frac}" if frac else "")
    return f"CAST('{number}' AS decimal({precision},{scale}))"


def parse_expression(text: str) -> exp.Expr | None:
    """A Trino expression as sqlglot reads it (subscripts as written, typed decimal literals
    with their precision), or None where sqlglot cannot read it, or cannot here: too deep for
    what is left of Python's stack (:func:`read_expression` says which)."""
    try:
        return read_expression(text)
    except RecursionError:
        return None


@lru_cache(maxsize=1024)
def read_expression(text: str) -> exp.Expr | None:
    """:func:`parse_expression`, except that running out of Python's stack raises
    ``RecursionError``: it depends on where the call is made, not on the text, so it is not an
    answer to keep (the cache keeps none) nor a reason to give as the text's.

    Cached: the analyzer and the lowering read the same expressions. Callers never change the
    tree they get (the rewrites work on copies)."""
    try:
        text = _DECIMAL_LITERAL.sub(_typed_decimal, text)
        node = parse_one(text, _AS_WRITTEN)
    except (SqlglotError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return None if isinstance(node, exp.Command) else node


def reads_as_written(text: str, tree: exp.Expr | None) -> exp.Expr | None:
    """``tree`` (sqlglot's reading of ``text`` in its plain Trino dialect) where it is what
    :func:`parse_expression` would give, else None: the two readings differ only in subscripts
    (sqlglot's parser shifts an index only where it builds a ``Bracket``) and typed decimal
    literals, so a text with neither needs no second parse.

    sqlglot applies a dialect's index offset only to a subscript it parses after a ``[`` token,
    so a text without a ``[`` outside its strings and quoted names (:func:`_may_subscript`)
    needs no walk of its tree to know it has no shifted subscript."""
    if tree is None or isinstance(tree, (exp.Command, exp.Block)):
        return None
    if _TYPED_DECIMAL.search(text) is not None:
        return None
    if _may_subscript(text) and any(isinstance(n, exp.Bracket) for n in breadth_first(tree)):
        return None
    return tree


#: Where :data:`_DECIMAL_LITERAL` can change a text: it rewrites nothing else.
_TYPED_DECIMAL = re.compile(r"(?i)\bdecimal\s*'")


def _may_subscript(text: str) -> bool:
    """Whether sqlglot's Trino tokens of ``text`` may hold a ``[`` (the only token its parser
    builds a subscript after): a ``[`` outside strings and quoted names. Its tokenizer reads
    ``'...'`` with ``''`` as the only escape, and ``"..."``, as :data:`_QUOTED` does (a ``""``
    inside a quoted name, which it reads as two names, covers the same characters); most ``[``
    of a body are in a string (a regular expression's ``[0-9]``). A comment is not stepped
    over: a text with one is walked."""
    if "[" not in text:
        return False
    if "--" in text or "/*" in text:
        return True
    return "[" in _QUOTED.sub("", text)


#: A string or a quoted name, as sqlglot's Trino tokenizer reads them.
_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")


def expression_parts(node: exp.Expr) -> tuple[list[exp.Column], set[str] | None, list[exp.Func]]:
    """The columns of ``node`` (breadth first, as Trino's first unknown name is the one
    reported), its lambdas' variables (None without a lambda) and its calls: one walk."""
    columns: list[exp.Column] = []
    lambdas: set[str] | None = None
    calls: list[exp.Func] = []
    kinds = _PART_KINDS
    for n in breadth_first(node):
        kind = kinds[type(n)]
        if not kind:
            continue
        # The class was asked (_PART_KINDS): a column, a call.
        if kind & _COLUMN:
            columns.append(n)  # type: ignore[arg-type]
        if kind & _CALL:
            calls.append(n)  # type: ignore[arg-type]
        if kind & _LAMBDA:
            lambdas = lambdas if lambdas is not None else set()
            lambdas.update(i.name.lower() for i in n.expressions)
    return columns, lambdas, calls


#: What :func:`expression_parts` asks of a node, by its class (bits: a column, a call, a lambda).
_COLUMN, _CALL, _LAMBDA = 1, 2, 4
_PART_KINDS: ByClass[int] = ByClass(
    lambda cls: (
        (_COLUMN if issubclass(cls, exp.Column) else 0)
        | (_CALL if issubclass(cls, exp.Func) else 0)
        | (_LAMBDA if issubclass(cls, exp.Lambda) else 0)
    )
)
