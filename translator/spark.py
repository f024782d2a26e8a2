"""PySpark integration: put Iceberg UDFs into a SparkSession, and compile DDL with Spark itself.

This is the only module that imports pyspark (and only when its functions run), so importing
:mod:`translator` never needs Spark.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from translator.compile import Context
from translator.dialects import get_dialect
from translator.emit import emit_ddl
from translator.errors import TranslatorError
from translator.metadata import UdfMetadata
from translator.names import parse_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["Registration", "compile_dataframe", "register_functions", "row_context"]


@dataclass(slots=True)
class Registration:
    """What :func:`register_functions` did: DDL executed, and what had no valid Spark form."""

    created: list[str] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    #: function name -> why it was not created (no Spark representation, a Spark error...).
    failed: dict[str, str] = field(default_factory=dict)


def _functions(
    source: Any, names: Iterable[str] | None, as_of: int | None
) -> tuple[dict[str, UdfMetadata], int | None]:
    """Name -> metadata to register, and the ``as_of`` emit still has to apply (None when the
    warehouse already travelled in time).

    ``source``: a Warehouse, a path to one or a ``rest+http(s)://`` catalog address (names are
    ``[namespace.]function``), one UdfMetadata (``names`` must give its one name), or a mapping
    of name -> metadata.
    """
    if isinstance(names, str):
        names = [names]  # one name, not its letters
    if isinstance(source, UdfMetadata):
        wanted = list(names or [])
        if len(wanted) != 1:
            raise ValueError("one UdfMetadata needs names=[its function name]")
        return {wanted[0]: source}, as_of
    if isinstance(source, Mapping):
        found = dict(source)
        unknown = [n for n in names or () if n not in found]
        if unknown:
            raise ValueError(f"no metadata for {', '.join(map(repr, unknown))} in the mapping")
        picked = found if names is None else {n: found[n] for n in names}
        return picked, as_of
    from translator.warehouse import Warehouse, require_existing

    if not isinstance(source, Warehouse):
        require_existing(source)  # a local folder must exist; URLs are left to their store
    wh = source if isinstance(source, Warehouse) else Warehouse(source)
    refs = [str(i.ref) for i in wh.functions()] if names is None else list(names)
    return {ref: wh.at(ref, as_of=as_of).metadata for ref in refs}, None


def register_functions(
    spark: SparkSession,
    warehouse_or_metadata: Any,
    names: Iterable[str] | None = None,
    as_of: int | None = None,
    *,
    or_replace: bool = True,
    create_namespaces: bool = True,
    definitions: Mapping[str, str] | None = None,
) -> Registration:
    """Create each function's current versions (or those current at ``as_of``) in ``spark``.

    A definition without a valid Spark form is reported in ``Registration.failed``, never
    skipped silently; the other functions are still created. A two-part name's namespace is
    created as a Spark database if missing (``create_namespaces``).

    Spark has no overloading (a second CREATE of a name replaces the first or fails): a function
    with several definitions is not created but listed in ``failed`` with its definitions,
    unless ``definitions`` maps its name to the definition-id to create. The definitions a
    DEFAULT stands for are no overloads: the definition with the DEFAULTs covers them.
    """
    out = Registration()
    functions, emit_as_of = _functions(warehouse_or_metadata, names, as_of)
    for key, meta in functions.items():
        parts = parse_name(key)
        try:
            result = emit_ddl(
                meta,
                "spark",
                parts,
                definition=(definitions or {}).get(key),
                as_of=emit_as_of,
                or_replace=or_replace,
            )
        except TranslatorError as e:
            out.failed[key] = e.message
            continue
        try:
            if create_namespaces and len(parts) == 2:
                spark.sql(f"CREATE DATABASE IF NOT EXISTS `{parts[0].replace('`', '``')}`")
            for ddl in result.ddl:
                spark.sql(ddl)
                out.statements.append(ddl)
        except Exception as e:  # Spark's own error is the report
            out.failed[key] = f"Spark refused the DDL: {spark_reason(e)}"
            continue
        out.created.append(key)
    return out


def spark_reason(e: BaseException) -> str:
    """The first line of what Spark said; its error condition, or the exception's type, when
    the message is empty (some of Spark's errors carry only a condition)."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    if lines:
        return lines[0]
    for getter in ("getCondition", "getErrorClass"):
        method = getattr(e, getter, None)
        try:
            condition = method() if callable(method) else None
        except Exception:  # an accessor of a half-built exception: fall through
            condition = None
        if condition:
            return f"{type(e).__name__} [{condition}] (Spark gave no message)"
    return f"{type(e).__name__} (Spark gave no message)"


def row_context(key: object, timestamp_ms: int | None, uuid_namespace: str | None) -> Context:
    """The clock and uuids for one row: fixed ones make the result reproducible anywhere."""
    clock = (lambda: timestamp_ms) if timestamp_ms is not None else Context().clock
    if uuid_namespace is None:
        return Context(clock=clock)
    counter = iter(range(1 << 30))
    ns = uuid.UUID(uuid_namespace)
    return Context(clock=clock, new_uuid=lambda: str(uuid.uuid5(ns, f"{key}/{next(counter)}")))


def _compile_partition(
    rows: Iterable[Any], dialect: str, timestamp_ms: int | None, uuid_namespace: str | None
) -> Iterator[tuple[Any, ...]]:
    """Runs on the executors: one output row per input row, errors as data."""
    from translator.api import compile_script

    for row in rows:
        key, sql = row[0], row[1]
        if not isinstance(sql, str):
            # A NULL (or non-text) cell is this row's error, not the end of the Spark job.
            what = "NULL" if sql is None else type(sql).__name__
            yield (key, "{}", [f"error: the row's SQL is {what}, not a DDL text"], [])
            continue
        ctx = row_context(key, timestamp_ms, uuid_namespace)
        result = compile_script(sql, dialect, context=ctx)
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
    df: DataFrame,
    dialect: str,
    *,
    sql_column: str = "sql",
    key_column: str = "id",
    timestamp_ms: int | None = None,
    uuid_namespace: str | None = None,
) -> DataFrame:
    """Compile a DataFrame whose ``sql_column`` holds DDL texts, with Spark doing the work.

    Each row is compiled on its own (its script may define several functions): the result has
    ``key_column``, ``metadata`` (JSON: function name -> metadata document), ``errors`` and
    ``warnings``. Rows are independent, so the results equal compiling each text on one machine
    with the same :func:`row_context` (give ``timestamp_ms`` and ``uuid_namespace`` to make
    them reproducible: then function-uuids are uuid5 of the row key).

    The executors import :mod:`translator`: on a cluster, install the package there (or ship it
    with ``SparkContext.addPyFile``); in local mode nothing is needed.
    """
    from pyspark.sql.types import ArrayType, StringType, StructField, StructType

    get_dialect(dialect)  # an unknown dialect fails here, not on every executor
    missing = [c for c in (key_column, sql_column) if c not in df.columns]
    if missing:
        raise ValueError(
            f"compile_dataframe reads the columns {key_column!r} (a row key) and {sql_column!r} "
            f"(DDL text): {', '.join(map(repr, missing))} missing from {df.columns}; name them "
            "with key_column= and sql_column="
        )
    schema = StructType(
        [
            StructField(key_column, df.schema[key_column].dataType, True),
            StructField("metadata", StringType(), False),
            StructField("errors", ArrayType(StringType()), False),
            StructField("warnings", ArrayType(StringType()), False),
        ]
    )
    rdd = df.select(key_column, sql_column).rdd.mapPartitions(
        lambda rows: _compile_partition(rows, dialect, timestamp_ms, uuid_namespace)
    )
    return df.sparkSession.createDataFrame(rdd, schema)
