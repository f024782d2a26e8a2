"""Spark types: a parsed Spark type -> an Iceberg type, and an Iceberg type -> Spark's DDL text.

Types follow ``../shared/docs/type-mapping-facts.md`` (Iceberg's own Spark integration). Where a
Spark type lands on an Iceberg type that does not carry everything (TINYINT, CHAR(n), a
collation...), the statement gets a ``lossy-type`` warning; where Iceberg cannot hold the type at
all (INTERVAL, TIME), it is an :class:`UnsupportedError` naming the type and its position. The
nested types (ARRAY, MAP, STRUCT) are built by the Transformer; the primitives are mapped here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, NoReturn

from lark import Token

from translator.dialects.spark.lexical import Name, quote_ident, spark_string_literal, squash
from translator.errors import SqlSyntaxError, TranslatorError, UnsupportedError
from translator.types import (
    DecimalType,
    FixedType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    PrimitiveType,
    StructField,
    StructType,
    TypeParseError,
)

__all__ = [
    "Fail",
    "PrimitiveSpec",
    "Warn",
    "bare_primitive",
    "iceberg_to_spark_type",
    "map_primitive",
]

#: Spark's default decimal when DECIMAL has no arguments (Trino's is (38,0)).
_SPARK_DEFAULT_DECIMAL: Final = (10, 0)

#: Spark 4.1 maps SRID 4326 to the CRS "OGC:CRS84", which is Iceberg's default CRS.
_DEFAULT_SRID: Final = "4326"


# Spark type -> Iceberg type


@dataclass(slots=True)
class PrimitiveSpec:
    """A primitive type as written: upper-case name, arguments, suffixes, and its source text."""

    name: str
    args: list[Token] | None
    without_time_zone: bool
    collation: Name | None
    source: str

    @property
    def spelled(self) -> str:
        """The type as written, on one line: only messages need it, so it is made on demand."""
        return squash(self.source)


Fail = Callable[[type[TranslatorError], str], NoReturn]
Warn = Callable[[str], None]

#: Spark names (with aliases) that map to one Iceberg primitive without arguments or loss.
_EXACT: Final = {
    "BOOLEAN": "boolean",
    "INT": "int",
    "INTEGER": "int",
    "BIGINT": "long",
    "LONG": "long",
    "FLOAT": "float",
    "REAL": "float",
    "DOUBLE": "double",
    "DATE": "date",
    # Spark TIMESTAMP is TIMESTAMP_LTZ by default: an instant, i.e. Iceberg timestamptz.
    "TIMESTAMP_LTZ": "timestamptz",
    "TIMESTAMP_NTZ": "timestamp",
    "BINARY": "binary",
    "VOID": "unknown",
    "VARIANT": "variant",
}

#: Narrow integers widen to Iceberg int: lossy on the way back.
_NARROW_INTS: Final = frozenset({"TINYINT", "BYTE", "SMALLINT", "SHORT"})
_DECIMALS: Final = frozenset({"DECIMAL", "DEC", "NUMERIC"})
_CHARS: Final = frozenset({"CHAR", "CHARACTER", "VARCHAR"})
_GEO: Final = frozenset({"GEOMETRY", "GEOGRAPHY"})


#: What a bare name (no arguments, WITHOUT TIME ZONE or COLLATE) of :data:`_EXACT`, TIMESTAMP or
#: STRING maps to, with nothing to check or report: made once, types being immutable values.
_BARE: Final[dict[str, IcebergType]] = {
    **{name: PrimitiveType(iceberg) for name, iceberg in _EXACT.items()},
    "TIMESTAMP": PrimitiveType("timestamptz"),
    "STRING": PrimitiveType("string"),
}


def bare_primitive(name: str) -> IcebergType | None:
    """What :func:`map_primitive` returns for the upper-case ``name`` written alone, where that
    needs no check and loses nothing (most of a header's types); None for any other name."""
    return _BARE.get(name)


def map_primitive(spec: PrimitiveSpec, fail: Fail, warn: Warn) -> IcebergType:
    """One Spark primitive -> Iceberg; argument and suffix checks mirror Spark's own."""
    if spec.without_time_zone and spec.name != "TIMESTAMP":
        fail(SqlSyntaxError, f"WITHOUT TIME ZONE only follows TIMESTAMP, not {spec.name}")
    if spec.collation is not None and spec.name != "STRING":
        fail(SqlSyntaxError, f"COLLATE only follows STRING, not {spec.name}")
    if spec.name == "TIMESTAMP":
        _no_args(spec, fail)
        return PrimitiveType("timestamp" if spec.without_time_zone else "timestamptz")
    if spec.name == "STRING":
        return _map_string(spec, fail, warn)
    if spec.name in _EXACT:
        _no_args(spec, fail)
        return _BARE[spec.name]
    if spec.name in _NARROW_INTS:
        _no_args(spec, fail)
        warn(f"Spark {spec.name} is stored as Iceberg int and comes back as INT (range lost)")
        return PrimitiveType("int")
    if spec.name in _DECIMALS:
        return _map_decimal(spec, fail)
    if spec.name in _CHARS:
        return _map_char(spec, fail, warn)
    if spec.name in _GEO:
        return _map_geo(spec, fail)
    if spec.name == "TIME":
        fail(
            UnsupportedError,
            f"Spark type {spec.spelled} has no Iceberg type here (Iceberg's Spark integration "
            "does not support TIME)",
        )
    fail(UnsupportedError, f"unknown or unsupported Spark type {spec.spelled}")


def _no_args(spec: PrimitiveSpec, fail: Fail) -> None:
    if spec.args:
        fail(SqlSyntaxError, f"Spark type {spec.name} takes no arguments: {spec.spelled}")


def _int_args(spec: PrimitiveSpec, fail: Fail, allowed: Sequence[int]) -> list[int]:
    args = spec.args or []
    if len(args) not in allowed or not all(str(a).isdigit() for a in args):
        counts = " or ".join(str(n) for n in allowed)
        fail(
            SqlSyntaxError,
            f"Spark type {spec.name} takes {counts} whole-number argument(s): {spec.spelled}",
        )
    return [int(str(a)) for a in args]


def _map_string(spec: PrimitiveSpec, fail: Fail, warn: Warn) -> IcebergType:
    _no_args(spec, fail)
    if spec.collation is not None and spec.collation.text.upper() != "UTF8_BINARY":
        # UTF8_BINARY is Spark's default collation: nothing is lost by dropping it.
        warn(f"the collation of {spec.spelled} is lost: Iceberg string has none")
    return PrimitiveType("string")


def _map_decimal(spec: PrimitiveSpec, fail: Fail) -> IcebergType:
    args = _int_args(spec, fail, (0, 1, 2))
    precision, scale = (*args, 0)[:2] if args else _SPARK_DEFAULT_DECIMAL
    try:
        return DecimalType(precision, scale)
    except TypeParseError as e:
        fail(UnsupportedError, f"{spec.spelled}: {e.message}")


def _map_char(spec: PrimitiveSpec, fail: Fail, warn: Warn) -> IcebergType:
    if not spec.args:
        fail(SqlSyntaxError, f"Spark type {spec.name} needs a length, e.g. {spec.name}(10)")
    (length,) = _int_args(spec, fail, (1,))
    what = "fixed length and padding" if spec.name != "VARCHAR" else "length limit"
    warn(f"Spark {spec.spelled} is stored as Iceberg string: its {what} ({length}) is lost")
    return PrimitiveType("string")


def _map_geo(spec: PrimitiveSpec, fail: Fail) -> IcebergType:
    """GEOMETRY(srid) / GEOGRAPHY(srid), as Spark 4.1 names their CRS.

    Spark maps SRID 4326 to OGC:CRS84 (Iceberg's default CRS, so no parameter), 0 to SRID:0 and
    any other SRID N to EPSG:N. ``ANY`` (mixed SRIDs in one column) has no Iceberg CRS. Spark
    geography is always spherical, Iceberg's default edge algorithm.
    """
    args = spec.args or []
    if len(args) != 1:
        fail(SqlSyntaxError, f"Spark type {spec.name} takes one SRID argument: {spec.spelled}")
    srid = str(args[0])
    if not srid.isdigit():
        fail(UnsupportedError, f"Spark type {spec.spelled} has no Iceberg type (no single CRS)")
    if spec.name == "GEOGRAPHY":
        if srid != _DEFAULT_SRID:
            fail(UnsupportedError, f"Spark supports only GEOGRAPHY(4326), not {spec.spelled}")
        return GeographyType()
    if srid == _DEFAULT_SRID:
        return GeometryType()
    return GeometryType("SRID:0" if srid == "0" else f"EPSG:{int(srid)}")


# ---------------------------------------------------------------------------------------------
# Iceberg type -> Spark type (for the emitter)

_TO_SPARK: Final = {
    "boolean": "BOOLEAN",
    "int": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "date": "DATE",
    "timestamp": "TIMESTAMP_NTZ",
    "timestamptz": "TIMESTAMP",
    "string": "STRING",
    # Spark has no UUID type: Iceberg's Spark integration reads uuid as STRING.
    "uuid": "STRING",
    "binary": "BINARY",
    "variant": "VARIANT",
    "unknown": "VOID",
}

_NO_SPARK_TYPE: Final = frozenset({"time", "timestamp_ns", "timestamptz_ns"})


def iceberg_to_spark_type(t: IcebergType) -> str:
    """The Spark DDL spelling of an Iceberg type, as Iceberg's Spark integration maps it.

    ``time``, ``timestamp_ns`` and ``timestamptz_ns`` have no Spark type: UnsupportedError.
    """
    if isinstance(t, PrimitiveType):
        if t.name in _NO_SPARK_TYPE:
            raise UnsupportedError(f"Spark has no type for Iceberg {t.name}")
        return _TO_SPARK[t.name]
    if isinstance(t, DecimalType):
        return f"DECIMAL({t.precision},{t.scale})"
    if isinstance(t, FixedType):
        return "BINARY"  # the length is lost, as in Iceberg's Spark integration
    if isinstance(t, ListType):
        return f"ARRAY<{iceberg_to_spark_type(t.element)}>"
    if isinstance(t, MapType):
        return f"MAP<{iceberg_to_spark_type(t.key)}, {iceberg_to_spark_type(t.value)}>"
    if isinstance(t, StructType):
        return "STRUCT<" + ", ".join(_spark_field(f) for f in t.fields) + ">"
    if isinstance(t, GeometryType | GeographyType):
        return _spark_geo(t)
    raise UnsupportedError(f"Spark has no type for Iceberg {t}")  # pragma: no cover


def _spark_field(f: StructField) -> str:
    out = f"{quote_ident(f.name)}: {iceberg_to_spark_type(f.type)}"
    if f.doc is not None:
        out += " COMMENT " + spark_string_literal(f.doc)
    return out


def _spark_geo(t: GeometryType | GeographyType) -> str:
    """Only the CRSs Spark 4.1 can name map back (see :func:`_map_geo`)."""
    crs = (t.crs or "OGC:CRS84").upper()
    if isinstance(t, GeographyType):
        if crs in ("OGC:CRS84", "EPSG:4326") and (t.algorithm or "spherical") == "spherical":
            return f"GEOGRAPHY({_DEFAULT_SRID})"
        raise UnsupportedError(f"Spark has no type for Iceberg {t} (only GEOGRAPHY(4326))")
    if crs in ("OGC:CRS84", "EPSG:4326"):
        return f"GEOMETRY({_DEFAULT_SRID})"
    m = re.fullmatch(r"(?:EPSG|SRID):(\d+)", crs)
    if m is None:
        raise UnsupportedError(f"Spark has no type for Iceberg {t} (no SRID for that CRS)")
    return f"GEOMETRY({int(m.group(1))})"
