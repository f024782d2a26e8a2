"""The Iceberg UDF metadata file as pydantic models: read exactly, keep everything, write stably.

Field names are the spec's, as aliases. Three rules shape the models:

* **Nothing lost.** Unknown keys at any level are kept (``extra="allow"``) and written back after
  the known ones; types are stored as the JSON they were read as (a type object may carry a table
  schema's ``element-id``), and a representation of a type other than ``sql`` is kept whole.
* **Absent stays absent.** A field the file did not have is not written back, even where the
  spec gives a default; the Python attribute still answers with that default.
* **Byte-stable output.** :func:`dump_metadata` writes known keys in the spec's order, 2-space
  indent, a trailing newline.

Validation beyond the JSON shape (ids, references, ordering) lives in
:mod:`translator.validation`, which collects every problem with its JSON path.
"""

from __future__ import annotations

import copy
import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from translator.types import IcebergType, TypeJson, definition_id, parse_type_json

__all__ = [
    "Definition",
    "DefinitionLogEntry",
    "DefinitionVersion",
    "DefinitionVersionRef",
    "Parameter",
    "Representation",
    "SqlRepresentation",
    "UdfMetadata",
    "UnknownRepresentation",
    "bulk_allocation",
    "deep_copy",
    "dump_metadata",
    "metadata_to_json",
]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        strict=True,
        validate_assignment=False,
        frozen=False,
    )


class Parameter(_Model):
    name: str
    type: TypeJson
    doc: str | None = None

    @property
    def iceberg_type(self) -> IcebergType:
        return parse_type_json(self.type)


class SqlRepresentation(_Model):
    type: Literal["sql"] = "sql"
    dialect: str
    sql: str

    def model_post_init(self, context: Any, /) -> None:
        """``type`` is the discriminator: always written, even when left to its default."""
        self.model_fields_set.add("type")


class UnknownRepresentation(_Model):
    """A representation type this tool does not know (``python``...): kept whole, never used."""

    type: str


def _pick_representation(value: object) -> object:
    if isinstance(value, dict) and value.get("type") == "sql":
        return SqlRepresentation.model_validate(value, strict=True)
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        return UnknownRepresentation.model_validate(value, strict=True)
    return value  # left for the union to reject with a path


Representation = Annotated[
    SqlRepresentation | UnknownRepresentation, BeforeValidator(_pick_representation)
]


class DefinitionVersion(_Model):
    version_id: int = Field(alias="version-id")
    representations: list[Representation]
    deterministic: bool = False
    on_null_input: Literal["return-null", "call"] = Field(default="call", alias="on-null-input")
    timestamp_ms: int = Field(alias="timestamp-ms")

    def representation(self, dialect: str) -> SqlRepresentation | None:
        """The SQL representation for ``dialect`` (compared case-insensitively), if any."""
        d = dialect.lower()
        for r in self.representations:
            if isinstance(r, SqlRepresentation) and r.dialect.lower() == d:
                return r
        return None


class Definition(_Model):
    definition_id: str = Field(alias="definition-id")
    specific_name: str | None = Field(default=None, alias="specific-name")
    parameters: list[Parameter]
    return_type: TypeJson = Field(alias="return-type")
    return_nullable: bool = Field(default=True, alias="return-nullable")
    versions: list[DefinitionVersion]
    current_version_id: int = Field(alias="current-version-id")
    function_type: Literal["udf", "udtf"] = Field(alias="function-type")
    doc: str | None = None

    @property
    def iceberg_return_type(self) -> IcebergType:
        return parse_type_json(self.return_type)

    @property
    def parameter_types(self) -> tuple[IcebergType, ...]:
        return tuple(p.iceberg_type for p in self.parameters)

    @property
    def canonical_id(self) -> str:
        return definition_id(self.parameter_types)

    def version(self, version_id: int) -> DefinitionVersion | None:
        for v in self.versions:
            if v.version_id == version_id:
                return v
        return None

    @property
    def current_version(self) -> DefinitionVersion:
        v = self.version(self.current_version_id)
        if v is None:
            raise KeyError(
                f"definition {self.definition_id!r}: current-version-id "
                f"{self.current_version_id} names no version"
            )
        return v


class DefinitionVersionRef(_Model):
    definition_id: str = Field(alias="definition-id")
    version_id: int = Field(alias="version-id")


class DefinitionLogEntry(_Model):
    timestamp_ms: int = Field(alias="timestamp-ms")
    definition_versions: list[DefinitionVersionRef] = Field(alias="definition-versions")


