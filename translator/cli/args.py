"""What the subcommands share: exit codes, bad usage, the option groups several commands take,
reading SQL sources, and opening the warehouse the arguments name. Each is defined once here.

Exit codes: 0 success, 1 bad input (SQL, metadata, a conflict, a missing function), 2 bad usage,
130 interrupted. Errors never reach the user as a traceback.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from translator.dialects import DIALECTS
from translator.errors import NameSyntaxError, TranslatorError
from translator.names import parse_name
from translator.warehouse.layout import DEFAULT_NAMESPACE, FunctionRef, namespace_folder

if TYPE_CHECKING:  # loaded by the commands that use them: the parser itself needs neither
    from translator.compile import CompileOptions
    from translator.warehouse.resolve import ResolveOptions
    from translator.warehouse.warehouse import Warehouse

__all__ = [
    "CATALOG_ENV",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "NAME_HELP",
    "WAREHOUSE_ENV",
    "Parser",
    "UsageError",
    "check_namespace",
    "compile_options",
    "compile_options_parent",
    "name_arg",
    "namespace_arg",
    "open_warehouse",
    "read_sources",
    "resolution_parent",
    "resolve_options",
    "warehouse_parent",
]

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: A bug: an exception no command expected, said in one line instead of a traceback.
EXIT_INTERNAL = 3
WAREHOUSE_ENV = "ICEBERG_UDF_WAREHOUSE"
CATALOG_ENV = "ICEBERG_UDF_CATALOG"


class UsageError(Exception):
    """Bad usage found after argument parsing: exit 2 with the message."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with :data:`EXIT_USAGE`."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)

#: The help of every NAME argument.
NAME_HELP = (
    '[namespace.]function; quote a part holding a dot: ns."my.fn" or `my.fn` (a quote doubled '
    "inside)"
)


def namespace_arg(text: str) -> str:
    """A ``--namespace`` (NAME syntax, :func:`translator.names.parse_name`) as the warehouse's
    folder for it (:func:`translator.warehouse.layout.namespace_folder`): ``a.b`` -> ``a.b``
    (two levels, as always), ``"a.b"`` -> ``a%2Eb`` (one part holding a dot). A malformed one
    is kept as given, for :func:`check_namespace` to refuse with the warehouse's reason."""
    try:
        return namespace_folder(parse_name(text))
    except NameSyntaxError:
        return text


def check_namespace(args: argparse.Namespace) -> None:
    """Refuse a ``--namespace`` no folder can be (bad usage, exit 2)."""
    try:
        FunctionRef(args.namespace, "x")
    except TranslatorError as e:
        raise UsageError(f"--namespace: {e.message}") from None


def name_arg(text: str) -> str:
    """A NAME argument (:func:`translator.names.parse_name`), checked: a malformed one (an
    unclosed quote, an empty part) is bad usage, exit 2."""
    try:
        parse_name(text)
    except NameSyntaxError as e:
        raise argparse.ArgumentTypeError(e.message) from None
    return text


def compile_options_parent(cls: type[ParserT]) -> ParserT:
    """``--dialect --strict --target --no-transpile --attach``, for compile and apply."""
    p = cls(add_help=False)
    p.add_argument("--dialect", required=True, choices=sorted(DIALECTS))
    p.add_argument("--strict", action="store_true", help="refuse lossy translations")
    p.add_argument(
        "--target",
        action="append",
        choices=sorted(DIALECTS),
        help="dialect to transpile each new version into (repeatable; default: all others)",
    )
    p.add_argument("--no-transpile", action="store_true", help="store the source body only")
    p.add_argument(
        "--attach",
        action="store_true",
        help="attach each body to the current version of its existing definition",
    )
    return p


def compile_options(args: argparse.Namespace) -> CompileOptions:
    from translator.compile import CompileOptions

    return CompileOptions(
        targets=tuple(args.target) if args.target else None,
        transpile=not args.no_transpile,
        attach=args.attach,
    )


def read_sources(paths: Sequence[str]) -> list[tuple[str, str]]:
    """(display name, text) of each SQL source; ``-`` is standard input.

    An unreadable file is bad input (exit 1), reported by the CLI like any other error.
    """
    out = []
    for p in paths:
        name = "<stdin>" if p == "-" else p
        try:
            # Strict UTF-8 and universal newlines, for standard input as for files.
            if p == "-":
                raw = io.BytesIO(sys.stdin.buffer.read())
                out.append((name, io.TextIOWrapper(raw, encoding="utf-8").read()))
            else:
                out.append((name, Path(p).read_text(encoding="utf-8")))
        except OSError as e:
            raise TranslatorError(f"cannot read {name}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise TranslatorError(f"cannot read {name}: not UTF-8 text ({e.reason})") from None
    return out


# --------------------------------------------------------------------------------------------
# The warehouse


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
        type=namespace_arg,
        metavar="NS",
        help=namespace_help + '; a.b is a two-level namespace, "a.b" one part holding a dot',
    )
    p.add_argument("--no-cache", action="store_true", help="do not cache parsed metadata")
    return p


#: Lets apply and migrate change a function of a REST catalog by dropping and re-creating it.
REPLACE_FLAG = "--replace-discarding-history"


def add_replace_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        REPLACE_FLAG,
        action="store_true",
        help="REST catalogs only: a function that exists and changes is dropped and created "
        "again (the catalog has no update), which discards its history: definition-log, "
        "version ids, timestamps (without it such a change is refused)",
    )


def open_warehouse(args: argparse.Namespace, *, create: bool = False) -> Warehouse:
    """The warehouse :func:`warehouse_parent`'s options (or their environment variables) name.

    Only the commands that write a new warehouse (``create``: apply, migrate) may start one: for
    the others a mistyped folder would read as a warehouse with no functions.
    """
    from translator.warehouse.warehouse import Warehouse, require_existing

    where = args.warehouse or os.environ.get(WAREHOUSE_ENV)
    if not where:
        raise UsageError(f"--warehouse DIR is required (or set {WAREHOUSE_ENV})")
    check_namespace(args)
    if not create:
        require_existing(where, " (apply creates one)")
    return Warehouse(
        where,
        namespace=args.namespace,
        catalog=args.catalog or os.environ.get(CATALOG_ENV) or None,
        cache=False if args.no_cache else None,
    )


def resolution_parent() -> argparse.ArgumentParser:
    """``--metadata-file --function-uuid --latest-by-log-timestamp``: which file is current."""
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


def resolve_options(args: argparse.Namespace) -> ResolveOptions:
    from translator.warehouse.resolve import ResolveOptions

    return ResolveOptions(
        metadata_file=args.metadata_file,
        function_uuid=args.function_uuid,
        latest_by_log_timestamp=args.latest_by_log_timestamp,
    )
