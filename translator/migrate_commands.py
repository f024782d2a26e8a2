"""``iceberg-udf migrate``: a directory of legacy SQL scripts into a warehouse, with reports.

A thin layer over :func:`translator.migrate.migrate_directory`: progress on standard error (a
bar on a terminal, one line per file otherwise), each file's errors and warnings on standard
error as it finishes, the summary table on standard output, the reports in files. Exit status
0 when every statement was applied, 1 when any failed (with ``--strict``: any lossy
translation was refused), 2 for bad usage.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from translator.cli_args import UsageError
from translator.dialects import DIALECTS
from translator.errors import Position, TranslatorError, format_diagnostic
from translator.fileio import atomic_write
from translator.migrate import (
    NOT_READ,
    Issue,
    MigrationReport,
    ProgressEvent,
    list_migration_files,
    migrate_directory,
    report_html,
    report_json,
    report_markdown,
    summary_text,
)
from translator.warehouse.errors import WarehouseError
from translator.warehouse.layout import DEFAULT_NAMESPACE, FunctionRef
from translator.warehouse.warehouse import Warehouse
from translator.warehouse_commands import CATALOG_ENV, WAREHOUSE_ENV, warehouse_parent

__all__ = ["register"]

EXIT_INPUT = 1
_SHOWN = ("applied", "unchanged", "already-applied", "skipped", "failed")


def _usage_error(message: str) -> Exception:
    return UsageError(message)


class _Progress:
    """A bar redrawn in place on a terminal; one line per finished file otherwise."""

    WIDTH = 24

    def __init__(self, out: TextIO, source: str) -> None:
        self.out = out
        self.source = source
        self.tty = out.isatty()
        self.drawn = False

    def __call__(self, event: ProgressEvent) -> None:
        if event.done is None:
            if self.tty:
                self._bar(event.index - 1, event.total, event.file)
            return
        self._clear()
        if not self.tty:
            counts = event.done.counts()
            parts = [f"{counts[k]} {k}" for k in _SHOWN if counts[k]]
            if event.done.failed_file:
                parts.append("unreadable")
            print(
                f"[{event.index}/{event.total}] {event.file}: {counts['statements']} "
                f"statement(s): {', '.join(parts)}",
                file=self.out,
            )
        for w in event.warnings:
            print(self.warning_line(w), file=self.out)
        for f in event.failures:
            print(self._error(f), file=self.out)
        if self.tty:
            self._bar(event.index, event.total, event.file)
        self.out.flush()

    def _path(self, file: str | None) -> str:
        return os.path.join(self.source, file) if file else self.source

    def warning_line(self, w: Issue) -> str:
        where = self._path(w.file) + (f":{w.line}:{w.column}" if w.line is not None else "")
        return f"{where}: warning[{w.code}]: {w.message}"

    def _error(self, f: Issue) -> str:
        position = None
        if f.line is not None:
            position = Position(f.line, f.column or 1, 0, self._path(f.file))
        err = TranslatorError(f.message, position, source_line=f.source_line)
        text = format_diagnostic(err)
        return text if position is not None else f"{self._path(f.file)}: {text}"

    def _bar(self, done: int, total: int, file: str) -> None:
        filled = self.WIDTH * done // max(total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.out.write(f"\r\x1b[Kmigrate [{bar}] {done}/{total} {file}")
        self.out.flush()
        self.drawn = True

    def _clear(self) -> None:
        if self.drawn:
            self.out.write("\r\x1b[K")
            self.drawn = False

    def finish(self) -> None:
        self._clear()
        self.out.flush()


def _check_output(flag: str, value: str | None) -> None:
    if value is None:
        return
    path = Path(value)
    if path.is_dir():
        raise _usage_error(f"{flag} {value}: is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise _usage_error(f"{flag} {value}: folder {parent} does not exist")


def _cmd_migrate(args: argparse.Namespace) -> int:
    src = Path(args.src)
    if not src.exists():
        raise _usage_error(f"{args.src}: no such directory")
    if not src.is_dir():
        raise _usage_error(f"{args.src}: not a directory")
    if not list_migration_files(src):
        raise _usage_error(f"{args.src}: no .sql files to migrate")
    for flag, value in (
        ("--report-json", args.report_json),
        ("--report-md", args.report_md),
        ("--report-html", args.report_html),
    ):
        _check_output(flag, value)
    try:
        FunctionRef(args.namespace, "x")
    except WarehouseError as e:
        raise _usage_error(f"--namespace: {e.message}") from None
    where = args.warehouse or os.environ.get(WAREHOUSE_ENV)
    if not where:
        raise _usage_error(f"--warehouse DIR is required (or set {WAREHOUSE_ENV})")
    progress = _Progress(sys.stderr, args.src)
    with Warehouse(
        where,
        namespace=args.namespace,
        catalog=args.catalog or os.environ.get(CATALOG_ENV) or None,
        cache=False if args.no_cache else None,
    ) as wh:
        try:
            report = migrate_directory(
                src,
                wh,
                args.dialect,
                namespace=args.namespace,
                dry_run=args.dry_run,
                strict=args.strict,
                progress=progress,
                source_name=args.src,
            )
        except OSError as e:
            where = f" {e.filename}" if e.filename else ""
            print(f"iceberg-udf: warehouse I/O error{where}: {e.strerror or e}", file=sys.stderr)
            return EXIT_INPUT
        finally:
            progress.finish()
    for w in report.warnings:
        if w.code == NOT_READ:
            print(progress.warning_line(w), file=sys.stderr)
    return _write_reports(args, report)


def _write_reports(args: argparse.Namespace, report: MigrationReport) -> int:
    code = report.exit_code
    for value, render in (
        (args.report_json, report_json),
        (args.report_md, report_markdown),
        (args.report_html, report_html),
    ):
        if value is None:
            continue
        try:
            atomic_write(Path(value), render(report))
        except TranslatorError as e:
            print(f"iceberg-udf: {e.message}", file=sys.stderr)
            code = EXIT_INPUT
    sys.stdout.write(summary_text(report))
    return code


def register(subparsers: Any) -> None:
    """Add ``migrate`` to ``iceberg-udf``'s subparsers."""
    p = subparsers.add_parser(
        "migrate",
        parents=[
            warehouse_parent(
                f"namespace of unqualified names (default: {DEFAULT_NAMESPACE}; a Spark USE "
                "changes it for the rest of its file)"
            )
        ],
        help="apply a directory of legacy SQL scripts to a warehouse, with reports",
        description="Apply every .sql file of SRC_DIR (natural name order: 2_x.sql before "
        "10_x.sql) statement by statement to the warehouse. Function DDL is compiled and "
        "committed; other statements are skipped; a failing statement is reported and the rest "
        "still applied. The warehouse remembers applied statements (WAREHOUSE/.migrations/), "
        "so running the migration again changes nothing. Exit status: 0 all applied, 1 some "
        "statement failed, 2 bad usage.",
    )
    p.add_argument("--dialect", required=True, choices=sorted(DIALECTS))
    p.add_argument("src", metavar="SRC_DIR", help="folder of .sql migration scripts")
    p.add_argument("--report-json", metavar="FILE", help="write the JSON report here")
    p.add_argument("--report-md", metavar="FILE", help="write the Markdown report here")
    p.add_argument("--report-html", metavar="FILE", help="write the HTML report here")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="plan only: run against a temporary copy, write nothing to the warehouse",
    )
    p.add_argument(
        "--strict", action="store_true", help="refuse lossy translations (each is a failure)"
    )
    p.set_defaults(run=_cmd_migrate)
