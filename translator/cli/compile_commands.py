"""The commands between DDL and metadata: validate, compile, transpile and emit.

``emit`` reads a metadata file or, with ``--warehouse``, a warehouse function: one command, two
sources. Results go to standard output, warnings and errors to standard error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from translator.cli.args import (
    EXIT_INPUT,
    EXIT_OK,
    NAME_HELP,
    WAREHOUSE_ENV,
    Parser,
    UsageError,
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
from translator.cli.output import metadata_problem_lines, print_diagnostics, print_warnings
from translator.dialects import DIALECTS
from translator.errors import (
    Diagnostic,
    LossyError,
    MetadataError,
    OverloadError,
    TranslatorError,
    UnsupportedNameError,
)
from translator.fileio import atomic_write, child_path
from translator.names import format_part, parse_name
from translator.warehouse.layout import parse_metadata_name

if TYPE_CHECKING:
    from translator.metadata import UdfMetadata

__all__ = ["register", "register_emit"]


def _cmd_validate(args: argparse.Namespace) -> int:
    from translator.body_checks import representation_problems
    from translator.metadata import read_metadata_file

    all_ok = True
    for path in (Path(p) for p in args.files):
        try:  # each file read once; a bad one is reported and the batch goes on
            meta = read_metadata_file(path)
        except MetadataError as e:
            error = e
        else:
            # The spec's rules know no dialect: a body must also be one body in its own.
            problems = representation_problems(meta)
            if not problems:
                print(f"{path}: ok")
                continue
            error = MetadataError(f"{path}: a body is not one body", problems)
        for line in metadata_problem_lines(path, error):
            print(line)
        all_ok = False
    return EXIT_OK if all_ok else EXIT_INPUT


def into_name(path: str, meta: UdfMetadata) -> str:
    """Which function an ``--into`` file is (a metadata document holds no name): the folder its
    ``location`` points at, else the file's name (``add_one.metadata.json``, as ``--output-dir``
    writes it; a warehouse's ``NNNNN-uuid.metadata.json`` is named by its function folder). A
    folder is one name part: it is quoted when it holds a dot (:func:`format_part`)."""
    if meta.location:
        return format_part(meta.location.rstrip("/").rpartition("/")[2])
    p = Path(path).resolve()
    name = p.name
    for suffix in (".metadata.json", ".json"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    if parse_metadata_name(p.name) is not None and p.parent.name == "metadata":
        return format_part(p.parent.parent.name)
    return name


def _cmd_compile(args: argparse.Namespace) -> int:
    compiler()
    from translator.api import compile_script
    from translator.metadata import (
        UdfMetadata,
        dump_metadata,
        metadata_to_json,
        read_metadata_file,
        validate_metadata,
    )

    if args.output and args.output_dir:
        raise UsageError("--output and --output-dir exclude each other")
    sources = read_sources(args.sql)
    existing = read_metadata_file(args.into) if args.into else None
    options = compile_options(args)
    spark = _local_spark() if args.spark_session else None
    # Each source is parsed on its own so that positions name the right file.
    functions: dict[str, UdfMetadata | None] = {}
    errors: list[TranslatorError] = []
    warnings: list[Diagnostic] = []
    current = existing
    skipped = 0
    for name, sql in sources:
        try:
            result = compile_script(
                sql,
                args.dialect,
                into=current if current is not None else dict(functions),
                file=name,
                options=options,
                strict=args.strict,
                into_name=None if current is None else into_name(args.into, current),
                spark=spark,
            )
        except TranslatorError as e:
            errors.append(e)
            continue
        errors += result.errors
        warnings += result.warnings
        skipped += len(result.skipped)
        functions.update(result.functions)
        current = None
    print_diagnostics(errors, warnings)
    if errors:
        print(f"iceberg-udf: {len(errors)} error(s); nothing written", file=sys.stderr)
        return EXIT_INPUT
    if not functions:
        other = f" ({skipped} other statement(s) skipped)" if skipped else ""
        print(
            f"iceberg-udf: no CREATE or DROP FUNCTION statement in the input{other}; "
            "nothing written",
            file=sys.stderr,
        )
        return EXIT_OK
    written = {k: v for k, v in functions.items() if v is not None}
    for k, v in functions.items():
        if v is None:
            print(
                f"iceberg-udf: function {k} has no definition left; no metadata written",
                file=sys.stderr,
            )
    if len(written) > 1 and not args.output_dir:
        raise UsageError(
            f"the SQL defines {len(written)} functions ({', '.join(sorted(written))}): "
            "use --output-dir DIR to write one DIR/<name>.metadata.json each"
        )
    texts = {}
    for k, meta in written.items():
        assert isinstance(meta, UdfMetadata)
        problems = validate_metadata(metadata_to_json(meta))
        if problems:  # our own output must be valid: a bug, said plainly
            for pr in problems:
                print(f"internal error: {k}: {pr.path}: {pr.message}", file=sys.stderr)
            return EXIT_INPUT
        texts[k] = dump_metadata(meta)
    if args.output_dir:
        # Every name's path is checked before the first file is written.
        paths = {k: child_path(Path(args.output_dir), k, ".metadata.json") for k in texts}
        for k, t in texts.items():
            atomic_write(paths[k], t)
    elif args.output:
        for t in texts.values():
            atomic_write(Path(args.output), t)
    else:
        for t in texts.values():
            sys.stdout.write(t)
    return EXIT_OK


def _cmd_transpile(args: argparse.Namespace) -> int:
    """DDL in one dialect -> metadata -> DDL in the other, with compile's and emit's checks."""
    compiler("translator.emit")
    from translator.api import compile_script
    from translator.compile import CompileOptions
    from translator.emit import emit_ddl

    if args.source == args.to:
        raise UsageError("--from and --to name the same dialect")
    if args.trino_catalog is not None and args.to != "trino":
        raise UsageError("--trino-catalog is for Trino output (--to trino)")
    sources = read_sources(args.sql)
    errors: list[TranslatorError] = []
    warnings: list[Diagnostic] = []
    out: list[str] = []
    for name, sql in sources:
        result = compile_script(
            sql, args.source, file=name, options=CompileOptions(targets=(args.to,))
        )
        errors += result.errors
        # A missing target representation is emit's error below; the warning would repeat it.
        warnings += [
            w
            for w in result.warnings
            if (args.allow_lossy or not w.lossy) and w.code != "no-representation"
        ]
        if not args.allow_lossy:
            # What compile loses (a DEFAULT, a varchar length) is lost from the DDL too.
            errors += [LossyError(w.message, w.position) for w in result.warnings if w.lossy]
        for key, meta in result.functions.items():
            if meta is None:
                continue
            parts = parse_name(key)
            if args.trino_catalog is not None and len(parts) == 2:
                parts = (args.trino_catalog, *parts)
            try:
                emitted = emit_ddl(
                    meta,
                    args.to,
                    parts,
                    allow_lossy=args.allow_lossy,
                    or_replace=args.or_replace,
                )
            except UnsupportedNameError as e:
                if len(parts) == 2:
                    e = UnsupportedNameError(f"{e.message} (--trino-catalog C names it C.{key})")
                errors.append(e)
                continue
            except TranslatorError as e:
                errors.append(e)
                continue
            warnings += emitted.warnings
            out.append(emitted.text)
    print_diagnostics(errors, warnings)
    if errors:
        print(f"iceberg-udf: {len(errors)} error(s); no DDL printed", file=sys.stderr)
        return EXIT_INPUT
    sys.stdout.write("".join(out))
    return EXIT_OK


def _local_spark() -> Any:
    """A local SparkSession for ``--spark-session`` (its logs kept to errors)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError(
            "--spark-session needs pyspark (pip install 'iceberg-udf[spark]') and Java 17"
        ) from None
    session = (
        SparkSession.builder.master("local[1]")
        .appName("iceberg-udf")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("OFF")
    return session


def _cmd_emit(args: argparse.Namespace) -> int:
    """``emit --warehouse DIR NAME`` or ``emit --name NAME METADATA``: one CLI, two sources."""
    # From $ICEBERG_UDF_WAREHOUSE only without --name: emit --name NAME METADATA reads a file.
    if args.warehouse or (os.environ.get(WAREHOUSE_ENV) and args.name is None):
        try:
            name_arg(args.target)
        except argparse.ArgumentTypeError as e:
            raise UsageError(f"argument NAME: {e}") from None
        try:
            with open_warehouse(args) as wh:
                result = wh.emit(
                    args.target,
                    args.dialect,
                    definition=args.definition,
                    definition_version=args.version,
                    allow_lossy=args.allow_lossy,
                    or_replace=args.or_replace,
                    resolve=resolve_options(args),
                    as_of=args.as_of,
                    log_entry=args.log_entry,
                    ddl_name=None if args.name is None else parse_name(args.name),
                )
        except UnsupportedNameError as e:
            raise UnsupportedNameError(f"{e.message} (--name gives the name to write)") from None
        except OverloadError as e:
            raise OverloadError(f"{e.message} (--definition ID)", e.definitions) from None
    else:
        result = _emit_file(args)
    print_warnings(result.warnings)
    if args.output:
        atomic_write(Path(args.output), result.text)
    else:
        sys.stdout.write(result.text)
    return EXIT_OK


def _emit_file(args: argparse.Namespace) -> Any:
    from translator.emit import emit_ddl
    from translator.metadata import read_metadata_file

    if args.name is None:
        raise UsageError("emit METADATA needs --name NAME (the function's name in the DDL)")
    if args.log_entry is not None:
        raise UsageError("--log-entry needs --warehouse; for a file use --as-of or --version")
    meta = read_metadata_file(args.target)
    try:
        return emit_ddl(
            meta,
            args.dialect,
            parse_name(args.name),
            definition=args.definition,
            version=args.version,
            as_of=args.as_of,
            allow_lossy=args.allow_lossy,
            or_replace=args.or_replace,
        )
    except OverloadError as e:
        raise OverloadError(f"{e.message} (--definition ID)", e.definitions) from None


def register(subparsers: Any) -> None:
    """Add validate, compile and transpile to ``iceberg-udf``'s subparsers."""
    sub = subparsers
    p = sub.add_parser("validate", help="check metadata files against the Iceberg UDF spec")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(run=_cmd_validate)

    p = sub.add_parser(
        "compile",
        parents=[compile_options_parent(Parser)],
        help="compile function DDL into Iceberg UDF metadata",
    )
    p.add_argument("--into", metavar="METADATA", help="existing metadata to merge into")
    p.add_argument("--output", "-o", metavar="FILE", help="write the metadata here")
    p.add_argument("--output-dir", metavar="DIR", help="write DIR/<name>.metadata.json each")
    p.add_argument(
        "--spark-session",
        action="store_true",
        help="start a local Spark to derive the types a Spark function leaves out",
    )
    p.add_argument("sql", nargs="+", metavar="SQL", help="SQL files; - reads standard input")
    p.set_defaults(run=_cmd_compile)

    p = sub.add_parser("transpile", help="function DDL from one engine's dialect to the other's")
    p.add_argument("--from", dest="source", required=True, choices=sorted(DIALECTS))
    p.add_argument("--to", required=True, choices=sorted(DIALECTS))
    p.add_argument("--allow-lossy", action="store_true", help="emit even if information is lost")
    p.add_argument("--or-replace", action="store_true", help="emit CREATE OR REPLACE FUNCTION")
    p.add_argument(
        "--trino-catalog",
        metavar="C",
        help="write a two-part name schema.f as C.schema.f (Trino names a stored function "
        "catalog.schema.name)",
    )
    p.add_argument("sql", nargs="+", metavar="SQL", help="SQL files; - reads standard input")
    p.set_defaults(run=_cmd_transpile)


def register_emit(subparsers: Any) -> None:
    """Add emit (after the warehouse commands, where ``--help`` has always listed it)."""
    p = subparsers.add_parser(
        "emit",
        parents=[warehouse_parent(), resolution_parent()],
        help="CREATE FUNCTION DDL for an engine, from a metadata file or a warehouse function",
        description="emit --dialect D --name NAME METADATA, or emit --warehouse DIR NAME: one "
        "CREATE FUNCTION per definition, for its current version, the version-id given by "
        "--version, or the versions current at --as-of (or at warehouse log entry --log-entry).",
    )
    p.add_argument(
        "target",
        metavar="NAME|METADATA",
        help=f"with --warehouse: {NAME_HELP}; else a metadata file",
    )
    p.add_argument(
        "--name",
        metavar="NAME",
        type=name_arg,
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
