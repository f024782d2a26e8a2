"""PySpark integration: put Iceberg UDFs into a SparkSession, and compile DDL with Spark itself.

This is the only module that imports pyspark (and only when its functions run), so importing
:mod:`translator` never needs Spark.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from translator.emit import emit_ddl
from translator.errors import TranslatorError
from translator.metadata import UdfMetadata

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["Registration", "compile_dataframe", "register_functions"]


@dataclass(slots=True)
class Registration:
    """What :func:`register_functions` did: DDL executed, and what had no valid Spark form."""

    created: list[str] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    #: function name -> why it was not created (no Spark representation, a Spark error...).
    failed: dict[str, str] = field(default_factory=dict)


def _functions(source: Any, names: Iterable[str] | None) -> dict[str, UdfMetadata]:
    """``source``: a Warehouse, a path to one, one UdfMetadata, or a name -> metadata mapping."""
    if isinstance(source, UdfMetadata):
        if names is None or len(list(names)) != 1:
            raise ValueError("one UdfMetadata needs names=[its function name]")
        return {next(iter(names)): source}
    if isinstance(source, Mapping):
        found = dict(source)
    else:
        from translator.warehouse import Warehouse

        wh = source if isinstance(source, Warehouse) else Warehouse(Path(source))
        found = {str(info.ref): wh.load(info.ref).metadata for info in wh.functions()}
    if names is None:
        return found
    wanted = list(names)
    missing = [n for n in wanted if n not in found]
    if missing:
        raise KeyError(f"no such function(s): {', '.join(missing)}")
    return {n: found[n] for n in wanted}


def register_functions(
    spark: SparkSession,
    warehouse_or_metadata: Any,
    names: Iterable[str] | None = None,
    as_of: int | None = None,
    *,
    or_replace: bool = True,
) -> Registration:
    """Create each function's current versions (or those current at ``as_of``) in ``spark``.

    A definition without a valid Spark form is reported in ``Registration.failed``, never
    skipped silently; the others are still created.
    """
    out = Registration()
    for key, meta in _functions(warehouse_or_metadata, names).items():
        parts = tuple(key.split("."))
        try:
            result = emit_ddl(meta, "spark", parts, as_of=as_of, or_replace=or_replace)
        except TranslatorError as e:
            out.failed[key] = e.message
            continue
        try:
            for ddl in result.ddl:
                spark.sql(ddl)
                out.statements.append(ddl)
        except Exception as e:  # Spark's own error is the report
            out.failed[key] = f"Spark refused the DDL: {str(e).splitlines()[0]}"
            continue
        out.created.append(key)
    return out


def _compile_partition(rows: Iterable[Any], dialect: str) -> Iterator[tuple[Any, ...]]:
    """Runs on the executors: one output row per input row, errors as data."""
    from translator.api import compile_script
    from translator.compile import CompileOptions, Context

    for row in rows:
        key, sql = row[0], row[1]
        result = compile_script(sql, dialect, options=CompileOptions(), context=Context())
        docs = {
            name: (None if meta is None else json.loads(result.dump(name)))
            for name, meta in result.functions.items()
        }
        yield (
            key,
            json.dumps(docs, sort_keys=True),
            [str(e) for e in result.errors],
            [str(w) for w in result.warnings],
        )


def compile_dataframe(
    df: DataFrame, dialect: str, *, sql_column: str = "sql", key_column: str = "id"
) -> DataFrame:
    """Compile a DataFrame whose ``sql_column`` holds DDL texts, with Spark doing the work.

    Each row is compiled on its own (its script may define several functions): the result has
    ``key_column``, ``metadata`` (JSON: function name -> metadata document), ``errors`` and
    ``warnings``. Rows are independent, so the results equal compiling each text on one machine.
    """
    from pyspark.sql.types import ArrayType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField(key_column, df.schema[key_column].dataType, True),
            StructField("metadata", StringType(), False),
            StructField("errors", ArrayType(StringType()), False),
            StructField("warnings", ArrayType(StringType()), False),
        ]
    )
    rdd = df.select(key_column, sql_column).rdd.mapPartitions(
        lambda rows: _compile_partition(rows, dialect)
    )
    return df.sparkSession.createDataFrame(rdd, schema)
