"""The return type Spark derives for a SQL function without ``RETURNS`` (or ``RETURNS TABLE``
with no columns), by Spark's own analysis in the caller's SparkSession.

Spark infers these types when it creates the function, from the body analysed in the session
(its catalog, tables and views). Iceberg metadata must declare them, so the same analysis is
asked for: the body becomes a temporary function with a fresh name in that session, and a call
with typed NULL arguments is analysed, never run (``spark.sql`` analyses eagerly; nothing is
collected). Its result schema is the type: the one column of a scalar call, the columns of a
table function's rows. The temporary function is dropped afterwards.

Imports pyspark only through the session it is handed.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from translator.dialects.spark import iceberg_to_spark_type, spark_type_to_iceberg
from translator.errors import UnsupportedError
from translator.types import IcebergType, StructField, StructType

__all__ = ["SparkTypeInference"]


class SparkTypeInference:
    """Asks one SparkSession for the types of functions that do not declare them."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def __call__(
        self, parameters: Sequence[tuple[str, IcebergType]], body: str, table: bool
    ) -> IcebergType:
        """The Iceberg type Spark derives for ``body`` with ``parameters``: a struct of the
        columns for a table function. UnsupportedError when Spark refuses the body (its
        message, first line) or derives a type Iceberg cannot hold."""
        name = f"iceberg_udf_infer_{uuid.uuid4().hex}"
        declared = ", ".join(
            f"`{n.replace('`', '``')}` {iceberg_to_spark_type(t)}" for n, t in parameters
        )
        returns = " RETURNS TABLE" if table else ""
        args = ", ".join(f"CAST(NULL AS {iceberg_to_spark_type(t)})" for _, t in parameters)
        call = f"SELECT * FROM {name}({args})" if table else f"SELECT {name}({args})"
        try:
            self.session.sql(f"CREATE TEMPORARY FUNCTION {name}({declared}){returns} RETURN {body}")
            try:
                schema = self.session.sql(call).schema
            finally:
                self.session.sql(f"DROP TEMPORARY FUNCTION IF EXISTS {name}")
        except Exception as e:  # pyspark's AnalysisException, ParseException...: Spark's verdict
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise UnsupportedError(f"Spark cannot derive the function's type: {first}") from e
        if table:
            return StructType(
                StructField(name=f.name, type=_iceberg(f.dataType.simpleString()), doc=None)
                for f in schema.fields
            )
        return _iceberg(schema.fields[0].dataType.simpleString())


def _iceberg(spark_type: str) -> IcebergType:
    t, warnings = spark_type_to_iceberg(spark_type)
    if warnings:
        raise UnsupportedError(
            f"Spark derives {spark_type}, which Iceberg cannot hold exactly: {warnings[0].message}"
        )
    return t
