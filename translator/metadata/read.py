"""Reading metadata: strict JSON decoding, validation, then the models.

:func:`load_metadata` turns a text into :class:`~translator.metadata.model.UdfMetadata` or raises
one :class:`~translator.errors.MetadataError` that lists every problem with its JSON path;
:func:`read_metadata_file` does the same for a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from translator.collector import bulk_allocation
from translator.errors import MetadataError
from translator.metadata.model import UdfMetadata
from translator.metadata.problems import Problem, key_path
from translator.metadata.validate import validate_metadata

__all__ = [
    "check_metadata_files",
    "load_metadata",
    "metadata_from_document",
    "read_metadata_file",
]


#: Objects that had a key more than once (the last value wins), with those keys: what the
#: decoder's hook found in one document.
_Twice = list[tuple[dict[str, Any], tuple[str, ...]]]


def _hook(twice: _Twice) -> Any:
    """The decoder's object hook: a plain dict of the pairs, noting in ``twice`` an object that
    had a key more than once. The dicts stay plain, so the models need no copy of the document,
    and a document without a repeated key (every one this package writes) is walked by nobody."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            keys: list[str] = []
            for key, _ in pairs:
                if key in seen and key not in keys:
                    keys.append(key)
                seen.add(key)
            twice.append((out, tuple(keys)))
        return out

    return hook


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _duplicate_keys(value: object, twice: _Twice) -> list[Problem]:
    """Keys written twice in one object, in document order: JSON readers disagree on which
    value counts."""
    if not twice:
        return []
    repeated = {id(obj): keys for obj, keys in twice}
    return list(_repeated_keys(value, repeated, "$"))


