"""What the command line prints, for people (text) and for machines (JSON): the apply plan,
``list``, ``show``, ``history``, ``validate``'s lines, diagnostics, and a migration's progress
and summary. The library returns data; the text is built here, as pure string building where it
can be, so that each output can be tested without running a command."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from translator.cli.terminal import BarProgress, on_terminal, print_table
from translator.errors import (
    Diagnostic,
    LossyError,
    MetadataError,
    Position,
    TranslatorError,
    UnsupportedError,
    format_diagnostic,
)
from translator.json_text import indented_json

if TYPE_CHECKING:  # what the commands hand over; a command that renders none does not load them
    from translator.merge import Change
    from translator.migrate import Issue, MigrationReport, ProgressEvent
    from translator.warehouse.summary import FunctionInfo, HistoryEntry

__all__ = [
    "MigrationProgress",
    "change_line",
    "error_text",
    "history_json",
    "history_rows",
    "history_text",
    "list_rows",
    "list_text",
    "metadata_problem_lines",
    "print_diagnostics",
    "print_history",
    "print_json",
    "print_list",
    "print_summary",
    "print_warnings",
    "show_text",
    "summary_text",
    "table",
]


# --------------------------------------------------------------------------------------------
# Diagnostics and JSON


def print_json(value: Any) -> None:
    sys.stdout.write(indented_json(value) + "\n")


def print_warnings(warnings: Sequence[Diagnostic]) -> None:
    for w in warnings:
        print(str(w), file=sys.stderr)


#: What each library switch that refused a lossy translation is called on the command line.
_LOSSY_SWITCHES = {"allow_lossy": "allow it with --allow-lossy", "strict": "refused by --strict"}


def error_text(e: TranslatorError) -> str:
    """``e`` as the command line prints it: the library's diagnostic, with the flag that changes
    the outcome where the error says which choice refused it (the library names no flags)."""
    if isinstance(e, LossyError) and e.refused_by in _LOSSY_SWITCHES:
        e = UnsupportedError(
            f"{e.detail} ({_LOSSY_SWITCHES[e.refused_by]})",
            e.position,
            source_line=e.source_line,
            expected=e.expected,
        )
    return format_diagnostic(e)


def print_diagnostics(errors: Sequence[TranslatorError], warnings: Sequence[Diagnostic]) -> None:
    """Warnings, then errors (with their source line and caret), on standard error."""
    print_warnings(warnings)
    for e in errors:
        print(error_text(e), file=sys.stderr)


def metadata_problem_lines(path: Path, error: MetadataError) -> list[str]:
    """``validate``'s lines for a file that is not valid metadata: one per problem (``FILE:
    JSON path: message``), or the message alone when the file cannot be read (it names the
    file)."""
    if not error.problems:
        return [error.message]
    return [f"{path}: {where}: {message}" for where, message in error.problems]


# --------------------------------------------------------------------------------------------
# The warehouse: the apply plan, list, show, history


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


def list_rows(infos: Sequence[FunctionInfo]) -> tuple[list[str], list[list[str]]]:
    """``list``'s header and rows."""
    rows = [
        [
            str(i.ref),
            "?" if i.definitions is None else str(i.definitions),
            i.metadata_file or f"error: {i.problem}",
        ]
        for i in infos
    ]
    return ["FUNCTION", "DEFINITIONS", "METADATA FILE"], rows


def list_text(infos: Sequence[FunctionInfo]) -> str:
    return table(*list_rows(infos)) if infos else "no functions\n"


def print_list(infos: Sequence[FunctionInfo], out: TextIO) -> None:
    """``list``: a rich table on a terminal, :func:`list_text` otherwise."""
    if infos and on_terminal(out):
        print_table(out, *list_rows(infos), right=[1])
    else:
        out.write(list_text(infos))


def _iso_ms(ms: int) -> str:
    from translator.warehouse.summary import iso_ms

    return iso_ms(ms)


def history_rows(entries: Sequence[HistoryEntry]) -> tuple[list[str], list[list[str]]]:
    """``history``'s header and rows (``*`` marks the current entry)."""
    rows = [
        [
            f"{e.number}{'*' if e.current else ''}",
            _iso_ms(e.timestamp_ms),
            str(e.timestamp_ms),
            ", ".join(f"{d} -> v{v}" for d, v in e.versions),
        ]
        for e in entries
    ]
    return ["#", "TIMESTAMP (UTC)", "TIMESTAMP-MS", "DEFINITION VERSIONS"], rows


