"""What validation reports, and the JSON-shape checks every rule is written with.

A :class:`Problem` is one broken rule at a JSON path that uses the spec's key names, e.g.
``$.definitions[0].versions[1].version-id``. The checks run on the raw JSON value (dicts and
lists), not on the pydantic models, and add to a :class:`Report` instead of raising, so that one
broken field does not stop the rest of the document from being looked at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "INT_MAX",
    "LONG_MAX",
    "LONG_MIN",
    "JsonKind",
    "Problem",
    "Report",
    "get_field",
    "get_int_field",
    "is_int",
    "key_path",
    "kind_of",
    "objects_in",
]

INT_MAX = 2**31 - 1  # the spec's "int" (version ids) is Iceberg's 32-bit int
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1  # its "long" (timestamps) is 64-bit
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Problem:
    """One broken rule: where (a JSON path with the spec's key names) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class Report:
    """Collects problems; the checks below add to it and carry on."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def mark(self) -> int:
        return len(self.problems)

    def clean_since(self, mark: int) -> bool:
        return len(self.problems) == mark


def kind_of(value: object) -> str:
    """The JSON name of a value's kind, as a message would say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def key_path(path: str, key: str) -> str:
    """``path.key``, or ``path["key"]`` when the key is not a plain word (``a.b``, spaces)."""
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(key) else f"{path}[{json.dumps(key)}]"


def is_int(value: object) -> bool:
    """JSON integers only: ``true`` and ``1.0`` are not integers here."""
    return isinstance(value, int) and not isinstance(value, bool)


JsonKind = Literal["string", "integer", "boolean", "array", "object"]

_CHECKS: dict[JsonKind, tuple[str, Callable[[object], bool]]] = {
    "string": ("a string", lambda v: isinstance(v, str)),
    "integer": ("an integer", is_int),
    "boolean": ("a boolean", lambda v: isinstance(v, bool)),
    "array": ("an array", lambda v: isinstance(v, list)),
    "object": ("an object", lambda v: isinstance(v, dict)),
}


def get_field(
    obj: dict[str, Any], key: str, path: str, r: Report, kind: JsonKind, *, required: bool = True
) -> Any:
    """``obj[key]`` if present and of the JSON ``kind``; otherwise report (or not, if optional)."""
    where = f"{path}.{key}"
    if key not in obj:
        if required:
            r.add(where, "required field is missing")
        return None
    value = obj[key]
    label, ok = _CHECKS[kind]
    if not ok(value):
        r.add(where, f"must be {label}, not {kind_of(value)}")
        return None
    return value


def get_int_field(
    obj: dict[str, Any],
    key: str,
    path: str,
    r: Report,
    *,
    low: int,
    high: int,
    required: bool = True,
) -> int | None:
    """An integer field within ``low..high`` (the bounds name the rule, e.g. non-negative)."""
    value = get_field(obj, key, path, r, "integer", required=required)
    if value is None:
        return None
    if value < low:
        r.add(
            f"{path}.{key}",
            f"must not be negative, got {value}"
            if low == 0
            else f"must be at least {low}, got {value}",
        )
        return None
    if value > high:
        r.add(f"{path}.{key}", f"{value} is too large (at most {high})")
        return None
    return int(value)


def objects_in(items: list[Any], path: str, r: Report) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The entries of a list that are objects, with their paths; the others are reported."""
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        if isinstance(item, dict):
            yield i, where, item
        else:
            r.add(where, f"must be an object, not {kind_of(item)}")
