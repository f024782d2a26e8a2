"""Run SQL on the test Spark session and render results as text, for comparing with fixtures."""

from __future__ import annotations

from typing import Any


def rows_as_strings(spark: Any, sql: str, *, nested_as_json: bool = False) -> list[list[str]]:
    """Each row's values as Spark's own ``CAST(... AS STRING)`` shows them; NULL as ``NULL``.

    ``nested_as_json`` writes arrays, maps and structs as JSON, the way Spark's SQL golden files
    show them (``{"a":1}``) rather than as a cast does (``{a -> 1}``).
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, MapType, StructType

    df = spark.sql(sql)
    df = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
    nested = (ArrayType, MapType, StructType)
    cols = [
        F.to_json(F.col(f.name))
        if nested_as_json and isinstance(f.dataType, nested)
        else F.col(f.name).cast("string")
        for f in df.schema.fields
    ]
    rows = df.select(cols).collect()
    return [["NULL" if v is None else str(v) for v in row] for row in rows]


def error_class(exc: BaseException) -> str:
    """Spark's error class (``CAST_OVERFLOW``...) of an exception, or its type name."""
    get = getattr(exc, "getCondition", None) or getattr(exc, "getErrorClass", None)
    cls = get() if callable(get) else None
    return str(cls) if cls else type(exc).__name__


def run_statement(spark: Any, sql: str) -> None:
    spark.sql(sql).collect()
