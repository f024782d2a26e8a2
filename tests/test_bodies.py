"""The checks a transpiled body must pass before it is stored for the other dialect (issue 4)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from translator.bodies import parse_body, transpile_body
from translator.types import IcebergType, PrimitiveType


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
    """An expression body has no FROM: a bare name that is not a parameter is an error there.
    (Trino to Spark: a Trino body cannot read a table, see test_query_free.py)"""
    sql, reason = transpile(body, ["x"], source="trino")
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
    """Into Spark, which takes queries in functions (a Trino body cannot read a table)."""
    sql, reason = transpile(body, ["x", "a"], source="trino")
    assert (sql, reason) == (expected, "")


def test_a_subquery_without_tables_binds_nothing() -> None:
    sql, reason = transpile("(SELECT y + 1)", ["x"])
    assert sql is None and reason == "the body refers to y, which is not a parameter"


def _typed(body: str, types: dict[str, IcebergType]) -> tuple[str | None, str]:
    ast, _ = parse_body(body, "expression", "spark")
    t = transpile_body(
        body,
        ast,
        kind="expression",
        source="spark",
        target="trino",
        parameters=list(types),
        parameter_types=types,
    )
    return t.sql, t.reason or ""


STRING, INT, DOUBLE = PrimitiveType("string"), PrimitiveType("int"), PrimitiveType("double")


def test_parameter_types_let_sqlglot_rewrite_what_depends_on_them() -> None:
    """sqlglot refuses CONCAT_WS into Trino unless it knows the arguments are strings."""
    body = "concat_ws('-', s, s)"
    assert transpile(body, ["s"])[0] is None
    sql, _ = _typed(body, {"s": STRING})
    assert sql == "CONCAT_WS('-', CAST(s AS VARCHAR), CAST(s AS VARCHAR))"


def test_division_keeps_spark_semantics_with_or_without_a_cast() -> None:
    """Spark's / is never integer division: an int is cast to double in Trino, a double not."""
    assert _typed("a / b", {"a": INT, "b": INT})[0] == "CAST(a AS DOUBLE) / NULLIF(b, 0)"
    assert _typed("a / b", {"a": DOUBLE, "b": DOUBLE})[0] == "a / NULLIF(b, 0)"


def test_the_stored_tree_is_not_typed_in_place() -> None:
    ast, _ = parse_body("a / b", "expression", "spark")
    transpile_body(
        "a / b",
        ast,
        kind="expression",
        source="spark",
        target="trino",
        parameters=["a", "b"],
        parameter_types={"a": DOUBLE, "b": DOUBLE},
    )
    assert all(c.type is None for c in ast.find_all(exp.Column))
