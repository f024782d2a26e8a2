"""Spark DDL from a routine spec: the ``CREATE FUNCTION`` text, and what Spark cannot say."""

from __future__ import annotations

from translator.dialects.base import PROPERTY_KEYS, Rendered, RoutineSpec, walk_type
from translator.dialects.spark.lexical import (
    NAME_PARTS,
    quote_function_name,
    quote_ident,
    spark_string_literal,
)
from translator.dialects.spark.types import iceberg_to_spark_type
from translator.errors import UnsupportedError, UnsupportedNameError
from translator.names import format_name
from translator.types import FixedType, IcebergType, PrimitiveType, StructType

__all__ = ["render_create"]


def render_create(spec: RoutineSpec, *, or_replace: bool = False) -> Rendered:
    """Spark's ``CREATE FUNCTION`` for ``spec``, in the form this front end reads back exactly.

    Spark refuses ``RETURNS NULL ON NULL INPUT`` on SQL functions, so a scalar function with
    ``on-null-input: return-null`` keeps its meaning through a guard around the body:
    ``RETURN CASE WHEN p1 IS NULL OR ... THEN NULL ELSE (body) END``. A table function with it
    is refused: returning no rows is not returning NULL. Parameter DEFAULTs, ``SQL SECURITY``
    and ``CONTAINS SQL`` / ``READS SQL DATA`` come back from where compile kept them.

    Reported as lossy: a uuid or fixed type (Spark reads them as STRING / BINARY).
    Refused (:class:`UnsupportedError`): a ``BEGIN ... END`` body, a name of more than three
    parts, a table function whose return type is not a struct, a type Spark has none for.
    """
    if spec.body_kind == "compound":
        raise UnsupportedError(
            f"{spec.label} has a BEGIN ... END body: Spark SQL functions take RETURN"
        )
    if len(spec.name) not in NAME_PARTS:
        raise UnsupportedNameError(
            f"{format_name(spec.name)}: Spark names a function with 1 to 3 parts"
        )
    lossy: list[str] = []
    defaults = spec.defaults or (None,) * len(spec.parameters)
    params = ", ".join(
        _render_column(name, tp, doc, f"parameter {name}", lossy, default)
        for (name, tp, doc), default in zip(spec.parameters, defaults, strict=True)
    )
    lines = [
        f"CREATE {'OR REPLACE ' if or_replace else ''}FUNCTION "
        f"{'.'.join(quote_function_name(p) for p in spec.name)}({params})",
        "  RETURNS " + _render_returns(spec, lossy),
    ]
    if spec.doc is not None:
        lines.append("  COMMENT " + spark_string_literal(spec.doc))
    lines.append("  DETERMINISTIC" if spec.deterministic else "  NOT DETERMINISTIC")
    properties = dict(spec.properties)
    if (access := properties.get(PROPERTY_KEYS["data_access"].format(dialect="spark"))) in (
        "CONTAINS SQL",
        "READS SQL DATA",
    ):
        lines.append(f"  {access}")
    if properties.get(PROPERTY_KEYS["security"].format(dialect="spark")) == "DEFINER":
        lines.append("  SQL SECURITY DEFINER")
    body = spec.body
    if spec.on_null_input == "return-null" and spec.parameters:
        if spec.kind == "udtf":
            raise UnsupportedError(
                f"{spec.label} is a table function that returns null on null input: Spark has no "
                "RETURNS NULL ON NULL INPUT and no faithful rewrite for a table"
            )
        guard = " OR ".join(f"{quote_ident(n)} IS NULL" for n, _, _ in spec.parameters)
        body = f"CASE WHEN {guard} THEN NULL ELSE ({body}) END"
    lines.append(f"  RETURN {body}")
    return Rendered("\n".join(lines), tuple(lossy))


def _render_returns(spec: RoutineSpec, lossy: list[str]) -> str:
    if spec.kind == "udf":
        return _render_type(spec.return_type, "the return type", lossy)
    if not isinstance(spec.return_type, StructType) or not spec.return_type.fields:
        raise UnsupportedError(f"{spec.label} is a table function without result columns")
    columns = ", ".join(
        _render_column(f.name, f.type, f.doc, f"result column {f.name}", lossy)
        for f in spec.return_type.fields
    )
    return f"TABLE ({columns})"


def _render_column(
    name: str,
    tp: IcebergType,
    doc: str | None,
    where: str,
    lossy: list[str],
    default: str | None = None,
) -> str:
    out = f"{quote_ident(name)} {_render_type(tp, where, lossy)}"
    if default is not None:
        out += f" DEFAULT {default}"
    if doc is not None and "\\" in doc:
        # Spark stores parameter and column comments as DDL text and re-reads it without its
        # escapes: backslashes vanish, and one before a quote corrupts the catalog entry.
        lossy.append(f"{where}: its doc holds a backslash, which Spark cannot keep; left out")
        return out
    return out if doc is None else f"{out} COMMENT {spark_string_literal(doc)}"


def _render_type(tp: IcebergType, where: str, lossy: list[str]) -> str:
    """The Spark type, noting where Iceberg says more than Spark can (uuid, fixed[L])."""
    try:
        spelled = iceberg_to_spark_type(tp)
    except UnsupportedError as e:
        raise UnsupportedError(f"{where}: {e.message}") from None
    for inner in walk_type(tp):
        if inner == PrimitiveType("uuid"):
            lossy.append(f"{where}: Iceberg uuid becomes Spark STRING")
        elif isinstance(inner, FixedType):
            lossy.append(f"{where}: Iceberg {inner} becomes Spark BINARY, which has no length")
    return spelled
