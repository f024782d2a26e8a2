"""Plain-data views of a function for ``list``, ``show`` and ``history`` (text and ``--json``).

Redaction happens here, once, before any rendering: the bodies of a ``secure`` function never
enter a summary, so neither the text nor the JSON output can show them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from translator.metadata import Definition, SqlRepresentation, UdfMetadata
from translator.names import format_part
from translator.warehouse.layout import FunctionRef

__all__ = [
    "REDACTED",
    "FunctionInfo",
    "HistoryEntry",
    "history_entries",
    "iso_ms",
    "summarize",
]

REDACTED = "<redacted: secure function>"


def iso_ms(timestamp_ms: int) -> str:
    """``2024-12-18T07:30:00.123Z``: UTC with milliseconds, as people read log times."""
    try:
        dt = datetime.fromtimestamp(timestamp_ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return "?"
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{timestamp_ms % 1000:03d}Z"


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    """One row of ``list``."""

    ref: FunctionRef
    definitions: int | None
    #: The current metadata file, relative to the warehouse (or the catalog's location).
    metadata_file: str | None
    #: Why the function could not be read, if it could not.
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "function": str(self.ref),
            "definitions": self.definitions,
            "metadata-file": self.metadata_file,
            **({"problem": self.problem} if self.problem else {}),
        }


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One definition-log entry, numbered from 1 as ``log_entry`` counts them."""

    number: int
    timestamp_ms: int
    versions: tuple[tuple[str, int], ...]
    current: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.number,
            "timestamp-ms": self.timestamp_ms,
            "timestamp": iso_ms(self.timestamp_ms),
            "current": self.current,
            "definition-versions": [
                {"definition-id": d, "version-id": v} for d, v in self.versions
            ],
        }


def history_entries(meta: UdfMetadata) -> list[HistoryEntry]:
    last = len(meta.definition_log)
    return [
        HistoryEntry(
            i,
            e.timestamp_ms,
            tuple((r.definition_id, r.version_id) for r in e.definition_versions),
            i == last,
        )
        for i, e in enumerate(meta.definition_log, 1)
    ]


def _type(value: object) -> str:
    from translator.types import parse_type_json

    try:
        return str(parse_type_json(value))
    except ValueError:
        return repr(value)


def _param_text(p: dict[str, Any]) -> str:
    return f"{p['name']} {p['type']}"


def _definition(ref: FunctionRef, d: Definition, secure: bool) -> dict[str, Any]:
    params = [{"name": p.name, "type": _type(p.type), "doc": p.doc} for p in d.parameters]
    current = d.version(d.current_version_id)
    dialects = sorted(
        {
            r.dialect
            for v in d.versions
            for r in v.representations
            if isinstance(r, SqlRepresentation)
        }
    )
    out: dict[str, Any] = {
        "definition-id": d.definition_id,
        "signature": f"{format_part(ref.name)}({', '.join(_param_text(p) for p in params)})",
        "parameters": params,
        "return-type": _type(d.return_type),
        "function-type": d.function_type,
        "doc": d.doc,
        "versions": [v.version_id for v in d.versions],
        "dialects": dialects,
        "current-version": None,
    }
    if current is not None:
        out["current-version"] = {
            "version-id": current.version_id,
            "timestamp-ms": current.timestamp_ms,
            "timestamp": iso_ms(current.timestamp_ms),
            "deterministic": current.deterministic,
            "on-null-input": current.on_null_input,
            "representations": [
                {
                    "dialect": r.dialect,
                    "sql": REDACTED if secure else r.sql,
                }
                if isinstance(r, SqlRepresentation)
                else {"type": r.type}
                for r in current.representations
            ],
        }
    return out


def summarize(
    ref: FunctionRef,
    meta: UdfMetadata,
    *,
    metadata_file: str,
    log_entry: int | None = None,
) -> dict[str, Any]:
    """What ``show`` prints; ``log_entry`` is set when ``meta`` is a time-travel view."""
    secure = bool(meta.secure)
    out: dict[str, Any] = {
        "function": str(ref),
        "metadata-file": metadata_file,
        "function-uuid": meta.function_uuid,
        "secure": secure,
        "doc": meta.doc,
        "properties": dict(meta.properties or {}),
        "log-entries": len(meta.definition_log),
        "as-of": None,
        "definitions": [_definition(ref, d, secure) for d in meta.definitions],
    }
    if log_entry is not None:
        ts = meta.definition_log[log_entry - 1].timestamp_ms
        out["as-of"] = {"log-entry": log_entry, "timestamp-ms": ts, "timestamp": iso_ms(ts)}
    return out
