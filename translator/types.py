"""Iceberg types as the UDF spec uses them: immutable values whose ``str()`` is canonical.

The canonical string is the one the spec's ``definition-id`` is built from (lower-case names, no
spaces: ``decimal(9,2)``, ``list<int>``, ``struct<id:int,name:string>``). pyiceberg's serializer is
deliberately not reused: it writes ``decimal(9, 2)`` and needs field ids, both wrong here.

Reading is lenient (any case, whitespace inside parameters, the extra keys table schemas carry);
writing is canonical. Whether a *stored* type string is canonical is a metadata-validation
question, answered in :mod:`translator.metadata`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from translator.rebuild import Reduced, by_init

__all__ = [
    "EDGE_ALGORITHMS",
    "MAX_TYPE_NESTING",
    "PRIMITIVE_NAMES",
    "TOO_DEEP",
    "DecimalType",
    "FixedType",
    "GeographyType",
    "GeometryType",
    "IcebergType",
    "ListType",
    "MapType",
    "PrimitiveType",
    "StructField",
    "StructType",
    "TypeJson",
    "TypeNestingError",
    "TypeParseError",
    "check_id_safe",
    "definition_id",
    "parse_type_json",
    "parse_type_string",
    "type_to_json",
]

TypeJson: TypeAlias = str | dict[str, Any]

#: Primitive names that take no parameters.
PRIMITIVE_NAMES = frozenset(
    {
        "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
        "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "variant", "unknown",
    }
)  # fmt: skip

#: Characters that would make a struct field name ambiguous inside a definition-id (the spec
#: writes names raw, so ``struct<a,b:int>`` could be read two ways) or break "no spaces or quotes".
_AMBIGUOUS_NAME_CHARS = frozenset(",:<>()[]'\"`") | frozenset(" \t\r\n")

#: Characters a CRS or edge algorithm cannot hold: they would end the parameter list early or let
#: one type string read as several (``geography(x),geography(y)``). ``:`` stays (``srid:4326``).
_BAD_GEO_PARAM = re.compile(r"[\s,<>()\[\]'\"`]")

#: The edge-interpolation algorithms the Iceberg spec defines for ``geography``.
EDGE_ALGORITHMS = frozenset({"spherical", "vincenty", "thomas", "andoyer", "karney"})


class TypeParseError(ValueError):
    """A type string or JSON value that is not an Iceberg type; ``path`` is relative (``.key``)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class TypeNestingError(TypeParseError):
    """A list, map or struct nested past :data:`MAX_TYPE_NESTING`. Types are built from the
    inside out, so the level that raises it is the limit's count from the innermost one: a
    reader reports it at the whole type (a front end at the outermost type's start, metadata at
    the type's JSON path), where a user looks for it."""


@dataclass(frozen=True, slots=True)
class IcebergType:
    """Base of all types. Equality and hashing are structural."""

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    @property
    def is_primitive(self) -> bool:
        return not isinstance(self, ListType | MapType | StructType)

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class PrimitiveType(IcebergType):
    """A primitive without parameters, named by one of :data:`PRIMITIVE_NAMES`."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in PRIMITIVE_NAMES:
            raise TypeParseError(f"{self.name!r} is not an Iceberg primitive type")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class DecimalType(IcebergType):
    precision: int
    scale: int

    def __post_init__(self) -> None:
        if not 1 <= self.precision <= 38:
            raise TypeParseError(f"decimal precision {self.precision} is outside 1..38")
        if not 0 <= self.scale <= self.precision:
            raise TypeParseError(
                f"decimal scale {self.scale} is outside 0..{self.precision} (the precision)"
            )

    def __str__(self) -> str:
        return f"decimal({self.precision},{self.scale})"


@dataclass(frozen=True, slots=True)
class FixedType(IcebergType):
    length: int

    def __post_init__(self) -> None:
        if self.length < 1:
            raise TypeParseError(f"fixed length {self.length} must be at least 1")

    def __str__(self) -> str:
        return f"fixed[{self.length}]"


@dataclass(frozen=True, slots=True)
class GeometryType(IcebergType):
    """``geometry`` or ``geometry(C)``; no CRS means the spec's default, OGC:CRS84."""

    crs: str | None = None

    def __post_init__(self) -> None:
        _check_crs(self.crs)

    def __str__(self) -> str:
        return "geometry" if self.crs is None else f"geometry({self.crs})"


