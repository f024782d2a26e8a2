"""The warehouse subcommands of ``iceberg-udf``: apply, list, show, history, rollback, drop, emit.

A thin layer over :class:`~translator.warehouse.Warehouse`: parse, call, print. Exit codes as
everywhere in the CLI: 0 done, 1 bad input (SQL, metadata, a conflict, a missing function),
2 bad usage. Results go to standard output, warnings and errors to standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from translator.cli_args import (
    UsageError,
    compile_options,
    compile_options_parent,
    read_sources,
)
from translator.dialects import DIALECTS
from translator.errors import Diagnostic, UnsupportedNameError, format_diagnostic
from translator.warehouse.layout import DEFAULT_NAMESPACE
from translator.warehouse.render import change_line, history_text, list_text, show_text
from translator.warehouse.resolve import ResolveOptions
from translator.warehouse.results import ApplyResult
from translator.warehouse.warehouse import Warehouse, require_existing

__all__ = ["register"]

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2
WAREHOUSE_ENV = "ICEBERG_UDF_WAREHOUSE"
CATALOG_ENV = "ICEBERG_UDF_CATALOG"


def _usage_error(message: str) -> Exception:
    return UsageError(message)


def _warehouse(args: argparse.Namespace, *, create: bool = False) -> Warehouse:
    """The warehouse the arguments name. Only ``apply`` (``create``) may start a new one: for
    the other commands a mistyped folder would read as a warehouse with no functions."""
    where = args.warehouse or os.environ.get(WAREHOUSE_ENV)
    if not where:
        raise _usage_error(f"--warehouse DIR is required (or set {WAREHOUSE_ENV})")
    if not create:
        require_existing(where, " (apply creates one)")
    return Warehouse(
        where,
        namespace=args.namespace,
        catalog=args.catalog or os.environ.get(CATALOG_ENV) or None,
        cache=False if args.no_cache else None,
    )


def _resolve_options(args: argparse.Namespace) -> ResolveOptions:
    return ResolveOptions(
        metadata_file=args.metadata_file,
        function_uuid=args.function_uuid,
        latest_by_log_timestamp=args.latest_by_log_timestamp,
    )


def _print_warnings(warnings: Sequence[Diagnostic]) -> None:
    for w in warnings:
        print(str(w), file=sys.stderr)


def _print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------------------------
# handlers


def _cmd_apply(args: argparse.Namespace) -> int:
    sources = read_sources(args.sql)
    options = compile_options(args)
    with _warehouse(args, create=True) as wh:
        result = wh.apply(
            sources,
            args.dialect,
            namespace=args.namespace,
            dry_run=args.dry_run,
            options=options,
            strict=args.strict,
        )
    return _report_apply(result)


def _report_apply(result: ApplyResult) -> int:
    _print_warnings(result.warnings)
    for line in (change_line(c) for c in result.changes):
        print(line)
    for c in result.committed:
        print(f"committed {c.ref}: {c.path}")
    for d in result.dropped:
        print(f"dropped {d.ref}" + (f": its files are kept at {d.moved_to}" if d.moved_to else ""))
    if result.errors:
        for e in result.errors:
            print(format_diagnostic(e), file=sys.stderr)
        done = len(result.committed) + len(result.dropped)
        tail = f"{done} function(s) committed before it" if done else "nothing committed"
        print(f"iceberg-udf: {len(result.errors)} error(s); {tail}", file=sys.stderr)
        return EXIT_INPUT
    if result.dry_run:
        print("dry run: nothing written")
    elif not result.committed and not result.dropped:
        print("nothing to commit: every function is already up to date")
    return EXIT_OK


def _cmd_list(args: argparse.Namespace) -> int:
    with _warehouse(args) as wh:
        infos = wh.functions()
    if args.json:
        _print_json([i.to_json() for i in infos])
    else:
        sys.stdout.write(list_text(infos))
    return EXIT_INPUT if any(i.problem for i in infos) else EXIT_OK


def _time_travel(args: argparse.Namespace) -> dict[str, int | None]:
    return {"as_of": args.as_of, "log_entry": args.version}


def _cmd_show(args: argparse.Namespace) -> int:
    with _warehouse(args) as wh:
        summary, warnings = wh.show(args.name, resolve=_resolve_options(args), **_time_travel(args))
    _print_warnings(warnings)
    if args.json:
        _print_json(summary)
    else:
        sys.stdout.write(show_text(summary))
    return EXIT_OK


def _cmd_history(args: argparse.Namespace) -> int:
    with _warehouse(args) as wh:
        resolved, entries = wh.history(args.name, resolve=_resolve_options(args))
    if args.json:
        _print_json(
            {
                "function": str(resolved.ref),
                "metadata-file": resolved.path,
                "entries": [e.to_json() for e in entries],
            }
        )
    else:
        sys.stdout.write(history_text(str(resolved.ref), resolved.path, entries))
    return EXIT_OK


def _cmd_rollback(args: argparse.Namespace) -> int:
    with _warehouse(args) as wh:
        r = wh.rollback(args.name, log_entry=args.to_version, as_of=args.as_of)
    _print_warnings(r.warnings)
    if r.committed is None:
        print(
            f"{r.ref}: the versions of log entry {r.log_entry} are current already; nothing written"
        )
        return EXIT_OK
    for s in r.steps:
        print(f"rollback {r.ref}{s}")
    print(f"committed {r.ref}: {r.committed.path}")
    return EXIT_OK


def _cmd_drop(args: argparse.Namespace) -> int:
    with _warehouse(args) as wh:
        d = wh.drop(args.name, if_exists=args.if_exists)
    if d.moved_to is None:
        print(f"{d.ref} does not exist; nothing dropped")
    else:
        print(f"dropped {d.ref}: its files are kept at {d.moved_to}")
    return EXIT_OK


def _cmd_emit(args: argparse.Namespace) -> int:
    """``emit --warehouse DIR NAME`` or ``emit --name NAME METADATA``: one CLI, two sources."""
    # From $ICEBERG_UDF_WAREHOUSE only without --name: emit --name NAME METADATA reads a file.
    if args.warehouse or (os.environ.get(WAREHOUSE_ENV) and args.name is None):
        try:
            with _warehouse(args) as wh:
                result = wh.emit(
                    args.target,
                    args.dialect,
                    definition=args.definition,
                    definition_version=args.version,
                    allow_lossy=args.allow_lossy,
                    or_replace=args.or_replace,
                    resolve=_resolve_options(args),
                    as_of=args.as_of,
                    log_entry=args.log_entry,
                    ddl_name=None if args.name is None else tuple(args.name.split(".")),
                )
        except UnsupportedNameError as e:
            raise UnsupportedNameError(f"{e.message} (--name gives the name to write)") from None
    else:
        result = _emit_file(args)
    _print_warnings(result.warnings)
    if args.output:
        from translator.fileio import atomic_write

        atomic_write(Path(args.output), result.text)
    else:
        sys.stdout.write(result.text)
    return EXIT_OK


def _emit_file(args: argparse.Namespace) -> Any:
    from translator.emit import emit_ddl
    from translator.metadata import read_metadata_file

    if args.name is None:
        raise _usage_error("emit METADATA needs --name NAME (the function's name in the DDL)")
    if args.log_entry is not None:
        raise _usage_error("--log-entry needs --warehouse; for a file use --as-of or --version")
    meta = read_metadata_file(args.target)
    return emit_ddl(
        meta,
        args.dialect,
        tuple(args.name.split(".")),
        definition=args.definition,
        version=args.version,
        as_of=args.as_of,
        allow_lossy=args.allow_lossy,
        or_replace=args.or_replace,
    )


# --------------------------------------------------------------------------------------------
# parsers


def warehouse_parent(
    namespace_help: str = f"namespace of unqualified names (default: {DEFAULT_NAMESPACE})",
) -> argparse.ArgumentParser:
    """``--warehouse --catalog --namespace --no-cache``: every command that opens a warehouse."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "--warehouse", metavar="DIR", help=f"warehouse folder or URL (default: ${WAREHOUSE_ENV})"
    )
    p.add_argument(
        "--catalog",
        metavar="URL",
        help="SQL catalog: a SQLAlchemy URL, or 'sqlite' for WAREHOUSE/catalog.db "
        f"(default: ${CATALOG_ENV}; none: the files decide)",
    )
    p.add_argument(
        "--namespace",
        default=DEFAULT_NAMESPACE,
        metavar="NS",
        help=namespace_help,
    )
    p.add_argument("--no-cache", action="store_true", help="do not cache parsed metadata")
    return p


