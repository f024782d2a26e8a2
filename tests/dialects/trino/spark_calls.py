"""Run a Trino function's Spark form (``routines.spark_form``) on the test Spark."""

from __future__ import annotations

from typing import Any

from tests.spark_results import rows_as_strings
from translator.dialects.trino.routines import spark_form
from translator.dialects.trino.routines.expr_types import parse_type, spark_type
from translator.dialects.trino.routines.syntax import parse_routine


def spark_ddl(trino_ddl: str) -> str:
    """The Spark ``CREATE TEMPORARY FUNCTION`` of a Trino ``CREATE FUNCTION``; fails the test
    with the reason where there is no Spark form."""
    routine = parse_routine(trino_ddl)
    form = spark_form(routine)
    assert form.sql is not None, form.reason
    params = ", ".join(f"{n.value} {spark_type(parse_type(t))}" for n, t in routine.parameters)
    returns = spark_type(parse_type(routine.return_type))
    name = routine.name[-1]
    return (
        f"CREATE OR REPLACE TEMPORARY FUNCTION {name}({params}) RETURNS {returns} RETURN {form.sql}"
    )


def call(spark: Any, trino_ddl: str, *calls: str) -> list[str]:
    """Create the function and run each call (Spark SQL): its single value, or ``ERROR: <cls>``."""
    from tests.spark_results import error_class

    spark.sql(spark_ddl(trino_ddl))
    out = []
    try:
        for c in calls:
            try:
                (row,) = rows_as_strings(spark, f"SELECT {c}")
                out.append(row[0])
            except Exception as e:  # Spark's error is the result under test
                out.append(f"ERROR: {error_class(e)}")
    finally:  # the session is shared: leave no function behind
        name = parse_routine(trino_ddl).name[-1]
        spark.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
    return out
