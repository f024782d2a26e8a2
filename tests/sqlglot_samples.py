"""Test helpers: sqlglot trees of sample bodies, and every sqlglot expression class.

Class tables (:class:`translator.sqltrees.ByClass`) are held to ``isinstance`` on every class a
parse can put in a tree, and walks to sqlglot's own on trees of real bodies.
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlglot
from sqlglot import exp


def parsed_trees(texts: Iterable[tuple[str, str]]) -> list[exp.Expr]:
    """sqlglot's trees of ``(text, dialect)`` pairs, leaving out those it cannot read."""
    trees = []
    for text, dialect in texts:
        try:
            tree = sqlglot.parse_one(text, read=dialect)
        except sqlglot.errors.SqlglotError:
            continue
        if tree is not None:
            trees.append(tree)
    return trees


def expression_classes() -> list[type]:
    """Every sqlglot expression class (what a parse can put in a tree), each once."""
    found: list[type] = []
    seen: set[type] = set()
    todo = [exp.Expr]
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        found.append(cls)
        todo += cls.__subclasses__()
    return found
