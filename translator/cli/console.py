"""The ``iceberg-udf`` command: the parser, and the one place errors become exit codes.

Each command group registers its own subcommands (:mod:`~translator.cli.compile_commands`,
:mod:`~translator.cli.warehouse_commands`, :mod:`~translator.cli.migrate_commands`); each
command returns an exit code (:mod:`translator.cli.args`), raising ``UsageError`` for bad usage
found late. Errors never reach the user as a traceback.

Building the parser loads no more than its options need: each command module imports what its
command runs (sqlglot, lark, pydantic models, the warehouse) inside that command, so ``--help``
or a usage error answers without them, and a ``compile`` loads neither the warehouse's commits
nor its REST client, nor the server (tests/cli/test_start_up.py holds this).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import io
import logging
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from translator import __version__
from translator.cli import compile_commands, migrate_commands, serve_commands, warehouse_commands
from translator.cli.args import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
)
from translator.cli.loading import frozen_run
from translator.collector import for_a_whole_run
from translator.errors import MetadataError, TranslatorError, format_diagnostic
from translator.redact import mask_secrets, url_secrets
from translator.warehouse.errors import (
    AmbiguousMetadataError,
    OptionError,
    UnreadableMetadataError,
)

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


class _Masked(io.TextIOBase):
    """A text stream that masks the command line's secrets (a catalog URL's password) in
    everything written to it: whatever a driver or a library echoes, the user never sees them."""

    def __init__(self, stream: TextIO, secrets: list[str]) -> None:
        self.stream, self.secrets = stream, secrets

    def write(self, text: str) -> int:
        self.stream.write(mask_secrets(text, self.secrets))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _freeze_at_exit()
    secrets = [s for arg in argv for s in url_secrets(arg)]
    froze = gc.get_freeze_count() == 0  # then the run's freeze is the one below
    with for_a_whole_run(), frozen_run(froze):
        if not secrets:
            return _main(argv)
        out, err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Masked(out, secrets), _Masked(err, secrets)
        try:
            return _main(argv)
        finally:
            sys.stdout, sys.stderr = out, err


def _freeze_at_exit() -> None:
    """Freeze the heap when the interpreter exits, before its shutdown collections.

    A process ends by collecting garbage over its whole heap, then clearing every module and
    collecting again, freeing cycle by cycle what the operating system is about to free at
    once: after a one-statement ``migrate`` about 0.14G instructions (~20 ms, twice what a
    process that only imports sqlglot pays), more after a long run. Frozen objects are left to
    the operating system; objects that no cycle holds are still freed (and finalized) as the
    modules are cleared, and the interpreter still flushes its standard streams. Our files are
    closed by ``with`` blocks and written atomically, so nothing depends on a finalizer of a
    cycle at exit. The command owns its process; an ``atexit`` hook runs only once the program
    that called :func:`main` is exiting anyway, so an embedding program (or a test run calling
    ``main`` in-process) keeps its collector as it was until then.
    """
    atexit.unregister(gc.freeze)  # one hook a process, however often main runs in it
    atexit.register(gc.freeze)


def _main(argv: list[str]) -> int:
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
        if isinstance(e, UnreadableMetadataError) and e.previous is not None:
            print(f"hint: --metadata-file {e.previous} reads the file before it", file=sys.stderr)
        return EXIT_INPUT
    except OptionError as e:
        print(f"error: {_OPTION_MESSAGES.get(e.reason, e.message)}", file=sys.stderr)
        return EXIT_INPUT
    except TranslatorError as e:
        from translator.cli.output import error_text

        print(error_text(e), file=sys.stderr)
        if isinstance(e, AmbiguousMetadataError):
            print(f"hint: --metadata-file {e.files[0]} reads one of them", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # a bug: said in one line (ICEBERG_UDF_DEBUG=1 shows the traceback)
        if os.environ.get("ICEBERG_UDF_DEBUG") == "1":
            raise
        detail = str(e).splitlines()[0] if str(e).strip() else ""
        print(
            f"iceberg-udf: internal error: {type(e).__name__}: {detail} (a bug: please report "
            "it with the command that caused it; ICEBERG_UDF_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
