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
:mod:`translator.metadata.validate`, which collects every problem with its JSON path; the
canonical text is :mod:`translator.metadata.dump`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

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
]


#: How many attribute assignments callers have made to a :class:`Definition` or a
#: :class:`DefinitionVersionRef` (any instance) since the process began. What
#: :mod:`translator.metadata.index` keeps beside a metadata object is valid only while this count
#: stands where it stood when the index was made: assignment is how the models' API changes a field
#: in place, and the index cannot re-read 100k definitions to notice.
EDITS = [0]


def quiet_assign(model: BaseModel, name: str, value: Any) -> None:
    """Assign a field without counting it in :data:`EDITS`: only for a copy that its maker still
    holds alone (a merge's own copy of a definition, which updates its index itself)."""
    BaseModel.__setattr__(model, name, value)


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

    def __setattr__(self, name: str, value: Any) -> None:
        EDITS[0] += 1
        super().__setattr__(name, value)

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

    def __setattr__(self, name: str, value: Any) -> None:
        EDITS[0] += 1
        super().__setattr__(name, value)


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
