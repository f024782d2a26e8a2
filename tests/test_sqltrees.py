"""The walks of :mod:`translator.sqltrees` visit sqlglot's nodes in sqlglot's orders:
the first unknown name and the first refusal reported depend on it."""

from __future__ import annotations

import sqlglot

from benchmarks.corpus import generate
from benchmarks.throughput import _bodies
from translator.sqltrees import breadth_first, depth_first

_TEXTS = [
    ("x + 1", "trino"),
    ("CASE WHEN a[1] > 0 THEN transform(b, v -> v * 2) ELSE ARRAY[c, d] END", "trino"),
    ("coalesce(try_cast(s AS decimal(10, 2)), 0) / nullif(n, 0)", "trino"),
    ("named_struct('a', 1, 'b', array(1, 2))['a'] + size(m)", "spark"),
    ("SELECT max(x) FROM t WHERE y IN (1, 2, 3)", "spark"),
]


def _trees() -> list[sqlglot.exp.Expr]:
    texts = _TEXTS + [(text, dialect) for text, dialect, _ in _bodies(generate(150, 7))]
    trees = []
    for text, dialect in texts:
        try:
            tree = sqlglot.parse_one(text, read=dialect)
        except sqlglot.errors.SqlglotError:
            continue
        if tree is not None:
            trees.append(tree)
    return trees


def test_walks_visit_in_sqlglots_orders() -> None:
    trees = _trees()
    assert len(trees) > 100
    for tree in trees:
        assert [id(n) for n in breadth_first(tree)] == [id(n) for n in tree.walk()]
        assert [id(n) for n in depth_first(tree)] == [id(n) for n in tree.walk(bfs=False)]