@dataclass(frozen=True, slots=True)
class GeographyType(IcebergType):
    """``geography``, ``geography(C)`` or ``geography(C,A)`` (A: the edge algorithm)."""

    crs: str | None = None
    algorithm: str | None = None

    def __post_init__(self) -> None:
        if self.algorithm is not None and self.crs is None:
            raise TypeParseError("a geography edge algorithm needs a CRS before it")
        _check_crs(self.crs)
        if self.algorithm is not None and self.algorithm not in EDGE_ALGORITHMS:
            known = ", ".join(sorted(EDGE_ALGORITHMS))
            raise TypeParseError(f"{self.algorithm!r} is not an edge algorithm ({known})")

    def __str__(self) -> str:
        if self.crs is None:
            return "geography"
        if self.algorithm is None:
            return f"geography({self.crs})"
        return f"geography({self.crs},{self.algorithm})"


def _check_crs(value: str | None) -> None:
    if value is not None and (not value or _BAD_GEO_PARAM.search(value)):
        raise TypeParseError(
            f"CRS {value!r} must be non-empty, without spaces, quotes, brackets or commas"
        )


#: How many lists, maps and structs a type may nest. Every walk over a type (its string, its
#: JSON, each engine's spelling, the checks) recurses at least once per level: the limit keeps
#: them far from Python's stack limit wherever they run, and is deeper than any real schema.
MAX_TYPE_NESTING = 64
#: What :class:`TypeNestingError` says.
TOO_DEEP = f"the type nests more than {MAX_TYPE_NESTING} lists, maps and structs deep"


def _nesting(*children: IcebergType) -> int:
    """The nesting of a list, map or struct of ``children``; raises past the limit."""
    depth = 1 + max((getattr(c, "nesting", 0) for c in children), default=0)
    if depth > MAX_TYPE_NESTING:
        raise TypeNestingError(TOO_DEEP)
    return depth


@dataclass(frozen=True, slots=True)
class ListType(IcebergType):
    element: IcebergType
    #: Lists, maps and structs in this one, itself included (see :data:`MAX_TYPE_NESTING`).
    nesting: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "nesting", _nesting(self.element))

    def __str__(self) -> str:
        return f"list<{self.element}>"


@dataclass(frozen=True, slots=True)
class MapType(IcebergType):
    key: IcebergType
    value: IcebergType
    nesting: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "nesting", _nesting(self.key, self.value))

    def __str__(self) -> str:
        return f"map<{self.key},{self.value}>"


@dataclass(frozen=True, slots=True)
class StructField:
    """A named struct field. ``doc`` is carried along but is not part of the type's identity."""

    name: str
    type: IcebergType
    doc: str | None = field(default=None, compare=False, hash=False)

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class StructType(IcebergType):
    fields: tuple[StructField, ...]
    nesting: int = field(init=False, repr=False, compare=False, hash=False)

    def __init__(self, fields: Iterable[StructField]) -> None:
        object.__setattr__(self, "fields", tuple(fields))
        object.__setattr__(self, "nesting", _nesting(*(f.type for f in self.fields)))
        seen: set[str] = set()
        for f in self.fields:
            if not f.name:
                raise TypeParseError("a struct field needs a non-empty name")
            if f.name in seen:
                raise TypeParseError(f"struct has duplicate field name {f.name!r}")
            seen.add(f.name)

    def __str__(self) -> str:
        return "struct<" + ",".join(f"{f.name}:{f.type}" for f in self.fields) + ">"


# --------------------------------------------------------------------------------------------
# Reading


_PARAM_RE = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\)|\[(.*)\])?\s*$", re.DOTALL)