def _history_head(function: str, metadata_file: str, entries: Sequence[HistoryEntry]) -> str:
    return f"{function}: {len(entries)} log entries ({metadata_file})"


def history_text(function: str, metadata_file: str, entries: Sequence[HistoryEntry]) -> str:
    return _history_head(function, metadata_file, entries) + "\n" + table(*history_rows(entries))


def print_history(
    function: str, metadata_file: str, entries: Sequence[HistoryEntry], out: TextIO
) -> None:
    """``history``: a rich table on a terminal, :func:`history_text` otherwise."""
    if on_terminal(out):
        title = _history_head(function, metadata_file, entries)
        print_table(out, *history_rows(entries), title=title, right=[0, 2])
    else:
        out.write(history_text(function, metadata_file, entries))


def history_json(function: str, metadata_file: str, entries: Sequence[HistoryEntry]) -> Any:
    """``history --json``: the function, its current metadata file, and its log entries."""
    return {
        "function": function,
        "metadata-file": metadata_file,
        "entries": [e.to_json() for e in entries],
    }


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


# --------------------------------------------------------------------------------------------
# A migration: progress and summary


_SHOWN = ("applied", "unchanged", "already-applied", "skipped", "failed")


def _summary_head(report: MigrationReport) -> str:
    return (
        f"{'Dry run of the migration' if report.dry_run else 'Migrated'} {report.source} "
        f"({report.dialect}, unqualified names into {report.namespace}):"
    )


def summary_text(report: MigrationReport) -> str:
    """The summary table printed at the end of a run."""
    from translator.migrate.render import SUMMARY_ROWS, verdict

    s = report.summary()
    width = max(len(label) for _, label in SUMMARY_ROWS)
    lines = [_summary_head(report)]
    lines += [f"  {label.ljust(width)}  {s[key]:>6}" for key, label in SUMMARY_ROWS]
    lines.append(verdict(report))
    return "\n".join(lines) + "\n"


def print_summary(report: MigrationReport, out: TextIO) -> None:
    """The summary: a rich table on a terminal, :func:`summary_text` otherwise."""
    from translator.migrate.render import SUMMARY_ROWS, verdict

    if not on_terminal(out):
        out.write(summary_text(report))
        return
    s = report.summary()
    rows = [[label, str(s[key])] for key, label in SUMMARY_ROWS]
    print_table(out, ["", "COUNT"], rows, title=_summary_head(report), right=[1])
    out.write(verdict(report) + "\n")


class MigrationProgress:
    """A progress bar on a terminal (rich); one line per finished file otherwise."""

    def __init__(self, out: TextIO, source: str) -> None:
        self.out = out
        self.source = source
        self.tty = on_terminal(out)
        self.bar = BarProgress(out, "migrate") if self.tty else None

    def __call__(self, event: ProgressEvent) -> None:
        if event.done is None:
            if self.bar is not None:
                self.bar.update(event.index - 1, event.total, event.file)
            return
        lines = [self.warning_line(w) for w in event.warnings]
        lines += [self.failure_line(f) for f in event.failures]
        if self.bar is None:
            counts = event.done.counts()
            parts = [f"{counts[k]} {k}" for k in _SHOWN if counts[k]]
            if event.done.failed_file:
                parts.append("unreadable")
            done = f": {', '.join(parts)}" if parts else ""
            head = f"[{event.index}/{event.total}] {event.file}: {counts['statements']} "
            # One write a file: standard error is line-buffered, so a print a line was a
            # system call a line (a migration's thousands of warnings).
            self.out.write("".join([f"{head}statement(s){done}\n", *(f"{x}\n" for x in lines)]))
        else:
            for line in lines:
                self.bar.line(line)
            self.bar.update(event.index, event.total, event.file)
        self.out.flush()

    def _path(self, file: str | None) -> str:
        return os.path.join(self.source, file) if file else self.source

    def warning_line(self, w: Issue) -> str:
        where = self._path(w.file) + (f":{w.line}:{w.column}" if w.line is not None else "")
        return f"{where}: warning[{w.code}]: {w.message}"

    def failure_line(self, f: Issue) -> str:
        position = None
        if f.line is not None:
            position = Position(f.line, f.column or 1, 0, self._path(f.file))
        err = TranslatorError(f.message, position, source_line=f.source_line)
        text = format_diagnostic(err)
        return text if position is not None else f"{self._path(f.file)}: {text}"

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.finish()
        self.out.flush()
