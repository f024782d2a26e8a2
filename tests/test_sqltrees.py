"""The walks of :mod:`translator.sqltrees` visit sqlglot's nodes in sqlglot's orders:
the first unknown name and the first refusal reported depend on it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import sqlglot

from benchmarks.corpus import generate
from benchmarks.throughput import _bodies
from tests.sqlglot_samples import expression_classes, parsed_trees
from translator.sqltrees import (
    breadth_first,
    depth_first,
    scoped_columns,
    unlink,
    unlink_listed,
    unlinked,
)

_TEXTS = [
    ("x + 1", "trino"),
    ("CASE WHEN a[1] > 0 THEN transform(b, v -> v * 2) ELSE ARRAY[c, d] END", "trino"),
    ("coalesce(try_cast(s AS decimal(10, 2)), 0) / nullif(n, 0)", "trino"),
    ("named_struct('a', 1, 'b', array(1, 2))['a'] + size(m)", "spark"),
    ("SELECT max(x) FROM t WHERE y IN (1, 2, 3)", "spark"),
]


def _trees() -> list[sqlglot.exp.Expr]:
    return parsed_trees(
        _TEXTS + [(text, dialect) for text, dialect, _ in _bodies(generate(150, 7))]
    )


def test_walks_visit_in_sqlglots_orders() -> None:
    trees = _trees()
    assert len(trees) > 100
    for tree in trees:
        assert [id(n) for n in breadth_first(tree)] == [id(n) for n in tree.walk()]
        assert [id(n) for n in depth_first(tree)] == [id(n) for n in tree.walk(bfs=False)]


def test_by_class_asks_once_per_class() -> None:
    from translator.sqltrees import ByClass

    asked: list[type] = []

    def of(cls: type) -> bool:
        asked.append(cls)
        return issubclass(cls, sqlglot.exp.Column)

    table = ByClass(of)
    for tree in _trees()[:40]:
        for node in breadth_first(tree):
            assert table[type(node)] == isinstance(node, sqlglot.exp.Column)
    assert len(asked) == len(set(asked)) > 3


def test_kind_tables_answer_as_isinstance_does() -> None:
    """The class tables of the walks give, for every sqlglot class, what the ``isinstance``
    tests they stand for give (so no walk finds other nodes than before)."""
    from sqlglot import exp

    from translator import query_free, sqltrees
    from translator.dialects.trino import bodies as trino_bodies
    from translator.dialects.trino.routines import meaning, reading

    classes = expression_classes()
    assert len(classes) > 500
    for cls in classes:
        scope = sqltrees._SCOPE_KINDS[cls]
        assert bool(scope & sqltrees._COLUMN) == issubclass(cls, exp.Column)
        assert bool(scope & sqltrees._LAMBDA) == issubclass(cls, exp.Lambda)
        assert bool(scope & sqltrees._SELECT) == issubclass(cls, exp.Select)
        assert bool(scope & sqltrees._LEAF) == (cls in (exp.Identifier, exp.Literal))
        part = reading._PART_KINDS[cls]
        assert bool(part & reading._COLUMN) == issubclass(cls, exp.Column)
        assert bool(part & reading._CALL) == issubclass(cls, exp.Func)
        assert bool(part & reading._LAMBDA) == issubclass(cls, exp.Lambda)
        handled = issubclass(cls, meaning._HANDLED)
        assert (meaning._KINDS[cls] == meaning._HANDLED_KIND) == handled
        if not handled:
            call = issubclass(cls, exp.Anonymous)
            assert (meaning._KINDS[cls] == meaning._CALL_KIND) == call
            if not call:
                column = issubclass(cls, exp.Column)
                assert (meaning._KINDS[cls] == meaning._COLUMN_KIND) == column
        prepare = trino_bodies._PREPARE_KINDS[cls]
        assert (prepare == 1) == issubclass(cls, trino_bodies._PREPARED)
        if not issubclass(cls, trino_bodies._PREPARED):
            assert (prepare == 2) == issubclass(cls, exp.Anonymous)
        kind = query_free._KINDS[cls]
        assert bool(kind & query_free._CTE) == issubclass(cls, exp.CTE)
        assert bool(kind & query_free._TABLE) == issubclass(cls, exp.Table)
        assert bool(kind & query_free._QUERY) == issubclass(cls, (exp.Exists, exp.In, exp.Subquery))
        assert bool(kind & query_free._COLUMN) == issubclass(cls, exp.Column)
        assert bool(kind & query_free._AGGREGATE) == issubclass(cls, (exp.AggFunc, exp.Window))


def test_identifiers_and_literals_hold_no_node() -> None:
    """What lets the scoped walk and ``unlink`` pass over an identifier's or a literal's
    arguments: sqlglot's parsers and builders put only text and flags there."""
    from sqlglot import exp

    trees = [
        *_trees(),
        exp.column("a", table="t"),
        exp.Literal.number(1),
        exp.Literal.string("s"),
        exp.to_identifier("x", quoted=True),
        sqlglot.parse_one("SELECT `a`.`b`, 'x', 1e5, -2 FROM t", read="spark"),
    ]
    seen = 0
    for tree in trees:
        for node in breadth_first(tree):
            if type(node) in (exp.Identifier, exp.Literal):
                seen += 1
                assert not any(isinstance(v, (exp.Expr, list)) for v in node.args.values())
    assert seen > 1000


