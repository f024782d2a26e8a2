"""Check a UDF metadata document against the spec and report every problem with its JSON path.

A caller fixing a file sees all of its problems at once (see :mod:`.problems`). Where the spec
text and iceberg-go (the other implementation) disagree, the spec wins; the conformance test
keeps the list of those departures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from translator.metadata.problems import (
    INT_MAX,
    LONG_MAX,
    LONG_MIN,
    Problem,
    Report,
    get_field,
    get_int_field,
    is_int,
    key_path,
    kind_of,
    objects_in,
)
from translator.metadata.type_checks import check_type
from translator.types import IcebergType, StructType, definition_id

__all__ = ["validate_metadata"]

#: The string form of ``format: uuid`` (RFC 9562): hyphenated 8-4-4-4-12 hex, any case.
_UUID_RE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def validate_metadata(document: object, trusted: AbstractSet[int] = frozenset()) -> list[Problem]:
    """Every problem in a decoded metadata document, in document order; empty when valid.

    ``trusted``: the ``id()`` of definitions, versions and definition-log entries of
    ``document`` (its JSON objects) that passed these checks in an earlier document and are
    unchanged. Their own fields are not looked at again; every check across objects (unique
    ids and names, version order, the log's references and timestamps) still sees them, so the
    verdict is the whole document's. A commit passes what it shares with the metadata it was
    merged into (:mod:`translator.metadata.checked`): its cost follows what changed.
    """
    r = Report()
    if not isinstance(document, dict):
        r.add("$", f"a metadata document must be a JSON object, not {kind_of(document)}")
        return r.problems
    _check_top(document, r)
    known = _check_definitions(document, r, trusted)
    _check_log(document, known, r, trusted)
    return r.problems


def _check_top(doc: dict[str, Any], r: Report) -> None:
    if "format-version" not in doc:
        r.add("$.format-version", "required field is missing")
    elif not (is_int(doc["format-version"]) and doc["format-version"] == 1):
        r.add("$.format-version", f"must be the integer 1, not {json.dumps(doc['format-version'])}")
    uuid = get_field(doc, "function-uuid", "$", r, "string")
    if uuid is not None and not _UUID_RE.fullmatch(uuid):
        r.add("$.function-uuid", f"{uuid!r} is not a UUID in the hyphenated 8-4-4-4-12 form")
    get_field(doc, "location", "$", r, "string", required=False)
    get_field(doc, "secure", "$", r, "boolean", required=False)
    get_field(doc, "doc", "$", r, "string", required=False)
    props = get_field(doc, "properties", "$", r, "object", required=False)
    for key, value in (props or {}).items():
        if not isinstance(value, str):
            r.add(
                key_path("$.properties", key),
                f"property values must be strings, not {kind_of(value)}",
            )


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
    #: Checked in an earlier document and unchanged (``validate_metadata``'s ``trusted``).
    unchanged: bool = False


@dataclass
class _Known:
    """The definitions the log may reference; ``complete`` when every definition was readable."""

    defs: dict[str, _Def]
    complete: bool


def _check_definitions(doc: dict[str, Any], r: Report, trusted: AbstractSet[int]) -> _Known:
    defs = get_field(doc, "definitions", "$", r, "array")
    if defs is None:
        return _Known({}, complete=False)
    if not defs:
        r.add("$.definitions", "at least one definition is required")
    known = _Known({}, complete=bool(defs))
    specific: dict[str, str] = {}
    read = 0
    for _, path, d in objects_in(defs, "$.definitions", r):
        info: _Def | None
        if id(d) in trusted:
            info = _Def(d["definition-id"], {v["version-id"] for v in d["versions"]}, True, True)
        else:
            info = _check_definition(d, path, r, trusted)
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


def _check_specific_name(d: dict[str, Any], path: str, seen: dict[str, str], r: Report) -> None:
    """specific-name, when present, is a non-empty name no other definition uses."""
    name = get_field(d, "specific-name", path, r, "string", required=False)
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


def _check_definition(
    d: dict[str, Any], path: str, r: Report, trusted: AbstractSet[int]
) -> _Def | None:
    did = get_field(d, "definition-id", path, r, "string")
    param_types = _check_parameters(d, path, r)
    id_ok = True
    if did is not None and param_types is not None:
        expected = definition_id(param_types)
        if did != expected:
            id_ok = False
            r.add(
                f"{path}.definition-id",
                f"definition-id {did!r} does not match its "
                f"parameters' types: expected {expected!r}",
            )
    _check_return(d, path, r)
    get_field(d, "return-nullable", path, r, "boolean", required=False)
    get_field(d, "doc", path, r, "string", required=False)
    versions = _check_versions(d, path, r, trusted)
    current = get_int_field(d, "current-version-id", path, r, low=0, high=INT_MAX)
    if current is not None and versions is not None and current not in versions:
        r.add(
            f"{path}.current-version-id",
            f"current-version-id {current} names no version "
            f"(versions: {', '.join(map(str, sorted(versions)))})",
        )
    return None if did is None else _Def(did, versions, id_ok)


def _check_return(d: dict[str, Any], path: str, r: Report) -> None:
    """return-type is a valid type; function-type is udf or udtf, and a udtf returns rows."""
    returns = None
    if "return-type" not in d:
        r.add(f"{path}.return-type", "required field is missing")
    else:
        returns = check_type(d["return-type"], f"{path}.return-type", r, id_safe=False)
    ftype = get_field(d, "function-type", path, r, "string")
    if ftype is not None and ftype not in ("udf", "udtf"):
        r.add(f"{path}.function-type", f"must be 'udf' or 'udtf', not {ftype!r}")
    if ftype == "udtf" and returns is not None:
        if not isinstance(returns, StructType):
            r.add(f"{path}.return-type", f"a udtf must return a struct (its rows), not {returns}")
        elif not returns.fields:
            r.add(f"{path}.return-type", "a udtf must return a struct with at least one field")


def _check_parameters(d: dict[str, Any], path: str, r: Report) -> list[IcebergType] | None:
    """The parameters' types, or None if any is missing or broken (problems reported)."""
    params = get_field(d, "parameters", path, r, "array")
    if params is None:
        return None
    types: list[IcebergType] = []
    names: set[str] = set()
    for _, where, p in objects_in(params, f"{path}.parameters", r):
        name = get_field(p, "name", where, r, "string")
        if name == "":
            r.add(f"{where}.name", "a parameter name must not be empty")
        elif name is not None:
            if name in names:
                r.add(f"{where}.name", f"duplicate parameter name {name!r}")
            names.add(name)
        get_field(p, "doc", where, r, "string", required=False)
        if "type" not in p:
            r.add(f"{where}.type", "required field is missing")
            continue
        t = check_type(p["type"], f"{where}.type", r, id_safe=True)
        if t is not None:
            types.append(t)
    return types if len(types) == len(params) else None


def _check_versions(
    d: dict[str, Any], path: str, r: Report, trusted: AbstractSet[int]
) -> set[int] | None:
    """The version ids, or None when they are not all readable (or there are none)."""
    versions = get_field(d, "versions", path, r, "array")
    if versions is None:
        return None
    if not versions:
        r.add(f"{path}.versions", "a definition needs at least one version")
        return None
    ids: set[int] = set()
    previous: int | None = None
    readable = True
    for _, where, v in objects_in(versions, f"{path}.versions", r):
        vid = get_int_field(v, "version-id", where, r, low=0, high=INT_MAX)
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
        if id(v) not in trusted:
            _check_version_body(v, where, r)
    return ids if readable and all(isinstance(v, dict) for v in versions) else None


def _check_version_body(v: dict[str, Any], path: str, r: Report) -> None:
    get_field(v, "deterministic", path, r, "boolean", required=False)
    on_null = get_field(v, "on-null-input", path, r, "string", required=False)
    if on_null is not None and on_null not in ("return-null", "call"):
        r.add(f"{path}.on-null-input", f"must be 'return-null' or 'call', not {on_null!r}")
    get_int_field(v, "timestamp-ms", path, r, low=LONG_MIN, high=LONG_MAX)
    reps = get_field(v, "representations", path, r, "array")
    if reps is None:
        return
    if not reps:
        r.add(f"{path}.representations", "a version needs at least one representation")
    dialects: dict[str, str] = {}
    for _, where, rep in objects_in(reps, f"{path}.representations", r):
        if get_field(rep, "type", where, r, "string") != "sql":
            continue  # another kind of representation: kept, not checked
        sql = get_field(rep, "sql", where, r, "string")
        if sql is not None and not sql.strip():
            r.add(f"{where}.sql", "a sql representation needs a non-empty sql text")
        dialect = get_field(rep, "dialect", where, r, "string")
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


def _check_log(doc: dict[str, Any], known: _Known, r: Report, trusted: AbstractSet[int]) -> None:
    log = get_field(doc, "definition-log", "$", r, "array")
    if log is None:
        return
    previous: int | None = None
    last = len(log) - 1
    for i, path, entry in objects_in(log, "$.definition-log", r):
        unchanged = id(entry) in trusted and i != last  # the last entry is always checked
        if unchanged:
            ts = entry["timestamp-ms"]
        else:
            ts = get_int_field(entry, "timestamp-ms", path, r, low=LONG_MIN, high=LONG_MAX)
        if ts is not None:
            if previous is not None and ts < previous:
                r.add(
                    f"{path}.timestamp-ms",
                    f"timestamp-ms {ts} is earlier than the entry "
                    f"before it ({previous}): the log never goes back in time",
                )
            previous = ts if previous is None else max(previous, ts)
        if unchanged:
            _recheck_log_refs(entry["definition-versions"], f"{path}.definition-versions", known, r)
            continue
        refs = get_field(entry, "definition-versions", path, r, "array")
        if refs is not None and not refs:
            r.add(f"{path}.definition-versions", "a log entry maps at least one definition")
        _check_log_refs(refs or [], f"{path}.definition-versions", known, i == last, r)


def _recheck_log_refs(refs: list[Any], path: str, known: _Known, r: Report) -> None:
    """The references of a trusted entry (not the last) that name a definition checked anew:
    that definition's versions may differ from those the entry was checked against."""
    for i, ref in enumerate(refs):
        did, vid = ref["definition-id"], ref["version-id"]
        d = known.defs.get(did)
        if d is not None and not d.unchanged and d.versions is not None and vid not in d.versions:
            r.add(f"{path}[{i}].version-id", f"definition {did!r} has no version {vid}")


def _check_log_refs(refs: list[Any], path: str, known: _Known, is_last: bool, r: Report) -> None:
    """References name existing versions; only older entries may name dropped definitions."""
    if _refs_pass(refs, known, is_last):
        return
    seen: set[str] = set()
    for _, where, ref in objects_in(refs, path, r):
        did = get_field(ref, "definition-id", where, r, "string")
        vid = get_int_field(ref, "version-id", where, r, low=0, high=INT_MAX)
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


def _refs_pass(refs: list[Any], known: _Known, is_last: bool) -> bool:
    """Whether :func:`_check_log_refs` would report nothing, found without writing a path:
    a long history is millions of references, nearly all of them fine. Any doubt is False,
    and the full check then reports (the same problems, with their paths)."""
    seen: set[str] = set()
    defs = known.defs
    strict = is_last and known.complete
    for ref in refs:
        if type(ref) is not dict:
            return False
        did, vid = ref.get("definition-id"), ref.get("version-id")
        if type(did) is not str or type(vid) is not int or not 0 <= vid <= INT_MAX or did in seen:
            return False
        seen.add(did)
        d = defs.get(did)
        if d is None:
            if strict:
                return False
        elif d.versions is not None and vid not in d.versions:
            return False
    return True
