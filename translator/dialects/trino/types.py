"""Trino types: the text of a Trino type -> an Iceberg type, and an Iceberg type -> Trino's text.

Trino types are mapped to Iceberg types the way Trino's own Iceberg connector does (see
``../shared/docs/type-mapping-facts.md``); every mapping that loses information is reported as a
``lossy-type`` warning instead of being silently accepted. :func:`iceberg_to_trino_type` is the
reverse mapping, for emitting Trino DDL from metadata.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from translator.dialects.trino.lexical import quote_name
from translator.dialects.trino.source import Source, Spelled
from translator.errors import Diagnostic, UnsupportedError
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
    TypeNestingError,
    TypeParseError,
)

__all__ = ["iceberg_to_trino_type", "to_iceberg"]


#: Trino types with no Iceberg counterpart (facts: json, ipaddress, interval, time with time
#: zone, number; the rest are Trino's sketch and geometry-index types).
_NOT_IN_ICEBERG: Final = frozenset(
    {
        "json", "ipaddress", "number", "hyperloglog", "p4hyperloglog", "khyperloglog", "qdigest",
        "tdigest", "setdigest", "color", "bingtile", "kdbtree", "jsonpath", "jsonpath2016",
        "regressor", "classifier", "likepattern", "function", "codepoints", "joniregexp",
        "re2jregexp", "interval",
    }
)  # fmt: skip

_SIMPLE: Final = {
    "boolean": "boolean",
    "integer": "int",
    "int": "int",
    "bigint": "long",
    "real": "float",
    "double": "double",
    "varbinary": "binary",
    "date": "date",
    "uuid": "uuid",
    "variant": "variant",
}

#: The Iceberg type of each of :data:`_SIMPLE`'s names, made once: types are immutable values, and
#: these are most of a header's types (no mapper, no validation of the name, per type).
_SIMPLE_TYPES: Final[dict[str, IcebergType]] = {
    name: PrimitiveType(iceberg) for name, iceberg in _SIMPLE.items()
}


def to_iceberg(t: Spelled, b: Source, warnings: list[Diagnostic]) -> IcebergType:
    """Map a Trino type to Iceberg as Trino's Iceberg connector does; report what is lost."""
    if not t.args and t.time_zone is None:
        simple = _SIMPLE_TYPES.get(t.name)
        if simple is not None:  # what the mapper returns for it, with nothing to check or say
            return simple
    try:
        return _TypeMapper(b, warnings).map(t)
    except TypeNestingError as e:  # at the whole type, not at the level that counted past
        raise b.unsupported(e.message, t.offset) from None


