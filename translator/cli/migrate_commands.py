"""``iceberg-udf migrate``: a directory of legacy SQL scripts into a warehouse, with reports.

A thin layer over :func:`translator.migrate.migrate_directory`: progress on standard error (a
bar on a terminal, one line per file otherwise), each file's errors and warnings on standard
error as it finishes, the summary table on standard output, the reports in files. Exit status
0 when every statement was applied, 1 when any failed (with ``--strict``: any lossy
translation was refused), 2 for bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from translator.cli.args import (
    EXIT_INPUT,
    REPLACE_FLAG,
    UsageError,
    add_replace_flag,
    check_namespace,
    open_warehouse,
    warehouse_parent,
)
from translator.cli.loading import compiler
from translator.cli.output import MigrationProgress, print_summary
from translator.dialects import DIALECTS
from translator.errors import TranslatorError
from translator.fileio import atomic_write
from translator.warehouse.errors import HistoryWouldBeLostError
from translator.warehouse.layout import DEFAULT_NAMESPACE

if TYPE_CHECKING:
    from translator.migrate import MigrationReport

__all__ = ["register"]


def _check_output(flag: str, value: str | None) -> None:
    if value is None:
        return
    path = Path(value)
    if path.is_dir():
        raise UsageError(f"{flag} {value}: is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {value}: folder {parent} does not exist")


def _cmd_migrate(args: argparse.Namespace) -> int:
    # The usage checks that need no compiler come first: a mistyped command exits at once.
    src = Path(args.src)
    if not src.exists():
        raise UsageError(f"{args.src}: no such directory")
    if not src.is_dir():
        raise UsageError(f"{args.src}: not a directory")
    for flag, value in (
        ("--report-json", args.report_json),
        ("--report-md", args.report_md),
        ("--report-html", args.report_html),
    ):
        _check_output(flag, value)
    check_namespace(args)
    compiler("translator.migrate.run")
    from translator.migrate import NOT_READ, list_migration_files, migrate_directory

    if not list_migration_files(src):
        raise UsageError(f"{args.src}: no .sql files to migrate")
    progress = MigrationProgress(sys.stderr, args.src)
    with open_warehouse(args, create=True) as wh:
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
                replace_discarding_history=args.replace_discarding_history,
            )
        except OSError as e:
            where = f" {e.filename}" if e.filename else ""
            print(f"iceberg-udf: warehouse I/O error{where}: {e.strerror or e}", file=sys.stderr)
            return EXIT_INPUT
        finally:
            progress.finish()
    for w in report.warnings:
        if w.code == NOT_READ or (w.file is None and w.function is not None):
            print(progress.warning_line(w), file=sys.stderr)
    catalog_failures = [f for f in report.failures if f.file is None and f.function is not None]
    for f in catalog_failures:  # found when the run's functions went to a REST catalog
        print(progress.failure_line(f), file=sys.stderr)
    if any(f.code == HistoryWouldBeLostError.code for f in catalog_failures):
        print(f"hint: {REPLACE_FLAG} drops and creates it again, history lost", file=sys.stderr)
    return _write_reports(args, report)


def _write_reports(args: argparse.Namespace, report: MigrationReport) -> int:
    from translator.migrate import report_html, report_json, report_markdown

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
    print_summary(report, sys.stdout)
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
        "so running the migration again changes nothing. Into a REST catalog each function the "
        "directory makes is created once (an identical one is left as it is). Exit status: 0 "
        "all applied, 1 some statement failed, 2 bad usage.",
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
    add_replace_flag(p)
    p.set_defaults(run=_cmd_migrate)
