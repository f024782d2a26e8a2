"""The canonical metadata file text: the spec's key order, then unknown keys, byte-stable."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from translator.metadata.model import UdfMetadata

__all__ = ["dump_metadata", "metadata_to_json"]


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
