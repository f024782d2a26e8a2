"""Validation of a type's JSON form at any depth: canonical primitive strings, nested objects,
struct field names that keep a definition-id unambiguous."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from translator.metadata.problems import Report, get_field, kind_of, objects_in
from translator.types import (
    IcebergType,
    PrimitiveType,
    StructField,
    StructType,
    TypeNestingError,
    TypeParseError,
    check_id_safe,
    parse_type_json,
    parse_type_string,
)

__all__ = ["check_type"]

_NESTED_KINDS = ("list", "map", "struct")
_NESTED_STRING = re.compile(r"\s*(list|map|struct)\s*<", re.IGNORECASE)
_SPACE_OR_QUOTE = re.compile(r"[\s'\"`]")


def _type_string_problem(text: str) -> str | None:
    """Why a stored primitive type string is not the canonical one, or None if it is."""
    if _NESTED_STRING.match(text):
        return f"type string {text!r} is a nested type: write it as a JSON object"
    canonical: str | None = None
    reason = ""
    try:
        canonical = str(parse_type_string(text))
    except TypeParseError as e:
        reason = e.message
    if _SPACE_OR_QUOTE.search(text):
        hint = f": write {canonical!r}" if canonical else ""
        return f"type string {text!r} must not contain spaces or quote characters{hint}"
    if canonical is None:
        return reason
    if canonical != text:
        return f"type string {text!r} is not canonical: write {canonical!r}"
    return None


def _field_name_problem(name: str) -> str | None:
    """Why a struct field name would make a definition-id ambiguous (types.check_id_safe's rule)."""
    try:
        check_id_safe(StructType([StructField(name, PrimitiveType("unknown"))]))
    except TypeParseError as e:
        return e.message
    return None


def _walk_type(value: object, path: str, r: Report, id_safe: bool) -> None:
    """Report every problem in a type's JSON form, at any depth."""
    if isinstance(value, str):
        problem = _type_string_problem(value)
        if problem:
            r.add(path, problem)
        return
    if not isinstance(value, dict):
        r.add(path, f"a type must be a string or an object, not {kind_of(value)}")
        return
    kind = get_field(value, "type", path, r, "string")
    if kind is None:
        return
    if kind not in _NESTED_KINDS:
        if kind.lower() in _NESTED_KINDS:
            r.add(f"{path}.type", f"nested type {kind!r} must be written {kind.lower()!r}")
        else:
            r.add(
                f"{path}.type",
                f"unsupported nested type {kind!r}: expected 'list', 'map' or "
                "'struct' (other types are written as strings)",
            )
        return
    if kind == "struct":
        _walk_struct(value, path, r, id_safe)
        return
    for key in ("element",) if kind == "list" else ("key", "value"):
        if key in value:
            _walk_type(value[key], f"{path}.{key}", r, id_safe)
        else:
            r.add(f"{path}.{key}", f"required field of a {kind} type is missing")


def _walk_struct(value: dict[str, Any], path: str, r: Report, id_safe: bool) -> None:
    fields = get_field(value, "fields", path, r, "array")
    if fields is None:
        return
    seen: set[str] = set()
    for _, where, f in objects_in(fields, f"{path}.fields", r):
        name = get_field(f, "name", where, r, "string")
        if name == "":
            r.add(f"{where}.name", "a struct field name must not be empty")
        elif name is not None:
            if name in seen:
                r.add(f"{where}.name", f"duplicate struct field name {name!r}")
            seen.add(name)
            problem = _field_name_problem(name) if id_safe else None
            if problem:
                r.add(f"{where}.name", problem)
        if "type" in f:
            _walk_type(f["type"], f"{where}.type", r, id_safe)
        else:
            r.add(f"{where}.type", "required field is missing")


@lru_cache(maxsize=4096)
def _string_type(text: str) -> tuple[tuple[str, str] | None, IcebergType | None]:
    """:func:`check_type` of a type string: its problem (a path suffix and a message) or its
    type. A pure function of the text, and every result is immutable (frozen primitive types):
    kept per text, since a document names the same few type strings thousands of times."""
    problem = _type_string_problem(text)
    if problem:
        return ("", problem), None
    try:
        return None, parse_type_string(text)
    except TypeParseError as e:  # the check should have caught it; keep the report honest
        return (e.path, e.message), None


def check_type(value: object, path: str, r: Report, *, id_safe: bool) -> IcebergType | None:
    """The parsed type if its JSON form is canonical and valid; otherwise None (reported)."""
    if type(value) is str:
        problem, parsed = _string_type(value)
        if problem is not None:
            r.add(path + problem[0], problem[1])
        return parsed
    mark = r.mark()
    _walk_type(value, path, r, id_safe)
    if not r.clean_since(mark):
        return None
    try:
        return parse_type_json(value)
    except TypeNestingError as e:  # reported at the type, not at the level that counted past
        r.add(path, e.message)
        return None
    except TypeParseError as e:  # the walk should have caught it; keep the report honest
        r.add(path + e.path, e.message)
        return None
