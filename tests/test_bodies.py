"""The checks a transpiled body must pass before it is stored for the other dialect (issue 4)."""

from __future__ import annotations

import pytest

from translator.bodies import parse_body, transpile_body


def transpile(body: str, parameters: list[str], source: str = "spark") -> tuple[str | None, str]:
    target = "trino" if source == "spark" else "spark"
    kind = "query" if body.lstrip().upper().startswith(("SELECT", "WITH")) else "expression"
    ast, reason = parse_body(body, kind, source)
    assert reason is None, reason
    t = transpile_body(body, ast, kind=kind, source=source, target=target, parameters=parameters)
    return t.sql, t.reason or ""


@pytest.mark.parametrize(
    ("body", "strays"),
    [
        ("x + y", "y, which is not a parameter"),
        ("y + z", "y, z, which are not parameters"),
        ("x + (SELECT MAX(v) FROM t) + y", "y, which is not a parameter"),
    ],
)
def test_a_column_nothing_can_bind_refuses_the_representation(body: str, strays: str) -> None:
    """An expression body has no FROM: a bare name that is not a parameter is an error there."""
    sql, reason = transpile(body, ["x"])
    assert sql is None and reason == f"the body refers to {strays}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # columns of a subquery's own tables, correlated with the parameter
        ("(SELECT SUM(c2) FROM t2 WHERE c1 = x)", "(SELECT SUM(c2) FROM t2 WHERE c1 = x)"),
        ("x IN (SELECT c1 FROM t2)", "x IN (SELECT c1 FROM t2)"),
        ("EXISTS(SELECT 1 FROM t WHERE k = x)", "EXISTS(SELECT 1 FROM t WHERE k = x)"),
        # a lambda's variable
        ("transform(a, e -> e + x)", "TRANSFORM(a, e -> e + x)"),
        # a query body binds its own columns
        ("SELECT c FROM t WHERE c > x", "SELECT c FROM t WHERE c > x"),
    ],
)
def test_columns_a_query_or_lambda_binds_are_not_strays(body: str, expected: str) -> None:
    sql, reason = transpile(body, ["x", "a"])
    assert (sql, reason) == (expected, "")


def test_a_subquery_without_tables_binds_nothing() -> None:
    sql, reason = transpile("(SELECT y + 1)", ["x"])
    assert sql is None and reason == "the body refers to y, which is not a parameter"
