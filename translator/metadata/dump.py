"""The canonical metadata file text: the spec's key order, then unknown keys, byte-stable."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

from translator.metadata.model import UdfMetadata

__all__ = ["dump_metadata", "metadata_to_json"]


#: Values written as they are (checked by exact type: the common case, without the calls).
_SCALARS = frozenset({str, int, bool, float, type(None)})

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
        return {k: v if type(v) in scalars else _value_to_json(v) for k, v in value.items()}
    return value


#: The end of a line of 2-space-indented JSON whose value is a non-integer number: a line's last
#: value is a string (ends in ``"``), a bracket, ``true``/``false``/``null``, or a number.
_FLOAT_AT_LINE_END = re.compile(
    r"(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+|NaN|Infinity),?$", re.MULTILINE
)


def dump_metadata(metadata: UdfMetadata) -> str:
    """The file text: spec key order, 2-space indent, UTF-8 kept as is, trailing newline.

    The text is ``json.dumps(value, indent=2, ensure_ascii=False)``, which in CPython runs the
    pure-Python encoder whenever an indent is asked for (several times slower than the value's
    walk; most of a commit into a long history). pydantic-core's encoder writes the same bytes
    for every value metadata holds (strings with the same escapes, integers of any size, the
    same layout) except some floats (``1e-07`` vs ``1e-7``), which only unknown keys can hold:
    a text with a non-integer number in it, or one pydantic-core refuses (a lone surrogate), is
    written by ``json.dumps`` as before.
    """
    value = metadata_to_json(metadata)
    try:
        text = to_json(value, indent=2).decode("utf-8")
    except PydanticSerializationError:
        text = None
    if text is None or _FLOAT_AT_LINE_END.search(text) is not None:
        text = json.dumps(value, indent=2, ensure_ascii=False)
    return text + "\n"
