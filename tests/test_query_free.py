"""Spark bodies into Trino: queries that are expressions become expressions; the rest is refused.

Also the sqlglot mappings Trino's docs contradict (date_trunc's units, reduce's four arguments).
The Spark meaning of each rewrite is checked on a real Spark in test_query_free_spark below.
"""

from __future__ import annotations

from typing import Any

import pytest

from translator.bodies import parse_body, transpile_body
from translator.dialects import get_dialect


def to_trino(body: str, parameters: list[str]) -> tuple[str | None, str]:
    kind = "query" if body.lstrip().upper().startswith(("SELECT", "WITH")) else "expression"
    ast, reason = parse_body(body, kind, "spark")
    assert reason is None, reason
    t = transpile_body(
        body,
        ast,
        kind=kind,
        source="spark",
        target="trino",
        parameters=parameters,
        prepare=get_dialect("trino").prepare_body,
    )
    return t.sql, t.reason or ""


#: (Spark body, parameters, Trino text)
REWRITTEN = [
    ("(SELECT a)", ["a"], "a"),
    ("1 + (SELECT a)", ["a"], "1 + a"),
    ("(SELECT (SELECT x))", ["x"], "x"),
    ("(SELECT a + 1)", ["a"], "(a + 1)"),
    ("(SELECT 1 FROM VALUES(1) WHERE 1 = 0)", [], "CASE WHEN 1 = 0 THEN 1 END"),
    ("x IN (SELECT x WHERE x = 1)", ["x"], "CASE WHEN x = 1 THEN x IN (x) ELSE FALSE END"),
    ("x IN (SELECT * FROM VALUES (1))", ["x"], "x IN (1)"),
    ("NOT EXISTS (SELECT 1)", [], "NOT TRUE"),
    ("EXISTS (SELECT 1 WHERE x > 0)", ["x"], "CASE WHEN x > 0 THEN TRUE ELSE FALSE END"),
    ("(SELECT v + 1 FROM (SELECT abs(x) AS v))", ["x"], "(ABS(x) + 1)"),
    ("(SELECT a FROM (SELECT b AS a) WHERE a > 0)", ["a", "b"], "CASE WHEN b > 0 THEN b END"),
    ("(WITH cte AS (SELECT x AS y) SELECT * FROM cte)", ["x"], "x"),
    ("SELECT x + 1 LIMIT 0", ["x"], "CASE WHEN FALSE THEN x + 1 END"),
    # a source's columns shadow the parameters; f.a is the parameter a qualified by the
    # function's name
    ("SELECT f.b || b || T.c FROM VALUES ('1', '2') AS T(b, c)", ["b"], None),
]


@pytest.mark.parametrize(("body", "parameters", "trino"), REWRITTEN)
def test_queries_that_are_expressions_become_expressions(
    body: str, parameters: list[str], trino: str | None
) -> None:
    sql, reason = to_trino(body, parameters)
    assert reason == ""
    assert sql is not None and "SELECT" not in sql.upper()
    if trino is not None:
        assert sql == trino


def test_a_source_column_shadows_a_parameter_and_a_qualified_parameter_is_kept() -> None:
    sql, _ = to_trino("SELECT f.b || b || T.c FROM VALUES ('1', '2') AS T(b, c)", ["b"])
    assert sql is not None
    assert sql.count("CAST(b AS VARCHAR)") == 1 and "'1'" in sql and "'2'" in sql


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("(SELECT SUM(c2) FROM t2 WHERE c1 = x)", "reads table t2"),
        ("NOT x IN (SELECT c2 FROM t2 WHERE x = c1)", "reads table t2"),
        ("(SELECT (SELECT 1 WHERE EXISTS(SELECT * FROM t2 WHERE c1 = x)))", "reads table t2"),
        ("SELECT max(id) FROM a.b", "reads table a.b"),
        ("(SELECT 1, 2)", "a scalar subquery has 2 columns"),
        ("x IN (SELECT 1 UNION SELECT 2)", "union query"),
        ("x IN (SELECT * FROM VALUES (1), (2))", "VALUES of 2 rows"),
        ("(SELECT max(x))", "aggregates"),
        ("SUM(1) + x", "aggregate or window function"),
        ("(SELECT T.a FROM VALUES (1) AS T(b))", "names no column"),
        ("(SELECT r FROM (SELECT rand() AS r))", None),
    ],
)
def test_queries_that_are_not_expressions_are_refused(body: str, reason: str | None) -> None:
    sql, why = to_trino(body, ["x"])
    if reason is None:  # an allowed rewrite must not evaluate rand() twice (here: once)
        assert sql is not None and sql.upper().count("RAND") == 1
        return
    assert sql is None
    assert reason in why, why
    assert "Trino function cannot hold a query" in why or "no rows for" in why


