"""Check a UDF metadata document against the spec and report every problem with its JSON path.

The checks run on the raw JSON value (dicts and lists), not on the pydantic models, so that one
broken field does not stop the rest of the document from being looked at: a caller fixing a file
sees all of its problems at once. Paths use the spec's key names, e.g.
``$.definitions[0].versions[1].version-id``.

Where the spec text and iceberg-go (the other implementation) disagree, the spec wins; the
conformance test keeps the list of those departures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from translator.errors import MetadataError
from translator.metadata import UdfMetadata
from translator.types import (
    IcebergType,
    PrimitiveType,
    StructField,
    StructType,
    TypeParseError,
    check_id_safe,
    definition_id,
    parse_type_json,
    parse_type_string,
)

__all__ = ["Problem", "load_metadata", "validate_metadata"]

#: The string form of ``format: uuid`` (RFC 9562): hyphenated 8-4-4-4-12 hex, any case.
_UUID_RE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_INT_MAX = 2**31 - 1  # the spec's "int" (version ids) is Iceberg's 32-bit int
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1  # its "long" (timestamps) is 64-bit
_NESTED_KINDS = ("list", "map", "struct")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")
_NESTED_STRING = re.compile(r"\s*(list|map|struct)\s*<", re.IGNORECASE)
_SPACE_OR_QUOTE = re.compile(r"[\s'\"`]")


@dataclass(frozen=True)
class Problem:
    """One broken rule: where (a JSON path with the spec's key names) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class _Report:
    """Collects problems; the checks below add to it and carry on."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def mark(self) -> int:
        return len(self.problems)

    def clean_since(self, mark: int) -> bool:
        return len(self.problems) == mark


# --------------------------------------------------------------------------------------------
# JSON shape helpers


def _kind(value: object) -> str:
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


def _key(path: str, key: str) -> str:
    """``path.key``, or ``path["key"]`` when the key is not a plain word (``a.b``, spaces)."""
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(key) else f"{path}[{json.dumps(key)}]"


def _is_int(value: object) -> bool:
    """JSON integers only: ``true`` and ``1.0`` are not integers here."""
    return isinstance(value, int) and not isinstance(value, bool)


_Kind = Literal["string", "integer", "boolean", "array", "object"]

_CHECKS: dict[_Kind, tuple[str, Callable[[object], bool]]] = {
    "string": ("a string", lambda v: isinstance(v, str)),
    "integer": ("an integer", _is_int),
    "boolean": ("a boolean", lambda v: isinstance(v, bool)),
    "array": ("an array", lambda v: isinstance(v, list)),
    "object": ("an object", lambda v: isinstance(v, dict)),
}


def _field(
    obj: dict[str, Any], key: str, path: str, r: _Report, kind: _Kind, *, required: bool = True
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
        r.add(where, f"must be {label}, not {_kind(value)}")
        return None
    return value


def _int_field(
    obj: dict[str, Any],
    key: str,
    path: str,
    r: _Report,
    *,
    low: int,
    high: int,
    required: bool = True,
) -> int | None:
    """An integer field within ``low..high`` (the bounds name the rule, e.g. non-negative)."""
    value = _field(obj, key, path, r, "integer", required=required)
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


def _objects(items: list[Any], path: str, r: _Report) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The entries of a list that are objects, with their paths; the others are reported."""
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        if isinstance(item, dict):
            yield i, where, item
        else:
            r.add(where, f"must be an object, not {_kind(item)}")


# --------------------------------------------------------------------------------------------
# Types


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


def _walk_type(value: object, path: str, r: _Report, id_safe: bool) -> None:
    """Report every problem in a type's JSON form, at any depth."""
    if isinstance(value, str):
        problem = _type_string_problem(value)
        if problem:
            r.add(path, problem)
        return
    if not isinstance(value, dict):
        r.add(path, f"a type must be a string or an object, not {_kind(value)}")
        return
    kind = _field(value, "type", path, r, "string")
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


def _walk_struct(value: dict[str, Any], path: str, r: _Report, id_safe: bool) -> None:
    fields = _field(value, "fields", path, r, "array")
    if fields is None:
        return
    seen: set[str] = set()
    for _, where, f in _objects(fields, f"{path}.fields", r):
        name = _field(f, "name", where, r, "string")
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


def _check_type(value: object, path: str, r: _Report, *, id_safe: bool) -> IcebergType | None:
    """The parsed type if its JSON form is canonical and valid; otherwise None (reported)."""
    mark = r.mark()
    _walk_type(value, path, r, id_safe)
    if not r.clean_since(mark):
        return None
    try:
        return parse_type_json(value)
    except TypeParseError as e:  # the walk should have caught it; keep the report honest
        r.add(path + e.path, e.message)
        return None


# --------------------------------------------------------------------------------------------
# Document, definitions, versions


def _check_top(doc: dict[str, Any], r: _Report) -> None:
    if "format-version" not in doc:
        r.add("$.format-version", "required field is missing")
    elif not (_is_int(doc["format-version"]) and doc["format-version"] == 1):
        r.add("$.format-version", f"must be the integer 1, not {json.dumps(doc['format-version'])}")
    uuid = _field(doc, "function-uuid", "$", r, "string")
    if uuid is not None and not _UUID_RE.fullmatch(uuid):
        r.add("$.function-uuid", f"{uuid!r} is not a UUID in the hyphenated 8-4-4-4-12 form")
    _field(doc, "location", "$", r, "string", required=False)
    _field(doc, "secure", "$", r, "boolean", required=False)
    _field(doc, "doc", "$", r, "string", required=False)
    props = _field(doc, "properties", "$", r, "object", required=False)
    for key, value in (props or {}).items():
        if not isinstance(value, str):
            r.add(_key("$.properties", key), f"property values must be strings, not {_kind(value)}")


@dataclass
class _Def:
    """What the log checks need to know about a definition.

    ``versions`` is None when some version's id could not be read, and ``trusted`` is False when
    the definition-id itself is in doubt: checks that depend on them are skipped rather than
    reporting the same mistake again as a broken reference.
    """

    id: str
    versions: set[int] | None
    trusted: bool


@dataclass
class _Known:
    """The definitions the log may reference; ``complete`` when every definition was readable."""

    defs: dict[str, _Def]
    complete: bool


def _check_definitions(doc: dict[str, Any], r: _Report) -> _Known:
    defs = _field(doc, "definitions", "$", r, "array")
    if defs is None:
        return _Known({}, complete=False)
    if not defs:
        r.add("$.definitions", "at least one definition is required")
    known = _Known({}, complete=bool(defs))
    specific: dict[str, str] = {}
    read = 0
    for _, path, d in _objects(defs, "$.definitions", r):
        info = _check_definition(d, path, r)
        if info is not None and info.trusted:
            read += 1
        if info is not None and info.id in known.defs:
            r.add(
                f"{path}.definition-id",
                f"duplicate definition-id {info.id!r}: there can "
                "be only one definition for a given signature",
            )
        elif info is not None:
            known.defs[info.id] = info
        _check_specific_name(d, path, specific, r)
    known.complete = known.complete and read == len(defs)
    return known


def _check_specific_name(d: dict[str, Any], path: str, seen: dict[str, str], r: _Report) -> None:
    """specific-name, when present, is a non-empty name no other definition uses."""
    name = _field(d, "specific-name", path, r, "string", required=False)
    if name == "":
        r.add(f"{path}.specific-name", "specific-name must not be empty")
    elif name is not None:
        if name in seen:
            r.add(
                f"{path}.specific-name",
                f"duplicate specific-name {name!r} (also used by "
                f"{seen[name]}); specific names are unique across definitions",
            )
        seen.setdefault(name, path)


def _check_definition(d: dict[str, Any], path: str, r: _Report) -> _Def | None:
    did = _field(d, "definition-id", path, r, "string")
    param_types = _check_parameters(d, path, r)
    trusted = True
    if did is not None and param_types is not None:
        expected = definition_id(param_types)
        if did != expected:
            trusted = False
            r.add(
                f"{path}.definition-id",
                f"definition-id {did!r} does not match its "
                f"parameters' types: expected {expected!r}",
            )
    _check_return(d, path, r)
    _field(d, "return-nullable", path, r, "boolean", required=False)
    _field(d, "doc", path, r, "string", required=False)
    versions = _check_versions(d, path, r)
    current = _int_field(d, "current-version-id", path, r, low=0, high=_INT_MAX)
    if current is not None and versions is not None and current not in versions:
        r.add(
            f"{path}.current-version-id",
            f"current-version-id {current} names no version "
            f"(versions: {', '.join(map(str, sorted(versions)))})",
        )
    return None if did is None else _Def(did, versions, trusted)


def _check_return(d: dict[str, Any], path: str, r: _Report) -> None:
    """return-type is a valid type; function-type is udf or udtf, and a udtf returns rows."""
    returns = None
    if "return-type" not in d:
        r.add(f"{path}.return-type", "required field is missing")
    else:
        returns = _check_type(d["return-type"], f"{path}.return-type", r, id_safe=False)
    ftype = _field(d, "function-type", path, r, "string")
    if ftype is not None and ftype not in ("udf", "udtf"):
        r.add(f"{path}.function-type", f"must be 'udf' or 'udtf', not {ftype!r}")
    if ftype == "udtf" and returns is not None:
        if not isinstance(returns, StructType):
            r.add(f"{path}.return-type", f"a udtf must return a struct (its rows), not {returns}")
        elif not returns.fields:
            r.add(f"{path}.return-type", "a udtf must return a struct with at least one field")


def _check_parameters(d: dict[str, Any], path: str, r: _Report) -> list[IcebergType] | None:
    """The parameters' types, or None if any is missing or broken (problems reported)."""
    params = _field(d, "parameters", path, r, "array")
    if params is None:
        return None
    types: list[IcebergType] = []
    names: set[str] = set()
    for _, where, p in _objects(params, f"{path}.parameters", r):
        name = _field(p, "name", where, r, "string")
        if name == "":
            r.add(f"{where}.name", "a parameter name must not be empty")
        elif name is not None:
            if name in names:
                r.add(f"{where}.name", f"duplicate parameter name {name!r}")
            names.add(name)
        _field(p, "doc", where, r, "string", required=False)
        if "type" not in p:
            r.add(f"{where}.type", "required field is missing")
            continue
        t = _check_type(p["type"], f"{where}.type", r, id_safe=True)
        if t is not None:
            types.append(t)
    return types if len(types) == len(params) else None


def _check_versions(d: dict[str, Any], path: str, r: _Report) -> set[int] | None:
    """The version ids, or None when they are not all readable (or there are none)."""
    versions = _field(d, "versions", path, r, "array")
    if versions is None:
        return None
    if not versions:
        r.add(f"{path}.versions", "a definition needs at least one version")
        return None
    ids: set[int] = set()
    previous: int | None = None
    readable = True
    for _, where, v in _objects(versions, f"{path}.versions", r):
        vid = _int_field(v, "version-id", where, r, low=0, high=_INT_MAX)
        readable &= vid is not None
        if vid is not None:
            if vid in ids:
                r.add(f"{where}.version-id", f"duplicate version-id {vid}")
            elif previous is not None and vid < previous:
                r.add(
                    f"{where}.version-id",
                    f"version-id {vid} follows {previous}: version ids "
                    "increase monotonically in list order",
                )
            ids.add(vid)
            previous = vid if previous is None else max(previous, vid)
        _check_version_body(v, where, r)
    return ids if readable and all(isinstance(v, dict) for v in versions) else None


def _check_version_body(v: dict[str, Any], path: str, r: _Report) -> None:
    _field(v, "deterministic", path, r, "boolean", required=False)
    on_null = _field(v, "on-null-input", path, r, "string", required=False)
    if on_null is not None and on_null not in ("return-null", "call"):
        r.add(f"{path}.on-null-input", f"must be 'return-null' or 'call', not {on_null!r}")
    _int_field(v, "timestamp-ms", path, r, low=_LONG_MIN, high=_LONG_MAX)
    reps = _field(v, "representations", path, r, "array")
    if reps is None:
        return
    if not reps:
        r.add(f"{path}.representations", "a version needs at least one representation")
    dialects: dict[str, str] = {}
    for _, where, rep in _objects(reps, f"{path}.representations", r):
        if _field(rep, "type", where, r, "string") != "sql":
            continue  # another kind of representation: kept, not checked
        sql = _field(rep, "sql", where, r, "string")
        if sql is not None and not sql.strip():
            r.add(f"{where}.sql", "a sql representation needs a non-empty sql text")
        dialect = _field(rep, "dialect", where, r, "string")
        if dialect is not None and not dialect.strip():
            r.add(f"{where}.dialect", "a sql representation needs a non-empty dialect")
        elif dialect is not None:
            if dialect.lower() in dialects:
                r.add(
                    f"{where}.dialect",
                    f"a second sql representation for dialect {dialect!r} "
                    f"(already at {dialects[dialect.lower()]}); dialects ignore case",
                )
            dialects.setdefault(dialect.lower(), where)


# --------------------------------------------------------------------------------------------
# Definition log


def _check_log(doc: dict[str, Any], known: _Known, r: _Report) -> None:
    log = _field(doc, "definition-log", "$", r, "array")
    if log is None:
        return
    previous: int | None = None
    last = len(log) - 1
    for i, path, entry in _objects(log, "$.definition-log", r):
        ts = _int_field(entry, "timestamp-ms", path, r, low=_LONG_MIN, high=_LONG_MAX)
        if ts is not None:
            if previous is not None and ts < previous:
                r.add(
                    f"{path}.timestamp-ms",
                    f"timestamp-ms {ts} is earlier than the entry "
                    f"before it ({previous}): the log never goes back in time",
                )
            previous = ts if previous is None else max(previous, ts)
        refs = _field(entry, "definition-versions", path, r, "array")
        if refs is not None and not refs:
            r.add(f"{path}.definition-versions", "a log entry maps at least one definition")
        _check_log_refs(refs or [], f"{path}.definition-versions", known, i == last, r)


def _check_log_refs(refs: list[Any], path: str, known: _Known, is_last: bool, r: _Report) -> None:
    """References name existing versions; only older entries may name dropped definitions."""
    seen: set[str] = set()
    for _, where, ref in _objects(refs, path, r):
        did = _field(ref, "definition-id", where, r, "string")
        vid = _int_field(ref, "version-id", where, r, low=0, high=_INT_MAX)
        if did is None:
            continue
        if did in seen:
            r.add(f"{where}.definition-id", f"definition {did!r} appears twice in one log entry")
        seen.add(did)
        d = known.defs.get(did)
        if d is None:
            if is_last and known.complete:
                r.add(
                    f"{where}.definition-id",
                    f"the latest log entry names definition {did!r}, which does not exist",
                )
        elif vid is not None and d.versions is not None and vid not in d.versions:
            r.add(f"{where}.version-id", f"definition {did!r} has no version {vid}")


# --------------------------------------------------------------------------------------------
# Entry points


def validate_metadata(document: object) -> list[Problem]:
    """Every problem in a decoded metadata document, in document order; empty when valid."""
    r = _Report()
    if not isinstance(document, dict):
        r.add("$", f"a metadata document must be a JSON object, not {_kind(document)}")
        return r.problems
    _check_top(document, r)
    known = _check_definitions(document, r)
    _check_log(document, known, r)
    return r.problems


class _Decoded(dict[str, Any]):
    """A JSON object that remembers the keys it had more than once (the last value wins)."""

    duplicates: tuple[str, ...] = ()


def _object_hook(pairs: list[tuple[str, Any]]) -> _Decoded:
    out = _Decoded(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice: list[str] = []
        for key, _ in pairs:
            if key in seen and key not in twice:
                twice.append(key)
            seen.add(key)
        out.duplicates = tuple(twice)
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _duplicate_keys(value: object, path: str = "$") -> Iterator[Problem]:
    """Keys written twice in one object: JSON readers disagree on which value counts."""
    if isinstance(value, _Decoded):
        for key in value.duplicates:
            yield Problem(_key(path, key), "key appears more than once in the same object")
        for key, child in value.items():
            yield from _duplicate_keys(child, _key(path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _duplicate_keys(child, f"{path}[{i}]")


def _decode(text: str, where: str) -> object:
    """Parse JSON strictly: no NaN or Infinity; broken JSON raised with its line and column."""
    try:
        return json.loads(text, object_pairs_hook=_object_hook, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise MetadataError(
            f"{where}not valid JSON", problems=[(f"line {e.lineno} column {e.colno}", e.msg)]
        ) from None
    except (ValueError, RecursionError) as e:
        raise MetadataError(f"{where}not valid JSON", problems=[("$", str(e))]) from None


def _plain(value: object) -> object:
    """Drop the duplicate-key marker class so the models see ordinary dicts."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


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
    raw = _decode(text, where)
    problems = list(_duplicate_keys(raw)) + validate_metadata(raw)
    document = _plain(raw)
    if not problems:
        try:
            return UdfMetadata.model_validate(document, by_alias=True, by_name=False)
        except ValidationError as e:  # a shape the checks above missed: still report, by path
            problems = [
                Problem(_pydantic_path(document, err["loc"]), err["msg"]) for err in e.errors()
            ]
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    raise MetadataError(
        f"{where}invalid UDF metadata ({count}): {problems[0]}",
        problems=[(p.path, p.message) for p in problems],
    )


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