@dataclass(slots=True)
class _TypeMapper:
    b: Source
    warnings: list[Diagnostic]

    def lossy(self, t: Spelled, message: str) -> None:
        self.warnings.append(
            Diagnostic("lossy-type", message, self.b.position(t.offset), lossy=True)
        )

    def unsupported(self, t: Spelled, message: str, offset: int | None = None) -> UnsupportedError:
        return self.b.unsupported(message, t.offset if offset is None else offset)

    def map(self, t: Spelled) -> IcebergType:
        if t.time_zone is not None and t.name not in ("time", "timestamp"):
            raise self.unsupported(t, f"{t.text}: only time and timestamp take a time zone")
        if t.name in _SIMPLE:
            self.no_args(t)
            return _SIMPLE_TYPES[t.name]
        handler = _HANDLERS.get(t.name)
        if handler is not None:
            try:
                return handler(self, t)
            except TypeNestingError:
                raise  # reported at the whole type (to_iceberg)
            except TypeParseError as e:
                raise self.unsupported(t, e.message) from None
        if t.name in _NOT_IN_ICEBERG:
            raise self.unsupported(t, f"Trino type {t.text} has no Iceberg equivalent")
        raise self.unsupported(t, f"unknown Trino type {t.text}")

    def no_args(self, t: Spelled) -> None:
        if t.args:
            raise self.unsupported(t, f"Trino type {t.name} takes no parameters: {t.text}")

    def int_args(self, t: Spelled, most: int) -> tuple[int, ...]:
        if len(t.args) > most or not all(isinstance(a, int) for a in t.args):
            what = "no parameters" if most == 0 else f"at most {most} whole-number parameter(s)"
            raise self.unsupported(t, f"Trino type {t.name} takes {what}: {t.text}")
        return tuple(a for a in t.args if isinstance(a, int))

    def type_args(self, t: Spelled, count: int) -> tuple[Spelled, ...]:
        args = tuple(a for a in t.args if isinstance(a, Spelled))
        if len(args) != count or len(t.args) != count:
            raise self.unsupported(t, f"{t.name} takes {count} type parameter(s): {t.text}")
        return args

    # -- one method per Trino type family ------------------------------------------------------

    def float_(self, t: Spelled) -> IcebergType:
        # Not a Trino type (Trino's 32-bit float is real), but the spec appendix's Trino example
        # writes FLOAT and its metadata says "float": accepted as Iceberg float, with a warning.
        self.no_args(t)
        self.warnings.append(
            Diagnostic(
                "not-trino-syntax",
                f"{t.text} is not a Trino type (Trino calls it real); read as Iceberg float, as "
                "the Iceberg spec appendix does",
                self.b.position(t.offset),
            )
        )
        return PrimitiveType("float")

    def narrow_int(self, t: Spelled) -> IcebergType:
        self.no_args(t)
        self.lossy(t, f"{t.name} widens to Iceberg int; written back to Trino it is integer")
        return PrimitiveType("int")

    def decimal(self, t: Spelled) -> IcebergType:
        args = self.int_args(t, 2)
        precision = args[0] if args else 38  # bare DECIMAL is decimal(38,0) in Trino
        scale = args[1] if len(args) > 1 else 0
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            raise self.unsupported(
                t, f"{t.text}: decimal precision must be 1..38 and scale 0..precision"
            )
        return DecimalType(precision, scale)

    def varchar(self, t: Spelled) -> IcebergType:
        args = self.int_args(t, 1)
        if args and args[0] < 1:
            raise self.unsupported(t, f"{t.text}: the length must be at least 1")
        if args:
            self.lossy(t, f"{t.text} becomes Iceberg string: the length {args[0]} is dropped")
        return PrimitiveType("string")

    def char(self, t: Spelled) -> IcebergType:
        args = self.int_args(t, 1)
        length = args[0] if args else 1  # bare CHAR is char(1)
        if length < 1:
            raise self.unsupported(t, f"{t.text}: the length must be at least 1")
        self.lossy(
            t,
            f"{t.text} becomes Iceberg string (Trino coerces char to varchar): the length "
            f"{length} and the blank padding are dropped",
        )
        return PrimitiveType("string")

    def time(self, t: Spelled) -> IcebergType:
        if t.time_zone:
            raise self.unsupported(t, f"Trino type {t.text} has no Iceberg equivalent")
        args = self.int_args(t, 1)
        precision = args[0] if args else 3  # bare TIME is time(3) in Trino
        self.check_precision(t, precision)
        if precision != 6:
            self.lossy(
                t,
                f"{_with_precision(t, precision)} becomes Iceberg time, which is time(6): "
                "the precision changes",
            )
        return PrimitiveType("time")

    def timestamp(self, t: Spelled) -> IcebergType:
        args = self.int_args(t, 1)
        precision = args[0] if args else 3  # bare TIMESTAMP is timestamp(3) in Trino
        self.check_precision(t, precision)
        nanos = precision > 6  # timestamp_ns needs Iceberg format v3
        name = ("timestamptz" if t.time_zone else "timestamp") + ("_ns" if nanos else "")
        if precision not in (6, 9):
            back = 9 if nanos else 6
            self.lossy(
                t,
                f"{_with_precision(t, precision)} becomes Iceberg {name}, which is "
                f"precision {back}: the precision changes",
            )
        return PrimitiveType(name)

    def check_precision(self, t: Spelled, precision: int) -> None:
        if not 0 <= precision <= 12:
            raise self.unsupported(t, f"{t.text}: the precision must be 0..12")

    def array(self, t: Spelled) -> IcebergType:
        (element,) = self.type_args(t, 1)
        return ListType(self.map(element))

    def map_(self, t: Spelled) -> IcebergType:
        key, value = self.type_args(t, 2)
        return MapType(self.map(key), self.map(value))

    def row(self, t: Spelled) -> IcebergType:
        fields: list[StructField] = []
        seen: set[str] = set()
        for i, (name, ftype, offset) in enumerate(t.fields, 1):
            if name is None:
                raise self.unsupported(
                    t,
                    f"field {i} of {t.text} has no name: Iceberg struct fields must be named",
                    offset,
                )
            if name in seen:
                raise self.unsupported(
                    t,
                    f"{t.text} has duplicate field name {name!r}: Iceberg struct field names "
                    "must be unique",
                    offset,
                )
            seen.add(name)
            fields.append(StructField(name, self.map(ftype)))
        return StructType(fields)

    def geometry(self, t: Spelled) -> IcebergType:
        # The facts list Geometry only for Iceberg -> Trino (from geometry with the default
        # CRS); its inverse is taken here, so a Trino Geometry reads as Iceberg geometry.
        self.no_args(t)
        return GeometryType()

    def spherical_geography(self, t: Spelled) -> IcebergType:
        # Likewise the inverse of geography(OGC:CRS84, spherical) -> SphericalGeography; the
        # default CRS and edge algorithm of Iceberg's geography are those.
        self.no_args(t)
        return GeographyType()

    def unknown(self, t: Spelled) -> IcebergType:
        # Trino's type of NULL. Iceberg (format v3) has the same notion; but Trino's Iceberg
        # connector refuses it, so the signature cannot be written back as Trino DDL.
        self.no_args(t)
        self.warnings.append(
            Diagnostic(
                "one-way-type",
                "Trino unknown (the type of NULL) becomes Iceberg unknown, which has no Trino "
                "type to be written back as",
                self.b.position(t.offset),
            )
        )
        return PrimitiveType("unknown")


