"""Issue 15, classes 10 and 13 on Spark: a NULL SQL cell is that row's error, not the end of the
Spark job; a refusal by Spark always says why."""

from __future__ import annotations

from typing import Any

from translator.spark import compile_dataframe, spark_reason


def test_tracebacks_compile_dataframe_with_a_null_sql_cell(spark: Any) -> None:
    rows = [
        ("a", "CREATE FUNCTION a(x INT) RETURNS INT RETURN x"),
        ("null", None),
        ("b", "CREATE FUNCTION b(x INT) RETURNS INT RETURN x"),
    ]
    df = spark.createDataFrame(rows, "id string, sql string")
    out = {r["id"]: r for r in compile_dataframe(df, "spark").collect()}
    assert sorted(out) == ["a", "b", "null"]
    assert list(out["null"]["errors"]) == ["error: the row's SQL is NULL, not a DDL text"]
    assert list(out["a"]["errors"]) == [] and list(out["b"]["errors"]) == []


class _Silent(Exception):
    def getCondition(self) -> str:
        return "SOME_CONDITION"


def test_an_empty_spark_reason_still_says_something() -> None:
    assert spark_reason(Exception("\n  [X] the reason\nmore")) == "[X] the reason"
    assert spark_reason(_Silent("")) == "_Silent [SOME_CONDITION] (Spark gave no message)"
    assert spark_reason(RuntimeError()) == "RuntimeError (Spark gave no message)"