def _resolution() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("which metadata file is current")
    g.add_argument(
        "--metadata-file",
        metavar="PATH",
        help="use this file (a name in metadata/, a path under the function's folder, or an "
        "absolute path); the other rules are then ignored",
    )
    g.add_argument(
        "--function-uuid", metavar="UUID", help="only files with this function-uuid count"
    )
    g.add_argument(
        "--latest-by-log-timestamp",
        action="store_true",
        help="the file whose newest definition-log timestamp is largest, not the highest number",
    )
    return p


def _time_travel_args(
    p: argparse.ArgumentParser, version_flag: str, *, required: bool = False
) -> None:
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument(
        "--as-of",
        type=int,
        metavar="TIMESTAMP_MS",
        help="the definition versions current at this time (unix epoch milliseconds)",
    )
    g.add_argument(
        version_flag,
        dest="version" if version_flag == "--version" else "to_version",
        type=int,
        metavar="N",
        help="the definition versions of log entry N (1 = the first; see 'history')",
    )


def register(subparsers: Any) -> None:
    """Add the warehouse commands to ``iceberg-udf``'s subparsers."""
    common, resolution = warehouse_parent(), _resolution()

    p = subparsers.add_parser(
        "apply",
        parents=[common, compile_options_parent(argparse.ArgumentParser)],
        help="compile DDL and commit each changed function to a warehouse",
        description="Compile and merge every statement into the functions it names and commit "
        "each changed function as a new metadata file. Nothing is committed if any statement "
        "fails.",
    )
    p.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    p.add_argument("sql", nargs="+", metavar="SQL", help="SQL files; - reads standard input")
    p.set_defaults(run=_cmd_apply)

    p = subparsers.add_parser(
        "list", parents=[common], help="the functions of a warehouse and their current files"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_list)

    p = subparsers.add_parser(
        "show",
        parents=[common, resolution],
        help="a function's signatures, return types, current versions and docs",
    )
    p.add_argument("name", metavar="NAME", help="[namespace.]function")
    _time_travel_args(p, "--version")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_show)

    p = subparsers.add_parser(
        "history", parents=[common, resolution], help="a function's definition-log as a table"
    )
    p.add_argument("name", metavar="NAME", help="[namespace.]function")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_history)

    p = subparsers.add_parser(
        "rollback",
        parents=[common],
        help="make the definition versions of an earlier log entry current again",
        description="Append a log entry (and a new metadata file) that makes the definition "
        "versions current at an earlier point current again. No version is deleted.",
    )
    p.add_argument("name", metavar="NAME", help="[namespace.]function")
    _time_travel_args(p, "--to-version", required=True)
    p.set_defaults(run=_cmd_rollback)

    p = subparsers.add_parser(
        "drop",
        parents=[common],
        help="remove a function (its folder is kept under <namespace>/.dropped/)",
    )
    p.add_argument("name", metavar="NAME", help="[namespace.]function")
    p.add_argument("--if-exists", action="store_true", help="no error if it does not exist")
    p.set_defaults(run=_cmd_drop)

    p = subparsers.add_parser(
        "emit",
        parents=[common, resolution],
        help="CREATE FUNCTION DDL for an engine, from a metadata file or a warehouse function",
        description="emit --dialect D --name NAME METADATA, or emit --warehouse DIR NAME: one "
        "CREATE FUNCTION per definition, for its current version, the version-id given by "
        "--version, or the versions current at --as-of (or at warehouse log entry --log-entry).",
    )
    p.add_argument(
        "target",
        metavar="NAME|METADATA",
        help="with --warehouse: [namespace.]function; else a metadata file",
    )
    p.add_argument(
        "--name",
        metavar="NAME",
        help="the name to write in the DDL (needed with a METADATA file; with --warehouse, e.g. "
        "a Trino catalog.schema.name)",
    )
    p.add_argument("--dialect", required=True, choices=sorted(DIALECTS), help="target engine")
    p.add_argument("--definition", metavar="ID", help="only this definition-id")
    p.add_argument("--allow-lossy", action="store_true", help="emit even if information is lost")
    p.add_argument("--or-replace", action="store_true", help="emit CREATE OR REPLACE FUNCTION")
    p.add_argument("--output", "-o", metavar="FILE", help="write the DDL here")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--version", type=int, metavar="N", help="this version-id of each definition")
    g.add_argument(
        "--as-of", type=int, metavar="TIMESTAMP_MS", help="the versions current at this time"
    )
    g.add_argument(
        "--log-entry",
        type=int,
        metavar="N",
        help="with --warehouse: the versions of log entry N (1 = the first; see 'history')",
    )
    p.set_defaults(run=_cmd_emit)