@pytest.mark.parametrize(
    ("body", "trino"),
    [
        ("date_trunc('MM', d)", "DATE_TRUNC('MONTH', d)"),
        ("date_trunc('mon', d)", "DATE_TRUNC('MONTH', d)"),
        ("date_trunc('YYYY', d)", "DATE_TRUNC('YEAR', d)"),
        ("date_trunc('DD', d)", "DATE_TRUNC('DAY', d)"),
        ("date_trunc('quarter', d)", "DATE_TRUNC('QUARTER', d)"),
        ("trunc(d, 'MM')", "DATE_TRUNC('month', d)"),
        ("trunc(d, 'yy')", "DATE_TRUNC('year', d)"),
        ("aggregate(a, 0, (s, x) -> s + x)", "REDUCE(a, 0, (s, x) -> s + x, state -> state)"),
        ("reduce(a, 0, (s, x) -> s + x, s -> s * 2)", "REDUCE(a, 0, (s, x) -> s + x, s -> s * 2)"),
        ("current_database()", "CURRENT_SCHEMA"),
    ],
)
def test_mappings_follow_trinos_docs(body: str, trino: str) -> None:
    sql, reason = to_trino(body, ["d", "a"])
    assert (sql, reason) == (trino, "")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("date_trunc('MICROSECOND', d)", "'MICROSECOND', which is no unit of Trino's date_trunc"),
        ("date_trunc(u, d)", "'U', which is no unit"),  # sqlglot reads a column as a unit name
        ("trunc(d, 'DD')", "Spark's trunc answers with NULL"),
        ("current_path()", "current_path"),
    ],
)
def test_mappings_trino_lacks_are_refused(body: str, reason: str) -> None:
    sql, why = to_trino(body, ["d", "u"])
    assert sql is None and reason in why, why


@pytest.mark.spark
@pytest.mark.parametrize(("body", "parameters", "trino"), REWRITTEN[:-1])
def test_query_free_spark(spark: Any, body: str, parameters: list[str], trino: str) -> None:
    """The rewritten body, read back as Spark, gives what the original gives on Spark (both
    as temporary SQL functions, whose return type Spark infers)."""
    import sqlglot

    from tests.spark_results import rows_as_strings

    rewritten = sqlglot.transpile(trino, read="trino", write="spark")[0]
    signature = ", ".join(f"{p} INT" for p in parameters)
    spark.sql(f"CREATE OR REPLACE TEMPORARY FUNCTION qf_before({signature}) RETURN {body}")
    spark.sql(f"CREATE OR REPLACE TEMPORARY FUNCTION qf_after({signature}) RETURN {rewritten}")
    for value in ("3", "-4", "0", "1", "NULL"):
        args = ", ".join(f"CAST({value} AS INT)" for _ in parameters)
        before = rows_as_strings(spark, f"SELECT qf_before({args})")
        after = rows_as_strings(spark, f"SELECT qf_after({args})")
        assert after == before, (body, rewritten, value)


@pytest.mark.parametrize(
    "body",
    [
        "x + 1",
        "(SELECT a FROM (SELECT x AS a)) + 1",
        "f.x + 1",  # a qualified parameter: rewritten, so no nodes are handed on
        "date_trunc('MM', d)",
        "aggregate(arr, 0, (acc, e) -> acc + e)",
        "current_path()",
    ],
)
def test_the_nodes_handed_on_are_the_trees(body: str) -> None:
    """What query_free and prepare_for_trino hand on as the tree's nodes (so that the typing
    walks it no more) are its nodes in depth-first order, or nothing."""
    from translator.dialects.trino.bodies import prepare_for_trino
    from translator.query_free import query_free
    from translator.sqltrees import depth_first

    ast, _ = parse_body(body, "expression", "spark")
    for result in (query_free(ast, ["x", "d", "arr"]), prepare_for_trino(ast, ["x", "d", "arr"])):
        if result.nodes is not None:
            assert [id(n) for n in result.nodes] == [id(n) for n in depth_first(result.ast)]
    assert (query_free(ast, ["x"]).nodes is None) == body.startswith("f.x")
    prepared = prepare_for_trino(ast, ["x", "d", "arr"])
    assert prepared.nodes is None or body in ("x + 1", "(SELECT a FROM (SELECT x AS a)) + 1")
