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
    "trusted",
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


_M = TypeVar("_M", bound=BaseModel)
_UNSET: Any = object()
#: Per model class: its fields' defaults (``_UNSET`` for a required one), how many, the names
#: of the required ones, and whether it has a post-init hook.
_SHAPES: dict[type[BaseModel], tuple[dict[str, Any], int, frozenset[str], bool]] = {}
# A model's slots, filled as pydantic's own constructor fills them (each descriptor's ``__set__``
# directly: several models a statement, and ``object.__setattr__`` looks each one up first).
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def trusted(cls: type[_M], values: dict[str, Any]) -> _M:
    """A ``cls`` made from ``values`` (by field name) without running the validator.

    Only for values that are already exactly what strict validation would store: a ``str``, not a
    subclass such as a lark token (the validator stores a plain copy), a literal's own value, a
    fresh list or dict (the validator would copy it) of models made by the validator or here, no
    unknown key. Callers check that and validate anything else, so bad input fails as before. The
    model is the validator's to the byte: every field in declaration order (defaults for those not
    given), ``values``' keys as the fields set, no extras, the post-init hook run. A merge builds a
    new function's models from its typed IR this way (several microseconds a model fewer); what
    comes from outside (a metadata file) is validated where it is read.
    """
    try:
        template, count, required, post_init = _SHAPES[cls]
    except KeyError:  # the class's first model
        template, count, required, post_init = _shape(cls)
    fields = template | values  # the template's order, the values given
    if len(fields) != count or not required <= values.keys():
        raise TypeError(f"{cls.__name__}: unknown or missing fields in {sorted(values)}")
    model = _new(cls)
    _set_dict(model, fields)
    _set_fields_set(model, set(values))
    _set_extra(model, {})
    _set_private(model, None)
    if post_init:
        model.model_post_init(None)
    return model


def _shape(cls: type[BaseModel]) -> tuple[dict[str, Any], int, frozenset[str], bool]:
    """What :func:`trusted` needs of ``cls``, read once."""
    made = [n for n, f in cls.model_fields.items() if f.default_factory is not None]
    if made:  # a template's default would be one object shared by every model made here
        raise TypeError(f"{cls.__name__}: trusted() takes no default factories ({made})")
    template = {
        name: _UNSET if f.is_required() else f.get_default(call_default_factory=True)
        for name, f in cls.model_fields.items()
    }
    required = frozenset(name for name, value in template.items() if value is _UNSET)
    shape = (template, len(template), required, bool(cls.__pydantic_post_init__))
    _SHAPES[cls] = shape
    return shape


class _Model(BaseModel):
    # defer_build: pydantic builds a model's validator when it first validates one, not when the
    # class is made; a command that only makes new functions (trusted models) and writes them
    # never validates, and skips the build (~6 ms of its start-up).
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        strict=True,
        validate_assignment=False,
        frozen=False,
        defer_build=True,
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