def _with_precision(t: Spelled, precision: int) -> str:
    """``timestamp (precision 3)`` for a bare type, the text as written otherwise."""
    return t.text if t.args else f"{t.text} (precision {precision})"


_HANDLERS: Final[dict[str, Callable[[_TypeMapper, Spelled], IcebergType]]] = {
    "float": _TypeMapper.float_,
    "tinyint": _TypeMapper.narrow_int,
    "smallint": _TypeMapper.narrow_int,
    "decimal": _TypeMapper.decimal,
    "varchar": _TypeMapper.varchar,
    "char": _TypeMapper.char,
    "time": _TypeMapper.time,
    "timestamp": _TypeMapper.timestamp,
    "array": _TypeMapper.array,
    "map": _TypeMapper.map_,
    "row": _TypeMapper.row,
    "geometry": _TypeMapper.geometry,
    "sphericalgeography": _TypeMapper.spherical_geography,
    "unknown": _TypeMapper.unknown,
}


# ---------------------------------------------------------------------------------------------
# Iceberg -> Trino types


_PRIMITIVE_TO_TRINO: Final = {
    "boolean": "boolean",
    "int": "integer",
    "long": "bigint",
    "float": "real",
    "double": "double",
    "date": "date",
    "time": "time(6)",
    "timestamp": "timestamp(6)",
    "timestamptz": "timestamp(6) with time zone",
    "timestamp_ns": "timestamp(9)",
    "timestamptz_ns": "timestamp(9) with time zone",
    "string": "varchar",
    "uuid": "uuid",
    "binary": "varbinary",
    "variant": "variant",
}


_GEOMETRY_CRS: Final = frozenset({"OGC:CRS84", "CRS84"})
_GEOGRAPHY_CRS: Final = frozenset({"OGC:CRS84", "EPSG:4326"})


def iceberg_to_trino_type(t: IcebergType) -> str:
    """The Trino spelling of an Iceberg type, as Trino's Iceberg connector reads it.

    ``fixed[L]`` becomes ``varbinary`` (the length is lost); ``unknown``, and geo types whose
    CRS or edge algorithm Trino cannot represent, raise :class:`UnsupportedError`.
    """
    if isinstance(t, PrimitiveType):
        if t.name == "unknown":
            raise UnsupportedError(
                "Iceberg type unknown has no Trino equivalent (Trino's Iceberg connector "
                "rejects it)"
            )
        return _PRIMITIVE_TO_TRINO[t.name]
    if isinstance(t, DecimalType):
        return f"decimal({t.precision},{t.scale})"
    if isinstance(t, FixedType):
        return "varbinary"
    if isinstance(t, ListType):
        return f"array({iceberg_to_trino_type(t.element)})"
    if isinstance(t, MapType):
        return f"map({iceberg_to_trino_type(t.key)}, {iceberg_to_trino_type(t.value)})"
    if isinstance(t, StructType):
        if not t.fields:
            raise UnsupportedError("Iceberg struct<> has no Trino type: a Trino row needs a field")
        fields = ", ".join(
            f"{quote_name(f.name)} {iceberg_to_trino_type(f.type)}" for f in t.fields
        )
        return f"row({fields})"
    if isinstance(t, GeometryType):
        return _trino_geometry(t)
    if isinstance(t, GeographyType):
        return _trino_geography(t)
    raise UnsupportedError(f"Iceberg type {t} has no Trino equivalent")  # pragma: no cover


def _trino_geometry(t: GeometryType) -> str:
    crs = t.crs
    if crs is None or crs.upper() in _GEOMETRY_CRS or re.fullmatch(r"(?i)EPSG:\d+", crs):
        return "Geometry"
    raise UnsupportedError(f"Iceberg type {t}: Trino's Geometry has no CRS {crs!r}")


def _trino_geography(t: GeographyType) -> str:
    crs_ok = t.crs is None or t.crs.upper() in _GEOGRAPHY_CRS
    algorithm_ok = t.algorithm is None or t.algorithm.lower() == "spherical"
    if crs_ok and algorithm_ok:
        return "SphericalGeography"
    raise UnsupportedError(
        f"Iceberg type {t}: Trino's SphericalGeography is OGC:CRS84 (or EPSG:4326) with "
        "spherical edges"
    )