@contextmanager
def _garbage_nodes() -> Iterator[list[int]]:
    """Within the span, the collector is off; at its end, how many sqlglot nodes only the
    collector would have freed (unreachable, so kept aside by ``DEBUG_SAVEALL`` and counted)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    count: list[int] = []
    try:
        yield count
    finally:
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            count.append(sum(1 for o in gc.garbage if isinstance(o, sqlglot.exp.Expr)))
        finally:
            gc.garbage.clear()
            gc.set_debug(0)
            if was:
                gc.enable()


def test_unlink_leaves_a_tree_to_reference_counts() -> None:
    # Texts whose parse makes no garbage of sqlglot's own (a subscript or a lambda does).
    texts = [_TEXTS[0][0], _TEXTS[2][0]]
    for linked in (True, False):
        with _garbage_nodes() as left:
            for text in texts:
                tree = sqlglot.parse_one(text, read="trino")
                if not linked:
                    unlink(tree)
                    assert all(n.parent is None for n in breadth_first(tree))
                del tree
        # Linked, the trees wait for the collector; unlinked, they are gone.
        assert (left[0] > 0) is linked


def test_the_unlinking_scoped_walk_finds_what_the_plain_one_finds_and_unlinks() -> None:
    """The parse back's scoped walk also unlinks it (one walk instead of two): the same columns,
    free columns, lambda variables and qualified flag as the plain walk, in the same order, and
    afterwards no node but the types has a parent, as after :func:`unlink`."""
    texts = [*_TEXTS, ("x + (SELECT max(c) FROM t WHERE k = (SELECT min(q) FROM u)) + y", "spark")]
    corpus = [(text, dialect) for text, dialect, _ in _bodies(generate(150, 7))]
    trees = parsed_trees(texts + corpus)
    assert len(trees) > 100
    for tree in trees:
        plain = scoped_columns(tree)
        nodes = breadth_first(tree)
        assert all(n.parent is not None for n in nodes[1:])  # linked, as sqlglot made it
        walked = scoped_columns(tree, unlinking=True)
        assert [[id(c) for c in part] for part in walked[:2]] == [
            [id(c) for c in part] for part in plain[:2]
        ]
        assert walked[2:] == plain[2:]
        assert all(n.parent is None for n in nodes)
    with _garbage_nodes() as left:
        tree = sqlglot.parse_one(_TEXTS[0][0], read="trino")
        scoped_columns(tree, unlinking=True)
        del tree
    assert left == [0]


def test_unlinked_tells_a_walked_tree_from_a_linked_one() -> None:
    """A tree as sqlglot links it is not unlinked, one :func:`unlink` has been through is; a
    leaf (no child to tell by) answers no, as its unlink costs nothing."""
    for tree in _trees():
        assert not unlinked(tree)
        unlink(tree)
        assert unlinked(tree) == bool(list(tree.iter_expressions()))
    leaf = sqlglot.parse_one("1")
    assert not unlinked(leaf)


def test_unlink_listed_does_unlinks_work_from_a_walks_list() -> None:
    """Given the nodes a walk listed, the tree is left as :func:`unlink` leaves it."""
    for tree in _trees():
        nodes = depth_first(tree)
        unlink_listed(nodes)
        assert all(n.parent is None for n in breadth_first(tree))
    with _garbage_nodes() as left:
        tree = sqlglot.parse_one(_TEXTS[2][0], read="trino")
        unlink_listed(depth_first(tree))
        del tree
    assert left == [0]


def test_compile_leaves_its_trees_to_reference_counts() -> None:
    """The statement's tree (used up by the transpile) and the parse back are unlinked: after a
    warm-up (caches filled), compiling these leaves no sqlglot node for the collector (sqlglot's
    generator makes garbage of its own for some bodies: none here)."""
    from translator.api import compile_script

    scripts = [
        ("CREATE FUNCTION f(a integer, b varchar) RETURNS varchar "
         "RETURN concat(b, cast(a + 1 as varchar), upper(b))", "trino"),
        ("CREATE FUNCTION g(x DOUBLE) RETURNS DOUBLE "
         "RETURN CASE WHEN x > 0 THEN sqrt(x) ELSE abs(x) END", "spark"),
    ]  # fmt: skip
    for sql, dialect in scripts:
        compile_script(sql, dialect)
        with _garbage_nodes() as left:
            result = compile_script(sql, dialect)
        assert left == [0]
        meta = result.metadata
        assert meta is not None and len(meta.definitions[0].versions[0].representations) == 2
