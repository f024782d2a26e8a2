"""Indented JSON text, as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it, fast.

``json.dumps`` runs its pure-Python encoder whenever it indents: a migration's report (a few
hundred thousand values) or ``history --json`` of a long log (millions) spend most of their
time there. pydantic-core's ``to_json`` writes the same text for the plain JSON types in a
fraction of it, so it writes those; anything else (a float, a tuple, a key that is not a
string, a subclass that might write itself otherwise) and any text it refuses (a lone
surrogate) is left to ``json.dumps``. The property test holds the two equal.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

__all__ = ["indented_json"]


def indented_json(value: Any, *, sort_keys: bool = False) -> str:
    """``json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)``."""
    try:
        return to_json(_plain(value, sort_keys), indent=2).decode("utf-8")
    except (_NotPlain, PydanticSerializationError, RecursionError):
        return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)


class _NotPlain(Exception):
    """A value ``json.dumps`` might write otherwise than pydantic-core."""


_SCALARS = frozenset({str, int, bool, type(None)})


def _plain(value: Any, sort_keys: bool) -> Any:
    """``value`` copied (each object's keys sorted if asked); :class:`_NotPlain` at anything
    but the plain JSON types (exact types: a subclass might write itself otherwise)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        if not all(type(k) is str for k in value):
            raise _NotPlain
        keys = sorted(value) if sort_keys else value
        return {k: _plain(value[k], sort_keys) for k in keys}
    if kind is list:
        return [_plain(v, sort_keys) for v in value]
    raise _NotPlain
