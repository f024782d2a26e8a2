"""The ``iceberg-udf`` command: the parser, and the one place errors become exit codes.

Each command group registers its own subcommands (:mod:`~translator.cli.compile_commands`,
:mod:`~translator.cli.warehouse_commands`, :mod:`~translator.cli.migrate_commands`); each
command returns an exit code (:mod:`translator.cli.args`), raising ``UsageError`` for bad usage
found late. Errors never reach the user as a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from translator import __version__
from translator.cli import compile_commands, migrate_commands, serve_commands, warehouse_commands
from translator.cli.args import (
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
)
from translator.errors import MetadataError, TranslatorError, format_diagnostic
from translator.warehouse.errors import OptionError

__all__ = ["build_parser", "main"]

#: What the command line says, with its flags, for the library's :class:`OptionError` cases.
_OPTION_MESSAGES = {
    "sqlite-catalog-not-local": "--catalog sqlite keeps catalog.db in a local warehouse folder",
    "file-rules-with-catalog": "--function-uuid and --latest-by-log-timestamp choose among "
    "files; with a catalog the catalog says which file is current (use --metadata-file)",
    "file-rules-with-rest": "--metadata-file, --function-uuid and --latest-by-log-timestamp "
    "choose among files; a REST catalog says which metadata is current",
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="iceberg-udf",
        description="Compile SQL CREATE FUNCTION DDL into Apache Iceberg UDF metadata and back.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    # In the order --help has always listed them.
    compile_commands.register(sub)
    warehouse_commands.register(sub)
    compile_commands.register_emit(sub)
    migrate_commands.register(sub)
    serve_commands.register(sub)
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
    except OptionError as e:
        print(f"error: {_OPTION_MESSAGES.get(e.reason, e.message)}", file=sys.stderr)
        return EXIT_INPUT
    except TranslatorError as e:
        print(format_diagnostic(e), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
