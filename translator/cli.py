"""The ``iceberg-udf`` command: argument parsing, output and exit codes over :mod:`translator.api`.

Exit codes: 0 success, 1 bad input (SQL, metadata, a conflict), 2 bad usage. Errors never reach
the user as a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path

from translator import __version__
from translator.cli_args import (
    UsageError,
    compile_options,
    compile_options_parent,
    read_sources,
)
from translator.dialects import DIALECTS
from translator.errors import (
    Diagnostic,
    MetadataError,
    TranslatorError,
    UnsupportedError,
    UnsupportedNameError,
    format_diagnostic,
)
from translator.fileio import atomic_write
from translator.metadata import UdfMetadata, dump_metadata, metadata_to_json

__all__ = ["UsageError", "main"]

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2

#: Feature modules that add their own subcommands: each has ``register(subparsers)``, and each
#: command returns an exit code (raising ``UsageError`` for bad usage found late).
_COMMAND_MODULES: tuple[str, ...] = ("translator.warehouse_commands", "translator.migrate_commands")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _cmd_validate(args: argparse.Namespace) -> int:
    from translator.metadata import validate_paths

    all_ok = True
    for line, ok in validate_paths([Path(p) for p in args.files]):
        print(line)
        all_ok &= ok
    return EXIT_OK if all_ok else EXIT_INPUT


def _report(errors: Sequence[TranslatorError], warnings: Sequence[Diagnostic]) -> None:
    for w in warnings:
        print(str(w), file=sys.stderr)
    for e in errors:
        print(format_diagnostic(e), file=sys.stderr)


def _cmd_compile(args: argparse.Namespace) -> int:
    from translator.api import compile_script
    from translator.metadata import read_metadata_file, validate_metadata

    if args.output and args.output_dir:
        raise UsageError("--output and --output-dir exclude each other")
    sources = read_sources(args.sql)
    existing = read_metadata_file(args.into) if args.into else None
    options = compile_options(args)
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
            )
        except TranslatorError as e:
            errors.append(e)
            continue
        errors += result.errors
        warnings += result.warnings
        skipped += len(result.skipped)
        functions.update(result.functions)
        current = None
    _report(errors, warnings)
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
        for k, t in texts.items():
            atomic_write(Path(args.output_dir) / f"{k}.metadata.json", t)
    elif args.output:
        for t in texts.values():
            atomic_write(Path(args.output), t)
    else:
        for t in texts.values():
            sys.stdout.write(t)
    return EXIT_OK


def _cmd_transpile(args: argparse.Namespace) -> int:
    """DDL in one dialect -> metadata -> DDL in the other, with compile's and emit's checks."""
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
            errors += [
                UnsupportedError(f"{w.message} (allow it with --allow-lossy)", w.position)
                for w in result.warnings
                if w.lossy
            ]
        for key, meta in result.functions.items():
            if meta is None:
                continue
            parts = tuple(key.split("."))
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
    _report(errors, warnings)
    if errors:
        print(f"iceberg-udf: {len(errors)} error(s); no DDL printed", file=sys.stderr)
        return EXIT_INPUT
    sys.stdout.write("".join(out))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="iceberg-udf",
        description="Compile SQL CREATE FUNCTION DDL into Apache Iceberg UDF metadata and back.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("validate", help="check metadata files against the Iceberg UDF spec")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(run=_cmd_validate)

    p = sub.add_parser(
        "compile",
        parents=[compile_options_parent(_Parser)],
        help="compile function DDL into Iceberg UDF metadata",
    )
    p.add_argument("--into", metavar="METADATA", help="existing metadata to merge into")
    p.add_argument("--output", "-o", metavar="FILE", help="write the metadata here")
    p.add_argument("--output-dir", metavar="DIR", help="write DIR/<name>.metadata.json each")
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

    for module in _COMMAND_MODULES:
        import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # sqlglot logs its own fallbacks; the translator reports what matters as warnings.
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except UsageError as e:
        print(f"iceberg-udf: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except MetadataError as e:
        print(format_diagnostic(e), file=sys.stderr)
        for path, message in e.problems:
            print(f"  {path}: {message}", file=sys.stderr)
        return EXIT_INPUT
    except TranslatorError as e:
        print(format_diagnostic(e), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
