"""A compile uses up the sqlglot trees of the statements it parsed for itself, and only those
(:func:`translator.compile.owned_trees`): the same results as transpiling copies, and no tree
anyone else may read again is changed."""

from __future__ import annotations

from typing import Any

from benchmarks.corpus import generate
from translator import compile_script, statement_cache
from translator.compile import CompileOptions, Context, owned_trees, representations
from translator.frontend import parse_script
from translator.ir import CreateFunction

_CTX = Context(clock=lambda: 1_700_000_000_000, new_uuid=lambda: "00000000-0000-4000-8000-0")


def _statements(dialect: str, count: int) -> list[CreateFunction]:
    out = []
    for script in generate(count, 11):
        if script.dialect != dialect:
            continue
        out += [s for s in parse_script(script.text, dialect).statements if _transpiled(s)]
    return out


def _transpiled(stmt: Any) -> bool:
    return isinstance(stmt, CreateFunction) and stmt.body.ast is not None


def _shape(tree: Any) -> str:
    """Everything of a tree a later reader could see: its text, node classes, args, types."""
    return repr(tree) + "|" + repr([(type(n).__name__, n.type) for n in tree.walk()])


def test_owned_trees_transpile_as_copies_do() -> None:
    """Every corpus body of both dialects: the representations and warnings of a body whose
    tree is used up are those of a body transpiled from a copy, and the owned tree was used
    (changed: typed or rewritten) where a copy would have been."""
    options = CompileOptions()
    used = 0
    for dialect in ("spark", "trino"):
        statements = _statements(dialect, 400)
        assert len(statements) > 100
        expected = [representations(s, options) for s in statements]
        before = [_shape(s.body.ast) for s in statements]
        assert [_shape(s.body.ast) for s in statements] == before  # copies: trees unchanged
        with owned_trees(statements):
            got = [representations(s, options) for s in statements]
        assert got == expected
        used += sum(_shape(s.body.ast) != b for s, b in zip(statements, before, strict=True))
    assert used > 100


def test_a_compile_in_a_run_scope_takes_its_statements_out_of_it() -> None:
    """Inside a run scope (a migration, an apply) a compile uses up the trees of the statements
    the scope kept, after taking them out of it: a later read of the same text parses it
    again (fresh trees, as the first parse made them), and a second compile gives the first
    one's result."""
    script = next(s for s in generate(60, 3) if s.dialect == "spark" and "CREATE" in s.text)
    with statement_cache.run_scope():
        cached = [s for s in parse_script(script.text, "spark").statements if _transpiled(s)]
        assert cached
        shapes = [_shape(s.body.ast) for s in cached]
        assert parse_script(script.text, "spark").statements[0] is cached[0]  # kept
        first = compile_script(script.text, "spark", context=_CTX)
        used = sum(_shape(s.body.ast) != b for s, b in zip(cached, shapes, strict=True))
        assert used > 0  # the compile owned the scope's trees
        reread = [s for s in parse_script(script.text, "spark").statements if _transpiled(s)]
        assert all(r is not c for r, c in zip(reread, cached, strict=True))
        assert [_shape(s.body.ast) for s in reread] == shapes
        again = compile_script(script.text, "spark", context=_CTX)
    assert first.functions == again.functions
    assert first.warnings == again.warnings


def test_a_statement_released_is_parsed_again_and_the_others_stay_kept() -> None:
    text = (
        "CREATE FUNCTION f(x INT) RETURNS INT RETURN x + 1;\n"
        "CREATE FUNCTION g() RETURNS INT RETURN 2"
    )
    with statement_cache.run_scope():
        f, g = parse_script(text, "spark").statements
        statement_cache.release([f, object()])  # an object never kept: nothing to take out
        f2, g2 = parse_script(text, "spark").statements
        assert f2 is not f and f2 == f
        assert g2 is g
        statement_cache.release([f])  # no longer the one kept: f2 stays
        assert parse_script(text, "spark").statements[0] is f2
    statement_cache.release([f2])  # outside a scope: nothing to do


def test_statements_of_a_caller_are_not_owned() -> None:
    """Representations made outside an owned span (a caller's own statements) leave their
    trees as they were."""
    statements = _statements("trino", 200)[:40] + _statements("spark", 200)[:40]
    shapes = [_shape(s.body.ast) for s in statements]
    for s in statements:
        representations(s, CompileOptions())
    assert [_shape(s.body.ast) for s in statements] == shapes


def test_only_the_last_target_uses_a_tree_up() -> None:
    """A body transpiled for several targets (the same one named twice) is used up by the last
    only: every transpile gives what the first gave."""
    statements = _statements("spark", 200)[:60]
    options = CompileOptions(targets=("trino", "trino"))
    expected = [representations(s, options) for s in statements]
    with owned_trees(statements):
        got = [representations(s, options) for s in statements]
    assert got == expected
    for reps, _ in got:
        trino = [r.sql for r in reps if r.dialect == "trino"]
        assert len(set(trino)) <= 1


def test_the_span_leaves_every_tree_unlinked() -> None:
    """When the span ends, every node of every owned tree has lost its parent link (reference
    counts free it), whether the span walked it or the transpile let go of it already: a Trino
    body's Spark form unlinks the tree it wrote, a Spark body's Trino form the nodes its
    preparation listed (then the span does not walk the tree again:
    :func:`translator.sqltrees.unlinked`). The only links left are those of nodes sqlglot's
    generator made while it wrote the tree (to them or from them), which the list could not
    hold: they wait for the collector."""
    from translator.sqltrees import breadth_first, unlinked

    for dialect in ("spark", "trino"):
        statements = _statements(dialect, 300)
        assert len(statements) > 60
        before = [breadth_first(s.body.ast) for s in statements]  # kept alive: ids stay valid
        given_up = 0
        with owned_trees(statements):
            for s in statements:
                representations(s, CompileOptions())
                given_up += unlinked(s.body.ast)
        assert given_up > len(statements) // 2  # most are not walked again by the span
        left = 0
        for s, nodes in zip(statements, before, strict=True):
            known = {id(n) for n in nodes}
            for n in breadth_first(s.body.ast):
                if n.parent is not None:
                    assert id(n) not in known or id(n.parent) not in known, s.body.text
                    left += 1
        if dialect == "trino":
            assert left == 0
