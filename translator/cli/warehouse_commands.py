"""The warehouse subcommands of ``iceberg-udf``: apply, list, show, history, rollback, drop.

A thin layer over :class:`~translator.warehouse.Warehouse`: parse, call, print (exit codes in
:mod:`translator.cli.args`). Results go to standard output, warnings and errors to standard
error. ``emit --warehouse`` is in :mod:`translator.cli.compile_commands`, with ``emit`` of a file.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from translator.cli.args import (
    EXIT_INPUT,
    EXIT_OK,
    NAME_HELP,
    REPLACE_FLAG,
    Parser,
    add_replace_flag,
    compile_options,
    compile_options_parent,
    name_arg,
    open_warehouse,
    read_sources,
    resolution_parent,
    resolve_options,
    warehouse_parent,
)
from translator.cli.loading import compiler
from translator.cli.output import (
    change_line,
    error_text,
    history_json,
    print_history,
    print_json,
    print_list,
    print_warnings,
    show_text,
)
from translator.warehouse.errors import HistoryWouldBeLostError

if TYPE_CHECKING:
    from translator.warehouse.results import ApplyResult

__all__ = ["register"]


def _cmd_apply(args: argparse.Namespace) -> int:
    compiler("translator.warehouse.warehouse")
    sources = read_sources(args.sql)
    options = compile_options(args)
    with open_warehouse(args, create=True) as wh:
        result = wh.apply(
            sources,
            args.dialect,
            namespace=args.namespace,
            dry_run=args.dry_run,
            options=options,
            strict=args.strict,
            replace_discarding_history=args.replace_discarding_history,
        )
    return _report_apply(result)


def _report_apply(result: ApplyResult) -> int:
    print_warnings(result.warnings)
    for line in (change_line(c) for c in result.changes):
        print(line)
    for c in result.committed:
        print(f"committed {c.ref}: {c.path}")
    for d in result.dropped:
        print(f"dropped {d.ref}" + (f": its files are kept at {d.moved_to}" if d.moved_to else ""))
    if result.errors:
        for e in result.errors:
            print(error_text(e), file=sys.stderr)
        if any(isinstance(e, HistoryWouldBeLostError) for e in result.errors):
            print(f"hint: {REPLACE_FLAG} drops and creates it again, history lost", file=sys.stderr)
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
    with open_warehouse(args) as wh:
        infos = wh.functions()
    if args.json:
        print_json([i.to_json() for i in infos])
    else:
        print_list(infos, sys.stdout)
    return EXIT_INPUT if any(i.problem for i in infos) else EXIT_OK


def _time_travel(args: argparse.Namespace) -> dict[str, int | None]:
    return {"as_of": args.as_of, "log_entry": _log_entry(args, "--version", "--log-entry")}


def _log_entry(args: argparse.Namespace, old: str, new: str) -> int | None:
    """The log entry asked for; the old spelling still works, with a note. "Version" means a
    definition's version-id everywhere else (emit --version), so it no longer names a log
    entry."""
    if args.old_log_entry is not None:
        print(
            f"note: {old} N is deprecated here: it means log entry N, so it is now spelled {new} N "
            "(emit --version N means a definition's version-id)",
            file=sys.stderr,
        )
        return int(args.old_log_entry)
    return args.log_entry  # type: ignore[no-any-return]


def _cmd_show(args: argparse.Namespace) -> int:
    with open_warehouse(args) as wh:
        summary, warnings = wh.show(args.name, resolve=resolve_options(args), **_time_travel(args))
    print_warnings(warnings)
    if args.json:
        print_json(summary)
    else:
        sys.stdout.write(show_text(summary))
    return EXIT_OK


def _cmd_history(args: argparse.Namespace) -> int:
    with open_warehouse(args) as wh:
        resolved, entries = wh.history(args.name, resolve=resolve_options(args), copy=False)
    if args.json:
        print_json(history_json(str(resolved.ref), resolved.path, entries))
    else:
        print_history(str(resolved.ref), resolved.path, entries, sys.stdout)
    return EXIT_OK


def _cmd_rollback(args: argparse.Namespace) -> int:
    with open_warehouse(args) as wh:
        entry = _log_entry(args, "--to-version", "--to-log-entry")
        r = wh.rollback(args.name, log_entry=entry, as_of=args.as_of)
    print_warnings(r.warnings)
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
    with open_warehouse(args) as wh:
        d = wh.drop(args.name, if_exists=args.if_exists)
    if d.moved_to is None:
        print(f"{d.ref} does not exist; nothing dropped")
    else:
        print(f"dropped {d.ref}: its files are kept at {d.moved_to}")
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# parsers


def _time_travel_args(
    p: argparse.ArgumentParser, flag: str, old_flag: str, *, required: bool = False
) -> None:
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument(
        "--as-of",
        type=int,
        metavar="TIMESTAMP_MS",
        help="the definition versions current at this time (unix epoch milliseconds)",
    )
    g.add_argument(
        flag,
        dest="log_entry",
        type=int,
        metavar="N",
        help="the definition versions of log entry N (1 = the first; see 'history')",
    )
    g.add_argument(
        old_flag, dest="old_log_entry", type=int, metavar="N", help=f"deprecated: {flag} N"
    )


def register(subparsers: Any) -> None:
    """Add the warehouse commands to ``iceberg-udf``'s subparsers."""
    common, resolution = warehouse_parent(), resolution_parent()

    p = subparsers.add_parser(
        "apply",
        parents=[common, compile_options_parent(Parser)],
        help="compile DDL and commit each changed function to a warehouse",
        description="Compile and merge every statement into the functions it names and commit "
        "each changed function as a new metadata file. Nothing is committed if any statement "
        "fails.",
    )
    p.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    add_replace_flag(p)
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
    p.add_argument("name", metavar="NAME", type=name_arg, help=NAME_HELP)
    _time_travel_args(p, "--log-entry", "--version")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_show)

    p = subparsers.add_parser(
        "history", parents=[common, resolution], help="a function's definition-log as a table"
    )
    p.add_argument("name", metavar="NAME", type=name_arg, help=NAME_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_history)

    p = subparsers.add_parser(
        "rollback",
        parents=[common],
        help="make the definition versions of an earlier log entry current again",
        description="Append a log entry (and a new metadata file) that makes the definition "
        "versions current at an earlier point current again. No version is deleted.",
    )
    p.add_argument("name", metavar="NAME", type=name_arg, help=NAME_HELP)
    _time_travel_args(p, "--to-log-entry", "--to-version", required=True)
    p.set_defaults(run=_cmd_rollback)

    p = subparsers.add_parser(
        "drop",
        parents=[common],
        help="remove a function (its folder is kept under <namespace>/.dropped/)",
    )
    p.add_argument("name", metavar="NAME", type=name_arg, help=NAME_HELP)
    p.add_argument("--if-exists", action="store_true", help="no error if it does not exist")
    p.set_defaults(run=_cmd_drop)
