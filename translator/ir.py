"""The parsed function, dialect-free: what every front end produces and compile consumes.

Types are already Iceberg types; engine spellings are gone. What the source said that Iceberg has
no field for (a DEFAULT, SECURITY, a WITH property) is kept here so that compile can decide to
store it as a property or report it, instead of the front end silently dropping it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from translator.errors import Diagnostic, Position
from translator.rebuild import Reduced, by_init
from translator.types import IcebergType, StructType, type_to_json

__all__ = [
    "Body",
    "CreateFunction",
    "DropFunction",
    "Parameter",
    "SkippedStatement",
    "Statement",
]

BodyKind = Literal["expression", "query", "compound"]
NullHandling = Literal["call", "return-null"]


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    type: IcebergType
    doc: str | None = None
    #: A DEFAULT expression exactly as written. Iceberg has no field for it: compile reports it.
    default: str | None = None
    position: Position | None = field(default=None, compare=False)

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class Body:
    """The routine body exactly as written, without the leading ``RETURN`` of an expression body.

    ``ast`` is the sqlglot tree of ``text`` in the source dialect (parsed once, reused by the
    transpiler); ``parse_error`` is set when sqlglot could not parse it: such a body is kept
    verbatim and flagged, never rejected.
    """

    text: str
    kind: BodyKind
    position: Position | None = field(default=None, compare=False)
    ast: Any = field(default=None, compare=False, repr=False)
    parse_error: str | None = field(default=None, compare=False)

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class CreateFunction:
    name: tuple[str, ...]
    parameters: tuple[Parameter, ...]
    #: For a table function, the struct of its columns.
    return_type: IcebergType
    body: Body
    dialect: str
    kind: Literal["udf", "udtf"] = "udf"
    doc: str | None = None
    #: None when the statement does not say (the spec's default is false).
    deterministic: bool | None = None
    #: None when the statement does not say (the spec's default is "call").
    on_null_input: NullHandling | None = None
    #: Trino ``SECURITY DEFINER|INVOKER`` / Spark ``SQL SECURITY DEFINER``, upper case.
    security: str | None = None
    language: str | None = None
    #: Spark ``CONTAINS SQL`` / ``READS SQL DATA``, upper case.
    data_access: str | None = None
    #: Trino ``WITH (k = v)``: values as written (SQL literals).
    properties: tuple[tuple[str, str], ...] = ()
    or_replace: bool = False
    if_not_exists: bool = False
    temporary: bool = False
    #: Set on a statement made from a DEFAULT (translator/defaults.py): the definition-id of
    #: the full signature whose shortened form it is.
    defaults_of: str | None = None
    position: Position | None = field(default=None, compare=False)
    #: Positions of named elements (``name``, ``returns``, ``comment``...), for error messages.
    positions: dict[str, Position] = field(default_factory=dict, compare=False)
    warnings: tuple[Diagnostic, ...] = field(default=(), compare=False)

    @property
    def parameter_types(self) -> tuple[IcebergType, ...]:
        return tuple(p.type for p in self.parameters)

    @property
    def function_name(self) -> str:
        """The last name part: what a metadata document is named after."""
        return self.name[-1]

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-friendly view (the frontend tests snapshot it)."""
        out: dict[str, Any] = {
            "statement": "create-function",
            "name": list(self.name),
            "kind": self.kind,
            "parameters": [_param_dict(p) for p in self.parameters],
            "return-type": type_to_json(self.return_type),
            "doc": self.doc,
            "deterministic": self.deterministic,
            "on-null-input": self.on_null_input,
            "security": self.security,
            "language": self.language,
            "data-access": self.data_access,
            "properties": [list(kv) for kv in self.properties],
            "or-replace": self.or_replace,
            "if-not-exists": self.if_not_exists,
            "temporary": self.temporary,
            "dialect": self.dialect,
            "body": {
                "kind": self.body.kind,
                "text": self.body.text,
                "sqlglot": "ok" if self.body.parse_error is None else self.body.parse_error,
                "at": _pos(self.body.position),
            },
            "at": _pos(self.position),
            "positions": {k: _pos(v) for k, v in sorted(self.positions.items())},
            "warnings": [_diag_dict(w) for w in self.warnings],
        }
        return out

    @property
    def is_table_function(self) -> bool:
        return self.kind == "udtf" and isinstance(self.return_type, StructType)

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class DropFunction:
    name: tuple[str, ...]
    #: None when the statement names no signature (Spark drops every overload of the name).
    parameter_types: tuple[IcebergType, ...] | None
    dialect: str
    if_exists: bool = False
    temporary: bool = False
    #: Set on a statement made from a DEFAULT (translator/defaults.py): the definition-id of
    #: the full signature whose shortened form it is.
    defaults_of: str | None = None
    position: Position | None = field(default=None, compare=False)
    warnings: tuple[Diagnostic, ...] = field(default=(), compare=False)

    @property
    def function_name(self) -> str:
        return self.name[-1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "statement": "drop-function",
            "name": list(self.name),
            "parameter-types": None
            if self.parameter_types is None
            else [type_to_json(t) for t in self.parameter_types],
            "if-exists": self.if_exists,
            "temporary": self.temporary,
            "dialect": self.dialect,
            "at": _pos(self.position),
            "warnings": [_diag_dict(w) for w in self.warnings],
        }

    def __reduce__(self) -> Reduced:
        return by_init(self)


@dataclass(frozen=True, slots=True)
class SkippedStatement:
    """A statement that is not function DDL (CREATE TABLE, USE, SET...): noted, not an error."""

    text: str
    reason: str
    position: Position | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"statement": "skipped", "reason": self.reason, "at": _pos(self.position)}

    def __reduce__(self) -> Reduced:
        return by_init(self)


Statement = CreateFunction | DropFunction | SkippedStatement


def _param_dict(p: Parameter) -> dict[str, Any]:
    return {
        "name": p.name,
        "type": type_to_json(p.type),
        "doc": p.doc,
        "default": p.default,
        "at": _pos(p.position),
    }


def _diag_dict(d: Diagnostic) -> dict[str, Any]:
    return {"code": d.code, "message": d.message, "lossy": d.lossy, "at": _pos(d.position)}


def _pos(p: Position | None) -> str | None:
    return None if p is None else f"{p.line}:{p.column}"
