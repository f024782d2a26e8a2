"""The canonical metadata file text: the spec's key order, then unknown keys, byte-stable."""

from __future__ import annotations

import contextlib
import json
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

from translator.metadata.model import UdfMetadata

__all__ = ["dump_metadata", "encoded_metadata_and_value", "metadata_to_json", "plain_value"]


#: Values written as they are (checked by exact type: the common case, without the calls).
#: Anything else that is not a model, list or dict (a float, a tuple...) is :func:`_unusual`.
_SCALARS = frozenset({str, int, bool, type(None)})

#: Set by :func:`dump_metadata` while it walks a model: the unusual values the walk met.
_unusual_seen: ContextVar[list[object] | None] = ContextVar("unusual_seen", default=None)

#: Per model class, its fields as (attribute, JSON key), in declaration (spec) order.
_FIELDS: dict[type[BaseModel], tuple[tuple[str, str], ...]] = {}


def _fields_of(cls: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    fields = tuple((name, info.alias or name) for name, info in cls.model_fields.items())
    _FIELDS[cls] = fields
    return fields


def metadata_to_json(model: BaseModel) -> dict[str, Any]:
    """The JSON value of ``model``: set fields in declaration (spec) order, then unknown keys.

    A commit writes the whole history, so this walk is per node of a long history: it reads
    the model's own attribute dict and its fields' keys once per class, and hands plain values
    through without a call.
    """
    cls = type(model)
    fields = _FIELDS.get(cls) or _fields_of(cls)
    values = model.__dict__
    fields_set = model.__pydantic_fields_set__
    out: dict[str, Any] = {}
    for name, key in fields:
        if name in fields_set:
            value = values[name]
            if value is not None:  # no spec field is nullable: None is absent
                out[key] = value if type(value) in _SCALARS else _value_to_json(value)
    extra = model.__pydantic_extra__
    if extra:
        for key, value in extra.items():
            out[key] = value if type(value) in _SCALARS else _value_to_json(value)
    return out


def _value_to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return metadata_to_json(value)
    scalars = _SCALARS
    if isinstance(value, list):
        return [v if type(v) in scalars else _value_to_json(v) for v in value]
    if isinstance(value, dict):
        if not all(type(k) is str for k in value):
            _unusual(value)
        return {k: v if type(v) in scalars else _value_to_json(v) for k, v in value.items()}
    _unusual(value)
    return value


def _unusual(value: object) -> None:
    """Note a value pydantic-core might write otherwise than json.dumps (rare: only unknown
    keys can hold a float)."""
    seen = _unusual_seen.get()
    if seen is not None:
        seen.append(value)


def dump_metadata(metadata: UdfMetadata) -> str:
    """The file text: spec key order, 2-space indent, UTF-8 kept as is, trailing newline.

    The text is ``json.dumps(value, indent=2, ensure_ascii=False)``, which in CPython runs the
    pure-Python encoder whenever an indent is asked for (several times slower than the value's
    walk; most of a commit into a long history). pydantic-core's encoder writes the same bytes
    for a value made of strings, integers, booleans, nulls, lists and objects with string keys
    (the same escapes, integers of any size, the same layout), but not for some floats
    (``1e-07`` vs ``1e-7``), which only unknown keys can hold. A value holding anything else
    (noted during the walk), or one pydantic-core refuses (a lone surrogate), is written by
    ``json.dumps`` as before.
    """
    written, _ = _written(metadata)
    return written if isinstance(written, str) else written.decode("utf-8")


def encoded_metadata_and_value(metadata: UdfMetadata) -> tuple[bytes, dict[str, Any] | None]:
    """The file's bytes (:func:`dump_metadata`'s text in UTF-8), and the JSON value they were
    written from when it is exactly what ``json.loads`` makes of them (same values, same types:
    strings, integers, booleans, nulls, lists and string-keyed objects only), else None. A commit
    validates that value instead of parsing what it has just written, and writes the bytes as
    pydantic-core made them (a long history's text is over 100 MB: decoding it to a string and
    encoding it again would copy it twice). A text with a lone surrogate cannot be encoded:
    :class:`UnicodeEncodeError`, as from ``dump_metadata(...).encode()``."""
    written, value = _written(metadata)
    return (written.encode("utf-8") if isinstance(written, str) else written), value


def plain_value(metadata: UdfMetadata) -> tuple[dict[str, Any], bool]:
    """The JSON value of ``metadata``, and whether it holds only values pydantic-core writes as
    ``json.dumps`` does (strings, integers, booleans, nulls, lists, string-keyed objects)."""
    seen: list[object] = []
    token = _unusual_seen.set(seen)
    try:
        value = metadata_to_json(metadata)
    finally:
        _unusual_seen.reset(token)
    return value, not seen


def _written(metadata: UdfMetadata) -> tuple[bytes | str, dict[str, Any] | None]:
    """pydantic-core's bytes and the value, or ``json.dumps``'s text and None (see
    :func:`dump_metadata`)."""
    value, plain = plain_value(metadata)
    if plain:
        with contextlib.suppress(PydanticSerializationError):
            return to_json(value, indent=2) + b"\n", value
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n", None