def parse_type_string(text: object) -> IcebergType:
    """Read a primitive type string (``decimal( 9 , 2 )`` and ``INT`` are accepted). Anything
    else is refused as a TypeParseError: typed ``object`` so that a compiled build (mypyc
    checks a ``str`` parameter on entry) refuses it the same way."""
    if not isinstance(text, str):
        raise TypeParseError(f"a type string is expected, got {type(text).__name__}")
    if not text.strip():
        raise TypeParseError("a type string must not be empty")
    m = _PARAM_RE.match(text)
    if m is None:
        raise TypeParseError(f"{text!r} is not an Iceberg type")
    name, paren, bracket = m.group(1).lower(), m.group(2), m.group(3)
    if paren is None and bracket is None:
        if name in PRIMITIVE_NAMES:
            return PrimitiveType(name)
        if name == "geometry":
            return GeometryType()
        if name == "geography":
            return GeographyType()
        if name in ("list", "map", "struct"):
            raise TypeParseError(f"{text!r} is a nested type: write it as a JSON object")
        raise TypeParseError(f"{text!r} is not an Iceberg type")
    if bracket is not None:
        if name != "fixed":
            raise TypeParseError(f"{text!r} is not an Iceberg type")
        return FixedType(_int_param(bracket, text))
    args = [a.strip() for a in paren.split(",")]
    if name == "decimal" and len(args) == 2:
        return DecimalType(_int_param(args[0], text), _int_param(args[1], text))
    if name == "geometry" and len(args) == 1 and args[0]:
        return GeometryType(args[0])
    if name == "geography" and len(args) in (1, 2) and all(args):
        return GeographyType(args[0], args[1].lower() if len(args) == 2 else None)
    raise TypeParseError(f"{text!r} is not an Iceberg type")


def _int_param(text: str, whole: str) -> int:
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise TypeParseError(f"{whole!r}: {text!r} is not a non-negative whole number")
    return int(text)


def parse_type_json(value: object) -> IcebergType:
    """Read the spec's JSON form: a string for primitives, an object for list, map and struct.

    Keys other than the ones the UDF spec requires (``element-id``, ``required``, ``doc``...) are
    ignored, as the spec says; a struct field's ``doc`` is kept on the :class:`StructField`.

    The nesting is walked on a stack of its own, not by recursion: a value nested deeper than
    Python's stack (a caller's own dict, not bounded by a JSON decoder) is refused as too deep
    like any type past :data:`MAX_TYPE_NESTING`, and compiled (where a call takes no Python
    frame) it cannot overflow the C stack. Errors are those of a depth-first read, children
    before their parent, each with its path from ``value``.
    """
    stack: list[_Open] = []
    while True:
        try:
            if isinstance(value, str):
                done = parse_type_string(value)
            else:
                stack.append(_Open(value))
                done = None
            while stack:
                top = stack[-1]
                if done is not None:
                    top.children.append(done)
                    done = None
                child = top.next_child()
                if child is not _NO_CHILD:
                    value = child
                    break
                stack.pop()
                done = top.build()
            else:
                assert done is not None
                return done
        except TypeParseError as e:
            path = "".join(o.step for o in stack if o.step is not None)
            if not path:
                raise
            raise type(e)(e.message, path + e.path) from None


#: What :meth:`_Open.next_child` returns once every child has been read.
_NO_CHILD = object()