class UdfMetadata(_Model):
    function_uuid: str = Field(alias="function-uuid")
    format_version: Literal[1] = Field(alias="format-version")
    definitions: list[Definition]
    definition_log: list[DefinitionLogEntry] = Field(alias="definition-log")
    location: str | None = None
    properties: dict[str, str] | None = None
    secure: bool = False
    doc: str | None = None

    def definition(self, definition_id: str) -> Definition | None:
        for d in self.definitions:
            if d.definition_id == definition_id:
                return d
        return None


# --------------------------------------------------------------------------------------------
# Writing


def metadata_to_json(model: BaseModel) -> dict[str, Any]:
    """The JSON value of ``model``: set fields in declaration (spec) order, then unknown keys."""
    out: dict[str, Any] = {}
    fields_set = model.model_fields_set
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if name not in fields_set or value is None:  # no spec field is nullable: None is absent
            continue
        out[info.alias or name] = _value_to_json(value)
    for key, value in (model.model_extra or {}).items():
        out[key] = _value_to_json(value)
    return out


def _value_to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return metadata_to_json(value)
    if isinstance(value, list):
        return [_value_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _value_to_json(v) for k, v in value.items()}
    return value


def dump_metadata(metadata: UdfMetadata) -> str:
    """The file text: spec key order, 2-space indent, UTF-8 kept as is, trailing newline."""
    return json.dumps(metadata_to_json(metadata), indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------------
# Copying

_M = TypeVar("_M", bound=BaseModel)

#: Immutable values ``copy.deepcopy`` returns as they are.
_ATOMIC = frozenset({str, int, bool, float, type(None)})


def deep_copy(model: _M) -> _M:
    """``model.model_copy(deep=True)``, faster on big metadata.

    The same result: pydantic's ``__deepcopy__`` applied to every model in the tree, with lists
    and dicts copied as ``copy.deepcopy`` copies them and one memo, so an object reachable twice
    is copied once. Only the per-object dispatch of ``copy.deepcopy`` is skipped for the values
    metadata is made of (models, lists, dicts, strings, numbers); anything else still goes
    through ``copy.deepcopy`` with the same memo. The cyclic garbage collector is paused while
    the copy is made (it allocates millions of objects for 100k definitions, and creates no
    cycles), as it was before the call.
    """
    with bulk_allocation():
        return _copy_value(model, {})  # type: ignore[no-any-return]


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic garbage collector while many objects without cycles are made.

    For metadata with 100k definitions, the collector's full passes over the heap (millions of
    objects) cost more than the work itself, and nothing made here can form a cycle for it to
    find. It is turned back on as it was before.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: Model classes that use pydantic's own ``__deepcopy__`` (see :func:`_plain_model`).
_PLAIN_MODELS: set[type] = set()


def _plain_model(cls: type) -> bool:
    if issubclass(cls, BaseModel) and cls.__deepcopy__ is BaseModel.__deepcopy__:
        _PLAIN_MODELS.add(cls)
        return True
    return False


def _copy_value(value: Any, memo: dict[int, Any]) -> Any:
    cls: Any = type(value)
    if cls in _ATOMIC:
        return value
    found = memo.get(id(value), memo)
    if found is not memo:
        return found
    atomic = _ATOMIC
    if cls is list:
        items: list[Any] = []
        memo[id(value)] = items
        for v in value:
            items.append(v if type(v) in atomic else _copy_value(v, memo))
        return items
    if cls is dict:
        mapping: dict[Any, Any] = {}
        memo[id(value)] = mapping
        for k, v in value.items():
            if type(k) not in atomic:
                k = _copy_value(k, memo)
            mapping[k] = v if type(v) in atomic else _copy_value(v, memo)
        return mapping
    if (cls in _PLAIN_MODELS or _plain_model(cls)) and value.__pydantic_private__ is None:
        m = cls.__new__(cls)
        memo[id(value)] = m
        setattr_ = object.__setattr__
        # the two dicts as copy.deepcopy copies them (the dict branch above memoizes them)
        for name in ("__dict__", "__pydantic_extra__"):
            setattr_(m, name, _copy_value(getattr(value, name), memo))
        setattr_(m, "__pydantic_fields_set__", copy.copy(value.__pydantic_fields_set__))
        setattr_(m, "__pydantic_private__", None)
        return m
    return copy.deepcopy(value, memo)
