"""A metadata file's text written part by part: each definition, log entry and (in a long list)
version and reference written on its own, the parts joined into the bytes
:func:`~translator.metadata.dump.dump_metadata` writes.

A commit into a long history changes a definition or two and appends a log entry, yet writes
the whole file. Written whole, the file costs a walk of every model and an encode of every
value, per commit. Written part by part, a part's text depends only on the part and its depth
in the document (JSON's indent), so the text of an object a commit did not change can be reused
from the last commit (:mod:`translator.metadata.reuse`).

The layout is pydantic-core's ``to_json(value, indent=2)`` (the same as
``json.dumps(value, indent=2, ensure_ascii=False)`` for the values it is used for, see
:mod:`.dump`): an object is ``{``, then each ``"key": value`` on its own line indented two
spaces deeper than the object, separated by commas, then ``}`` at the object's indent; a list
likewise with ``[`` and ``]``; empty ones are ``{}`` and ``[]``. A newline is only ever
layout (inside strings it is escaped), so a part written at depth 0 is moved to its depth by
indenting every line after the first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic_core import to_json

from translator.metadata.dump import _FIELDS, _SCALARS, _fields_of, _value_to_json

__all__ = ["Items", "Text", "field_values", "item_text", "list_chunks", "object_chunks"]

_INDENTS: dict[int, bytes] = {}


def _newline(indent: int) -> bytes:
    """A newline followed by ``indent`` spaces."""
    out = _INDENTS.get(indent)
    if out is None:
        out = _INDENTS[indent] = b"\n" + b" " * indent
    return out


def item_text(value: Any, indent: int) -> bytes:
    """The text of a JSON value whose first line starts at column ``indent`` (its closing
    bracket's column)."""
    text = to_json(value, indent=2)
    return text.replace(b"\n", _newline(indent)) if indent else text


#: A part's text: one piece, or the pieces of a long one (a list never changed once made),
#: written one after the other without being joined.
Text = bytes | list[bytes]


class Items(NamedTuple):
    """A list member of an object, as its items' texts (written for the list's items' column)."""

    texts: Sequence[Text]


def list_chunks(texts: Sequence[Text], indent: int, out: list[bytes]) -> None:
    """Append the pieces of a list whose items' texts were written for column ``indent + 2``
    (its ``]`` at ``indent``) to ``out``, without copying them into one piece: a long history's
    text is over 100 MB, and every copy of it costs more than the change it writes."""
    n = len(texts)
    if not n:
        out.append(b"[]")
        return
    inner = _newline(indent + 2)
    out.append(b"[" + inner)
    start = len(out)
    out += repeat(b"," + inner, 2 * n - 1)
    out[start::2] = texts  # type: ignore[assignment]  # long items' lists spliced in below
    kinds = list(map(type, texts))
    at, i = [], -1
    for _ in range(kinds.count(list)):  # long items, spliced in (few: C scans find them)
        i = kinds.index(list, i + 1)
        at.append(i)
    for i in reversed(at):
        k = start + 2 * i
        out[k : k + 1] = texts[i]  # type: ignore[assignment]  # a list, as kinds says
    out.append(_newline(indent) + b"]")


def object_chunks(
    members: Iterable[tuple[str, bytes | Items]], indent: int, out: list[bytes] | None = None
) -> list[bytes]:
    """The pieces of an object from its keys and the texts of their values (written for column
    ``indent + 2``, the keys' column), its ``}`` at ``indent``: appended to ``out``, if given."""
    inner = _newline(indent + 2)
    out = [] if out is None else out
    first = len(out)
    for key, text in members:
        out.append((b"," if len(out) > first else b"{") + inner + to_json(key) + b": ")
        if type(text) is bytes:
            out.append(text)
        else:
            list_chunks(text.texts, indent + 2, out)  # type: ignore[union-attr]
    out.append(_newline(indent) + b"}" if len(out) > first else b"{}")
    return out


def field_values(model: BaseModel, skip: frozenset[str]) -> list[tuple[str, Any]] | None:
    """The JSON keys and values :func:`~translator.metadata.dump.metadata_to_json` writes for
    ``model``, in its order, with the values of the attributes ``skip`` (each set, and a list)
    left as None for the caller to write; None when one of them is not a set list."""
    cls = type(model)
    fields = _FIELDS.get(cls) or _fields_of(cls)
    values = model.__dict__
    fields_set = model.__pydantic_fields_set__
    out: list[tuple[str, Any]] = []
    for name, key in fields:
        if name in fields_set:
            value = values[name]
            if name in skip:
                if type(value) is not list:
                    return None
                out.append((key, None))
            elif value is not None:
                out.append((key, value if type(value) in _SCALARS else _value_to_json(value)))
    if len(skip) != sum(1 for _, v in out if v is None):
        return None
    extra = model.__pydantic_extra__
    if extra:
        for key, value in extra.items():
            out.append((key, value if type(value) in _SCALARS else _value_to_json(value)))
    return out