class _Open:
    """A list, map or struct of :func:`parse_type_json` whose children are being read; ``step``
    is the path from it to the child being read (None before the first and after the last)."""

    __slots__ = ("children", "fields", "kind", "step", "value")

    def __init__(self, value: object) -> None:
        if not isinstance(value, dict):
            raise TypeParseError(f"a type must be a string or an object, not {_json_kind(value)}")
        kind = value.get("type")
        if not isinstance(kind, str):
            raise TypeParseError("a nested type object needs a string 'type'", ".type")
        self.value: dict[str, Any] = value
        self.kind = kind.lower()
        self.children: list[IcebergType] = []
        self.step: str | None = None
        self.fields: list[Any] = []
        if self.kind == "struct":
            fields = value.get("fields")
            if not isinstance(fields, list):
                raise TypeParseError("a struct needs a 'fields' list", ".fields")
            self.fields = fields
        elif self.kind not in ("list", "map"):
            raise TypeParseError(f"unsupported nested type {value.get('type')!r}", ".type")

    def next_child(self) -> object:
        """The JSON value of the next child to read (checked as far as this level goes), or
        :data:`_NO_CHILD`."""
        self.step = None
        i = len(self.children)
        if self.kind == "struct":
            if i == len(self.fields):
                return _NO_CHILD
            f, where = self.fields[i], f".fields[{i}]"
            if not isinstance(f, dict):
                got = _json_kind(f)
                raise TypeParseError(f"a struct field must be an object, not {got}", where)
            name = f.get("name")
            if not isinstance(name, str) or not name:
                raise TypeParseError("a struct field needs a non-empty 'name'", where + ".name")
            if "type" not in f:
                raise TypeParseError("a struct field needs a 'type'", where + ".type")
            self.step = where + ".type"
            return f["type"]
        keys = ("element",) if self.kind == "list" else ("key", "value")
        if i == len(keys):
            return _NO_CHILD
        if keys[i] not in self.value:
            raise TypeParseError(
                f"a {self.value.get('type')} type needs '{keys[i]}'", f".{keys[i]}"
            )
        self.step = f".{keys[i]}"
        return self.value[keys[i]]

    def build(self) -> IcebergType:
        """The type of this level, its children read."""
        c = self.children
        if self.kind == "list":
            return ListType(c[0])
        if self.kind == "map":
            return MapType(c[0], c[1])
        out = []
        for f, t in zip(self.fields, c, strict=True):
            doc = f.get("doc")
            out.append(StructField(f["name"], t, doc if isinstance(doc, str) else None))
        try:
            return StructType(out)
        except TypeParseError as e:
            raise type(e)(e.message, ".fields") from None


def _json_kind(value: object) -> str:
    return {
        list: "an array", bool: "a boolean", int: "a number", float: "a number", type(None): "null"
    }.get(type(value), type(value).__name__)  # fmt: skip


# --------------------------------------------------------------------------------------------
# Writing


def type_to_json(t: IcebergType) -> TypeJson:
    """The canonical JSON form: only the keys the UDF spec requires, plus a struct field's doc."""
    if isinstance(t, ListType):
        return {"type": "list", "element": type_to_json(t.element)}
    if isinstance(t, MapType):
        return {"type": "map", "key": type_to_json(t.key), "value": type_to_json(t.value)}
    if isinstance(t, StructType):
        fields: list[dict[str, Any]] = []
        for f in t.fields:
            entry: dict[str, Any] = {"name": f.name, "type": type_to_json(f.type)}
            if f.doc is not None:
                entry["doc"] = f.doc
            fields.append(entry)
        return {"type": "struct", "fields": fields}
    return str(t)


def check_id_safe(t: IcebergType) -> None:
    """Raise if a struct field name would make the definition-id ambiguous or contain spaces."""
    if isinstance(t, ListType):
        check_id_safe(t.element)
    elif isinstance(t, MapType):
        check_id_safe(t.key)
        check_id_safe(t.value)
    elif isinstance(t, StructType):
        for f in t.fields:
            bad = sorted(set(f.name) & _AMBIGUOUS_NAME_CHARS)
            if bad:
                raise TypeParseError(
                    f"struct field name {f.name!r} contains {''.join(bad)!r}, which would make the "
                    "definition-id ambiguous or break its no-spaces-or-quotes rule"
                )
            check_id_safe(f.type)


def definition_id(parameter_types: Sequence[IcebergType]) -> str:
    """The spec's canonical ``definition-id``: canonical type strings joined by ``,``."""
    for t in parameter_types:
        check_id_safe(t)
    return ",".join(str(t) for t in parameter_types)
