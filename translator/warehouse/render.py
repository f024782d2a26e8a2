"""Text for people: the apply plan, ``list``, ``show`` and ``history``. Pure string building,
so every output is snapshot-tested without running a command."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from translator.merge import Change
from translator.warehouse.summary import FunctionInfo, HistoryEntry, iso_ms

__all__ = ["change_line", "history_text", "list_text", "show_text", "table"]

_VERBS = {
    "created-function": "add",
    "added-definition": "add",
    "new-version": "replace",
    "attached-representation": "attach",
    "unchanged": "keep",
    "dropped-definition": "drop",
    "dropped-function": "drop",
}
_NOTES = {
    "created-function": "new function",
    "added-definition": "new definition",
    "new-version": "new current version",
    "dropped-function": "no definition left: the function is removed",
}


def change_line(c: Change) -> str:
    """``replace  default.add_one(int) v2  new current version``."""
    sig = f"({c.definition_id})" if c.definition_id is not None else "(*)"
    ver = f" v{c.version_id}" if c.version_id is not None else ""
    note = c.detail or _NOTES.get(c.action, "")
    return f"{_VERBS.get(c.action, c.action):<8} {c.function}{sig}{ver}" + (
        f"  {note}" if note else ""
    )


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns, two spaces apart; the last column is not padded."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for r in [header, *rows]:
        cells = [c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)] + [r[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def list_text(infos: Sequence[FunctionInfo]) -> str:
    if not infos:
        return "no functions\n"
    rows = [
        [
            str(i.ref),
            "?" if i.definitions is None else str(i.definitions),
            i.metadata_file or f"error: {i.problem}",
        ]
        for i in infos
    ]
    return table(["FUNCTION", "DEFINITIONS", "METADATA FILE"], rows)


def history_text(function: str, metadata_file: str, entries: Sequence[HistoryEntry]) -> str:
    head = f"{function}: {len(entries)} log entries ({metadata_file})\n"
    rows = [
        [
            f"{e.number}{'*' if e.current else ''}",
            iso_ms(e.timestamp_ms),
            str(e.timestamp_ms),
            ", ".join(f"{d} -> v{v}" for d, v in e.versions),
        ]
        for e in entries
    ]
    return head + table(["#", "TIMESTAMP (UTC)", "TIMESTAMP-MS", "DEFINITION VERSIONS"], rows)


def _indent_body(sql: str, prefix: str) -> str:
    lines = sql.splitlines() or [""]
    pad = " " * len(prefix)
    return prefix + ("\n" + pad).join(lines)


def show_text(s: dict[str, Any]) -> str:
    """The ``show`` summary (built by :func:`translator.warehouse.summary.summarize`)."""
    out = [s["function"]]

    def field(label: str, value: object) -> None:
        out.append(f"  {label:<15} {value}")

    field("metadata file", s["metadata-file"])
    field("function-uuid", s["function-uuid"])
    field("secure", "yes (bodies are not shown)" if s["secure"] else "no")
    if s["doc"]:
        field("doc", s["doc"])
    if s["properties"]:
        field("properties", ", ".join(f"{k}={v}" for k, v in sorted(s["properties"].items())))
    if s["as-of"]:
        a = s["as-of"]
        field("as of", f"log entry {a['log-entry']} ({a['timestamp']}, {a['timestamp-ms']})")
    else:
        field("log entries", s["log-entries"])
    for d in s["definitions"]:
        out.append("")
        out.append(
            f"{d['signature']} -> {d['return-type']}  "
            f"[{d['function-type']}, definition-id {d['definition-id']}]"
        )
        if d["doc"]:
            out.append(f"  doc: {d['doc']}")
        for p in d["parameters"]:
            if p["doc"]:
                out.append(f"  parameter {p['name']}: {p['doc']}")
        cur = d["current-version"]
        versions = ", ".join(str(v) for v in d["versions"])
        if cur is None:
            out.append(f"  versions {versions}; the current version is missing")
            continue
        traits = [
            "deterministic" if cur["deterministic"] else "not deterministic",
            f"on-null-input {cur['on-null-input']}",
        ]
        out.append(
            f"  current version {cur['version-id']} (of {versions}), "
            f"{cur['timestamp']}, {', '.join(traits)}"
        )
        out.append(f"  dialects: {', '.join(d['dialects']) or 'none'}")
        for r in cur["representations"]:
            if "sql" in r:
                out.append(_indent_body(r["sql"], f"  {r['dialect']}: "))
            else:
                out.append(f"  ({r['type']} representation)")
    return "\n".join(out) + "\n"