def _repeated_keys(
    value: object, repeated: dict[int, tuple[str, ...]], path: str
) -> Iterator[Problem]:
    if isinstance(value, dict):
        for key in repeated.get(id(value), ()):
            yield Problem(key_path(path, key), "key appears more than once in the same object")
        for key, child in value.items():
            yield from _repeated_keys(child, repeated, key_path(path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _repeated_keys(child, repeated, f"{path}[{i}]")


#: A JSON escape of a UTF-16 surrogate: the only way text read as UTF-8 can hold a lone one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogates(value: object, path: str = "$") -> Iterator[Problem]:
    """Strings holding half of a surrogate pair (``"\\udc80"``): no UTF-8 file or engine can
    hold them, so every later write of the document would fail."""
    if isinstance(value, str):
        m = _LONE_SURROGATE.search(value)
        if m is not None:
            yield Problem(path, f"a lone surrogate (U+{ord(m.group()):04X}) is no character")
    elif isinstance(value, dict):
        for key, child in value.items():
            if _LONE_SURROGATE.search(key):
                yield Problem(path, "a key holds a lone surrogate, which is no character")
            yield from _lone_surrogates(child, key_path(path, _LONE_SURROGATE.sub("?", key)))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _lone_surrogates(child, f"{path}[{i}]")


def _decode(text: str, where: str, twice: _Twice) -> object:
    """Parse JSON strictly: no NaN or Infinity; broken JSON raised with its line and column.
    Objects with a repeated key are noted in ``twice``."""
    try:
        return json.loads(text, object_pairs_hook=_hook(twice), parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise MetadataError(
            f"{where}not valid JSON", problems=[(f"line {e.lineno} column {e.colno}", e.msg)]
        ) from None
    except (ValueError, RecursionError) as e:
        raise MetadataError(f"{where}not valid JSON", problems=[("$", str(e))]) from None


#: The deepest nesting of objects and arrays a metadata document may have: deeper, the checks,
#: the models and the writer, which recurse once per level, would run out of Python's stack.
#: The deepest type there is (:data:`translator.types.MAX_TYPE_NESTING` structs in structs,
#: three levels each, in a parameter five levels down) fits.
MAX_JSON_DEPTH = 256


def _too_deep(value: object) -> list[Problem]:
    """The first object or array nested more than :data:`MAX_JSON_DEPTH` levels deep, found
    without recursing (which is what such a document would break). Levels are counted without
    paths; the path is written only for a document that is too deep, and shortened
    (:func:`_deep_path`)."""
    level: list[Any] = [value] if isinstance(value, dict | list) else []
    for _ in range(MAX_JSON_DEPTH):
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, dict | list)
        ]
        if not level:
            return []
    # Each entry: a node, its depth, and its path's steps as (steps above, this step).
    stack: list[tuple[object, int, Any]] = [(value, 1, None)]
    while stack:
        node, depth, steps = stack.pop()
        if depth > MAX_JSON_DEPTH:
            path, hidden = _deep_path(steps)
            return [
                Problem(
                    path,
                    f"nested more than {MAX_JSON_DEPTH} objects and arrays deep (level {depth} "
                    f"is {hidden} steps below this path)",
                )
            ]
        if isinstance(node, dict):
            stack += ((v, depth + 1, (steps, k)) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack += ((v, depth + 1, (steps, i)) for i, v in reversed(list(enumerate(node))))
    return []  # pragma: no cover - the levels above found one


#: How many steps of a too-deep path are written: where in the document the nesting starts.
_SHOWN_STEPS = 8


def _deep_path(steps: Any) -> tuple[str, int]:
    """The JSON path of a too-deep node's first :data:`_SHOWN_STEPS` steps (its whole path, a
    few hundred of them, would fill a screen and say no more), and how many steps it leaves
    out. ``steps`` is ``(steps above, step)`` nested, ``None`` at the top."""
    parts: list[str | int] = []
    while steps is not None:
        steps, step = steps
        parts.append(step)
    parts.reverse()
    path = "$"
    for step in parts[:_SHOWN_STEPS]:
        path = f"{path}[{step}]" if isinstance(step, int) else key_path(path, step)
    return path, len(parts) - min(len(parts), _SHOWN_STEPS)


def _pydantic_path(document: object, loc: Iterable[int | str]) -> str:
    """Turn a pydantic error location into a JSON path, skipping union/validator tags."""
    path, node = "$", document
    items = list(loc)
    for n, part in enumerate(items):
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            path, node = f"{path}[{part}]", node[part]
        elif (
            isinstance(part, str)
            and isinstance(node, dict)
            and (part in node or n == len(items) - 1)
        ):
            path, node = f"{path}.{part}", node.get(part)
    return path


def load_metadata(text: str, *, source: str | None = None) -> UdfMetadata:
    """Parse and validate a metadata text; raise :class:`MetadataError` listing all problems."""
    where = f"{source}: " if source else ""
    with bulk_allocation():  # a long history is millions of objects, and no cycles
        twice: _Twice = []
        document = _decode(text, where, twice)
        problems = _too_deep(document)  # first: the checks below recurse once per level
        if not problems:
            problems = _duplicate_keys(document, twice) + validate_metadata(document)
            if _SURROGATE_ESCAPE.search(text):
                problems += _lone_surrogates(document)
        if not problems:
            try:
                return UdfMetadata.model_validate(document, by_alias=True, by_name=False)
            except ValidationError as e:  # a shape the checks above missed: report, by path
                problems = [
                    Problem(_pydantic_path(document, err["loc"]), err["msg"]) for err in e.errors()
                ]
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    raise MetadataError(
        f"{where}invalid UDF metadata ({count}): {problems[0]}",
        problems=[(p.path, p.message) for p in problems],
    )


def metadata_from_document(document: dict[str, Any]) -> UdfMetadata:
    """The model :func:`load_metadata` makes of a text whose JSON value is ``document`` (plain
    ``json.loads``) when it finds no problem in it: for a text this package has just written and
    checked with :func:`validate_metadata` (a commit), which need not be parsed again."""
    with bulk_allocation():
        return UdfMetadata.model_validate(document, by_alias=True, by_name=False)


def read_metadata_file(path: str | Path) -> UdfMetadata:
    """:func:`load_metadata` of a file; a file that cannot be read is a :class:`MetadataError`
    naming it, like one that is not metadata."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise MetadataError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise MetadataError(f"{path}: not UTF-8 text: byte {e.start}: {e.reason}") from None
    return load_metadata(text, source=str(path))


def check_metadata_files(paths: Iterable[Path]) -> Iterator[tuple[Path, MetadataError | None]]:
    """Each file with why it is not valid metadata (None: it is), in order; never raises for a
    bad file, so a batch reports every one."""
    for path in paths:
        try:
            read_metadata_file(path)
        except MetadataError as e:
            yield path, e
            continue
        yield path, None
